//! `klap report <file.ll|.bc|.cu>`: the device launches of a module as a table a person reads.
//!
//! The analysis is the plugin's own: this runs opt-22 with libklap.so and the `print<klap-launches>`
//! and `print<klap-graph>` printers, compiling a .cu file's device side with clang-22 first.

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Parser)]
#[command(name = "klap", version, about = "CUDA dynamic-parallelism launch tools (klap LLVM plugin)")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the device launch sites of a module (.ll, .bc, or a CUDA .cu source).
    Report {
        file: PathBuf,
        /// GPU architecture for compiling a .cu file.
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// CUDA installation for compiling a .cu file (default: $KLAP_CUDA_PATH or the project's .toolchain/cuda).
        #[arg(long)]
        cuda_path: Option<PathBuf>,
        /// The klap plugin (default: libklap.so beside this program).
        #[arg(long)]
        plugin: Option<PathBuf>,
        /// Extra flags for clang when compiling a .cu file (e.g. -I...).
        #[arg(long = "clang-flag", allow_hyphen_values = true)]
        clang_flags: Vec<String>,
    },
}

fn main() -> ExitCode {
    let Cli { command: Cmd::Report { file, arch, cuda_path, plugin, clang_flags } } = Cli::parse();
    match report(&file, &arch, cuda_path, plugin, &clang_flags) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("klap: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn exe_dir() -> PathBuf {
    std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or_default()
}

fn default_cuda_path() -> PathBuf {
    if let Some(p) = std::env::var_os("KLAP_CUDA_PATH") {
        return p.into();
    }
    // target/<profile>/klap -> <project>/.toolchain/cuda
    exe_dir().join("../../.toolchain/cuda")
}

fn run(cmd: &mut Command, what: &str) -> Result<(String, String), String> {
    let out = cmd.output().map_err(|e| format!("cannot run {what}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("{what} failed:\n{}", stderr.trim_end()));
    }
    Ok((stdout, stderr))
}

fn report(file: &Path, arch: &str, cuda_path: Option<PathBuf>, plugin: Option<PathBuf>, clang_flags: &[String]) -> Result<String, String> {
    if !file.exists() {
        return Err(format!("{}: no such file", file.display()));
    }
    let plugin = plugin.unwrap_or_else(|| exe_dir().join("libklap.so"));
    if !plugin.exists() {
        return Err(format!("plugin {} not found (build it with cargo build --release)", plugin.display()));
    }
    let tmp = std::env::temp_dir().join(format!("klap-report-{}.ll", std::process::id()));
    let module = if file.extension().is_some_and(|e| e == "cu") {
        let cuda = cuda_path.unwrap_or_else(default_cuda_path);
        let mut clang = Command::new("clang++-22");
        clang
            .args(["-x", "cuda", "--cuda-device-only", "-emit-llvm", "-S", "-O2", "-gline-tables-only", "-fgpu-rdc"])
            .arg(format!("--cuda-gpu-arch={arch}"))
            .arg(format!("--cuda-path={}", cuda.display()))
            .arg("-Wno-unknown-cuda-version")
            .args(clang_flags)
            .arg(file)
            .arg("-o")
            .arg(&tmp);
        run(&mut clang, "clang++-22")?;
        tmp.clone()
    } else {
        file.to_path_buf()
    };
    let result = run(
        Command::new("opt-22")
            .arg(format!("-load-pass-plugin={}", plugin.display()))
            .arg("-passes=print<klap-launches>,print<klap-graph>")
            .arg("-disable-output")
            .arg(&module),
        "opt-22",
    );
    let _ = std::fs::remove_file(&tmp);
    let (_, printed) = result?;
    Ok(format_report(&file.display().to_string(), &printed))
}

/// Splits `key=value key=[a b] key="x y"` into pairs; values may hold brackets or quotes with spaces.
fn fields(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let (word, after) = match rest.find(' ') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let Some((key, value_start)) = word.split_once('=') else {
            // A bare word: a flag, or a value continuing the previous field.
            out.push((word.to_string(), String::new()));
            rest = after.trim_start();
            continue;
        };
        let value_start_idx = rest.find('=').unwrap() + 1;
        let value_text = &rest[value_start_idx..];
        let end = match value_start.chars().next() {
            Some('[') => value_text.find(']').map(|i| i + 1),
            Some('"') => value_text[1..].find('"').map(|i| i + 2),
            Some('(') => value_text.find(')').map(|i| i + 1),
            _ => None,
        }
        .unwrap_or_else(|| value_text.find(' ').unwrap_or(value_text.len()));
        let value = value_text[..end].trim_matches('"').to_string();
        out.push((key.to_string(), value));
        rest = value_text[end..].trim_start();
    }
    out
}

fn get<'a>(f: &'a [(String, String)], key: &str) -> &'a str {
    f.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).unwrap_or("")
}

