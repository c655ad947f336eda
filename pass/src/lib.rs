//! klap: an LLVM pass plugin that makes CUDA dynamic parallelism fast.
//!
//! The C++ shim (shim/klap_shim.cpp) registers the passes with LLVM's new pass manager and calls back
//! into the functions here; [`ffi`] holds every unsafe call. The passes work on the launch-site model
//! of [`launch`].

pub mod abi;
pub mod aggregate;
pub mod ffi;
pub mod graph;
pub mod launch;
pub mod normalize;
pub mod print;
pub mod remarks;
pub mod uniform;

use ffi::{Ctx, Module};
use launch::LaunchModel;

pub const LLVM_VERSION: &str = env!("KLAP_LLVM_VERSION");
pub const LLVM_MAJOR: &str = env!("KLAP_LLVM_MAJOR");

/// The LLVM library this process runs on, when it is not the one klap was built for.
///
/// A plugin built for LLVM 22 loaded into another LLVM's opt or clang would corrupt both: the plugin
/// API cannot see it, the loaded shared libraries can.
pub fn foreign_llvm_in_process() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let ours = [format!("libLLVM.so.{LLVM_MAJOR}"), format!("libLLVM-{LLVM_MAJOR}.so"), format!("llvm-{LLVM_MAJOR}/")];
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|path| path.rsplit('/').next().is_some_and(|f| f.starts_with("libLLVM")))
        .find(|path| !ours.iter().any(|o| path.contains(o.as_str())))
        .map(str::to_string)
}

pub fn analyze(module: Module, ctx: Ctx) -> LaunchModel {
    launch::analyze(module, ctx)
}
