//! The warp reductions of a child's threads, followed far enough that one thread can run a child warp's
//! threads one after another (child/reduced.rs, the reduced-serial variant): a child whose threads talk within their
//! warp only to reduce values there, and whose code after the reduction touches memory only in lane 0, is run
//! as a loop over the warp's lanes that folds each reduced value in as it goes, then lane 0's code once with
//! the folded values. That is what a CUDA programmer writes by hand where the work is small
//! (`for (...) sum += x;` instead of a child warp's `__reduce_add_sync` or `__shfl_down_sync` tree).
//!
//! What is recognized, in the kernel's own code (not in functions it calls):
//! - `__reduce_*_sync` (`llvm.nvvm.redux.sync.*`: add, min, max, umin, umax, and, or, xor) and `__ballot_sync`,
//!   `__any_sync`, `__all_sync` over the whole warp: every lane gets the fold over the 32 lanes;
//! - shuffles (`llvm.nvvm.shfl.sync.{down,up,bfly,idx}.i32`, whole warp, constant offsets and widths) whose
//!   results go through integer additions, subtractions, multiplications by constants, constant shifts,
//!   truncations and zero extensions (clang splits a 64-bit shuffle into two 32-bit ones and instcombine
//!   rewrites the joins): each value lane 0 uses is followed symbolically lane by lane (the PTX rule of each
//!   shuffle), and taken where it is an exact sum over the 32 lanes of values each thread computed before the
//!   shuffles, the same multiple of each lane's (so `for (d = 16; d > 0; d /= 2) v += __shfl_down_sync(~0u, v,
//!   d)`, in any order of offsets that sums every lane once, and the butterfly form);
//! - lane 0: code reached only where `threadIdx.x % 32 == 0` (or `& 31`) holds, alone or and-ed with other
//!   conditions (callers check that the child's blocks make threadIdx.x % 32 the lane).
//!
//! Where the code does anything else the analysis says what and the launch is left to the other policies.

use crate::llvm::{BasicBlock, BasicValueEnum, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, ValueExt};
use std::collections::{BTreeMap, HashMap, HashSet};

/// How a whole-warp reduction folds its lanes' values; each lane gets the fold of all 32.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fold {
    Add,
    And,
    Or,
    Xor,
    Min,
    Max,
    UMin,
    UMax,
    /// `__ballot_sync`: bit l is lane l's predicate.
    Ballot,
    /// `__any_sync`, on a predicate.
    Any,
    /// `__all_sync`, on a predicate.
    All,
}

impl Fold {
    fn of(callee: &str) -> Option<(Fold, usize, usize)> {
        // (fold, operand index of the value, of the mask)
        let redux = |f| Some((f, 0, 1));
        let vote = |f| Some((f, 1, 0));
        match callee {
            "llvm.nvvm.redux.sync.add" => redux(Fold::Add),
            "llvm.nvvm.redux.sync.and" => redux(Fold::And),
            "llvm.nvvm.redux.sync.or" => redux(Fold::Or),
            "llvm.nvvm.redux.sync.xor" => redux(Fold::Xor),
            "llvm.nvvm.redux.sync.min" => redux(Fold::Min),
            "llvm.nvvm.redux.sync.max" => redux(Fold::Max),
            "llvm.nvvm.redux.sync.umin" => redux(Fold::UMin),
            "llvm.nvvm.redux.sync.umax" => redux(Fold::UMax),
            "llvm.nvvm.vote.ballot.sync" => vote(Fold::Ballot),
            "llvm.nvvm.vote.any.sync" => vote(Fold::Any),
            "llvm.nvvm.vote.all.sync" => vote(Fold::All),
            _ => None,
        }
    }
}

/// A shuffle's mode (PTX `shfl.sync`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// A whole-warp shuffle with constant operands: the lane each lane reads.
#[derive(Clone, Copy, Debug)]
struct Shuffle {
    mode: Mode,
    b: u32,
    c: u32,
}

impl Shuffle {
    fn of(callee: &str) -> Option<Mode> {
        match callee {
            "llvm.nvvm.shfl.sync.up.i32" => Some(Mode::Up),
            "llvm.nvvm.shfl.sync.down.i32" => Some(Mode::Down),
            "llvm.nvvm.shfl.sync.bfly.i32" => Some(Mode::Bfly),
            "llvm.nvvm.shfl.sync.idx.i32" => Some(Mode::Idx),
            _ => None,
        }
    }

    /// The lane whose value `lane` receives (the PTX ISA's rule for `shfl.sync`; a lane whose source is out
    /// of its segment gets its own value).
    fn source(self, lane: u32) -> u32 {
        let (b, c) = (self.b & 31, self.c & 31);
        let segmask = (self.c >> 8) & 31;
        let max_lane = (lane & segmask) | (c & !segmask);
        let min_lane = lane & segmask;
        let (j, valid) = match self.mode {
            Mode::Up => {
                let j = lane as i64 - b as i64;
                (j, j >= max_lane as i64)
            }
            Mode::Down => {
                let j = (lane + b) as i64;
                (j, j <= max_lane as i64)
            }
            Mode::Bfly => {
                let j = (lane ^ b) as i64;
                (j, j <= max_lane as i64)
            }
            Mode::Idx => {
                let j = (min_lane | (b & !segmask)) as i64;
                (j, j <= max_lane as i64)
            }
        };
        if valid {
            j as u32
        } else {
            lane
        }
    }
}

/// A whole-warp reduction of the child: its call, how it folds, and the value each lane gives it (an input).
#[derive(Clone, Copy, Debug)]
pub struct Reduction<'c> {
    pub call: InstructionValue<'c>,
    pub fold: Fold,
    pub input: usize,
}

/// A value lane 0 uses that a shuffle tree computed: `konst + sum over (input i, c) of c * (the sum over the
/// warp's lanes of input i, zero-extended to 64 bits)`, modulo 2^(its width).
#[derive(Clone, Debug)]
pub struct Exit<'c> {
    pub value: InstructionValue<'c>,
    pub sums: Vec<(usize, u64)>,
    pub konst: u64,
}