fn demangle_all(names: &[String]) -> Vec<String> {
    let out = Command::new("llvm-cxxfilt-22")
        .args(names)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect::<Vec<_>>());
    match out {
        Some(v) if v.len() == names.len() => v,
        _ => names.to_vec(),
    }
}

fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let s: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("  {}\n", s.join("  ").trim_end())
    };
    let mut out = line(header.iter().map(|s| s.to_string()).collect());
    out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect()));
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

fn format_report(name: &str, printed: &str) -> String {
    let launches: Vec<Vec<(String, String)>> =
        printed.lines().filter_map(|l| l.strip_prefix("klap-launch: ")).map(fields).collect();
    let unrecognized: Vec<Vec<(String, String)>> =
        printed.lines().filter_map(|l| l.strip_prefix("klap-launch-unrecognized: ")).map(fields).collect();
    let graph: Vec<Vec<(String, String)>> = printed.lines().filter_map(|l| l.strip_prefix("klap-graph: ")).map(fields).collect();

    let mut names: Vec<String> = Vec::new();
    for f in launches.iter().chain(&unrecognized) {
        names.push(get(f, "caller").to_string());
        names.push(get(f, "child").to_string());
    }
    for f in &graph {
        names.push(get(f, "kernel").to_string());
    }
    let plain = demangle_all(&names);
    let pretty = |n: &str| names.iter().position(|x| x == n).map(|i| plain[i].clone()).unwrap_or_else(|| n.to_string());

    let mut out = format!("klap report for {name}\n\n");
    if let Some(note) = printed.lines().find_map(|l| l.strip_prefix("klap-launches: ")) {
        out.push_str(&format!("{note}\n"));
        return out;
    }
    out.push_str(&format!("{} device launch site(s) recognized, {} left alone\n\n", launches.len(), unrecognized.len()));
    if !launches.is_empty() {
        let rows: Vec<Vec<String>> = launches
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut caller = pretty(get(f, "caller"));
                if f.iter().any(|(k, _)| k == "device-function") {
                    caller = format!("{caller} (device fn; from {})", get(f, "reached-from"));
                }
                vec![
                    (i + 1).to_string(),
                    caller,
                    pretty(get(f, "child")),
                    format!("{}{}", get(f, "abi"), if f.iter().any(|(k, _)| k == "ptsz") { "/ptsz" } else { "" }),
                    get(f, "grid").to_string(),
                    get(f, "block").to_string(),
                    get(f, "smem").to_string(),
                    get(f, "stream").to_string(),
                    get(f, "args").to_string(),
                    if get(f, "loop") == "0" { "no".into() } else { format!("depth {}", get(f, "loop")) },
                    get(f, "divergent").to_string(),
                    get(f, "loc").to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &["#", "caller", "child", "abi", "grid", "block", "smem", "stream", "args", "in loop", "divergent", "location"],
            &rows,
        ));
        out.push('\n');
    }
    if !unrecognized.is_empty() {
        out.push_str("Left alone (never transformed):\n");
        let rows: Vec<Vec<String>> = unrecognized
            .iter()
            .map(|f| vec![pretty(get(f, "caller")), get(f, "reason").into(), get(f, "detail").into(), get(f, "loc").into()])
            .collect();
        out.push_str(&table(&["caller", "reason", "detail", "location"], &rows));
        out.push('\n');
    }
    out.push_str("Launch graph:\n");
    for f in &graph {
        let children: Vec<String> = get(f, "launches").trim_matches(['[', ']']).split(',').filter(|s| !s.is_empty()).map(pretty).collect();
        let recursive = if f.iter().any(|(k, _)| k == "recursive") { "  (recursive)" } else { "" };
        out.push_str(&format!(
            "  {} -> {}{}\n",
            pretty(get(f, "kernel")),
            if children.is_empty() { "(none)".into() } else { children.join(", ") },
            recursive
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fields;

    #[test]
    fn splits_fields_with_brackets_and_quotes() {
        let f = fields("caller=p child=c grid=(%1,1,1) args=2 [0:ptr=%a 8:i32=3] loop=0 device-function detail=\"a b\"");
        let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["caller", "child", "grid", "args", "[0:ptr", "8:i32", "loop", "device-function", "detail"]);
        assert_eq!(f[2].1, "(%1,1,1)");
        assert_eq!(f[8].1, "a b");
    }
}
