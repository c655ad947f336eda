// Builds the C++ shim against Debian's LLVM 22 and records the LLVM version the plugin is built for.
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
        } else if flag.starts_with("-D") || flag.starts_with("-std=") || flag == "-fno-exceptions" {
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

/// The device runtime, CUDA C++ compiled to NVPTX bitcode with clang-22 (no CUDA headers needed),
/// embedded in the plugin.
fn compile_runtime() {
    let src = std::path::Path::new("../runtime/klap_rt.cu");
    println!("cargo:rerun-if-changed={}", src.display());
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("klap_rt.bc");
    let clang = std::env::var("KLAP_CLANG").unwrap_or_else(|_| "clang++-22".into());
    let status = Command::new(&clang)
        .args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_90"])
        .args(["-Xclang", "-target-feature", "-Xclang", "+ptx80", "-O2", "-fgpu-rdc", "-emit-llvm", "-c"])
        .args(["-Wall", "-Wextra", "-Werror"])
        .arg(src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("klap needs {clang} to build its device runtime ({e}); run scripts/setup-toolchain.sh"));
    assert!(status.success(), "compiling the device runtime {} failed", src.display());
}
