//! `klap-devrt-stubs`: the device runtime's real entry points where CUDA's header gave device code stubs.
//!
//! CUDA 13's cuda_device_runtime_api.h gives device code compiled without `__CUDACC_RDC__` inline
//! definitions of `__cudaCDP2Malloc`, `__cudaCDP2FuncGetAttributes`, `__cudaCDP2DeviceGetAttribute`,
//! `__cudaCDP2GetDevice` and the two `__cudaCDP2OccupancyMaxActiveBlocksPerMultiprocessor*` queries (what
//! the device-side `cudaMalloc`, `cudaGetDevice`, ... call) that return `cudaErrorUnknown` and do nothing.
//! nvcc defines `__CUDACC_RDC__` for relocatable device code; clang's `-fgpu-rdc` defines only
//! `__CLANG_RDC__`, so a clang build that calls them from device code fails at run time where nvcc's
//! runs. Where such a stub is defined, it becomes a declaration of the same symbol, which libcudadevrt
//! defines: the calls reach the real entry point. This runs at the start of clang's pipeline, before
//! the inliner folds the stub's result into its callers.
//!
//! Whole-program device code (no `-fgpu-rdc`) is linked by ptxas alone, without libcudadevrt, where the
//! real entry point would be an unresolved symbol: there the stubs stay (as with nvcc), and a missed
//! remark says what to add.

use crate::llvm::{Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, Module, ModuleExt, ValueExt};
use crate::remarks::Remark;

/// The entry points CUDA 13's header stubs for device code without `__CUDACC_RDC__`, with the device
/// API call each one serves.
const STUBBED: [(&str, &str); 6] = [
    ("__cudaCDP2Malloc", "cudaMalloc"),
    ("__cudaCDP2FuncGetAttributes", "cudaFuncGetAttributes"),
    ("__cudaCDP2DeviceGetAttribute", "cudaDeviceGetAttribute"),
    ("__cudaCDP2GetDevice", "cudaGetDevice"),
    ("__cudaCDP2OccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessor"),
    (
        "__cudaCDP2OccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    ),
];

/// `cudaErrorUnknown`, what every stub returns.
const CUDA_ERROR_UNKNOWN: u64 = 999;

pub fn run<'c>(module: &Module<'c>, ctx: Ctx) -> bool {
    if !module.is_nvptx() {
        return false;
    }
    let stubs: Vec<(FunctionValue<'c>, &str)> = STUBBED
        .iter()
        .filter_map(|(symbol, api)| module.get_function(symbol).filter(|f| is_stub(*f)).map(|f| (f, *api)))
        .collect();
    if stubs.is_empty() {
        return false;
    }
    let rdc = relocatable_device_code();
    for (stub, api) in &stubs {
        for call in stub.instruction_users().into_iter().filter(|i| i.called_function() == Some(*stub)) {
            if rdc {
                Remark::DevrtStubReplaced.emit(
                    ctx,
                    call,
                    &format!(
                        "device-side {api} calls the device runtime's @{} (libcudadevrt), not the stub CUDA's header \
                         gives device code compiled without __CUDACC_RDC__, which returns cudaErrorUnknown and does nothing",
                        stub.name()
                    ),
                );
            } else {
                Remark::DevrtStubKept.emit(
                    ctx,
                    call,
                    &format!(
                        "device-side {api} stays CUDA's stub, which returns cudaErrorUnknown and does nothing: the device \
                         runtime needs relocatable device code (compile with -fgpu-rdc -D__CUDACC_RDC__ and link libcudadevrt)"
                    ),
                );
            }
        }
        if rdc {
            stub.delete_body();
        }
    }
    rdc
}

/// Whether `f`'s body is the header's stub: it returns `cudaErrorUnknown` and does nothing else (at
/// most it keeps its parameters in stack slots of its own, as unoptimized code does).
fn is_stub(f: FunctionValue) -> bool {
    if f.is_declaration() {
        return false;
    }
    f.instructions().into_iter().all(|i| match i.get_opcode() {
        InstructionOpcode::Alloca => true,
        InstructionOpcode::Store => i.operand(1).instruction_of(InstructionOpcode::Alloca).is_some_and(|a| a.block().get_parent() == Some(f)),
        InstructionOpcode::Return => i.get_num_operands() == 1 && i.operand(0).const_int() == Some(CUDA_ERROR_UNKNOWN),
        _ => false,
    })
}

/// Whether this compilation makes relocatable device code, as the process's command line says: clang's
/// driver and its `-cc1` carry `-fgpu-rdc` (the last of `-fgpu-rdc` and `-fno-gpu-rdc` counts), and a
/// clang command line with neither compiles whole-program device code. Elsewhere (opt, a linker) the
/// module is taken to go to a device link with libcudadevrt.
fn relocatable_device_code() -> bool {
    let Ok(cmdline) = std::fs::read("/proc/self/cmdline") else { return true };
    let args: Vec<String> = cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    let last = args.iter().rev().find_map(|a| match a.as_str() {
        "-fgpu-rdc" => Some(true),
        "-fno-gpu-rdc" => Some(false),
        _ => None,
    });
    let program = args.first().map(|a| a.rsplit('/').next().unwrap_or(a).to_string()).unwrap_or_default();
    let clang = program.starts_with("clang") || args.iter().any(|a| a == "-cc1");
    last.unwrap_or(!clang)
}
