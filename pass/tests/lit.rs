//! A lit-style runner: every file under test/ that has `RUN:` lines is a test. Each RUN line (a
//! trailing `\` continues it on the next RUN line) runs in bash with pipefail, after substitution:
//!
//! | token        | becomes |
//! |--------------|---------|
//! | `%opt`       | opt-22 |
//! | `%plugin`    | the klap plugin built with this test (target/<profile>/libklap.so) |
//! | `%klap`      | the `klap` command-line tool |
//! | `%clang`     | clang++-22 |
//! | `%cudaflags` | the flags for a CUDA build with device launches (arch sm_90, -fgpu-rdc, new driver) |
//! | `%cudalink`  | the link flags for such a build (cudart, libcudadevrt) |
//! | `%cuda`      | the CUDA tree (.toolchain/cuda, or $KLAP_CUDA_PATH) |
//! | `%ptxas`, `%nvlink`, `%cudadevrt` | the CUDA tree's ptxas, nvlink and libcudadevrt.a |
//! | `%root`      | the project root |
//! | `%s`, `%S`   | the test file, its folder |
//! | `%t`         | a path in a fresh temporary folder for this test |
//!
//! FileCheck, not, count, llc and the rest of LLVM 22's tools are first on PATH.
//! `KLAP_LIT_FILTER=text` runs only the tests whose path contains text.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("ll" | "cu" | "test")) {
            out.push(p);
        }
    }
}

/// The RUN commands of a test, continuation lines joined.
fn run_lines(text: &str) -> Vec<String> {
    let mut cmds = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let Some(i) = line.find("RUN:") else { continue };
        let part = line[i + 4..].trim();
        match part.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(part);
                cmds.push(std::mem::take(&mut pending));
            }
        }
    }
    cmds
}

struct Tools {
    plugin: PathBuf,
    klap: PathBuf,
    cuda: PathBuf,
}

impl Tools {
    fn find() -> Tools {
        // This test binary is target/<profile>/deps/lit-<hash>: the plugin is built beside deps/.
        let profile_dir = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
        let plugin = std::env::var_os("KLAP_PLUGIN").map(PathBuf::from).unwrap_or_else(|| profile_dir.join("libklap.so"));
        let klap = PathBuf::from(env!("CARGO_BIN_EXE_klap"));
        let cuda = std::env::var_os("KLAP_CUDA_PATH").map(PathBuf::from).unwrap_or_else(|| root().join(".toolchain/cuda"));
        assert!(plugin.exists(), "the plugin {} is missing: run `cargo build --release` (or `make test`) first", plugin.display());
        assert!(cuda.join("bin/ptxas").exists(), "no CUDA tree at {}: run scripts/setup-toolchain.sh", cuda.display());
        Tools { plugin, klap, cuda }
    }

    fn substitute(&self, cmd: &str, test: &Path, tmp: &Path) -> String {
        let cuda = self.cuda.display().to_string();
        let cudaflags = format!(
            "-x cuda --cuda-path={cuda} --cuda-gpu-arch=sm_90 -fgpu-rdc --offload-new-driver -Wno-unknown-cuda-version"
        );
        let cudalink = format!("-L{cuda}/lib -lcudart_static -ldl -lrt -lpthread -Xoffload-linker {cuda}/lib/libcudadevrt.a");
        let subs: Vec<(&str, String)> = vec![
            ("%cudaflags", cudaflags),
            ("%cudalink", cudalink),
            ("%cudadevrt", format!("{cuda}/lib/libcudadevrt.a")),
            ("%cuda", cuda.clone()),
            ("%ptxas", format!("{cuda}/bin/ptxas")),
            ("%nvlink", format!("{cuda}/bin/nvlink")),
            ("%plugin", self.plugin.display().to_string()),
            ("%klap", self.klap.display().to_string()),
            ("%opt", format!("{LLVM_BIN}/opt")),
            ("%clang", format!("{LLVM_BIN}/clang++")),
            ("%root", root().display().to_string()),
            ("%s", test.display().to_string()),
            ("%S", test.parent().unwrap().display().to_string()),
            ("%t", tmp.join("t").display().to_string()),
        ];
        let mut out = String::new();
        let mut rest = cmd;
        'scan: while let Some(i) = rest.find('%') {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            for (token, value) in &subs {
                if let Some(after) = tail.strip_prefix(token) {
                    out.push_str(value);
                    rest = after;
                    continue 'scan;
                }
            }
            out.push('%');
            rest = &tail[1..];
        }
        out.push_str(rest);
        out
    }
}

/// Runs one test; Err holds the report of the first failing RUN line.
fn run_test(tools: &Tools, test: &Path, cmds: &[String]) -> Result<(), String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = format!("{LLVM_BIN}:{}", std::env::var("PATH").unwrap_or_default());
    for cmd in cmds {
        let expanded = tools.substitute(cmd, test, tmp.path());
        let out = assert_cmd::Command::new("bash")
            .args(["-o", "pipefail", "-c", &expanded])
            .current_dir(tmp.path())
            .env("PATH", &path)
            .timeout(std::time::Duration::from_secs(300))
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "RUN: {cmd}\n$ {expanded}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(())
}

#[test]
fn lit() {
    let tools = Tools::find();
    let mut files = Vec::new();
    collect(&root().join("test"), &mut files);
    files.sort();
    let filter = std::env::var("KLAP_LIT_FILTER").unwrap_or_default();
    let tests: Vec<(PathBuf, Vec<String>)> = files
        .into_iter()
        .filter(|f| f.display().to_string().contains(&filter))
        .filter_map(|f| {
            let cmds = run_lines(&std::fs::read_to_string(&f).ok()?);
            (!cmds.is_empty()).then_some((f, cmds))
        })
        .collect();
    assert!(!tests.is_empty(), "no lit tests found under test/");

    let queue = Arc::new(Mutex::new(tests.into_iter()));
    let results = Arc::new(Mutex::new(Vec::new()));
    let tools = Arc::new(tools);
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(2, 8);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (queue, results, tools) = (queue.clone(), results.clone(), tools.clone());
            scope.spawn(move || loop {
                let Some((file, cmds)) = queue.lock().unwrap().next() else { break };
                let outcome = run_test(&tools, &file, &cmds);
                results.lock().unwrap().push((file, outcome));
            });
        }
    });
    let mut results = Arc::try_unwrap(results).unwrap().into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let rel = |p: &Path| p.strip_prefix(root()).unwrap_or(p).display().to_string();
    let mut failed = 0;
    for (file, outcome) in &results {
        match outcome {
            Ok(()) => println!("PASS: {}", rel(file)),
            Err(report) => {
                failed += 1;
                println!("FAIL: {}\n{report}", rel(file));
            }
        }
    }
    println!("lit: {} passed, {} failed", results.len() - failed, failed);
    assert_eq!(failed, 0, "{failed} lit test(s) failed");
}

#[test]
fn run_lines_join_continuations() {
    let text = "; RUN: a \\\n; RUN:   b | c\n; RUN: d\n; CHECK: x";
    assert_eq!(run_lines(text), vec!["a  b | c".to_string(), "d".to_string()]);
}
