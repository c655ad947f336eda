//! Device-side allocations: every call of the device runtime's `cudaMalloc` and `cudaFree` in a module,
//! and for each allocation whether its memory may come out of an aggregate (transform/malloc.rs).
//!
//! An aggregated allocation's pointer points into a larger allocation: the device runtime's `cudaFree`
//! must never see it. An allocation is aggregated only where klap sees every use of its pointer: it is
//! written into a local variable (the `&p` of `cudaMalloc(&p, size)`) that nothing else reads or
//! writes but loads and null stores, and what those loads give is only dereferenced, compared, moved
//! through phis, selects and casts, or freed, all in the function. Every `cudaFree` such a pointer
//! reaches becomes klap's free, which must then receive nothing else: a free that may also receive
//! another pointer keeps every allocation whose pointer reaches it as written.

use super::abi::unmangle_static_function;
use crate::llvm::{
    AnyTypeEnum, BasicMetadataTypeEnum, BasicTypeEnum, BasicValueEnum, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue,
    Module, ModuleExt, ValueExt,
};
use crate::remarks::Remark;
use std::collections::{HashMap, HashSet};

/// The device runtime's allocation entry points.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AllocEntry {
    /// `cudaMalloc(void **, size_t)`: `__cudaCDP2Malloc` in CUDA 12+, `cudaMalloc` before, or the CUDA
    /// headers' static wrapper that -O0 code calls.
    Malloc,
    /// `cudaFree(void *)`, named the same ways.
    Free,
}

/// Which entry point `f` is, from its name and its signature.
pub fn classify_alloc_entry(f: FunctionValue) -> Option<AllocEntry> {
    let name = f.name();
    let name = unmangle_static_function(&name).unwrap_or(&name);
    let entry = match name {
        "__cudaCDP2Malloc" | "cudaMalloc" => AllocEntry::Malloc,
        "__cudaCDP2Free" | "cudaFree" => AllocEntry::Free,
        _ => return None,
    };
    let ty = f.get_type();
    let params = ty.get_param_types();
    let returns_i32 = matches!(ty.get_return_type(), Some(BasicTypeEnum::IntType(t)) if t.get_bit_width() == 32);
    let signature = match entry {
        AllocEntry::Malloc => {
            params.len() == 2 && params[0].is_pointer_type() && matches!(params[1], BasicMetadataTypeEnum::IntType(t) if t.get_bit_width() == 64)
        }
        AllocEntry::Free => params.len() == 1 && params[0].is_pointer_type(),
    };
    (returns_i32 && signature && !ty.is_var_arg()).then_some(entry)
}

/// A call of `cudaMalloc`.
#[derive(Clone, Copy, Debug)]
pub struct AllocSite<'c> {
    pub call: InstructionValue<'c>,
    pub caller: FunctionValue<'c>,
    /// The local variable its pointer is written into.
    pub slot: Option<InstructionValue<'c>>,
}

/// The allocations and frees of one module.
#[derive(Default)]
pub struct AllocModel<'c> {
    /// Allocations that may be aggregated, with the number of frees of their memory.
    pub aggregable: Vec<(AllocSite<'c>, usize)>,
    /// Allocations that stay as written: the remark and why.
    pub kept: Vec<(AllocSite<'c>, Remark, String)>,
    /// The frees of aggregable allocations' memory, and of nothing else.
    pub frees: Vec<InstructionValue<'c>>,
}

/// Where a freed pointer may come from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source<'c> {
    /// A load of an allocation's local variable.
    Slot(InstructionValue<'c>),
    Null,
    Other(BasicValueEnum<'c>),
}

/// What klap knows of one local variable that allocations write.
struct Slot<'c> {
    allocs: Vec<AllocSite<'c>>,
    /// Why its allocations stay as written, once known.
    kept: Option<(Remark, String)>,
    /// A value other than null or an allocation's pointer is stored into it.
    foreign: Option<BasicValueEnum<'c>>,
    frees: Vec<InstructionValue<'c>>,
}

pub fn analyze<'c>(module: &Module<'c>) -> AllocModel<'c> {
    let mut model = AllocModel::default();
    if !module.is_nvptx() {
        return model;
    }
    for f in module.functions().into_iter().filter(|f| !f.is_declaration() && !is_runtime(*f)) {
        analyze_function(f, &mut model);
    }
    model
}

