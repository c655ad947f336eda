//! Promotion with overlap (KLAP, MICRO 2016, section III-C): a promoted link runs the part of its work that
//! needs nothing from the link before it (its prologue) before it waits for that link's release, so that
//! the prologue of one link overlaps the work of the one before. KLAP left the split to a programmer's
//! annotation; here it is found on the IR.
//!
//! What may run before the wait ([`must_wait`] lists what may not): computations, reads of block-private
//! memory (the stack, shared memory), barriers and warp votes and shuffles, and reads of memory that no
//! link of the chain writes: a `noalias` (`__restrict__`) pointer parameter that every link passes on
//! unchanged and that the kernel never writes through, as LLVM's alias analysis sees it
//! ([`read_only_params`]). Every link then reads the same object through it and none writes it, so a read
//! made early cannot see a different value; `const T *__restrict__` is CUDA's own promise that the data
//! is read-only while the kernel runs. Not before the wait: any use of a parameter the link before
//! computes at its end, any other read or write of global memory, atomics, fences, calls, and the end of
//! the thread. The wait itself is a barrier of the block, so it goes where every thread passes exactly once
//! (the shim's `klap_wait_point`: a post-dominator of the entry, in no loop).
//!
//! Overlap is taken only where the launch condition is known at the kernel's start (no speculative
//! launch): a prologue run by a link that the chain as written would not have launched could read past
//! the end of its input.

use super::{computed_from, successors};
use crate::llvm::{AtomicOrdering, CONSTANT_SPACE, LOCAL_SPACE, SHARED_SPACE, BasicBlock, BasicValueEnum, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, ValueExt};
use crate::site::abi::launch_or_error_query;
use crate::site::{LaunchSite, WriteKind};
use inkwell::types::BasicTypeEnum;
use std::collections::HashSet;

/// An instruction that may run only after the wait, and why.
pub struct MustWait<'c> {
    pub at: InstructionValue<'c>,
    pub why: String,
    /// It uses a parameter the link before computes (what the programmer's mark cannot override).
    pub uses_late: bool,
}

/// Where a promoted form waits, and what runs before.
pub struct WaitPoint<'c> {
    /// The instruction the wait goes before.
    pub at: InstructionValue<'c>,
    /// The instructions of the prologue (run before the wait), not counting allocas.
    pub prologue: usize,
    /// Why the wait is not later.
    pub why: String,
}

/// Per parameter of `kernel`: whether it points to memory that no link of the chain writes: `noalias`,
/// passed on unchanged by every link (`passed_on`), and written through by no instruction of the kernel.
/// Not counted as writers: the intrinsics a prologue may run (barriers, which LLVM models as touching
/// memory, order the block's threads and write nothing), and the device runtime's launch entries and error
/// queries, which write the parameter buffer and the error state: what they launch is this kernel
/// (detection checked that the launch is of the kernel itself), whose writes are the instructions checked here.
pub fn read_only_params<'c>(ctx: Ctx, kernel: FunctionValue<'c>, passed_on: &[bool]) -> Vec<bool> {
    let runtime_entry = |i: InstructionValue| {
        i.called_function().is_some_and(|c| {
            let name = c.name();
            early_intrinsic(&name) || launch_or_error_query(&name)
        })
    };
    // A store of the launch's arguments into its parameter buffer (the pointer itself, passed on).
    let into_buffer = |i: InstructionValue| i.get_opcode() == InstructionOpcode::Store && i.operand(1).underlying_object().as_instruction().is_some_and(runtime_entry);
    let writers: Vec<InstructionValue<'c>> = kernel.instructions().into_iter().filter(|&i| writes_memory(i) && !runtime_entry(i) && !into_buffer(i)).collect();
    kernel
        .get_params()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            matches!(p.get_type(), BasicTypeEnum::PointerType(_))
                && passed_on.get(i).copied().unwrap_or(false)
                && kernel.param_noalias(i as u32)
                && !writers.iter().any(|w| ctx.may_write_object(*w, *p))
        })
        .collect()
}

fn writes_memory(i: InstructionValue) -> bool {
    use InstructionOpcode::*;
    matches!(i.get_opcode(), Store | AtomicRMW | AtomicCmpXchg | Call | Invoke | CallBr | Fence)
}

