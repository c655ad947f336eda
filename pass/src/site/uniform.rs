//! Launch arguments that are the same for every launch of an aggregation scope: written once, into the
//! chunk's first record, and read from there by every block of the aggregated child.
//!
//! A value is uniform over a scope (a warp, a block, or a grid of a kernel) when it is computed, by
//! operations without side effects, from constants and from kernel parameters that are themselves
//! uniform. A parameter of a kernel launched as written is uniform over its grid; a parameter of an
//! aggregated child is uniform only if every launch of that child passes a uniform value for it (the
//! aggregated child's blocks serve many launches, and read it from the chunk's first record). Reads of
//! a `byval` kernel parameter that the kernel never writes are uniform as the parameter is. Launches in
//! device functions pass no parameter of theirs uniformly (their callers differ), and a constant only
//! where every launch of the child passes that constant.

use super::{param_layout, LaunchSite, Param, WriteKind};
use crate::llvm::{same, BasicValueEnum, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, Module, ValueExt};
use std::collections::HashMap;

/// For each aggregated child kernel, which of its parameters are passed once per chunk.
pub type UniformParams<'c> = HashMap<FunctionValue<'c>, Vec<bool>>;

/// The 4-byte words of arguments the runtime's uniform mask covers.
const MASK_WORDS: u64 = 64;

/// How deep a value's operands are followed before it counts as not uniform.
const MAX_DEPTH: u32 = 24;

pub fn analyze<'c>(module: &Module<'c>, sites: &[&LaunchSite<'c>], children: &[FunctionValue<'c>]) -> UniformParams<'c> {
    // Only the first 64 words of the arguments are taken from the first record when records are
    // launched one by one (the runtime's mask): parameters past them are never passed once.
    let mut uniform: UniformParams = children
        .iter()
        .map(|&k| {
            let (params, _) = param_layout(module, k);
            (k, params.iter().map(|p| p.offset + p.size <= 4 * MASK_WORDS).collect())
        })
        .collect();
    // Launches of one child from one kernel share chunks: each must pass the very same value. A launch in
    // a device function shares the chunks of the kernel running it (KLAP214), and of other device
    // functions that kernel runs: it must pass what every launch of the child passes (a constant of its
    // own, taken as uniform, gave the kernel's launches its value: fuzz cases 223-21, 230-25 at every
    // granularity, wrong checksums; 232-19, an illegal address).
    for (i, a) in sites.iter().enumerate() {
        for b in &sites[i + 1..] {
            if may_share_chunks(a, b) && a.child == b.child {
                let flags = uniform.get_mut(&a.child).unwrap();
                for (p, flag) in flags.iter_mut().enumerate() {
                    *flag &= written(a, p) == written(b, p);
                }
            }
        }
    }
    // Optimistic start, then every launch that passes a non-uniform value clears its parameter: a
    // cleared parameter can clear others (what a child passes on to its own children), until nothing
    // changes.
    loop {
        let mut changed = false;
        for site in sites {
            for w in &site.writes {
                if !uniform[&site.child][w.param] {
                    continue;
                }
                let ok = match w.kind {
                    WriteKind::Store { value } | WriteKind::Element { vector: value, .. } => value_uniform(&uniform, value, 0),
                    WriteKind::Copy { src, .. } => memory_uniform(&uniform, src, 0),
                };
                if !ok {
                    uniform.get_mut(&site.child).unwrap()[w.param] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return uniform;
        }
    }
}

/// Whether every launch of `child` among `sites` registers one configuration over its scope: each
/// launch's grid, block and dynamic shared memory are uniform (as arguments are, given `uniform`), and
/// launches that may share a chunk give the very same values. Then every record of a chunk has its
/// first record's configuration, and an aggregated block finds its record by a division.
pub fn config_uniform<'c>(sites: &[&LaunchSite<'c>], child: FunctionValue<'c>, uniform: &UniformParams<'c>) -> bool {
    let of_child: Vec<&LaunchSite<'c>> = sites.iter().copied().filter(|s| s.child == child).collect();
    let config = |s: &LaunchSite<'c>| -> Option<Vec<BasicValueEnum<'c>>> {
        let mut values: Vec<BasicValueEnum<'c>> = s.grid.fields.iter().chain(&s.block.fields).copied().collect::<Option<_>>()?;
        values.push(s.smem);
        values.iter().all(|&v| value_uniform(uniform, v, 0)).then_some(values)
    };
    let Some(configs) = of_child.iter().map(|s| config(s)).collect::<Option<Vec<_>>>() else { return false };
    !of_child.is_empty()
        && of_child.iter().zip(&configs).enumerate().all(|(i, (a, ca))| {
            of_child[i + 1..].iter().zip(&configs[i + 1..]).all(|(b, cb)| {
                !may_share_chunks(a, b) || ca.iter().zip(cb).all(|(&x, &y)| same(x, y))
            })
        })
}

