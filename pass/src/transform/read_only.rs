//! Kernel pointer parameters marked `readonly` across launches.
//!
//! ptxas reads through a kernel's pointer parameter with the read-only data path (`ld.global.nc`) only
//! where LLVM's NVPTX back end sees the parameter `noalias` and `readonly`. LLVM infers `readonly` only
//! for a pointer that does not escape, and a launch stores its arguments into the parameter buffer: a
//! kernel that passes a `const T *__restrict__` on to a child, as every link of a chain does, loses the
//! read-only path for all its reads (sc's links as clang and nvcc compile them: 32 of 32 global loads
//! plain; without the launch, 32 of 32 `ld.global.nc`). A launch hands the child the pointer and nothing
//! else: where the child never writes through its parameter either, the parameter is read-only in the
//! parent too. Measured on KLAP's chains (H200, twentieth session): within 2% (their inputs are read once;
//! the 1.5x the loop lost beside a launch was ptxas's convergence, looped.rs's latch barrier).
//!
//! A parameter is read-only where every use of the pointer (through GEPs, casts, phis and selects) is a
//! load, a comparison, an argument the callee only reads and does not keep (`readonly captures(none)`),
//! or the whole argument of a recognized launch whose child's parameter is read-only too: the greatest
//! fixed point over the launch graph, so that a chain (a kernel launching itself) is read-only where no
//! link writes.
//!
//! What the attribute promises (no write through the pointer while the kernel runs) leaves out the
//! children, which run after their launch and beside the parent: a child's writes that the parent could
//! read are a race in CDP2, which has no wait for a child, and a child writing through the pointer
//! makes it not read-only here.

use crate::llvm::{count, same, BasicTypeEnum, BasicValueEnum, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, Module, Statistic, ValueExt};
use crate::remarks::Remark;
use crate::site::{self, LaunchModel, WriteKind};
use std::collections::{HashMap, HashSet};

/// A pointer parameter: its kernel and index.
type ParamRef<'c> = (FunctionValue<'c>, u32);

/// Why a use keeps a parameter from being read-only, or what the use needs of a child's parameter.
enum UseVerdict<'c> {
    Reads,
    NeedsChild(ParamRef<'c>),
    Writes(InstructionValue<'c>, &'static str),
}

/// Marks every kernel pointer parameter read-only that the fixed point proves so and that lacks it.
pub fn run(module: &Module<'_>, ctx: Ctx) -> bool {
    let model = site::analyze_quietly(module, ctx);
    let arg_stores = launch_argument_stores(&model);
    let kernels = site::kernels(module);
    // Every use of every candidate, once: each is read, needs a child's parameter, or writes.
    let mut needs: HashMap<ParamRef, Vec<ParamRef>> = HashMap::new();
    let mut written: HashMap<ParamRef, (InstructionValue, &'static str)> = HashMap::new();
    // Where a parameter was dropped for a child's: that child parameter, for the remark.
    let mut passed_to: HashMap<ParamRef, ParamRef> = HashMap::new();
    for &k in kernels.iter().filter(|k| k.count_basic_blocks() > 0) {
        for (i, p) in k.get_params().into_iter().enumerate() {
            let param = (k, i as u32);
            // A `byval` parameter is the kernel's own copy in parameter space, never read through ld.global.
            if !matches!(p.get_type(), BasicTypeEnum::PointerType(_)) || k.param_reads_only(i as u32) || k.param_byval_type(i as u32).is_some() {
                continue;
            }
            if k.param_writes_only(i as u32) {
                if let Some(first) = k.instructions().first() {
                    written.insert(param, (*first, "it is `writeonly`"));
                }
                continue;
            }
            let mut children = Vec::new();
            for verdict in uses_of(p, &arg_stores) {
                match verdict {
                    UseVerdict::Reads => {}
                    UseVerdict::NeedsChild(c) => children.push(c),
                    UseVerdict::Writes(at, why) => {
                        written.insert(param, (at, why));
                        break;
                    }
                }
            }
            if !written.contains_key(&param) {
                needs.insert(param, children);
            }
        }
    }
    // The greatest fixed point: a parameter stays while every child parameter it is passed to stays
    // (already `readonly` on a declaration or a definition counts).
    let read_only = |c: &ParamRef, needs: &HashMap<ParamRef, Vec<ParamRef>>| needs.contains_key(c) || c.0.param_reads_only(c.1);
    loop {
        let dropped: Vec<(ParamRef, ParamRef)> = needs
            .iter()
            .filter_map(|(p, children)| children.iter().find(|c| !read_only(c, &needs)).map(|c| (*p, *c)))
            .collect();
        if dropped.is_empty() {
            break;
        }
        for (p, (child, index)) in dropped {
            needs.remove(&p);
            if let Some(&at) = children_stores(&arg_stores, p.0, (child, index)).first() {
                written.insert(p, (at, "it is passed to a launch of a kernel that may write through it"));
                passed_to.insert(p, (child, index));
            }
        }
    }
    let mut marked: Vec<(ParamRef, Vec<ParamRef>)> = needs.into_iter().filter(|(_, children)| !children.is_empty()).collect();
    marked.sort_by_key(|((k, i), _)| (k.name(), *i));
    for ((k, i), children) in &marked {
        k.set_param_readonly(*i);
        let at = k.instructions()[0];
        let mut names: Vec<String> = children.iter().map(|(c, _)| format!("@{}", c.name())).collect();
        names.sort();
        names.dedup();
        let path = if k.param_noalias(*i) { "; it is `noalias`: its loads take the read-only data path (ld.global.nc)" } else { "" };
        Remark::ReadOnlyParam.emit(
            ctx,
            at,
            &format!(
                "parameter {} of @{} marked readonly: the kernel only reads through it and passes it to launches of {}, which only read through it{}",
                i,
                k.name(),
                names.join(", "),
                path
            ),
        );
    }
    report_escapes(ctx, &written, &passed_to, &arg_stores);
    count(Statistic::ReadOnlyParam, marked.len());
    !marked.is_empty()
}

/// Where a `noalias` parameter of a launching kernel is not read-only for a reason other than a write
/// through it in the kernel's own code: the remark says which use, as one that could be expected to be.
fn report_escapes<'c>(
    ctx: Ctx,
    written: &HashMap<ParamRef<'c>, (InstructionValue<'c>, &'static str)>,
    passed_to: &HashMap<ParamRef<'c>, ParamRef<'c>>,
    arg_stores: &HashMap<InstructionValue<'c>, ParamRef<'c>>,
) {
    let launching: HashSet<FunctionValue> = arg_stores.keys().map(|s| s.function()).collect();
    let mut missed: Vec<(&ParamRef, &(InstructionValue, &str))> =
        written.iter().filter(|((k, i), (_, why))| launching.contains(k) && k.param_noalias(*i) && *why != WRITE).collect();
    missed.sort_by_key(|((k, i), _)| (k.name(), *i));
    for ((k, i), (at, why)) in missed {
        let child = passed_to.get(&(*k, *i)).map(|(c, j)| format!(" (@{}, its parameter {})", c.name(), j)).unwrap_or_default();
        Remark::ReadOnlyKept.emit(ctx, *at, &format!("parameter {} of @{}: {}{}", i, k.name(), why, child));
    }
}