/// How a child warp's threads run one after another: each thread's code up to the end of `block` gives
/// `inputs`; each reduction and each exit is a fold of them over the lanes; the rest is lane 0's.
#[derive(Debug)]
pub struct Plan<'c> {
    /// The block of every collective: every thread runs it once, after its own work.
    pub block: BasicBlock<'c>,
    /// Integer values each lane computes by the end of `block` without any collective's result.
    pub inputs: Vec<BasicValueEnum<'c>>,
    pub reductions: Vec<Reduction<'c>>,
    pub exits: Vec<Exit<'c>>,
    /// The shuffles and the arithmetic on their results: lane 0's run has the exits' values instead.
    pub chain: Vec<InstructionValue<'c>>,
}

/// Which index register a value reads (`"tid.x"`, `"ctaid.x"`, ...), in a kernel or in a copy of its code
/// that takes them as parameters.
pub type IndexOf<'a, 'c> = &'a dyn Fn(BasicValueEnum<'c>) -> Option<String>;

/// The plan for `f`, a kernel or a copy of its code for one thread; `index` names its index-register values.
/// Else why its threads cannot run so.
pub fn plan<'c>(f: FunctionValue<'c>, index: IndexOf<'_, 'c>) -> Result<Plan<'c>, String> {
    let mut collectives: Vec<InstructionValue<'c>> = Vec::new();
    let mut shuffles: HashMap<InstructionValue<'c>, Shuffle> = HashMap::new();
    let mut reductions: Vec<(InstructionValue<'c>, Fold, BasicValueEnum<'c>)> = Vec::new();
    for inst in f.instructions() {
        let Some(callee) = inst.called_function() else { continue };
        let name = callee.name();
        let whole_warp = |k: u32| inst.value_operand(k).and_then(|m| m.const_int()) == Some(0xffff_ffff);
        if let Some((fold, value, mask)) = Fold::of(&name) {
            if !whole_warp(mask as u32) {
                return Err(format!("its {name} is not over the whole warp (a mask other than a constant 0xffffffff)"));
            }
            collectives.push(inst);
            reductions.push((inst, fold, inst.operand(value as u32)));
        } else if let Some(mode) = Shuffle::of(&name) {
            let constant = |k| inst.value_operand(k).and_then(|v| v.const_int());
            let (Some(b), Some(c)) = (constant(2), constant(3)) else {
                return Err(format!("its {name} takes a lane or width that is not a constant"));
            };
            if !whole_warp(0) {
                return Err(format!("its {name} is not over the whole warp (a mask other than a constant 0xffffffff)"));
            }
            collectives.push(inst);
            shuffles.insert(inst, Shuffle { mode, b: b as u32, c: c as u32 });
        } else if thread_collective(&name).is_some() {
            return Err(format!("it calls {name}, which is not a whole-warp reduction or integer shuffle"));
        }
    }
    if collectives.is_empty() {
        return Err("it has no warp reduction".to_string());
    }
    let entry = f.get_first_basic_block().expect("a defined function");
    // Every thread reaches each collective once, all on one way through the code; the last one's block ends
    // each thread's own part.
    let mut blocks: Vec<BasicBlock<'c>> = collectives.iter().map(|c| c.block()).collect();
    blocks.dedup();
    for b in &blocks {
        if reaches(&successors(*b), *b, None) {
            return Err("a warp collective of it is in a loop".to_string());
        }
        if reachable(&[entry], Some(*b)).iter().any(|x| successors(*x).is_empty()) {
            return Err("a thread can end without reaching each of its warp collectives".to_string());
        }
    }
    let block = *blocks.iter().find(|b| blocks.iter().all(|o| o == *b || reaches(&[*o], **b, None))).expect("collectives on every path are ordered");
    let before = reachable(&[entry], Some(block));
    let after = reachable(&successors(block), None);
    if after.iter().any(|b| before.contains(b)) {
        return Err("code before its warp collectives can run after them too".to_string());
    }
    // What depends on a collective's result.
    let depends = dependents(&collectives);
    let chain = chain_of(&shuffles);
    // Each thread's own part is run once for every lane, its collectives' results not yet known, and lane
    // 0's again for its part after: it must not write (a write in it would be made twice), nor branch on,
    // divide by or load through a collective's result.
    let last = *collectives.iter().rev().find(|c| c.block() == block).expect("a collective in its block");
    for b in before.iter().chain(std::iter::once(&block)) {
        let mut past_last = false;
        for inst in instructions(*b) {
            past_last |= inst == last;
            if collectives.contains(&inst) || chain.contains(&inst) {
                continue;
            }
            if has_effect(inst) {
                let when = if past_last { "after its warp reductions where the lane may be other than 0" } else { "before its warp reductions are done" };
                return Err(format!("it writes memory or synchronizes {when} ({})", inst.ir()));
            }
            let is_end = *b == block && inst.is_terminator();
            if !is_end && depends.contains(&inst) && !harmless(inst) {
                return Err(format!("{} uses a warp collective's result before the last one", inst.ir()));
            }
            if !is_end && inst.is_terminator() && (0..inst.get_num_operands()).filter_map(|k| inst.value_operand(k)).any(|v| v.as_instruction().is_some_and(|i| depends.contains(&i))) {
                return Err(format!("it branches on a warp collective's result before the last one ({})", inst.ir()));
            }
        }
    }
    // The lanes' values must be their own work.
    let mut inputs: Vec<BasicValueEnum<'c>> = Vec::new();
    let mut input_of = |v: BasicValueEnum<'c>, what: &str| -> Result<usize, String> {
        if let Some(i) = v.as_instruction() {
            if depends.contains(&i) {
                return Err(format!("the {what} {} depends on another warp collective's result", i.operand_string()));
            }
            if !(i.block() == block || dominates_block(entry, i.block(), block)) {
                return Err(format!("the {what} {} is not computed on every thread's way to the warp collectives", i.operand_string()));
            }
        }
        if !v.get_type().is_int_type() || v.get_type().into_int_type().get_bit_width() > 64 {
            return Err(format!("the {what} {} is not an integer of at most 64 bits", v.operand_string()));
        }
        Ok(inputs.iter().position(|x| *x == v).unwrap_or_else(|| {
            inputs.push(v);
            inputs.len() - 1
        }))
    };
    let mut folded = Vec::new();
    for &(call, fold, value) in &reductions {
        folded.push(Reduction { call, fold, input: input_of(value, "value reduced")? });
    }
    // Lane 0's part: its writes, and its uses of what the shuffles computed, only where the lane is 0.
    let lane0 = lane0_blocks(f, entry, index);
    for b in &after {
        for inst in instructions(*b) {
            if has_effect(inst) && !lane0.contains(b) {
                return Err(format!("it writes memory or synchronizes after its warp reductions where the lane may be other than 0 ({})", inst.ir()));
            }
        }
    }
    let mut exits: Vec<Exit<'c>> = Vec::new();
    let mut eval = Evaluator { shuffles: &shuffles, chain: &chain, memo: HashMap::new(), leaves: Vec::new() };
    // In the function's order, so that every copy of the code numbers its inputs alike.
    let chain_order: Vec<InstructionValue<'c>> = f.instructions().into_iter().filter(|i| chain.contains(i)).collect();
    for &c in &chain_order {
        let outside: Vec<InstructionValue<'c>> = c.result().instruction_users().into_iter().filter(|u| !chain.contains(u)).collect();
        if outside.is_empty() {
            continue;
        }
        for u in &outside {
            if u.get_opcode() == InstructionOpcode::Phi || !lane0.contains(&u.block()) {
                return Err(format!("{} uses a shuffle's result where the lane may be other than 0", u.ir()));
            }
        }
        let sym = eval.at(c.result(), 0)?;
        if !sym.windows.is_empty() {
            return Err(format!("lane 0's {} is not a sum over the warp's lanes", c.operand_string()));
        }
        let mut exit = Exit { value: c, sums: Vec::new(), konst: sym.plain.konst };
        let mut per_input: BTreeMap<usize, [u64; 32]> = BTreeMap::new();
        for (&(leaf, lane), &k) in &sym.plain.coef {
            per_input.entry(leaf).or_insert([0; 32])[lane as usize] = k;
        }
        for (leaf, coefs) in per_input {
            if coefs.iter().any(|&k| k != coefs[0]) {
                return Err(format!("lane 0's {} does not count every lane's value the same", c.operand_string()));
            }
            let input = input_of(eval.leaves[leaf], "value shuffled")?;
            exit.sums.push((input, coefs[0]));
        }
        exits.push(exit);
    }
    Ok(Plan { block, inputs, reductions: folded, exits, chain: chain_order })
}

