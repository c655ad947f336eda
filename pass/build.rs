// Builds the C++ shim against Debian's LLVM 22 and records the LLVM version the plugin is built for.
use std::path::{Path, PathBuf};
use std::process::Command;

fn llvm_config(arg: &str) -> String {
    let exe = std::env::var("KLAP_LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-22".into());
    let out = Command::new(&exe)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("klap needs LLVM 22: running {exe} failed ({e}); run scripts/setup-toolchain.sh"));
    assert!(out.status.success(), "{exe} {arg} failed");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn main() {
    println!("cargo:rerun-if-changed=shim/klap_shim.cpp");
    println!("cargo:rerun-if-env-changed=KLAP_LLVM_CONFIG");
    let version = llvm_config("--version");
    let major = version.split('.').next().unwrap().to_string();
    assert_eq!(major, "22", "klap is written for LLVM 22, found LLVM {version}");
    println!("cargo:rustc-env=KLAP_LLVM_VERSION={version}");
    println!("cargo:rustc-env=KLAP_LLVM_MAJOR={major}");

    let mut build = cc::Build::new();
    build.cpp(true).file("shim/klap_shim.cpp").warnings(true).extra_warnings(true);
    for flag in llvm_config("--cxxflags").split_whitespace() {
        // llvm-config's flags carry the include path, the language standard and LLVM's own defines.
        // LLVM's headers are included as system headers: their warnings are not ours.
        if let Some(dir) = flag.strip_prefix("-I") {
            build.flag("-isystem").flag(dir);
        } else if flag.starts_with("-D") || flag.starts_with("-std=") || flag == "-fno-exceptions" || flag == "-fno-rtti" {
            // An LLVM built without RTTI needs a shim without it, or the plugin fails to load.
            build.flag(flag);
        }
    }
    build.flag("-Wno-unused-parameter");
    // The index-register table the shim shares with the pass and the runtime.
    build.include("../runtime");
    println!("cargo:rerun-if-changed=../runtime/index_registers.def");
    build.compile("klap_shim");
    compile_runtime();
}

/// The device runtime (runtime/, CUDA C++; what each part does: runtime/klap_rt.h), built into the
/// one NVPTX bitcode module the plugin embeds: each part compiled by clang-22 without optimizing
/// (no CUDA headers: clang builtins only), the parts linked by llvm-link, and the whole optimized
/// once by opt, as clang -O2 would optimize them in one file. Optimizing each part on its own instead
/// would keep a helper that one part defines from being inlined into the entry points of another.
fn compile_runtime() {
    let dir = Path::new("../runtime");
    // A folder: any file added, changed or removed in it.
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-env-changed=KLAP_CLANG");
    let parts = runtime_parts(dir);
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let clang = std::env::var("KLAP_CLANG").unwrap_or_else(|_| "clang++-22".into());
    let bin = PathBuf::from(llvm_config("--bindir"));

    // KLAP_RUNTIME_LINE_TABLES=1: the runtime with line tables, so that a profiler's source view
    // (scripts/ncu-source-sum.py) tells its code from the program's.
    println!("cargo:rerun-if-env-changed=KLAP_RUNTIME_LINE_TABLES");
    let line_tables = std::env::var("KLAP_RUNTIME_LINE_TABLES").is_ok_and(|v| v == "1");
    let mut compiled = Vec::new();
    for part in &parts {
        let bc = out.join(part).with_extension("bc");
        // -O2 with LLVM's passes off: the IR clang's -O2 optimizes (TBAA, lifetimes, no optnone).
        run(Command::new(&clang)
            .args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_90"])
            .args(["-Xclang", "-target-feature", "-Xclang", "+ptx80", "-O2", "-fgpu-rdc", "-emit-llvm", "-c"])
            .args(["-Xclang", "-disable-llvm-passes", "-Wall", "-Wextra", "-Werror"])
            .args(line_tables.then_some("-gline-tables-only"))
            .arg(dir.join(part))
            .arg("-o")
            .arg(&bc));
        compiled.push(bc);
    }
    let linked = out.join("klap_rt.linked.bc");
    run(Command::new(bin.join("llvm-link")).args(&compiled).arg("-o").arg(&linked));
    // What clang -O2 does for CUDA device code, so that the parts come out as they did from one file:
    // value names dropped, memset formed without a C library (clang's CUDA driver passes that flag),
    // the target CPU known (NVVMReflect's architecture). `internalize` makes the helpers the parts
    // share internal, as static functions are in one file; the entry points (__klap_*) and the
    // runtime's variables (klap_*) stay external for the pass to link and find.
    run(Command::new(bin.join("opt"))
        .args(["--discard-value-names", "-enable-memcpyopt-without-libcalls", "-mcpu=sm_90"])
        .args(["-passes=internalize,default<O2>", "-internalize-public-api-list=__klap_*,klap_*"])
        .arg(&linked)
        .arg("-o")
        .arg(out.join("klap_rt.bc")));
}

/// The runtime's parts, in the order runtime/klap_rt.cu includes them (that file is the whole
/// runtime as one translation unit, for programs that compile it in); every other .cu file of
/// runtime/ must be among them.
fn runtime_parts(dir: &Path) -> Vec<String> {
    let whole = dir.join("klap_rt.cu");
    let text = std::fs::read_to_string(&whole).unwrap_or_else(|e| panic!("reading {}: {e}", whole.display()));
    let parts: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("#include \"")?.strip_suffix(".cu\""))
        .map(|name| format!("{name}.cu"))
        .collect();
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".cu") && name != "klap_rt.cu" {
            assert!(parts.contains(&name), "runtime/{name} is not included by runtime/klap_rt.cu: add it there");
        }
    }
    parts
}

fn run(cmd: &mut Command) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("building klap's device runtime: running {cmd:?} failed ({e}); run scripts/setup-toolchain.sh"));
    assert!(status.success(), "building klap's device runtime: {cmd:?} failed");
}