/// Functions whose calls of the entry points are not the program's: the headers' wrappers and klap's
/// own device runtime.
fn is_runtime(f: FunctionValue) -> bool {
    classify_alloc_entry(f).is_some() || f.name().starts_with("__klap_")
}

fn entry_of(call: InstructionValue) -> Option<AllocEntry> {
    if call.get_opcode() != InstructionOpcode::Call {
        return None;
    }
    call.called_function().and_then(classify_alloc_entry)
}

fn analyze_function<'c>(f: FunctionValue<'c>, model: &mut AllocModel<'c>) {
    let mut slots: HashMap<InstructionValue<'c>, Slot<'c>> = HashMap::new();
    let mut order: Vec<InstructionValue<'c>> = Vec::new();
    for call in f.instructions().into_iter().filter(|i| entry_of(*i) == Some(AllocEntry::Malloc)) {
        let target = call.call_args()[0].strip_casts();
        let site = AllocSite { call, caller: f, slot: None };
        match target.instruction_of(InstructionOpcode::Alloca) {
            Some(alloca) if alloca.function() == f => {
                let site = AllocSite { slot: Some(alloca), ..site };
                if !slots.contains_key(&alloca) {
                    order.push(alloca);
                }
                slots.entry(alloca).or_insert_with(|| Slot { allocs: Vec::new(), kept: None, foreign: None, frees: Vec::new() }).allocs.push(site);
            }
            _ => model.kept.push((
                site,
                Remark::MallocTargetUnknown,
                format!("its pointer is written to {}, not to a local variable klap can follow", target.operand_string()),
            )),
        }
    }
    if slots.is_empty() {
        return;
    }

    // Each variable: its own uses, then where the pointers loaded from it go.
    for &alloca in &order {
        let slot = slots.get_mut(&alloca).unwrap();
        match slot_uses(alloca) {
            Err(why) => slot.kept = Some((Remark::MallocTargetUnknown, why)),
            Ok((loads, foreign)) => {
                slot.foreign = foreign;
                match pointer_uses(&loads) {
                    Ok(frees) => slot.frees = frees,
                    Err((remark, why)) => slot.kept = Some((remark, why)),
                }
            }
        }
    }

    // A free takes only aggregated pointers, or none: one that may receive anything else keeps every
    // variable whose pointers reach it, and a variable kept may in turn make another free mixed.
    let frees: Vec<InstructionValue<'c>> = {
        let mut all: Vec<InstructionValue<'c>> = Vec::new();
        for a in &order {
            for &free in &slots[a].frees {
                if !all.contains(&free) {
                    all.push(free);
                }
            }
        }
        all
    };
    let sources: HashMap<InstructionValue<'c>, Vec<Source<'c>>> =
        frees.iter().map(|&free| (free, sources_of(free.call_args()[0], &slots))).collect();
    loop {
        let mut changed = false;
        for &free in &frees {
            let srcs = &sources[&free];
            let foreign = srcs.iter().find_map(|s| match s {
                Source::Other(v) => Some(format!("{} (not a pointer klap allocated)", v.operand_string())),
                Source::Slot(a) => slots[a].foreign.map(|v| format!("{}, stored into the variable {}", v.operand_string(), a.result().operand_string())),
                Source::Null => None,
            });
            let blocked = foreign.or_else(|| {
                srcs.iter().find_map(|s| match s {
                    Source::Slot(a) if slots[a].kept.is_some() => Some(format!("the pointer of an allocation left as written ({})", slots[a].allocs[0].call.operand_string_or_line())),
                    _ => None,
                })
            });
            let Some(what) = blocked else { continue };
            for s in srcs {
                if let Source::Slot(a) = s {
                    let slot = slots.get_mut(a).unwrap();
                    if slot.kept.is_none() {
                        slot.kept = Some((Remark::MallocFreeMixed, format!("a cudaFree its pointer reaches may also receive {what}")));
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }

    for a in order {
        let slot = &slots[&a];
        match &slot.kept {
            Some((remark, why)) => model.kept.extend(slot.allocs.iter().map(|s| (*s, *remark, why.clone()))),
            None => {
                model.aggregable.extend(slot.allocs.iter().map(|s| (*s, slot.frees.len())));
                for &free in &slot.frees {
                    if !model.frees.contains(&free) {
                        model.frees.push(free);
                    }
                }
            }
        }
    }
}

/// The loads of an allocation's variable, and a value other than null stored into it, if any; or why
/// the variable cannot be followed.
#[allow(clippy::type_complexity)]
fn slot_uses<'c>(alloca: InstructionValue<'c>) -> Result<(Vec<InstructionValue<'c>>, Option<BasicValueEnum<'c>>), String> {
    let name = alloca.result().operand_string();
    let mut loads = Vec::new();
    let mut foreign = None;
    let mut work = vec![alloca.result()];
    let mut seen: HashSet<BasicValueEnum<'c>> = HashSet::new();
    while let Some(ptr) = work.pop() {
        if !seen.insert(ptr) {
            continue;
        }
        for user in ptr.instruction_users() {
            match user.get_opcode() {
                InstructionOpcode::BitCast | InstructionOpcode::AddrSpaceCast => work.push(user.result()),
                InstructionOpcode::Load if matches!(user.get_type(), AnyTypeEnum::PointerType(_)) => loads.push(user),
                InstructionOpcode::Store if same_value(user.operand(1), ptr) && !same_value(user.operand(0), ptr) => {
                    let value = user.operand(0);
                    if !is_null(value) {
                        foreign = Some(value);
                    }
                }
                InstructionOpcode::Call if user.is_lifetime_marker() => {}
                InstructionOpcode::Call if entry_of(user) == Some(AllocEntry::Malloc) && same_value(user.call_args()[0], ptr) && !same_value(user.call_args()[1], ptr) => {}
                InstructionOpcode::Call if is_intrinsic(user, "llvm.memset.") && same_value(user.operand(0), ptr) => {
                    if user.operand(1).const_int() != Some(0) {
                        foreign = Some(user.operand(1));
                    }
                }
                _ => return Err(format!("its variable {name} is also used by `{}`", user.ir())),
            }
        }
    }
    Ok((loads, foreign))
}

/// Whether a pointer is derived from the allocation's start (through address arithmetic) or is it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Derivation {
    Start,
    Inside,
}

/// The frees that the pointers `loads` give reach, or why those pointers may reach code klap does not
/// see.
fn pointer_uses<'c>(loads: &[InstructionValue<'c>]) -> Result<Vec<InstructionValue<'c>>, (Remark, String)> {
    let mut state: HashMap<BasicValueEnum<'c>, Derivation> = HashMap::new();
    let mut work: Vec<(BasicValueEnum<'c>, Derivation)> = loads.iter().map(|l| (l.result(), Derivation::Start)).collect();
    let mut frees = Vec::new();
    let escapes = |user: InstructionValue<'c>, how: &str| Err((Remark::MallocEscapes, format!("its pointer {how} in `{}`, where klap cannot see every cudaFree it may reach", user.ir())));
    while let Some((v, d)) = work.pop() {
        match state.get(&v) {
            Some(&seen) if seen == d || seen == Derivation::Inside => continue,
            _ => {}
        }
        state.insert(v, d);
        for user in v.instruction_users() {
            match user.get_opcode() {
                InstructionOpcode::BitCast | InstructionOpcode::AddrSpaceCast | InstructionOpcode::Phi | InstructionOpcode::Freeze => {
                    work.push((user.result(), d))
                }
                InstructionOpcode::Select if !same_value(user.operand(0), v) => work.push((user.result(), d)),
                InstructionOpcode::GetElementPtr if same_value(user.operand(0), v) => work.push((user.result(), Derivation::Inside)),
                InstructionOpcode::Load | InstructionOpcode::ICmp => {}
                InstructionOpcode::Store if !same_value(user.operand(0), v) => {}
                InstructionOpcode::AtomicRMW if !same_value(user.operand(1), v) => {}
                InstructionOpcode::AtomicCmpXchg if !same_value(user.operand(1), v) && !same_value(user.operand(2), v) => {}
                InstructionOpcode::Call if entry_of(user) == Some(AllocEntry::Free) => {
                    if d == Derivation::Inside {
                        return Err((Remark::MallocFreeMixed, format!("a cudaFree may receive a pointer inside the allocation, not its start: `{}`", user.ir())));
                    }
                    if !frees.contains(&user) {
                        frees.push(user);
                    }
                }
                InstructionOpcode::Call if user.is_lifetime_marker() => {}
                InstructionOpcode::Call if is_memory_intrinsic(user) && !user.call_args()[2..].iter().any(|a| same_value(*a, v)) => {}
                InstructionOpcode::Store => return escapes(user, "is stored to memory"),
                InstructionOpcode::Call => return escapes(user, "is passed to a call"),
                InstructionOpcode::Return => return escapes(user, "is returned"),
                InstructionOpcode::PtrToInt => {
                    if let Some(use_) = integer_escape(user) {
                        return escapes(use_, "becomes an integer that is kept or turned back into a pointer");
                    }
                }
                _ => return escapes(user, "is used"),
            }
        }
    }
    Ok(frees)
}

