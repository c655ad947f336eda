//! The register count of the kernels klap put its device runtime's code into, capped.
//!
//! ptxas gives a kernel the registers its most demanding point needs, and the runtime's paths (the
//! registration, the scope's exit and launch, the record lookup), inlined, need more than most
//! kernels' own code: every parent and aggregated child of the suite took 61 to 69 registers, against
//! 30 to 38 for the same code as written, so a multiprocessor held half as many of their blocks. Those
//! paths run once per launch, warp or block, so spilling there costs less than the blocks lost: the
//! kernel gets `.maxnreg N` (the function attribute `"nvvm.maxnreg"`), and ptxas spills in the runtime
//! paths instead. ptxas refuses a capped kernel that calls a function compiled to more registers than the
//! cap, so only a kernel whose every callee is inlined (the runtime's included) or is CUDA's own is capped.
//! A kernel whose author bounded it (`__launch_bounds__`, `__maxnreg__`) keeps that bound,
//! and one that runs children's threads itself (serialized, run by its warps or blocks) gets a cap of 64
//! at least: its loops are hot code that a lower cap makes spill (mstf and mstv, serialized, 3% to 8%
//! slower capped at 48 on an H200, where mandel, amr, qt and mm, aggregated, were 2% to 40% faster), but
//! uncapped it grew past 64 (join's parent to 66 registers with the runtime's larger grid-scope entry: 3
//! blocks of 256 threads a multiprocessor instead of 4, 1.23x to 1.28x slower), and a kernel past 64
//! cannot be launched with blocks of 1024 threads (BENCHMARKS.md, seventeenth session).

use super::Options;
use crate::callgraph::CallGraph;
use crate::child::{runs_child_threads, BARRIER_FUNCTION};
use crate::llvm::{count, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, Module, ModuleExt, Statistic};
use crate::remarks::Remark;
use crate::runtime::is_runtime_function;
use crate::site::abi::cuda_provided;
use std::collections::HashSet;

/// The function attributes through which a kernel's author bounds its registers or block size.
const USER_BOUNDS: [&str; 4] = ["nvvm.maxnreg", "nvvm.maxntid", "nvvm.reqntid", "nvvm.minctasm"];

/// The most registers per thread with which a block of 1024 threads can launch (65,536 a multiprocessor):
/// the cap of a kernel that runs children's threads itself.
const LAUNCHABLE_1024: u64 = 64;

/// A call reached from `kernel` that stays a call after the runtime is inlined, and is not CUDA's own:
/// what the cap would make ptxas refuse.
fn out_of_line_call<'c>(calls: &CallGraph<'c>, recursive: &HashSet<FunctionValue<'c>>, kernel: FunctionValue<'c>) -> Option<String> {
    for f in calls.reachable_from(kernel) {
        // klap's barrier functions stay calls, and take a few registers.
        if f.string_attribute(BARRIER_FUNCTION).is_some() {
            continue;
        }
        if f != kernel && (!f.is_always_inline() || recursive.contains(&f)) {
            return Some(format!("@{}, which is not inlined", f.name()));
        }
        if calls.calls_indirectly(f) {
            return Some(format!("a function through a pointer (in @{})", f.name()));
        }
        let declared = f
            .instructions()
            .into_iter()
            .filter(|i| i.get_opcode() == InstructionOpcode::Call)
            .filter_map(|i| i.called_function())
            .find(|g| g.is_declaration() && !cuda_provided(&g.name()));
        if let Some(g) = declared {
            return Some(format!("@{}, defined elsewhere", g.name()));
        }
    }
    None
}

/// Why `kernel` keeps its registers, or None where it takes the cap.
fn kept_because<'c>(calls: &CallGraph<'c>, recursive: &HashSet<FunctionValue<'c>>, kernel: FunctionValue<'c>, options: &Options) -> Option<String> {
    if let Some((key, value)) = USER_BOUNDS.iter().find_map(|&k| kernel.string_attribute(k).map(|v| (k, v))) {
        return Some(format!("its author bounded it (\"{key}\"=\"{value}\", from __launch_bounds__ or __maxnreg__): ptxas keeps to that"));
    }
    if !options.inline_runtime {
        return Some("the runtime's functions stay calls (-klap-inline-runtime=false), compiled without a cap".to_string());
    }
    out_of_line_call(calls, recursive, kernel).map(|call| format!("it calls {call}: ptxas refuses a capped kernel whose callee takes more"))
}