/// The instructions of `f` (a promoted or pool form) that may run only after the wait, each with why.
pub fn must_wait<'c>(f: FunctionValue<'c>, late: &[bool], read_only: &[bool]) -> Vec<MustWait<'c>> {
    let param_of = |v: BasicValueEnum<'c>| v.as_param().filter(|(g, _)| *g == f).map(|(_, k)| k as usize);
    let mut out = Vec::new();
    for i in f.instructions() {
        let uses_late = (0..i.get_num_operands()).find_map(|k| i.value_operand(k).and_then(|v| param_of(v).filter(|&p| late.get(p).copied().unwrap_or(false))));
        if let Some(p) = uses_late {
            out.push(MustWait { at: i, why: format!("it uses parameter #{p}, which the link before computes"), uses_late: true });
            continue;
        }
        use InstructionOpcode::*;
        let why = match i.get_opcode() {
            Load if !plain_access(i) => Some("a volatile or atomic read".to_string()),
            Load if !readable_early(i.operand(0), f, read_only) => {
                Some("it reads memory that the link before may write (only block-private memory and `__restrict__` pointers the chain never writes through are read early)".to_string())
            }
            Store if !plain_access(i) || !private(i.operand(1)) => Some("it writes memory that other blocks can see".to_string()),
            AtomicRMW | AtomicCmpXchg => Some("an atomic".to_string()),
            Fence => Some("a fence".to_string()),
            Invoke | CallBr | VAArg => Some("a call".to_string()),
            Call => call_must_wait(i),
            _ => None,
        };
        if let Some(why) = why {
            out.push(MustWait { at: i, why, uses_late: false });
        }
    }
    out
}

fn plain_access(i: InstructionValue) -> bool {
    !i.get_volatile().unwrap_or(true) && i.get_atomic_ordering() == Ok(AtomicOrdering::NotAtomic)
}

fn call_must_wait(i: InstructionValue) -> Option<String> {
    if i.call_accesses_no_memory() {
        return None;
    }
    if i.calls_inline_asm() {
        return Some("inline assembly that may touch memory".into());
    }
    let Some(callee) = i.called_function() else { return Some("a call through a pointer".into()) };
    let name = callee.name();
    (!early_intrinsic(&name)).then(|| format!("a call of @{name}"))
}

/// Intrinsics that LLVM does not mark `memory(none)` but that touch no memory other blocks see, or only
/// order the block's own threads (those marked `memory(none)` are taken by `call_accesses_no_memory`).
fn early_intrinsic(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "llvm.nvvm.read.ptx.sreg.",
        "llvm.nvvm.barrier",
        "llvm.nvvm.bar.warp.sync",
        "llvm.nvvm.vote.",
        "llvm.nvvm.shfl.",
        "llvm.nvvm.activemask",
        "llvm.lifetime.",
        "llvm.assume",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}


/// Memory only the running block sees: its stack (local) and shared memory.
fn private(ptr: BasicValueEnum) -> bool {
    let object = ptr.underlying_object();
    [ptr, object].iter().any(|v| v.points_into(&[SHARED_SPACE, LOCAL_SPACE])) || object.instruction_of(InstructionOpcode::Alloca).is_some()
}

fn readable_early<'c>(ptr: BasicValueEnum<'c>, f: FunctionValue<'c>, read_only: &[bool]) -> bool {
    if private(ptr) {
        return true;
    }
    let object = ptr.underlying_object();
    if [ptr, object].iter().any(|v| v.points_into(&[CONSTANT_SPACE])) {
        return true;
    }
    object.as_param().is_some_and(|(g, k)| g == f && read_only.get(k as usize).copied().unwrap_or(false))
}

/// The text of the programmer's mark of the prologue's end (`klap_prologue_end()` in runtime/klap.h).
const PROLOGUE_END: &str = "klap_prologue_end";

/// The calls of `f` to the programmer's mark of the prologue's end.
pub fn prologue_marks<'c>(f: FunctionValue<'c>) -> Vec<InstructionValue<'c>> {
    f.instructions().into_iter().filter(|i| i.inline_asm_text().is_some_and(|t| t.contains(PROLOGUE_END))).collect()
}