/// Where the integer value of a pointer (`ptrtoint`) goes further than arithmetic and comparisons (an
/// alignment test, a hash), if it does: kept in memory, passed on, or made a pointer again.
fn integer_escape<'c>(ptrtoint: InstructionValue<'c>) -> Option<InstructionValue<'c>> {
    use InstructionOpcode::*;
    let mut seen: HashSet<InstructionValue<'c>> = HashSet::new();
    let mut work = vec![ptrtoint];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for user in v.result().instruction_users() {
            match user.get_opcode() {
                ICmp => {}
                Add | Sub | Mul | UDiv | SDiv | URem | SRem | Shl | LShr | AShr | And | Or | Xor | Trunc | ZExt | SExt | Select | Phi
                | Freeze => work.push(user),
                _ => return Some(user),
            }
        }
    }
    None
}

/// The values a freed pointer may be: through casts, phis and selects to their sources.
fn sources_of<'c>(v: BasicValueEnum<'c>, slots: &HashMap<InstructionValue<'c>, Slot<'c>>) -> Vec<Source<'c>> {
    let mut out = Vec::new();
    let mut seen: HashSet<BasicValueEnum<'c>> = HashSet::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        let v = v.strip_casts();
        if !seen.insert(v) {
            continue;
        }
        let source = if is_null(v) {
            Source::Null
        } else if let Some(inst) = v.as_instruction() {
            match inst.get_opcode() {
                InstructionOpcode::Phi => {
                    work.extend((0..inst.get_num_operands()).map(|i| inst.operand(i)));
                    continue;
                }
                InstructionOpcode::Select => {
                    work.extend([inst.operand(1), inst.operand(2)]);
                    continue;
                }
                InstructionOpcode::Freeze => {
                    work.push(inst.operand(0));
                    continue;
                }
                InstructionOpcode::Load => match inst.operand(0).strip_casts().instruction_of(InstructionOpcode::Alloca) {
                    Some(a) if slots.contains_key(&a) => Source::Slot(a),
                    _ => Source::Other(v),
                },
                _ => Source::Other(v),
            }
        } else {
            Source::Other(v)
        };
        if !out.contains(&source) {
            out.push(source);
        }
    }
    out
}