/// Arithmetic that is defined whatever its operands (a collective's result taken as 0 in the lanes' loop).
fn harmless(inst: InstructionValue) -> bool {
    use InstructionOpcode::*;
    matches!(inst.get_opcode(), Add | Sub | Mul | Shl | LShr | AShr | And | Or | Xor | Trunc | ZExt | SExt | ICmp | Select | Phi | Freeze | BitCast)
}

/// What a call does that needs the other threads of a block or warp (a barrier, a warp collective, a
/// lane's identity), by the callee's name; None for anything else.
pub fn thread_collective(callee: &str) -> Option<&'static str> {
    const COLLECTIVES: [(&str, &str); 10] = [
        ("llvm.nvvm.barrier", "waits at a barrier"),
        ("llvm.nvvm.bar.", "waits at a barrier"),
        ("llvm.nvvm.shfl.", "exchanges values within a warp"),
        ("llvm.nvvm.vote.", "votes within a warp"),
        ("llvm.nvvm.match.", "matches values within a warp"),
        ("llvm.nvvm.redux.", "reduces within a warp"),
        ("llvm.nvvm.activemask", "asks which lanes of its warp are active"),
        ("llvm.nvvm.read.ptx.sreg.laneid", "reads its lane number"),
        ("llvm.nvvm.read.ptx.sreg.warpid", "reads its warp number"),
        ("llvm.nvvm.read.ptx.sreg.lanemask", "reads a lane mask"),
    ];
    COLLECTIVES.iter().find(|(prefix, _)| callee.starts_with(prefix)).map(|(_, what)| *what)
}

/// Whether a call needs only the other lanes of its warp: a warp collective or a lane's identity (not
/// its warp's number, which is the hardware's and no child's).
pub fn within_warp(callee: &str) -> bool {
    const WARP: [&str; 8] = [
        "llvm.nvvm.shfl.",
        "llvm.nvvm.vote.",
        "llvm.nvvm.match.",
        "llvm.nvvm.redux.",
        "llvm.nvvm.activemask",
        "llvm.nvvm.read.ptx.sreg.laneid",
        "llvm.nvvm.read.ptx.sreg.lanemask",
        "llvm.nvvm.bar.warp.sync",
    ];
    WARP.iter().any(|prefix| callee.starts_with(prefix))
}

fn instructions(b: BasicBlock) -> Vec<InstructionValue> {
    let mut out = Vec::new();
    let mut at = b.get_first_instruction();
    while let Some(i) = at {
        out.push(i);
        at = i.get_next_instruction();
    }
    out
}

fn successors(b: BasicBlock) -> Vec<BasicBlock> {
    b.get_terminator().map(|t| t.successors()).unwrap_or_default()
}

/// The blocks reachable from `from` (themselves included) without entering `avoid`.
fn reachable<'c>(from: &[BasicBlock<'c>], avoid: Option<BasicBlock<'c>>) -> Vec<BasicBlock<'c>> {
    let mut seen: Vec<BasicBlock<'c>> = Vec::new();
    let mut work: Vec<BasicBlock<'c>> = from.iter().copied().filter(|b| Some(*b) != avoid).collect();
    while let Some(b) = work.pop() {
        if seen.contains(&b) {
            continue;
        }
        seen.push(b);
        work.extend(successors(b).into_iter().filter(|s| Some(*s) != avoid && !seen.contains(s)));
    }
    seen
}