/// Whether two launches may register into one chunk: launches of one kernel share its scopes, and a launch
/// in a device function joins the scope of whichever kernel runs it (KLAP214).
fn may_share_chunks(a: &LaunchSite, b: &LaunchSite) -> bool {
    a.caller == b.caller || !a.caller_is_kernel || !b.caller_is_kernel
}

/// What a launch writes into parameter `param`: offsets and values, or offsets, sources and lengths.
fn written<'c>(site: &LaunchSite<'c>, param: usize) -> Vec<(u64, BasicValueEnum<'c>, Option<u64>)> {
    site.writes
        .iter()
        .filter(|w| w.param == param)
        .map(|w| match w.kind {
            WriteKind::Store { value } => (w.offset, value, None),
            WriteKind::Element { vector, index } => (w.offset, vector, Some(index as u64)),
            WriteKind::Copy { src, len } => (w.offset, src, Some(len)),
        })
        .collect()
}

/// The 4-byte words of a parameter buffer (the first 64) that hold only uniform parameters (or padding).
pub fn uniform_words(params: &[Param], uniform: &[bool], size: u64) -> u64 {
    let mut mask = 0u64;
    for w in 0..size.div_ceil(4).min(MASK_WORDS) {
        let (lo, hi) = (4 * w, 4 * w + 4);
        let all = params.iter().zip(uniform).all(|(p, &u)| u || p.offset + p.size <= lo || p.offset >= hi);
        if all {
            mask |= 1 << w;
        }
    }
    mask
}

fn param_uniform(uniform: &UniformParams, f: FunctionValue, index: u32) -> bool {
    if !f.is_ptx_kernel() {
        return false;
    }
    uniform.get(&f).is_none_or(|u| u[index as usize])
}

fn value_uniform(uniform: &UniformParams, v: BasicValueEnum, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some((f, i)) = v.as_param() {
        return f.param_byval_type(i).is_none() && param_uniform(uniform, f, i);
    }
    if v.is_constant() {
        return true;
    }
    let Some(v) = v.as_instruction() else { return false };
    if v.get_opcode() == InstructionOpcode::Load {
        return memory_uniform(uniform, v.operand(0), depth + 1);
    }
    // A call's operands include its callee; a pure instruction's are all values.
    v.get_opcode() != InstructionOpcode::Call
        && v.is_pure_computation()
        && (0..v.get_num_operands()).all(|i| value_uniform(uniform, v.operand(i), depth + 1))
}

/// Memory at `ptr` holds the same bytes for the whole scope: `ptr` is a uniform offset into a
/// read-only `byval` parameter of a kernel, a parameter that is itself uniform.
fn memory_uniform(uniform: &UniformParams, ptr: BasicValueEnum, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some((f, i)) = ptr.as_param() {
        return f.param_byval_type(i).is_some() && param_uniform(uniform, f, i) && only_read(ptr, 0);
    }
    let Some(inst) = ptr.as_instruction().filter(|&i| i.is_address_computation()) else { return false };
    let indices_uniform = (1..inst.get_num_operands()).all(|i| value_uniform(uniform, inst.operand(i), depth + 1));
    indices_uniform && memory_uniform(uniform, inst.operand(0), depth + 1)
}

/// Every use of the pointer (through address arithmetic) reads: loads, copies out of it, lifetime marks.
fn only_read(ptr: BasicValueEnum, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    ptr.instruction_users().into_iter().all(|u| match u.get_opcode() {
        InstructionOpcode::Load => true,
        _ if u.is_address_computation() => same(u.operand(0), ptr) && only_read(u.result(), depth + 1),
        InstructionOpcode::Call if u.is_lifetime_marker() => true,
        InstructionOpcode::Call => matches!(u.as_mem_transfer(), Some((dst, src, _)) if same(src, ptr) && !same(dst, ptr)),
        _ => false,
    })
}