fn same_value<'c>(a: BasicValueEnum<'c>, b: BasicValueEnum<'c>) -> bool {
    crate::llvm::same(a, b)
}

fn is_null(v: BasicValueEnum) -> bool {
    v.const_pointer_int() == Some(0) || v.const_int() == Some(0)
}

fn is_intrinsic(call: InstructionValue, prefix: &str) -> bool {
    call.called_function().is_some_and(|f| f.name().starts_with(prefix))
}

/// `llvm.memset`, `llvm.memcpy`, `llvm.memmove` (and their inline forms): they read and write through
/// their pointer operands and keep nothing.
fn is_memory_intrinsic(call: InstructionValue) -> bool {
    ["llvm.memset.", "llvm.memcpy.", "llvm.memmove.", "llvm.memset.inline.", "llvm.memcpy.inline."].iter().any(|p| is_intrinsic(call, p))
}

trait Describe {
    fn operand_string_or_line(self) -> String;
}

impl Describe for InstructionValue<'_> {
    /// Where the user wrote the call, or its IR.
    fn operand_string_or_line(self) -> String {
        match self.debug_location() {
            Some((file, line, _)) => format!("{}:{line}", file.rsplit('/').next().unwrap_or(&file)),
            None => format!("`{}`", self.ir()),
        }
    }
}