fn reaches<'c>(from: &[BasicBlock<'c>], to: BasicBlock<'c>, avoid: Option<BasicBlock<'c>>) -> bool {
    reachable(from, avoid).contains(&to)
}

/// Whether every path from `entry` to `b` passes `dom`.
fn dominates_block<'c>(entry: BasicBlock<'c>, dom: BasicBlock<'c>, b: BasicBlock<'c>) -> bool {
    dom == b || dom == entry || !reaches(&[entry], b, Some(dom))
}

/// Whether an instruction writes memory, synchronizes, or calls what may: what the lane loop must not repeat
/// and lane 0's part must keep to lane 0.
fn has_effect(inst: InstructionValue) -> bool {
    use InstructionOpcode::*;
    match inst.get_opcode() {
        // A thread's own stack slot (a by-value argument's copy) is written afresh at each run.
        Store => !inst.operand(1).strip_casts().as_instruction().is_some_and(|a| a.get_opcode() == Alloca),
        AtomicRMW | AtomicCmpXchg | Fence | Invoke | CallBr => true,
        Load => inst.get_volatile().unwrap_or(true) || !inst.get_atomic_ordering().is_ok_and(|o| o == crate::llvm::AtomicOrdering::NotAtomic),
        Call => !(inst.call_only_reads_memory() || inst.is_lifetime_marker() || inst.called_function().is_some_and(|f| f.name().starts_with("llvm.dbg."))),
        _ => false,
    }
}

/// Every instruction that uses, directly or not, the result of one of `roots` (and the roots).
fn dependents<'c>(roots: &[InstructionValue<'c>]) -> HashSet<InstructionValue<'c>> {
    let mut seen: HashSet<InstructionValue<'c>> = HashSet::new();
    let mut work: Vec<InstructionValue<'c>> = roots.to_vec();
    while let Some(i) = work.pop() {
        if seen.insert(i) && !i.get_type().is_void_type() {
            work.extend(i.result().instruction_users());
        }
    }
    seen
}

/// The shuffles and the arithmetic the evaluator follows on their results.
fn chain_of<'c>(shuffles: &HashMap<InstructionValue<'c>, Shuffle>) -> HashSet<InstructionValue<'c>> {
    let mut chain: HashSet<InstructionValue<'c>> = HashSet::new();
    let mut work: Vec<InstructionValue<'c>> = shuffles.keys().copied().collect();
    while let Some(i) = work.pop() {
        if chain.insert(i) {
            work.extend(i.result().instruction_users().into_iter().filter(|u| followed(*u) || shuffles.contains_key(u)));
        }
    }
    chain
}

fn followed(inst: InstructionValue) -> bool {
    use InstructionOpcode::*;
    matches!(inst.get_opcode(), Add | Sub | Mul | Shl | LShr | Trunc | ZExt | Or)
}

/// The blocks only lane 0 reaches: dominated by the taken side of a branch on a condition that implies
/// `threadIdx.x % 32 == 0`, entered from that branch alone.
fn lane0_blocks<'c>(f: FunctionValue<'c>, entry: BasicBlock<'c>, index: IndexOf<'_, 'c>) -> Vec<BasicBlock<'c>> {
    let blocks = f.get_basic_blocks();
    let mut heads: Vec<BasicBlock<'c>> = Vec::new();
    for b in &blocks {
        let Some(t) = b.get_terminator() else { continue };
        if t.get_opcode() != InstructionOpcode::Br || t.get_num_operands() != 3 {
            continue;
        }
        let succ = t.successors();
        let (taken, other) = (succ[0], succ[1]);
        let single_entry = blocks.iter().filter(|p| successors(**p).contains(&taken)).count() == 1;
        if taken != other && single_entry && implies_lane0(t.operand(0), index, 4) {
            heads.push(taken);
        }
    }
    blocks.into_iter().filter(|b| heads.iter().any(|h| dominates_block(entry, *h, *b) && *h != entry)).collect()
}

/// Whether `cond` holds only where threadIdx.x % 32 == 0.
fn implies_lane0<'c>(cond: BasicValueEnum<'c>, index: IndexOf<'_, 'c>, depth: u32) -> bool {
    let Some(i) = cond.as_instruction() else { return false };
    if depth == 0 {
        return false;
    }
    match i.get_opcode() {
        InstructionOpcode::ICmp if i.get_icmp_predicate() == Some(IntPredicate::EQ) => {
            let (a, b) = (i.operand(0), i.operand(1));
            (b.const_int() == Some(0) && zero_means_lane0(a, index, 4)) || (a.const_int() == Some(0) && zero_means_lane0(b, index, 4))
        }
        InstructionOpcode::And => implies_lane0(i.operand(0), index, depth - 1) || implies_lane0(i.operand(1), index, depth - 1),
        // select c1, c2, false: c1 and c2
        InstructionOpcode::Select if i.operand(2).const_int() == Some(0) => {
            implies_lane0(i.operand(0), index, depth - 1) || implies_lane0(i.operand(1), index, depth - 1)
        }
        _ => false,
    }
}