pub fn cap<'c>(module: &Module<'c>, ctx: Ctx, options: &Options) {
    if options.max_registers == 0 {
        return;
    }
    let calls = CallGraph::build(module);
    let with_runtime = calls.functions_calling(is_runtime_function);
    let with_child_threads = calls.functions_calling(runs_child_threads);
    // No inliner inlines a call within a cycle of calls, `alwaysinline` or not.
    let recursive: HashSet<FunctionValue<'c>> = calls.recursive_sets().into_iter().flatten().collect();
    // A device function klap put its runtime's code into (a launch it now registers), kept out of line by its
    // author, would keep every kernel calling it from the cap, and grows with that code: at 102 registers it
    // made a kernel of 1,024-thread blocks fail to launch, where the program as written ran
    // (test/gpu/devfn_launch.cu, twenty-third session). Inlined (by the inliner after klap's steps), its
    // kernels take the cap. Not one in a cycle of calls, which no inliner inlines.
    if options.inline_runtime {
        // A user's device function that is not yet inlined and can be: klap's runtime is inlined anyway, and
        // its barrier functions must stay calls (lanes of a warp wait at one barrier instruction).
        let to_inline = |f: FunctionValue<'c>| {
            let klap_own = is_runtime_function(f) || f.string_attribute(BARRIER_FUNCTION).is_some();
            !f.is_ptx_kernel() && !f.is_declaration() && !klap_own && !recursive.contains(&f) && !f.is_always_inline()
        };
        for &f in with_runtime.iter().filter(|&&f| to_inline(f)) {
            f.add_inline_always();
        }
        // At -O0 (the kernel `optnone`) nothing was inlined before klap, not even CUDA's atomicAdd wrapper, so
        // no kernel it put its runtime into could take the cap, and the runtime's registers made kernels of
        // 1024-thread blocks fail to launch ("too many resources requested": test/gpu's chunk_chain and
        // devfn_launch at -O0 under `auto` on an H200, twenty-eighth session). Their device functions are
        // inlined into them (no longer `optnone`) so that they are capped as at -O2.
        for &kernel in with_runtime.iter().filter(|k| k.is_ptx_kernel() && k.is_optnone()) {
            for f in calls.reachable_from(kernel).into_iter().filter(|&f| to_inline(f)) {
                f.add_inline_always();
            }
        }
    }
    let mut capped = 0;
    for kernel in module.functions() {
        if !kernel.is_ptx_kernel() || !with_runtime.contains(&kernel) {
            continue;
        }
        let Some(at) = kernel.instructions().into_iter().next() else { continue };
        if let Some(why) = kept_because(&calls, &recursive, kernel, options) {
            Remark::RegistersKept.emit(ctx, at, &format!("@{} has klap's device runtime in it, but {why}", kernel.name()));
            continue;
        }
        let (n, why) = if with_child_threads.contains(&kernel) {
            let n = options.max_registers.max(LAUNCHABLE_1024);
            (
                n,
                format!(
                    "it runs children's threads itself (serialized, or run by its warps or blocks), in loops that a lower cap \
                     would make spill, so at most {n}: a block of 1024 threads still launches, and one of 256 keeps 4 blocks a \
                     multiprocessor"
                ),
            )
        } else {
            (
                options.max_registers,
                "the runtime's paths spill rather than set the kernel's register count and halve the blocks a multiprocessor holds".to_string(),
            )
        };
        kernel.set_string_attribute("nvvm.maxnreg", &n.to_string());
        capped += 1;
        Remark::RegistersCapped.emit(
            ctx,
            at,
            &format!("@{} has klap's device runtime in it: at most {n} registers per thread (.maxnreg, -klap-max-registers): {why}", kernel.name()),
        );
    }
    count(Statistic::RegisterCappedKernel, capped);
}