/// Where `f` waits where the programmer marked the prologue's end (`mark`): there, if every thread passes
/// it once and nothing before it uses a late parameter or ends the thread; the analysis of memory is
/// overridden by the mark's promise.
pub fn marked_wait_point<'c>(ctx: Ctx, f: FunctionValue<'c>, mark: InstructionValue<'c>, must: &[MustWait<'c>]) -> Result<WaitPoint<'c>, String> {
    // The mark's promise covers memory only: the uses of late parameters must still come after it.
    let late_uses: Vec<&MustWait<'c>> = must.iter().filter(|m| m.uses_late).collect();
    let mut must: Vec<InstructionValue<'c>> = late_uses.iter().map(|m| m.at).collect();
    must.push(mark);
    let at = ctx.wait_point(f, &must);
    if at != mark {
        let why = late_uses
            .iter()
            .find(|m| instructions_before(f, mark).contains(&m.at))
            .map(|m| format!("`{}` comes before it: {}", m.at.ir().trim(), m.why))
            .unwrap_or_else(|| "it is not where every thread of the block passes once (in a loop, in a branch, or after a return)".into());
        return Err(format!("klap_prologue_end() cannot be the wait: {why}"));
    }
    let prologue = instructions_before(f, at).iter().filter(|i| i.get_opcode() != InstructionOpcode::Alloca).count();
    Ok(WaitPoint { at, prologue, why: "the wait is at klap_prologue_end(), the programmer's mark, which overrides the analysis of what may run before it".into() })
}

/// Where `f` waits, given what must wait; None where the prologue does no memory work (nothing worth
/// overlapping), with why.
pub fn wait_point<'c>(ctx: Ctx, f: FunctionValue<'c>, must: &[MustWait<'c>]) -> Result<WaitPoint<'c>, String> {
    let list: Vec<InstructionValue<'c>> = must.iter().map(|m| m.at).collect();
    let at = ctx.wait_point(f, &list);
    let before = instructions_before(f, at);
    let prologue = before.iter().filter(|i| i.get_opcode() != InstructionOpcode::Alloca).count();
    let memory_work = before.iter().any(|i| i.get_opcode() == InstructionOpcode::Load || i.called_function().is_some_and(|c| c.name().starts_with("llvm.nvvm.barrier")));
    let place = match at.debug_location() {
        Some((file, line, _)) => format!(" ({file}:{line})"),
        None => String::new(),
    };
    let why = match must.iter().find(|m| m.at == at) {
        Some(m) => format!("the wait is before `{}`{place}: {}", at.ir().trim(), m.why),
        None => {
            let first = must.iter().find(|m| !before.contains(&m.at)).map(|m| format!(": past it, `{}`: {}", m.at.ir().trim(), m.why)).unwrap_or_default();
            format!("the wait is at the end of the last block every thread of the block passes once{place} (what follows is in a loop, a branch the threads may take apart, or reaches a return){first}")
        }
    };
    if !memory_work {
        return Err(format!("nothing worth overlapping runs before the wait (no read, no barrier): {why}"));
    }
    Ok(WaitPoint { at, prologue, why })
}

/// The instructions that can run before `at` in `f`: a walk from the entry that stops there.
fn instructions_before<'c>(f: FunctionValue<'c>, at: InstructionValue<'c>) -> Vec<InstructionValue<'c>> {
    let mut out = Vec::new();
    let mut work = vec![f.entry_block()];
    let mut seen: HashSet<BasicBlock<'c>> = HashSet::new();
    while let Some(block) = work.pop() {
        if !seen.insert(block) {
            continue;
        }
        let mut next = block.get_first_instruction();
        let mut stopped = false;
        while let Some(i) = next {
            if i == at {
                stopped = true;
                break;
            }
            out.push(i);
            next = i.get_next_instruction();
        }
        if !stopped {
            work.extend(successors(block));
        }
    }
    out
}

/// Per parameter, in a pool's link: whether its argument is known at the link's start, computed (as
/// [`computed_from`] allows) from constants, the parameters every link passes on unchanged and other such
/// parameters: the link before publishes those at its own start. `available` and `passed_on` as in
/// [`super::Candidate`].
pub fn early_params<'c>(site: &LaunchSite<'c>, available: &[bool], passed_on: &[bool]) -> Vec<bool> {
    let argument = |i: usize| -> Option<BasicValueEnum<'c>> {
        match site.writes.iter().filter(|w| w.param == i).collect::<Vec<_>>().as_slice() {
            [w] => match w.kind {
                WriteKind::Store { value } => Some(value),
                _ => None,
            },
            _ => None,
        }
    };
    let mut early: Vec<bool> = (0..available.len()).map(|i| available[i] && !passed_on[i]).collect();
    loop {
        let known = |k: u32| passed_on.get(k as usize).copied().unwrap_or(false) || early.get(k as usize).copied().unwrap_or(false);
        let next: Vec<bool> = (0..early.len())
            .map(|i| early[i] && argument(i).is_some_and(|v| computed_from(v, site.caller, &known, &mut 64)))
            .collect();
        if next == early {
            return early;
        }
        early = next;
    }
}