/// Whether `v == 0` means threadIdx.x % 32 == 0: `v` is threadIdx.x, `threadIdx.x & 31`, `threadIdx.x % 32`, or a
/// sum that cannot wrap of such a value and a non-negative one (`blockIdx.x * blockDim.x + threadIdx.x`).
fn zero_means_lane0<'c>(v: BasicValueEnum<'c>, index: IndexOf<'_, 'c>, depth: u32) -> bool {
    let is_tid_x = |v: BasicValueEnum<'c>| index(v).as_deref() == Some("tid.x");
    if is_tid_x(v) {
        return true;
    }
    let Some(i) = v.as_instruction() else { return false };
    if depth == 0 || i.get_num_operands() != 2 {
        return false;
    }
    let (a, b) = (i.operand(0), i.operand(1));
    match i.get_opcode() {
        InstructionOpcode::And => (b.const_int() == Some(31) && is_tid_x(a)) || (a.const_int() == Some(31) && is_tid_x(b)),
        InstructionOpcode::URem => b.const_int() == Some(32) && is_tid_x(a),
        InstructionOpcode::Add => {
            let nuw = i.get_no_unsigned_wrap_flag().unwrap_or(false);
            let nsw = i.get_no_signed_wrap_flag().unwrap_or(false) && non_negative(a, index, 4) && non_negative(b, index, 4);
            (nuw || nsw) && (zero_means_lane0(a, index, depth - 1) || zero_means_lane0(b, index, depth - 1))
        }
        _ => false,
    }
}

/// Whether a 32-bit value is below 2^31: an index register, a small constant, or a product or sum of such
/// values that cannot wrap signed.
fn non_negative<'c>(v: BasicValueEnum<'c>, index: IndexOf<'_, 'c>, depth: u32) -> bool {
    if index(v).is_some() || v.const_int().is_some_and(|k| k < 1 << 31) {
        return true;
    }
    let Some(i) = v.as_instruction() else { return false };
    depth > 0
        && matches!(i.get_opcode(), InstructionOpcode::Add | InstructionOpcode::Mul)
        && i.get_no_signed_wrap_flag().unwrap_or(false)
        && non_negative(i.operand(0), index, depth - 1)
        && non_negative(i.operand(1), index, depth - 1)
}

/// `konst + sum of coef[(leaf, lane)] * leaf at lane`, modulo 2^64; each leaf zero-extended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Form {
    coef: BTreeMap<(usize, u8), u64>,
    konst: u64,
}

impl Form {
    fn scaled(&self, k: u64) -> Form {
        let mut coef = BTreeMap::new();
        for (&key, &c) in &self.coef {
            let c = c.wrapping_mul(k);
            if c != 0 {
                coef.insert(key, c);
            }
        }
        Form { coef, konst: self.konst.wrapping_mul(k) }
    }

    fn add(&mut self, other: &Form) {
        for (&key, &c) in &other.coef {
            let e = self.coef.entry(key).or_insert(0);
            *e = e.wrapping_add(c);
            if *e == 0 {
                self.coef.remove(&key);
            }
        }
        self.konst = self.konst.wrapping_add(other.konst);
    }

    fn is_zero(&self) -> bool {
        self.coef.is_empty() && self.konst == 0
    }
}

/// `coef * (bits lo..hi of form) * 2^shift`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Window {
    coef: u64,
    form: Form,
    lo: u32,
    hi: u32,
    shift: u32,
}

/// An integer of `width` bits: `(plain + the windows) mod 2^width`.
#[derive(Clone, Debug)]
struct Sym {
    width: u32,
    plain: Form,
    windows: Vec<Window>,
}

impl Sym {
    fn normalize(mut self) -> Sym {
        loop {
            let w = self.width;
            // A window whose every bit lands at or past the width is 0 modulo 2^width.
            self.windows.retain(|x| x.lo < x.hi && x.coef != 0 && (x.coef.trailing_zeros() + x.shift) < w);
            // bits 0..hi of F with hi >= width: F itself, modulo 2^width.
            if let Some(k) = self.windows.iter().position(|x| x.lo == 0 && x.shift == 0 && x.hi >= w) {
                let x = self.windows.remove(k);
                self.plain.add(&x.form.scaled(x.coef));
                continue;
            }
            // bits lo..m, then m..hi just above them: bits lo..hi.
            let mut merged = false;
            'outer: for a in 0..self.windows.len() {
                for b in 0..self.windows.len() {
                    let (x, y) = (&self.windows[a], &self.windows[b]);
                    if a != b && x.coef == y.coef && x.form == y.form && y.lo == x.hi && y.shift == x.shift + (x.hi - x.lo) {
                        let hi = y.hi;
                        self.windows[a].hi = hi;
                        self.windows.remove(b);
                        merged = true;
                        break 'outer;
                    }
                }
            }
            if !merged {
                return self;
            }
        }
    }

    /// The value as it is where it cannot wrap: the bits it occupies, when it is one window of coefficient 1
    /// or a plain form taken modulo the width.
    fn as_window(&self) -> Option<Window> {
        match (self.windows.as_slice(), self.plain.is_zero()) {
            ([], _) => Some(Window { coef: 1, form: self.plain.clone(), lo: 0, hi: self.width, shift: 0 }),
            ([x], true) if x.coef == 1 && (x.hi - x.lo) + x.shift <= self.width => Some(x.clone()),
            _ => None,
        }
    }
}

struct Evaluator<'a, 'c> {
    shuffles: &'a HashMap<InstructionValue<'c>, Shuffle>,
    chain: &'a HashSet<InstructionValue<'c>>,
    memo: HashMap<(BasicValueEnum<'c>, u32), Sym>,
    /// The values the forms count, by their index in the forms.
    leaves: Vec<BasicValueEnum<'c>>,
}

impl<'c> Evaluator<'_, 'c> {
    /// `v`'s value at `lane`, symbolically.
    fn at(&mut self, v: BasicValueEnum<'c>, lane: u32) -> Result<Sym, String> {
        if let Some(s) = self.memo.get(&(v, lane)) {
            return Ok(s.clone());
        }
        let s = self.compute(v, lane)?;
        self.memo.insert((v, lane), s.clone());
        Ok(s)
    }