const WRITE: &str = "the kernel writes through it";

/// The stores of `kernel` that pass a pointer to `child`'s parameter.
fn children_stores<'c>(arg_stores: &HashMap<InstructionValue<'c>, ParamRef<'c>>, kernel: FunctionValue<'c>, child: ParamRef<'c>) -> Vec<InstructionValue<'c>> {
    kernel.instructions().into_iter().filter(|i| arg_stores.get(i) == Some(&child)).collect()
}

/// The stores that write a whole pointer argument of a recognized launch, with the child parameter.
fn launch_argument_stores<'c>(model: &LaunchModel<'c>) -> HashMap<InstructionValue<'c>, ParamRef<'c>> {
    let mut out = HashMap::new();
    for s in &model.sites {
        for w in &s.writes {
            let p = &s.params[w.param];
            if matches!(w.kind, WriteKind::Store { .. }) && w.offset == p.offset && w.size == p.size && !p.byval {
                out.insert(w.inst, (s.child, w.param as u32));
            }
        }
    }
    out
}

/// What each use of `p` (and of the pointers computed from it) does with it; stops at the first write.
fn uses_of<'c>(p: BasicValueEnum<'c>, arg_stores: &HashMap<InstructionValue<'c>, ParamRef<'c>>) -> Vec<UseVerdict<'c>> {
    use InstructionOpcode::*;
    let mut out = Vec::new();
    let mut seen: HashSet<InstructionValue> = HashSet::new();
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        for u in v.instruction_users() {
            let verdict = match u.get_opcode() {
                GetElementPtr | BitCast | AddrSpaceCast | Phi | Select | Freeze => {
                    if seen.insert(u) {
                        work.push(u.result());
                    }
                    UseVerdict::Reads
                }
                Load | ICmp => UseVerdict::Reads,
                Store if same(u.operand(1), v) => UseVerdict::Writes(u, WRITE),
                Store => match arg_stores.get(&u) {
                    Some(child) => UseVerdict::NeedsChild(*child),
                    None => UseVerdict::Writes(u, "it is stored to memory other than a recognized launch's parameter buffer"),
                },
                Call => {
                    let args = u.call_args();
                    let kept = (0..args.len() as u32).any(|a| same(args[a as usize], v) && !u.call_arg_only_read(a));
                    if kept || u.called_function().is_none() {
                        UseVerdict::Writes(u, "it is passed to a call that may write through it or keep it")
                    } else {
                        UseVerdict::Reads
                    }
                }
                AtomicRMW | AtomicCmpXchg => UseVerdict::Writes(u, WRITE),
                _ => UseVerdict::Writes(u, "it is used other than to read through (a cast to an integer, an aggregate)"),
            };
            let stop = matches!(verdict, UseVerdict::Writes(..));
            out.push(verdict);
            if stop {
                return out;
            }
        }
    }
    out
}