    fn compute(&mut self, v: BasicValueEnum<'c>, lane: u32) -> Result<Sym, String> {
        let ty = v.get_type();
        if !ty.is_int_type() || ty.into_int_type().get_bit_width() > 64 {
            return Err(format!("{} is not an integer of at most 64 bits", v.operand_string()));
        }
        let width = ty.into_int_type().get_bit_width();
        if let Some(k) = v.const_int() {
            return Ok(Sym { width, plain: Form { coef: BTreeMap::new(), konst: k }, windows: Vec::new() });
        }
        // A value of the shuffles' chain is followed or the plan fails; any other is followed where it can be
        // (clang's halves of a 64-bit value are truncations and shifts of it), else it is a leaf: a value of
        // the lane's own.
        let inst = match v.as_instruction() {
            Some(i) if self.chain.contains(&i) => i,
            // Where it is more than a linear form or one bit range of one, it is a leaf too: its halves are then
            // bit ranges of it.
            Some(i) if followed(i) => match self.follow(i, width, lane) {
                Ok(s) if s.windows.is_empty() || (s.plain.is_zero() && s.windows.len() == 1) => return Ok(s),
                _ => return Ok(self.leaf(v, width, lane)),
            },
            _ => return Ok(self.leaf(v, width, lane)),
        };
        if let Some(s) = self.shuffles.get(&inst) {
            let s = *s;
            return self.at(inst.operand(1), s.source(lane));
        }
        self.follow(inst, width, lane)
    }

    fn leaf(&mut self, v: BasicValueEnum<'c>, width: u32, lane: u32) -> Sym {
        let leaf = self.leaves.iter().position(|x| *x == v).unwrap_or_else(|| {
            self.leaves.push(v);
            self.leaves.len() - 1
        });
        let mut coef = BTreeMap::new();
        coef.insert((leaf, lane as u8), 1);
        Sym { width, plain: Form { coef, konst: 0 }, windows: Vec::new() }
    }

    /// The value of an arithmetic instruction at `lane`, from its operands'.
    fn follow(&mut self, inst: InstructionValue<'c>, width: u32, lane: u32) -> Result<Sym, String> {
        let cant = || format!("lane 0's value of {} cannot be followed", inst.operand_string());
        let constant = |k: u32| inst.operand(k).const_int();
        use InstructionOpcode::*;
        let s = match inst.get_opcode() {
            Add | Sub => {
                let (mut a, b) = (self.at(inst.operand(0), lane)?, self.at(inst.operand(1), lane)?);
                let sign = if inst.get_opcode() == Sub { u64::MAX } else { 1 };
                a.plain.add(&b.plain.scaled(sign));
                a.windows.extend(b.windows.into_iter().map(|w| Window { coef: w.coef.wrapping_mul(sign), ..w }));
                a
            }
            Mul => {
                let (value, k) = match (constant(0), constant(1)) {
                    (_, Some(k)) => (inst.operand(0), k),
                    (Some(k), None) => (inst.operand(1), k),
                    _ => return Err(cant()),
                };
                let mut a = self.at(value, lane)?;
                a.plain = a.plain.scaled(k);
                for w in &mut a.windows {
                    w.coef = w.coef.wrapping_mul(k);
                }
                a
            }
            Shl => {
                let k = constant(1).filter(|&k| k < width as u64).ok_or_else(cant)? as u32;
                let mut a = self.at(inst.operand(0), lane)?;
                a.plain = a.plain.scaled(1u64 << k);
                for w in &mut a.windows {
                    w.shift += k;
                }
                a
            }
            LShr => {
                let k = constant(1).filter(|&k| k < width as u64).ok_or_else(cant)? as u32;
                let a = self.at(inst.operand(0), lane)?.normalize();
                let mut x = a.as_window().ok_or_else(cant)?;
                if x.shift >= k {
                    x.shift -= k;
                } else if x.shift == 0 {
                    x.lo = (x.lo + k).min(x.hi);
                } else {
                    return Err(cant());
                }
                Sym { width, plain: Form::default(), windows: vec![x] }
            }
            Trunc => {
                let mut a = self.at(inst.operand(0), lane)?;
                a.width = width;
                a
            }
            ZExt => {
                let a = self.at(inst.operand(0), lane)?.normalize();
                let x = a.as_window().ok_or_else(cant)?;
                Sym { width, plain: Form::default(), windows: vec![x] }
            }
            Or => {
                // Where the two sides occupy disjoint bits, their or is their sum.
                let (a, b) = (self.at(inst.operand(0), lane)?.normalize(), self.at(inst.operand(1), lane)?.normalize());
                let bits = |s: &Sym| -> Option<(u32, u32)> {
                    if s.windows.is_empty() && s.plain.coef.is_empty() {
                        let k = s.plain.konst & mask(s.width);
                        return Some(if k == 0 { (0, 0) } else { (k.trailing_zeros(), 64 - k.leading_zeros()) });
                    }
                    s.as_window().map(|x| (x.shift, x.shift + x.hi - x.lo))
                };
                let (Some(x), Some(y)) = (bits(&a), bits(&b)) else { return Err(cant()) };
                if !(x.0 == x.1 || y.0 == y.1 || x.1 <= y.0 || y.1 <= x.0) {
                    return Err(cant());
                }
                let mut sum = a;
                sum.plain.add(&b.plain);
                sum.windows.extend(b.windows);
                sum
            }
            _ => return Err(cant()),
        };
        Ok(Sym { width, ..s }.normalize())
    }
}

/// A bound on a child's working threads, for a one-dimensional launch: the kernel's i32 parameter `param`, such
/// that a thread whose `blockIdx.x * blockDim.x + threadIdx.x` is at or past it (compared signed or not) gives
/// every reduction the fold's neutral value and every shuffled sum 0. Its lanes then change no fold, and a
/// loop over a warp's lanes may stop at the bound (child/reduced.rs) where the guard `if (i < n)` would have
/// made them idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub param: u32,
    pub signed: bool,
}

/// A test of a thread's linear x index against an i32 parameter of its function: its value for a thread
/// below the bound, and for one at or past it, where the predicate decides it.
struct BoundTest<'c> {
    icmp: InstructionValue<'c>,
    bound: Bound,
    below: bool,
    past: Option<bool>,
}

/// Whether `v` is `blockIdx.x * blockDim.x + threadIdx.x`, the add's and the multiply's operands in either
/// order; `index` names the index register a value reads. `widened`: `v` and each operand may be a zext or
/// sext of the 32-bit value (an index computed in 64 bits), where a test of the bound alone matters; else
/// the index is exactly the 32-bit one, which a value folded for the threads past a bound needs.
pub(crate) fn is_linear_x<'c>(v: BasicValueEnum<'c>, index: IndexOf<'_, 'c>, widened: bool) -> bool {
    let narrow = |v: BasicValueEnum<'c>| match v.as_instruction() {
        Some(i) if widened && matches!(i.get_opcode(), InstructionOpcode::ZExt | InstructionOpcode::SExt) => i.operand(0),
        _ => v,
    };
    let reads = |v: BasicValueEnum<'c>, r: &str| index(narrow(v)).as_deref() == Some(r);
    let Some(add) = narrow(v).instruction_of(InstructionOpcode::Add) else { return false };
    let base = |m: BasicValueEnum<'c>| {
        narrow(m).instruction_of(InstructionOpcode::Mul).is_some_and(|m| {
            let (a, b) = (m.operand(0), m.operand(1));
            (reads(a, "ctaid.x") && reads(b, "ntid.x")) || (reads(a, "ntid.x") && reads(b, "ctaid.x"))
        })
    };
    let (a, b) = (add.operand(0), add.operand(1));
    (reads(a, "tid.x") && base(b)) || (reads(b, "tid.x") && base(a))
}

fn bound_tests<'c>(f: FunctionValue<'c>, index: IndexOf<'_, 'c>) -> Vec<BoundTest<'c>> {
    use IntPredicate::*;
    let i32_param = |v: BasicValueEnum<'c>| v.as_param().filter(|(g, _)| *g == f && v.get_type().is_int_type() && v.get_type().into_int_type().get_bit_width() == 32).map(|(_, k)| k);
    let mut tests = Vec::new();
    for icmp in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::ICmp) {
        let (a, b) = (icmp.operand(0), icmp.operand(1));
        let Some(p) = icmp.get_icmp_predicate() else { continue };
        // Normalized to `x p n`.
        let (p, param) = if is_linear_x(a, index, false) {
            match i32_param(b) {
                Some(k) => (p, k),
                None => continue,
            }
        } else if is_linear_x(b, index, false) {
            let swapped = match p {
                SLT => SGT,
                SGT => SLT,
                SLE => SGE,
                SGE => SLE,
                ULT => UGT,
                UGT => ULT,
                ULE => UGE,
                UGE => ULE,
                other => other,
            };
            match i32_param(a) {
                Some(k) => (swapped, k),
                None => continue,
            }
        } else {
            continue;
        };
        let (below, past) = match p {
            SLT | ULT => (true, Some(false)),
            SLE | ULE => (true, None),
            SGT | UGT => (false, None),
            SGE | UGE => (false, Some(true)),
            _ => continue,
        };
        let signed = matches!(p, SLT | SLE | SGT | SGE);
        tests.push(BoundTest { icmp, bound: Bound { param, signed }, below, past });
    }
    tests
}

/// The bound on `f`'s working threads that `plan`'s inputs show, if any: a parameter tested against the
/// thread's linear x index such that, with the tests taken as failed, the one way from the entry to the
/// collectives' block gives every reduction its fold's neutral value and every shuffled input 0.
pub fn bound<'c>(f: FunctionValue<'c>, plan: &Plan<'c>, index: IndexOf<'_, 'c>) -> Option<Bound> {
    let tests = bound_tests(f, index);
    let mut candidates: Vec<Bound> = tests.iter().filter(|t| t.past.is_some()).map(|t| t.bound).collect();
    candidates.dedup();
    candidates.into_iter().find(|&bound| {
        let known = tests.iter().filter(|t| t.bound == bound).filter_map(|t| t.past.map(|v| (t.icmp, v))).collect();
        let Some(mut past) = PastBound::walk(f, plan.block, known) else { return false };
        let mut neutral_input = |k: usize, want: &dyn Fn(u32) -> u64| {
            let v = plan.inputs[k];
            let width = v.get_type().into_int_type().get_bit_width();
            past.value(v) == Some(want(width) & mask(width))
        };
        plan.reductions.iter().all(|r| neutral_input(r.input, &|w| neutral(r.fold, w)))
            && plan.exits.iter().flat_map(|e| e.sums.iter()).all(|&(k, _)| neutral_input(k, &|_| 0))
    })
}

/// Replaces each test of `f` against `bound` with its value for a thread below the bound (a copy of a child's
/// code that only such threads run).
pub fn fold_bound_tests<'c>(f: FunctionValue<'c>, index: IndexOf<'_, 'c>, bound: Bound) {
    let i1 = f.get_type().get_context().bool_type();
    for t in bound_tests(f, index).into_iter().filter(|t| t.bound == bound) {
        t.icmp.replace_uses_with(i1.const_int(t.below as u64, false));
    }
}

/// The value a lane gives a reduction so that the fold is unchanged: its identity.
fn neutral(fold: Fold, width: u32) -> u64 {
    use Fold::*;
    match fold {
        Add | Or | Xor | UMax | Ballot | Any => 0,
        And | UMin | All => mask(width),
        Min => mask(width) >> 1,
        Max => 1u64 << (width - 1),
    }
}

/// Constant values on the one way a thread past the bound takes from the entry to a block, where each branch
/// on the way is decided by what is known.
struct PastBound<'c> {
    known: HashMap<InstructionValue<'c>, bool>,
    /// The block before each block of the way.
    from: HashMap<BasicBlock<'c>, BasicBlock<'c>>,
    memo: HashMap<BasicValueEnum<'c>, Option<u64>>,
}

impl<'c> PastBound<'c> {
    fn walk(f: FunctionValue<'c>, to: BasicBlock<'c>, known: HashMap<InstructionValue<'c>, bool>) -> Option<PastBound<'c>> {
        let mut s = PastBound { known, from: HashMap::new(), memo: HashMap::new() };
        let mut at = f.get_first_basic_block()?;
        let mut seen = HashSet::from([at]);
        while at != to {
            let term = at.get_terminator()?;
            let next = match (term.get_opcode(), term.successors().as_slice()) {
                (InstructionOpcode::Br, [only]) => *only,
                (InstructionOpcode::Br, [on_true, on_false]) => match s.value(term.operand(0))? {
                    0 => *on_false,
                    _ => *on_true,
                },
                _ => return None,
            };
            if !seen.insert(next) {
                return None;
            }
            s.from.insert(next, at);
            at = next;
        }
        Some(s)
    }

    /// `v`'s value (its low bits, zero-extended), where the way decides it.
    fn value(&mut self, v: BasicValueEnum<'c>) -> Option<u64> {
        if let Some(k) = self.memo.get(&v) {
            return *k;
        }
        let k = self.compute(v);
        self.memo.insert(v, k);
        k
    }

    fn compute(&mut self, v: BasicValueEnum<'c>) -> Option<u64> {
        if !v.get_type().is_int_type() {
            return None;
        }
        let width = v.get_type().into_int_type().get_bit_width();
        if width > 64 {
            return None;
        }
        if let Some(k) = v.const_int() {
            return Some(k & mask(width));
        }
        let inst = v.as_instruction()?;
        if let Some(&k) = self.known.get(&inst) {
            return Some(k as u64);
        }
        let op_width = |k: u32| inst.operand(k).get_type().into_int_type().get_bit_width();
        use InstructionOpcode::*;
        let r = match inst.get_opcode() {
            Phi => {
                let phi = crate::llvm::PhiValue::try_from(inst).ok()?;
                let from = *self.from.get(&inst.block())?;
                let incoming = (0..phi.count_incoming()).filter_map(|k| phi.get_incoming(k)).find(|(_, b)| *b == from)?;
                self.value(incoming.0)?
            }
            Select => match self.value(inst.operand(0)) {
                Some(0) => self.value(inst.operand(2))?,
                Some(_) => self.value(inst.operand(1))?,
                None => {
                    let (a, b) = (self.value(inst.operand(1))?, self.value(inst.operand(2))?);
                    (a == b).then_some(a)?
                }
            },
            And | Mul => {
                let (a, b) = (self.value(inst.operand(0)), self.value(inst.operand(1)));
                match (a, b) {
                    (Some(0), _) | (_, Some(0)) => 0,
                    (Some(a), Some(b)) if inst.get_opcode() == And => a & b,
                    (Some(a), Some(b)) => a.wrapping_mul(b),
                    _ => return None,
                }
            }
            Or => {
                let (a, b) = (self.value(inst.operand(0)), self.value(inst.operand(1)));
                match (a, b) {
                    (Some(a), _) | (_, Some(a)) if a == mask(width) => a,
                    (Some(a), Some(b)) => a | b,
                    _ => return None,
                }
            }
            Add | Sub | Xor | Shl | LShr | AShr | ICmp => {
                let (a, b) = (self.value(inst.operand(0))?, self.value(inst.operand(1))?);
                let w = op_width(0);
                let signed = |x: u64| ((x << (64 - w)) as i64) >> (64 - w);
                match inst.get_opcode() {
                    Add => a.wrapping_add(b),
                    Sub => a.wrapping_sub(b),
                    Xor => a ^ b,
                    Shl if b < w as u64 => a << b,
                    LShr if b < w as u64 => a >> b,
                    AShr if b < w as u64 => (signed(a) >> b) as u64,
                    ICmp => {
                        use IntPredicate::*;
                        let (sa, sb) = (signed(a), signed(b));
                        (match inst.get_icmp_predicate()? {
                            EQ => a == b,
                            NE => a != b,
                            ULT => a < b,
                            ULE => a <= b,
                            UGT => a > b,
                            UGE => a >= b,
                            SLT => sa < sb,
                            SLE => sa <= sb,
                            SGT => sa > sb,
                            SGE => sa >= sb,
                        }) as u64
                    }
                    _ => return None,
                }
            }
            ZExt | Trunc => self.value(inst.operand(0))?,
            SExt => {
                let (a, w) = (self.value(inst.operand(0))?, op_width(0));
                (((a << (64 - w)) as i64) >> (64 - w)) as u64
            }
            _ => return None,
        };
        Some(r & mask(width))
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_sources_follow_ptx() {
        let down = |b| Shuffle { mode: Mode::Down, b, c: 31 };
        assert_eq!(down(16).source(0), 16);
        assert_eq!(down(16).source(20), 20);
        let up = Shuffle { mode: Mode::Up, b: 1, c: 0 };
        assert_eq!(up.source(0), 0);
        assert_eq!(up.source(5), 4);
        let bfly = Shuffle { mode: Mode::Bfly, b: 3, c: 31 };
        assert_eq!(bfly.source(5), 6);
        let idx = Shuffle { mode: Mode::Idx, b: 7, c: 31 };
        assert_eq!(idx.source(30), 7);
        // width 16 (c = (32 - 16) << 8 | 31): lane 20 reading down by 8 would leave its segment
        let half = Shuffle { mode: Mode::Down, b: 8, c: (16 << 8) | 31 };
        assert_eq!(half.source(20), 28);
        assert_eq!(half.source(24), 24);
    }

    #[test]
    fn split_halves_join_into_the_whole() {
        let mut coef = BTreeMap::new();
        coef.insert((0, 0), 1);
        let f = Form { coef, konst: 0 };
        let lo = Window { coef: 1, form: f.clone(), lo: 0, hi: 32, shift: 0 };
        let hi = Window { coef: 1, form: f.clone(), lo: 32, hi: 64, shift: 32 };
        let s = Sym { width: 64, plain: Form::default(), windows: vec![hi, lo] }.normalize();
        assert!(s.windows.is_empty());
        assert_eq!(s.plain, f);
    }
}
