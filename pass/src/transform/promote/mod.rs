//! Kernel launch promotion (KLAP, MICRO 2016, section III, Fig. 5 and 7): a kernel of one block that, from
//! one thread at the end of its work, launches itself for the next piece of its input (a chain of
//! one-block grids) launches that next instance at its start instead, so that the launch's latency is
//! hidden behind its own work.
//!
//! Detection ([`detect`]): the launch is in the kernel's own code, launches the kernel itself with a grid
//! of one block, once (not in a loop) and from one thread of the block, into the NULL, fire-and-forget or
//! tail stream, as the kernel's only launch; its block and shared memory are known at the kernel's entry;
//! no thread of the kernel can end without returning; the parameters are not by value and fit the
//! runtime's copy. Each argument is classified as available at entry (computed only from the kernel's
//! parameters and constants) or postponed (computed by the kernel's work), and so is the launch condition
//! (the branches on the way to the launch, other than the test that picks the launching thread).
//!
//! Basic promotion ([`run`] at `promote=basic`): two forms of the kernel, the host's entry `K` and the
//! promoted instance `K__klap_promoted(params..., ptr slot)`. In both, thread 0 launches the promoted
//! instance at the start (where the launch condition, computed there, holds; where it depends on the
//! work, always: a speculative launch) with the available arguments, and a slot from the device
//! runtime's pool (runtime/promote.cu) for the postponed ones. The thread that reaches the original
//! launch stores the postponed arguments in the slot instead of launching; every thread counts itself
//! out at its return, and the last one releases the child. A promoted instance first waits for that
//! release (thread 0 polls, then a barrier), ends at once where its parent never reached the launch
//! (the speculative case), takes the postponed arguments, and only then launches its own successor: the
//! chain runs at most one instance ahead, and the instance that polls was launched by a block that is
//! already running, so it never keeps its parent from running. Where there is no slot (the pool is
//! full) or the early launch failed, the launch is made where it was written (`guarded_replace`).
//!
//! Promotion with aggregation ([`run`] at `promote=aggregate`, KLAP section III-B, Fig. 5c;
//! docs/promotion.md): the promoted form is the pool form `K__klap_pool(params..., ptr pool)`
//! (child/: blockIdx reads 0, gridDim 1), and thread 0 of the host's entry launches a pool of
//! `promote_pool` links at once, one grid of that many blocks, with a record of one slot per link. Each
//! block takes a logical index from the record's counter, waits for the release of the slot its
//! predecessor fills (the runtime's `__klap_pool_enter`), and takes from it the parameters a link changes;
//! those every link passes on unchanged are arguments of the pool's grid. The block holding the pool's last
//! index launches the next pool after its wait. Where the chain ends, the pool's remaining blocks see the
//! abort flag and end. Beyond [`detect`], the block size and shared memory must be the same for every link
//! (KLAP413) and every index-register read remappable (KLAP414); a launch that fails those stays as
//! written. Pools go into the fire-and-forget stream (see the comment at the launch).
//!
//! With overlap (`promote=overlap`, `promote=all`; overlap.rs), the promoted form waits only where its
//! prologue ends: the part of its work that needs nothing from the link before runs first. With aggregation
//! the link before publishes, at its own start, the arguments known there (a first wait), and the rest come
//! at the second wait.
//!
//! Basic promotion releases at the parent's end rather than at the launch site, which orders the child
//! after everything its parent does: what a tail launch gives, more than a fire-and-forget launch needs. The promoted launch
//! goes into the stream the launch was written with: a tail launch made at the start still runs only once
//! its parent grid has completed (its wait for the release returns at once) and nests as the original
//! chain nests, where a fire-and-forget launch would make each link a child of the one before (one level
//! of nesting per link) and spin on a multiprocessor until its parent is done. With aggregation, a chain
//! launched into the NULL or fire-and-forget stream is released at the launch site (where the launch let
//! its child start), a tail-launched one at the block's end.

use super::Options;
use crate::callgraph::CallGraph;
use crate::child::{hoist_allocas, unremappable_index_read, ChildVariants};
use crate::llvm::{
    AddressSpace, BasicBlock, BasicTypeEnum, BasicValueEnum, Builder, BuilderExt, Ctx, FunctionExt, FunctionValue,
    InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, IntValue, Module, ModuleExt, Operand, ValueExt,
};
use crate::remarks::Remark;
use crate::runtime::{Runtime, RuntimeFn, Settings};
use crate::site::abi::{Stream, STREAM_FIRE_AND_FORGET};
use crate::site::graph::LaunchGraph;
use crate::site::ops::{dim3_type, entry_alloca, guarded_replace, ArgValues, CanonicalEntries};
use crate::site::{self, param_layout, LaunchModel, LaunchSite, WriteKind};
use std::collections::{HashMap, HashSet};

mod looped;
mod overlap;

/// Which form of promotion `klap<promote=...>` asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Promotion {
    None,
    Basic,
    /// Promotion with aggregation (KLAP section III-B): a link launches a pool of descendants as one grid.
    Aggregate,
    /// Basic promotion with overlap (KLAP section III-C): a promoted link runs its prologue, the part of
    /// its work that needs nothing from the link before, before it waits (overlap.rs).
    Overlap,
    /// Promotion with aggregation and overlap (KLAP's PAO).
    All,
    /// The link's block runs the next link itself, in a loop (looped.rs); not in KLAP.
    Loop,
    /// `auto`: the loop where it applies, handing a long chain of slow links over to a pool with overlap;
    /// elsewhere a pool with overlap.
    Auto,
}

impl Promotion {
    pub fn as_str(self) -> &'static str {
        match self {
            Promotion::None => "none",
            Promotion::Basic => "basic",
            Promotion::Aggregate => "aggregate",
            Promotion::Overlap => "overlap",
            Promotion::All => "all",
            Promotion::Loop => "loop",
            Promotion::Auto => "auto",
        }
    }

    /// Whether a link launches a pool of links as one grid.
    pub fn pools(self) -> bool {
        matches!(self, Promotion::Aggregate | Promotion::All | Promotion::Auto)
    }

    /// Whether a promoted link runs its prologue before it waits.
    pub fn overlaps(self) -> bool {
        matches!(self, Promotion::Overlap | Promotion::All | Promotion::Auto)
    }
}

/// The most bytes of parameters a promoted kernel may have: its child copies the postponed ones into
/// shared memory (PROMOTE_ARGS_MAX in runtime/promote.cu).
const ARGS_MAX: u64 = 256;

/// The named metadata listing the kernels promoted in a module (both forms), whose launches the later
/// steps leave alone.
const PROMOTED_METADATA: &str = "klap.promoted";

/// What detection found about a launch that promotion can take.
pub struct Candidate<'c> {
    /// Per parameter of the kernel: whether the launch's argument is known at the kernel's entry.
    pub available: Vec<bool>,
    /// The launch condition where it is known at entry: the conditions on the way to the launch, each
    /// with the value that leads there. None where it is not known at entry (speculative launch).
    pub condition: Option<Vec<(IntValue<'c>, bool)>>,
    /// The kernel's parameter bytes.
    pub param_size: u64,
    /// Per parameter: whether every link passes it on unchanged (the launch's argument is the parameter
    /// itself), so that a pool takes it as a parameter of its grid rather than from its slots.
    pub passed_on: Vec<bool>,
    /// With overlap, per parameter: whether it points to memory no link writes (overlap.rs), which a
    /// prologue may read before the wait.
    pub read_only: Vec<bool>,
}

impl Candidate<'_> {
    fn describe(&self) -> String {
        let list = |which: bool| {
            let v: Vec<String> = self.available.iter().enumerate().filter(|(_, &a)| a == which).map(|(i, _)| format!("#{i}")).collect();
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(" ")
            }
        };
        let condition = match &self.condition {
            Some(c) if c.is_empty() => "none beyond the launching thread",
            Some(_) => "computed at entry from the parameters",
            None => "not known at entry (the kernel's work decides it, or a branch above a join that some path from the entry avoids): launched speculatively, ended where the launch is not reached",
        };
        format!("arguments available at entry: {}; postponed: {}; launch condition: {condition}", list(true), list(false))
    }
}

/// Where launches are aggregated, why a kernel that another kernel launches is not promoted: its
/// instances launched from there are aggregated, and the promoted kernel's blocks then serve the records
/// of several grids of any shape, where several threads pass its test of threadIdx.x (fuzz case 1405-26:
/// a promoted kernel launched with 3-D blocks and with two blocks by another kernel printed another
/// checksum at auto and hung with basic promotion beside aggregation; at granularity none it was right).
fn launched_elsewhere<'c>(model: &LaunchModel<'c>, site: &LaunchSite<'c>, options: &Options) -> Option<(Remark, String)> {
    if options.granularity == super::Granularity::None {
        return None;
    }
    let other = model.sites.iter().find(|s| s.child == site.child && s.caller != site.child)?;
    Some((
        Remark::PromoteLaunchedElsewhere,
        format!(
            "@{} also launches @{}, and launches are aggregated ({} granularity): only a kernel launched by itself and the host is promoted beside aggregation",
            other.caller.name(),
            site.child.name(),
            options.granularity.as_str()
        ),
    ))
}

/// Whether `site` can be promoted; else the remark saying which condition failed.
pub fn detect<'c>(module: &Module<'c>, model: &LaunchModel<'c>, graph: &LaunchGraph<'c>, calls: &CallGraph<'c>, site: &LaunchSite<'c>) -> Result<Candidate<'c>, (Remark, String)> {
    let kernel = site.caller;
    if !site.caller_is_kernel {
        return Err((Remark::PromoteInDeviceFunction, format!("the launch is in device function @{}, not in a kernel's own code", kernel.name())));
    }
    if site.child != kernel {
        let cycle = graph.recursive_sets().into_iter().find(|s| s.contains(&kernel) && s.contains(&site.child));
        let why = match cycle {
            Some(set) => {
                let names: Vec<String> = set.iter().map(|k| format!("@{}", k.name())).collect();
                format!("@{} launches @{} in a cycle of {} kernels ({}): only a kernel that launches itself is promoted", kernel.name(), site.child.name(), set.len(), names.join(", "))
            }
            None => format!("@{} launches @{}, not itself", kernel.name(), site.child.name()),
        };
        return Err((Remark::PromoteNotSelf, why));
    }
    let one = |f: &Option<BasicValueEnum>| f.and_then(|v| v.const_int()) == Some(1);
    if !site.grid.fields.iter().all(one) {
        return Err((Remark::PromoteGridNotOneBlock, format!("the child grid {} is not one block", site.grid.describe())));
    }
    if site.loop_depth > 0 {
        return Err((Remark::PromoteInLoop, "the launch is in a loop: an instance may launch more than once".into()));
    }
    if !site.lone {
        return Err((Remark::PromoteNotOneThread, "more than one thread of a block may reach the launch (it is not under a test of threadIdx.x against one value)".into()));
    }
    // The instances it launches run with its block: with more than one row, a thread of each row passes
    // the test of threadIdx.x and launches (a tree of launches, not a chain).
    if site.block.fields[1..].iter().any(|v| v.and_then(|v| v.const_int()) != Some(1)) {
        return Err((
            Remark::PromoteNotOneThread,
            format!("the child's block {} may have more than one row: a thread of each row passes the test of threadIdx.x", site.block.describe()),
        ));
    }
    if matches!(site.stream, Stream::PerThread | Stream::Other) {
        return Err((Remark::PromoteStream, format!("the launch goes into a {} stream, whose order with other work would change", site.stream.as_str())));
    }
    let launches = model.sites.iter().filter(|s| s.caller == kernel).count() + model.unrecognized.iter().filter(|u| u.caller == kernel).count();
    if launches > 1 {
        return Err((Remark::PromoteOtherLaunches, format!("@{} makes {launches} launches: only a kernel whose one launch is this one is promoted", kernel.name())));
    }
    let f = kernel;
    let block: Vec<BasicValueEnum<'c>> = site.block.fields.iter().filter_map(|v| *v).collect();
    if block.len() != 3 || !block.iter().chain([&site.smem]).all(|&v| available(v, f)) {
        return Err((Remark::PromoteConfigNotAtEntry, format!("the child's block {} or shared memory is not computed from the kernel's parameters and constants alone", site.block.describe())));
    }
    if let Some(end) = calls.thread_end_without_return(kernel) {
        return Err((Remark::PromoteThreadEnd, format!("a thread can end without returning (in @{}): the promoted child waits for every thread of its parent to return", end.function().name())));
    }
    let (params, param_size) = param_layout(module, kernel);
    if params.iter().any(|p| p.byval) {
        return Err((Remark::PromoteParameters, format!("@{} has a by-value parameter", kernel.name())));
    }
    if param_size > ARGS_MAX {
        return Err((Remark::PromoteParameters, format!("@{} has {param_size} bytes of parameters, more than the {ARGS_MAX} a promoted child copies", kernel.name())));
    }
    let available_params = (0..params.len())
        .map(|i| {
            let writes: Vec<_> = site.writes.iter().filter(|w| w.param == i).collect();
            match writes.as_slice() {
                [w] if w.offset == params[i].offset && w.size == params[i].size => match w.kind {
                    WriteKind::Store { value } => available(value, f),
                    _ => false,
                },
                _ => false,
            }
        })
        .collect();
    Ok(Candidate { available: available_params, condition: launch_condition(site), param_size, passed_on: passed_on_params(module, site), read_only: Vec::new() })
}

/// Per parameter of the launching kernel: whether the launch's argument is the parameter itself.
fn passed_on_params<'c>(module: &Module<'c>, site: &LaunchSite<'c>) -> Vec<bool> {
    let f = site.caller;
    let (params, _) = param_layout(module, f);
    (0..params.len())
        .map(|i| {
            let writes: Vec<_> = site.writes.iter().filter(|w| w.param == i).collect();
            match writes.as_slice() {
                [w] if w.offset == params[i].offset && w.size == params[i].size => match w.kind {
                    WriteKind::Store { value } => value.as_param() == Some((f, i as u32)),
                    _ => false,
                },
                _ => false,
            }
        })
        .collect()
}

/// What promotion with aggregation needs beyond [`detect`]: the pool's blocks run the kernel's code as
/// one-block grids (every index-register read must be remapped), and one grid holds every link of a pool,
/// so the child's block size and dynamic shared memory must be the same for every link: computed from
/// constants and parameters that each link passes on to the next unchanged.
fn detect_pool<'c>(calls: &CallGraph<'c>, site: &LaunchSite<'c>, passed_on: &[bool]) -> Result<(), (Remark, String)> {
    let f = site.caller;
    if let Some((_, why)) = unremappable_index_read(calls, f) {
        return Err((Remark::PoolIndexRead, format!("{why}: the links of a pool are blocks of one grid, whose blockIdx and gridDim must read as a one-block grid's")));
    }
    let config: Vec<BasicValueEnum<'c>> = site.block.fields.iter().filter_map(|v| *v).chain([site.smem]).collect();
    let mut budget = 64u32;
    if !config.iter().all(|&v| invariant_within(v, f, passed_on, &mut budget)) {
        return Err((
            Remark::PoolConfigVaries,
            format!("the child's block {} or shared memory may differ from one link to the next (it is not computed from constants and parameters passed on unchanged): one grid cannot hold the links of a pool", site.block.describe()),
        ));
    }
    Ok(())
}

/// Whether `v` has the same value in every link of the chain: computed, as [`available`] allows, from
/// constants and from the parameters that each link passes on unchanged (`passed_on`).
fn invariant_within<'c>(v: BasicValueEnum<'c>, f: FunctionValue<'c>, passed_on: &[bool], budget: &mut u32) -> bool {
    computed_from(v, f, &|i| passed_on.get(i as usize).copied().unwrap_or(false), budget)
}

/// Whether `v` is computed only from `f`'s parameters and constants, by computations that may run
/// anywhere (no memory, no division that could trap where it was guarded), in a few steps.
fn available<'c>(v: BasicValueEnum<'c>, f: FunctionValue<'c>) -> bool {
    let mut budget = 64u32;
    computed_from(v, f, &|_| true, &mut budget)
}

/// Whether `v` is computed, by computations that may run anywhere, from constants and from those of
/// `f`'s parameters that `param_ok` accepts (by index), within `budget` instructions.
fn computed_from<'c>(v: BasicValueEnum<'c>, f: FunctionValue<'c>, param_ok: &dyn Fn(u32) -> bool, budget: &mut u32) -> bool {
    if v.is_constant() {
        return true;
    }
    if let Some((g, i)) = v.as_param() {
        return g == f && param_ok(i);
    }
    let Some(i) = v.as_instruction() else { return false };
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    use InstructionOpcode::*;
    let operands: Vec<BasicValueEnum<'c>> = if i.get_opcode() == Call {
        if !i.called_function().is_some_and(|c| pure_intrinsic(&c.name())) {
            return false;
        }
        i.call_args()
    } else if i.is_pure_computation() && !matches!(i.get_opcode(), UDiv | SDiv | URem | SRem) {
        (0..i.get_num_operands()).filter_map(|k| i.value_operand(k)).collect()
    } else {
        return false;
    };
    operands.into_iter().all(|op| computed_from(op, f, param_ok, budget))
}

fn pure_intrinsic(name: &str) -> bool {
    ["llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax.", "llvm.abs."].iter().any(|p| name.starts_with(p))
}

/// The conditions under which the launch is reached, each with the value that leads to it, when all are
/// known at entry; None when one depends on the kernel's work, or when the launch's block is reached through
/// a block with several predecessors that some path from the entry avoids (an early return above a join:
/// its condition would be lost). The walk goes up the single-predecessor path that ends at the launch, to a
/// block every path from the entry reaches. A branch whose other side also always reaches the path (a loop's
/// exit, the loop left only there) decides when, not whether, and is no condition. The test of the
/// parameter buffer and the test that picks the launching thread are not part of it. Where the launch is not
/// reached after all, its promoted child ends at once; a prologue run early, though, must not read past the
/// end of its input, which is why overlap needs the whole condition.
fn launch_condition<'c>(site: &LaunchSite<'c>) -> Option<Vec<(IntValue<'c>, bool)>> {
    let f = site.caller;
    let mut out = Vec::new();
    let mut block = site.launch.block();
    let blocks = f.get_basic_blocks();
    while !always_reaches(f.entry_block(), block) {
        let preds: Vec<BasicBlock<'c>> = blocks.iter().copied().filter(|b| successors(*b).contains(&block)).collect();
        let [pred] = preds.as_slice() else { return None };
        let term = pred.get_terminator()?;
        match term.get_opcode() {
            InstructionOpcode::Br if term.get_num_operands() == 3 => {
                // A conditional branch's operands: the condition, the false successor, the true successor.
                let (on_false, on_true) = (successors(*pred)[0], successors(*pred)[1]);
                let other = if on_true == block { on_false } else { on_true };
                if on_false != on_true && !always_reaches(other, block) {
                    collect_condition(site, term.operand(0), on_true == block, &mut out)?;
                }
            }
            InstructionOpcode::Br => {}
            _ => return None,
        }
        block = *pred;
    }
    Some(out)
}

/// Whether every path from `from` reaches `to` (or never ends): no block without successors (a return, an
/// unreachable) is reached on a walk from `from` that stops at `to`.
fn always_reaches(from: BasicBlock, to: BasicBlock) -> bool {
    let mut work = vec![from];
    let mut seen = HashSet::new();
    while let Some(b) = work.pop() {
        if b == to || !seen.insert(b) {
            continue;
        }
        let next = successors(b);
        if next.is_empty() {
            return false;
        }
        work.extend(next);
    }
    true
}

fn collect_condition<'c>(site: &LaunchSite<'c>, cond: BasicValueEnum<'c>, leads: bool, out: &mut Vec<(IntValue<'c>, bool)>) -> Option<()> {
    let f = site.caller;
    if let Some(i) = cond.as_instruction() {
        // `a && b` taken, or `a || b` not taken: both parts hold.
        let both = match i.get_opcode() {
            InstructionOpcode::And => leads,
            InstructionOpcode::Or => !leads,
            _ => false,
        };
        if both && cond.get_type().into_int_type().get_bit_width() == 1 {
            collect_condition(site, i.operand(0), leads, out)?;
            return collect_condition(site, i.operand(1), leads, out);
        }
        if i.get_opcode() == InstructionOpcode::ICmp {
            let (a, b) = (i.operand(0), i.operand(1));
            if [a, b].iter().any(|v| v.strip_casts().as_instruction() == Some(site.buffer_call)) {
                return Some(());
            }
            let picks_thread = match i.get_icmp_predicate() {
                Some(IntPredicate::EQ) => leads,
                Some(IntPredicate::NE) => !leads,
                _ => false,
            };
            if picks_thread && ((reads_thread_x(a) && available(b, f)) || (reads_thread_x(b) && available(a, f))) {
                return Some(());
            }
        }
    }
    if available(cond, f) {
        out.push((cond.into_int_value(), leads));
        return Some(());
    }
    None
}

fn reads_thread_x(v: BasicValueEnum) -> bool {
    let mut v = v;
    while let Some(i) = v.as_instruction().filter(|i| matches!(i.get_opcode(), InstructionOpcode::ZExt | InstructionOpcode::SExt | InstructionOpcode::Trunc)) {
        v = i.operand(0);
    }
    v.instruction_of(InstructionOpcode::Call).and_then(|c| c.called_function()).is_some_and(|f| f.name() == "llvm.nvvm.read.ptx.sreg.tid.x")
}

fn successors(block: BasicBlock) -> Vec<BasicBlock> {
    let Some(term) = block.get_terminator() else { return Vec::new() };
    (0..term.get_num_operands())
        .filter_map(|k| match term.get_operand(k) {
            Some(Operand::Block(b)) => Some(b),
            _ => None,
        })
        .collect()
}

/// The kernels that promotion transformed in this module (both forms of each).
pub fn promoted_kernels<'c>(module: &Module<'c>) -> Vec<String> {
    module.named_metadata_strings(PROMOTED_METADATA)
}

pub fn run<'c>(module: &Module<'c>, model: &LaunchModel<'c>, ctx: Ctx, options: &Options) -> Result<bool, String> {
    if !model.nvptx || options.promote == Promotion::None {
        return Ok(false);
    }
    let graph = LaunchGraph::build(model);
    let calls = CallGraph::build(module);
    let pool = options.promote.pools().then_some(options.promote_pool.max(1));
    let mut chosen: Vec<(FunctionValue<'c>, Candidate<'c>)> = Vec::new();
    // The chains run in a loop by their block, with what each passes on unchanged, and (at `auto`) whether
    // a pool's prologue could overlap the link before (a parameter no link writes, for the prologue to read).
    let mut looped_sites: Vec<(&LaunchSite<'c>, Vec<bool>, bool)> = Vec::new();
    let looping = matches!(options.promote, Promotion::Loop | Promotion::Auto);
    for site in &model.sites {
        let detected = detect(module, model, &graph, &calls, site).and_then(|c| launched_elsewhere(model, site, options).map_or(Ok(c), Err));
        let detected = match detected {
            Ok(candidate) if looping => match looped::unfit(ctx, &calls, site) {
                None => {
                    Remark::PromotedLoop.emit(
                        ctx,
                        site.launch,
                        &format!(
                            "launch of @{} promoted into a loop: where its threads return, the block runs the next link itself after a barrier ({} of its parameters carried through shared memory)",
                            site.child.name(),
                            candidate.passed_on.iter().filter(|&&p| !p).count()
                        ),
                    );
                    let overlaps = options.promote == Promotion::Auto && overlap::read_only_params(ctx, site.caller, &candidate.passed_on).contains(&true);
                    looped_sites.push((site, candidate.passed_on, overlaps));
                    continue;
                }
                Some(why) => {
                    Remark::PromoteNoLoop.emit(ctx, site.launch, &why);
                    if options.promote == Promotion::Loop {
                        continue;
                    }
                    Ok(candidate)
                }
            },
            other => other,
        };
        let detected = detected.and_then(|c| match pool {
            Some(_) => detect_pool(&calls, site, &c.passed_on).map(|()| c),
            None => Ok(c),
        });
        match detected {
            Ok(candidate) => chosen.push((site.caller, promoted_candidate(ctx, site, candidate, options, pool))),
            Err((remark, why)) => remark.emit(ctx, site.launch, &why),
        }
    }
    // At `auto`, a chain whose pool could overlap its links' prologues goes on as a pool once it proves long
    // and its links slow (looped.rs, `Switch`): a copy of its kernel, launching itself, promoted with
    // aggregation and overlap.
    let copies: Vec<Option<FunctionValue<'c>>> = looped_sites
        .iter()
        .map(|&(site, _, overlaps)| {
            overlaps.then(|| {
                let kernel = site.caller;
                let copy = kernel.clone_function(&format!("{}__klap_chain", kernel.name()));
                copy.set_ptx_kernel();
                let own = kernel.as_global_value().as_pointer_value();
                for inst in copy.instructions() {
                    for k in 0..inst.get_num_operands() {
                        if let Some(v) = inst.value_operand(k) {
                            if v == BasicValueEnum::PointerValue(own) {
                                inst.set_operand(k, copy.as_global_value().as_pointer_value());
                            }
                        }
                    }
                }
                copy
            })
        })
        .collect();
    if copies.iter().any(Option::is_some) {
        ctx.invalidate_analyses();
        let copied_model = site::analyze_quietly(module, ctx);
        let copied_graph = LaunchGraph::build(&copied_model);
        let copied_calls = CallGraph::build(module);
        for copy in copies.iter().flatten() {
            let site = copied_model.sites.iter().find(|s| s.caller == *copy).expect("the copy's launch of itself");
            let detected = detect(module, &copied_model, &copied_graph, &copied_calls, site).and_then(|c| detect_pool(&copied_calls, site, &c.passed_on).map(|()| c));
            match detected {
                Ok(candidate) => chosen.push((*copy, promoted_candidate(ctx, site, candidate, options, pool))),
                Err((remark, why)) => remark.emit(ctx, site.launch, &why),
            }
        }
    }
    let entries = CanonicalEntries::get(module);
    // The loops last: a copy is handed over to only where its pool's links overlap (else its pool is no faster
    // than the loop, and the copy stays unused).
    let loop_chains = |overlapped: &[FunctionValue<'c>]| {
        for ((site, passed_on, _), copy) in looped_sites.iter().zip(&copies) {
            let switch = copy.filter(|c| overlapped.contains(c)).map(|to| looped::Switch { to, rules: options.hand_over.clone() });
            let fallback = looped::promote(module, &entries, site, passed_on, switch.as_ref());
            // The launch was the kernel's only one: the check after it (CDP_CHECK_LAUNCH) need not enter the
            // device runtime in every link, only where the launch was made as written.
            super::last_error::fold_unreached(module, ctx, site.caller, &[fallback]);
            module.add_named_metadata_string(PROMOTED_METADATA, &site.caller.name());
        }
    };
    if chosen.is_empty() {
        loop_chains(&[]);
        entries.retire_replaced(module);
        return Ok(!looped_sites.is_empty());
    }
    let runtime = Runtime::link(module, &Settings { pool_bytes: options.pool_bytes, trace: options.trace, spawn: options.spawn.is_some() })?;
    let mut variants = ChildVariants::new(module, None);
    let promoted: Vec<(FunctionValue<'c>, FunctionValue<'c>)> = chosen
        .iter()
        .map(|(k, _)| (*k, if pool.is_some() { variants.pool(*k) } else { variants.promoted(*k) }))
        .collect();
    // The promoted forms' launches, and the host forms' as they are now.
    ctx.invalidate_analyses();
    let model = site::analyze_quietly(module, ctx);
    let mut overlapped = Vec::new();
    for (&(kernel, variant), (_, candidate)) in promoted.iter().zip(&chosen) {
        let variant_site = model.sites.iter().find(|s| s.caller == variant).expect("the promoted form's launch");
        // Where the promoted form waits, before the host form changes (a pool's early arguments are
        // computed from the host form's launch, whose values the variant's copy shares the shape of).
        let overlap = options.promote.overlaps().then(|| plan_overlap(ctx, variant_site, candidate, pool.is_some())).and_then(|planned| match planned {
            Ok(planned) => {
                Remark::PromotedOverlap.emit(
                    ctx,
                    variant_site.launch,
                    &format!(
                        "the prologue of @{} overlaps the link before: {} instructions run before the wait; {}; {}",
                        variant.name(),
                        planned.wait.prologue,
                        planned.describe(pool.is_some()),
                        planned.wait.why
                    ),
                );
                Some(planned)
            }
            Err(why) => {
                Remark::PromoteNoOverlap.emit(ctx, variant_site.launch, &why);
                None
            }
        });
        if overlap.is_some() {
            overlapped.push(kernel);
        }
        // Both forms must agree: the producer (either form's launch site) and the consumer (the pool form's wait).
        let host_site = model.sites.iter().find(|s| s.caller == kernel).expect("the host form's launch");
        let word = overlap.as_ref().filter(|_| pool.is_some() && releases_at_launch(host_site)).and_then(|o| {
            match (late_word(module, host_site, &o.late), late_word(module, variant_site, &o.late)) {
                (Some(a), Some(b)) if a == b => Some(a),
                _ => None,
            }
        });
        for (f, incoming) in [(kernel, None), (variant, variant.get_last_param())] {
            let site = model.sites.iter().find(|s| s.caller == f).expect("the promoted kernel's launch");
            // Each form's own values (the promoted form's launch is a copy of the host form's).
            let condition = launch_condition(site);
            let plan = Plan {
                kernel,
                variant,
                available: &candidate.available,
                condition,
                param_size: candidate.param_size,
                pool,
                passed_on: &candidate.passed_on,
                early: overlap.as_ref().filter(|_| pool.is_some()).map(|o| &o.early[..]),
                wait_at: overlap.as_ref().filter(|_| incoming.is_some()).map(|o| o.wait.at),
                word,
            };
            promote(module, &runtime, &entries, site, f, incoming, &plan);
        }
        module.add_named_metadata_string(PROMOTED_METADATA, &kernel.name());
        module.add_named_metadata_string(PROMOTED_METADATA, &variant.name());
    }
    loop_chains(&overlapped);
    entries.retire_replaced(module);
    // Aggregation, where it runs next, links against the same runtime and retires what is unused then.
    if options.granularity == super::Granularity::None {
        runtime.retire_unused(module);
    }
    Ok(true)
}

/// The remark of a launch promoted with a pool or as basic promotion, and, with overlap, the parameters its
/// prologue may read (the alias analysis of the kernel as written, before anything changes it).
fn promoted_candidate<'c>(ctx: Ctx, site: &LaunchSite<'c>, mut candidate: Candidate<'c>, options: &Options, pool: Option<u64>) -> Candidate<'c> {
    match pool {
        Some(n) => Remark::PromotedPool.emit(ctx, site.launch, &format!("launch of @{} promoted with aggregation (pool of {n}): {}", site.child.name(), candidate.describe())),
        None => Remark::Promoted.emit(ctx, site.launch, &format!("launch of @{} promoted ({}): {}", site.child.name(), options.promote.as_str(), candidate.describe())),
    }
    if options.promote.overlaps() {
        candidate.read_only = overlap::read_only_params(ctx, site.caller, &candidate.passed_on);
    }
    candidate
}

/// What overlap found for one promoted kernel.
struct PlannedOverlap<'c> {
    /// With aggregation, per parameter: known at a link's start (published by the link before there).
    early: Vec<bool>,
    /// Per parameter: taken from the slot after the wait.
    late: Vec<bool>,
    wait: overlap::WaitPoint<'c>,
}

impl PlannedOverlap<'_> {
    fn describe(&self, pool: bool) -> String {
        let list = |which: &[bool]| {
            let v: Vec<String> = which.iter().enumerate().filter(|(_, &x)| x).map(|(i, _)| format!("#{i}")).collect();
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(" ")
            }
        };
        match pool {
            true => format!("arguments published at a link's start: {}; taken after the wait: {}", list(&self.early), list(&self.late)),
            false => format!("taken after the wait: {}", list(&self.late)),
        }
    }
}

/// Where the promoted form `site.caller` waits with overlap; Err with why where it cannot overlap.
fn plan_overlap<'c>(ctx: Ctx, site: &LaunchSite<'c>, candidate: &Candidate<'c>, pool: bool) -> Result<PlannedOverlap<'c>, String> {
    let f = site.caller;
    let n = candidate.available.len();
    let early = if pool { overlap::early_params(site, &candidate.available, &candidate.passed_on) } else { vec![false; n] };
    // Taken after the wait: in a promoted instance the postponed parameters; in a pool's link those a link
    // changes and the link before knows only at its end.
    let late: Vec<bool> = (0..n).map(|i| if pool { !candidate.passed_on[i] && !early[i] } else { !candidate.available[i] }).collect();
    let Some(condition) = launch_condition(site) else {
        return Err("the launch condition is not known at entry: a link launched speculatively must not run its prologue early (it could read past the end of its input)".into());
    };
    if pool {
        let known = |k: u32| !late.get(k as usize).copied().unwrap_or(true);
        if !condition.iter().all(|(c, _)| computed_from((*c).into(), f, &known, &mut 64)) {
            return Err("the launch condition is computed from parameters the link before knows only at its end".into());
        }
    }
    let must = overlap::must_wait(f, &late, &candidate.read_only);
    let wait = match overlap::prologue_marks(f).as_slice() {
        [] => overlap::wait_point(ctx, f, &must)?,
        [mark] => overlap::marked_wait_point(ctx, f, *mark, &must)?,
        marks => return Err(format!("klap_prologue_end() appears {} times in @{} (one mark is the wait)", marks.len(), f.name())),
    };
    Ok(PlannedOverlap { early, late, wait })
}

/// Whether a pool releases the link after it at the launch site: a launch into the NULL or fire-and-forget
/// stream let its child start there (a tail launch's child waits for the whole grid).
fn releases_at_launch(site: &LaunchSite) -> bool {
    matches!(site.stream, Stream::Null | Stream::FireAndForget)
}

/// The one late parameter, where it is an integer or a float of 32 bits at most that `site`'s launch writes
/// whole, with one store of its type (the value released in the slot's word).
fn late_word<'c>(module: &Module<'c>, site: &LaunchSite<'c>, late: &[bool]) -> Option<usize> {
    let (params, _) = param_layout(module, site.caller);
    let mut which = late.iter().enumerate().filter(|(_, &l)| l).map(|(i, _)| i);
    let (Some(i), None) = (which.next(), which.next()) else { return None };
    let p = &params[i];
    let scalar = matches!(p.ty, BasicTypeEnum::IntType(_) | BasicTypeEnum::FloatType(_));
    let writes: Vec<_> = site.writes.iter().filter(|w| w.param == i).collect();
    let whole = matches!(writes.as_slice(), [w] if w.offset == p.offset && w.size == p.size && matches!(w.kind, WriteKind::Store { value } if value.get_type() == p.ty));
    (scalar && p.size <= 4 && !p.byval && whole).then_some(i)
}

struct Plan<'a, 'c> {
    kernel: FunctionValue<'c>,
    variant: FunctionValue<'c>,
    available: &'a [bool],
    condition: Option<Vec<(IntValue<'c>, bool)>>,
    param_size: u64,
    /// Promotion with aggregation: the links per pool (the variant is the pool form).
    pool: Option<u64>,
    /// With aggregation: the parameters every link passes on unchanged, passed to a pool's grid.
    passed_on: &'a [bool],
    /// With aggregation and overlap: the parameters a link's arguments publish at its start (early); the
    /// others are taken after the wait.
    early: Option<&'a [bool]>,
    /// With overlap, in the promoted form: where it waits.
    wait_at: Option<InstructionValue<'c>>,
    /// With aggregation and overlap, where the late arguments are one value of 32 bits at most and the link
    /// releases its successor at the launch site: that parameter, released in the slot's argument word.
    word: Option<usize>,
}

impl Plan<'_, '_> {
    /// Whether parameter `i` is taken from the slot: in a promoted instance the postponed ones; in a pool's
    /// block every one that a link may change.
    fn taken_from_slot(&self, i: usize) -> bool {
        match self.pool {
            Some(_) => !self.passed_on[i],
            None => !self.available[i],
        }
    }

    /// Whether parameter `i` is taken from the slot after the wait (with aggregation and overlap, the late
    /// ones; else every one taken from the slot, at the start).
    fn taken_late(&self, i: usize) -> bool {
        self.taken_from_slot(i) && !self.early.is_some_and(|e| e[i])
    }

    /// Whether parameter `i` is an argument of the early launch (the promoted instance's, or the pool's).
    fn in_launch(&self, i: usize) -> bool {
        match self.pool {
            Some(_) => self.passed_on[i],
            None => self.available[i],
        }
    }
}

/// Promotes the launch `site` of `f` (the host's form, or the promoted one with its `incoming` slot).
fn promote<'c>(
    module: &Module<'c>,
    runtime: &Runtime<'c>,
    entries: &CanonicalEntries<'c>,
    site: &LaunchSite<'c>,
    f: FunctionValue<'c>,
    incoming: Option<BasicValueEnum<'c>>,
    plan: &Plan<'_, 'c>,
) {
    let cx = module.get_context();
    let (i32t, ptr) = (cx.i32_type(), cx.ptr_type(AddressSpace::default()));
    let null: BasicValueEnum<'c> = ptr.const_null().into();
    let bytes: BasicValueEnum<'c> = i32t.const_int(plan.param_size, false).into();
    let b = cx.create_builder();
    let pool_overlap = plan.pool.is_some() && plan.early.is_some();
    // Basic promotion with overlap: the promoted form's whole start (the wait, the arguments taken, the
    // successor's launch) goes where it waits, after its prologue; else at the kernel's start.
    let (entry, body) = match plan.wait_at.filter(|_| incoming.is_some() && plan.pool.is_none()) {
        Some(at) => split_at(at),
        None => {
            let body = f.entry_block();
            let entry = cx.prepend_basic_block(body, "klap.promote");
            hoist_allocas(&b, body, entry);
            (entry, body)
        }
    };
    b.position_at_end(entry);

    // A promoted instance: wait for the parent, then take the postponed arguments.
    let (params, _) = param_layout(module, plan.kernel);
    let mut taken: Vec<(BasicValueEnum<'c>, BasicValueEnum<'c>)> = Vec::new();
    let mut abort_returns = Vec::new();
    let enter = match plan.pool {
        // With overlap, a pool's link waits here only for the arguments the link before publishes at its start.
        Some(_) if pool_overlap => RuntimeFn::PoolEnterEarly,
        Some(_) => RuntimeFn::PoolEnter,
        None => RuntimeFn::PromoteEnter,
    };
    if let Some(slot) = incoming {
        // A promoted instance waits for its parent; a pool's block takes its logical index and waits for the
        // link before it. Then the arguments from the slot, or the end where the chain ended before.
        let args = b.call_value(runtime.get(enter), &[slot, bytes]);
        let go = b.is_not_null(args);
        let run = cx.append_basic_block(f, "klap.promote.run");
        let end = cx.append_basic_block(f, "klap.promote.aborted");
        b.build_conditional_branch(go, run, end).expect("builder positioned");
        b.position_at_end(end);
        abort_returns.push(b.build_return(None).expect("builder positioned"));
        run.move_after(entry).expect("a block of f");
        b.position_at_end(run);
        for (i, p) in params.iter().enumerate().filter(|(i, _)| plan.taken_from_slot(*i) && !(pool_overlap && plan.taken_late(*i))) {
            let value = b.load_aligned(p.ty, b.byte_gep(args, p.offset), p.align.min(16) as u32);
            taken.push((f.get_nth_param(i as u32).unwrap(), value));
        }
    }

    // Thread 0 launches the next instance, where the launch condition known here holds.
    let mut clones = HashMap::new();
    let mut launch_now = b.call_value(runtime.get(RuntimeFn::PromoteLeader), &[]).into_int_value();
    if plan.pool.is_some() && incoming.is_some() {
        // In a pool, only the block with the last logical index launches: the next pool.
        let last = b.call_value(runtime.get(RuntimeFn::PoolLast), &[]).into_int_value();
        launch_now = b.build_and(launch_now, last, "").unwrap();
    }
    launch_now = and_condition(&b, launch_now, plan.condition.as_deref(), &mut clones);
    let from = b.get_insert_block().unwrap();
    let [launch, buffer_ok, failed, join] = ["klap.promote.slot", "klap.promote.launch", "klap.promote.failed", "klap.promote.join"].map(|n| cx.append_basic_block(f, n));
    b.build_conditional_branch(launch_now, launch, join).unwrap();

    b.position_at_end(launch);
    let slot = match plan.pool {
        Some(n) => b.call_value(runtime.get(RuntimeFn::PoolAlloc), &[i32t.const_int(n, false).into(), bytes]),
        None => b.call_value(runtime.get(RuntimeFn::PromoteSlot), &[bytes]),
    };
    let dim3 = dim3_type(module);
    let block_fields: Vec<BasicValueEnum<'c>> = site.block.fields.iter().map(|v| b.freeze(materialize(v.unwrap(), &b, &mut clones))).collect();
    let smem = b.freeze(materialize(site.smem, &b, &mut clones));
    let one = i32t.const_int(1, false).into();
    let blocks = i32t.const_int(plan.pool.unwrap_or(1), false).into();
    let dims = [[blocks, one, one], [block_fields[0], block_fields[1], block_fields[2]]].map(|fields| {
        let at = entry_alloca(module, f, dim3.into(), 4);
        for (k, v) in fields.into_iter().enumerate() {
            b.store_aligned(v, b.byte_gep(at, 4 * k as u64), 4);
        }
        at
    });
    let has_slot = b.is_not_null(slot);
    let get_buffer = cx.append_basic_block(f, "klap.promote.buffer");
    get_buffer.move_after(launch).unwrap();
    b.build_conditional_branch(has_slot, get_buffer, join).unwrap();
    b.position_at_end(get_buffer);
    let buffer = b.call(entries.parameter_buffer, &[plan.variant.as_global_value().as_pointer_value().into(), dims[0], dims[1], smem]);
    buffer.set_call_arg_byval(1, dim3);
    buffer.set_call_arg_byval(2, dim3);
    let has_buffer = b.is_not_null(buffer.result());
    b.build_conditional_branch(has_buffer, buffer_ok, failed).unwrap();

    b.position_at_end(buffer_ok);
    let (variant_params, _) = param_layout(module, plan.variant);
    let args = ArgValues::capture(module, site);
    // A promoted instance takes the available arguments as arguments; a pool those passed on unchanged (the
    // same for every link), the others from its slots.
    for (k, _) in site.writes.iter().enumerate().filter(|(_, w)| plan.in_launch(w.param)) {
        let (offset, value, align) = args.writes[k];
        let v = b.freeze(materialize(value, &b, &mut clones));
        b.store_aligned(v, b.byte_gep(buffer.result(), offset), align);
    }
    let slot_param = variant_params.last().unwrap();
    b.store_aligned(slot, b.byte_gep(buffer.result(), slot_param.offset), slot_param.align as u32);
    // A pool goes into the fire-and-forget stream whatever stream the chain was written with. Within a pool
    // the links are ordered only by the release (after a fence, once every thread of the link has
    // returned) and the acquire of the slot flags, which give a link everything its predecessor did; the
    // same flag orders a pool's first link after the link that launched the pool, so the stream adds no
    // order that is needed. A tail launch (pd, upd) would add one that is harmful: the next pool would
    // start only once the whole launching pool had completed, its launch latency never hidden. A
    // fire-and-forget pool can be resident before its first slot is released: its blocks wait only for
    // lower logical indices (runtime/promote.cu), so they cannot keep the launching pool from running, and
    // every block of that pool is running already (the launcher holds its last index).
    let stream = match plan.pool {
        Some(_) => cx.i64_type().const_int(STREAM_FIRE_AND_FORGET, false).const_to_pointer(ptr).into(),
        None => site.stream_operand,
    };
    let status = b.call_value(entries.launch_entry(site.ptsz), &[buffer.result(), stream]).into_int_value();
    let launched = b.build_int_compare(IntPredicate::EQ, status, i32t.const_zero(), "").unwrap();
    b.build_conditional_branch(launched, join, failed).unwrap();

    b.position_at_end(failed);
    // The error of a launch that did not happen must not be read as the error of the launch made as
    // written in its place.
    let last_error = module.get_or_declare("__cudaCDP2GetLastError", i32t.fn_type(&[], false));
    b.call(last_error, &[]);
    b.call(runtime.get(RuntimeFn::PromoteCancel), &[slot]);
    b.build_unconditional_branch(join).unwrap();

    b.position_at_end(join);
    let mine = b.build_phi(ptr, "").unwrap();
    mine.add_incoming(&[(&null, from), (&null, launch), (&slot, buffer_ok), (&null, failed)]);
    let next = match plan.pool {
        Some(_) => b.call_value(runtime.get(RuntimeFn::PoolShare), &[incoming.unwrap_or(null), mine.as_basic_value()]),
        None => b.call_value(runtime.get(RuntimeFn::PromoteShare), &[mine.as_basic_value()]),
    };
    let mut added = vec![launch, get_buffer, buffer_ok, failed, join];
    if let Some(early) = plan.early {
        // Thread 0 publishes the successor's early arguments (where it will launch it: the condition holds),
        // so that the successor's prologue can start.
        let publish = cx.append_basic_block(f, "klap.promote.publish");
        let rest = cx.append_basic_block(f, "klap.promote.prologue");
        let to = b.call_value(runtime.get(RuntimeFn::PoolEarlyArgs), &[next]);
        let has_slot = b.is_not_null(to);
        let go = and_condition(&b, has_slot, plan.condition.as_deref(), &mut clones);
        b.build_conditional_branch(go, publish, rest).unwrap();
        b.position_at_end(publish);
        for (k, _) in site.writes.iter().enumerate().filter(|(_, w)| early[w.param]) {
            let (offset, value, align) = args.writes[k];
            let v = b.freeze(materialize(value, &b, &mut clones));
            b.store_aligned(v, b.byte_gep(to, offset), align);
        }
        b.call(runtime.get(RuntimeFn::PoolPublish), &[next]);
        b.build_unconditional_branch(rest).unwrap();
        b.position_at_end(rest);
        added.extend([publish, rest]);
    }
    b.build_unconditional_branch(body).unwrap();
    for block in added {
        block.move_before(body).unwrap();
    }

    // With aggregation and overlap: the pool's link waits for the link before to end where its prologue
    // ends, then takes the arguments that link computed at its end.
    if let (true, Some(at), Some(_)) = (pool_overlap, plan.wait_at, incoming) {
        let (pre, post) = split_at(at);
        b.position_at_end(pre);
        let late_args = match plan.word {
            Some(i) => b.call_value(runtime.get(RuntimeFn::PoolWaitWord), &[i32t.const_int(params[i].offset, false).into()]),
            None => b.call_value(runtime.get(RuntimeFn::PoolWait), &[bytes]),
        };
        let go = b.is_not_null(late_args);
        let run = cx.append_basic_block(f, "klap.promote.late");
        let end = cx.append_basic_block(f, "klap.promote.aborted");
        b.build_conditional_branch(go, run, end).unwrap();
        b.position_at_end(end);
        abort_returns.push(b.build_return(None).unwrap());
        b.position_at_end(run);
        for (i, p) in params.iter().enumerate().filter(|(i, _)| plan.taken_late(*i)) {
            let value = b.load_aligned(p.ty, b.byte_gep(late_args, p.offset), p.align.min(16) as u32);
            taken.push((f.get_nth_param(i as u32).unwrap(), value));
        }
        b.build_unconditional_branch(post).unwrap();
        run.move_before(post).unwrap();
        end.move_after(run).unwrap();
    }

    // At the launch: the arguments taken from the slot into it, where this thread takes it.
    let b = crate::site::ops::builder_before(module, site.launch);
    // With aggregation, a launch into the NULL or fire-and-forget stream releases its successor here, as
    // the launch let its child start here: what the launching thread wrote before is visible to it (a
    // fence comes first), what the block's other threads do later is not waited for. A tail launch's
    // successor is released at the block's end (every thread counted out), as the tail stream orders it.
    let release_here = plan.pool.is_some() && releases_at_launch(site);
    // Where it releases here, the one thread that reaches the launch (detection proved it lone) takes the
    // slot without an atomic: the release marks it taken.
    let take_fn = match plan.pool {
        Some(_) if release_here => RuntimeFn::PoolTakeLone,
        Some(_) => RuntimeFn::PoolTake,
        None => RuntimeFn::PromoteTake,
    };
    let store_to = b.call_value(runtime.get(take_fn), &[next]);
    let take = b.is_not_null(store_to);
    // Into the slot, the arguments the next link takes from it (with aggregation and overlap, those it takes
    // after its wait: the early ones are published).
    let postponed: Vec<bool> = site.writes.iter().map(|w| if pool_overlap { plan.taken_late(w.param) } else { plan.taken_from_slot(w.param) }).collect();
    // The late argument released in the slot's word, where there is one such (the value the launch writes
    // for it, as 32 bits).
    let word = plan.word.map(|i| {
        let p = &params[i];
        let found = args.writes.iter().find(|&&(offset, value, _)| offset == p.offset && value.get_type() == p.ty);
        found.expect("the late word's store (late_word checked it)").1
    });
    guarded_replace(module, entries, site, &args, &b, take, |b, _| match word {
        Some(value) => {
            let bits = match value {
                BasicValueEnum::FloatValue(_) => {
                    let int = cx.custom_width_int_type(std::num::NonZeroU32::new(value.get_type().into_float_type().get_bit_width()).unwrap()).unwrap();
                    b.build_bit_cast(value, int, "").unwrap().into_int_value()
                }
                _ => value.into_int_value(),
            };
            let wide = b.build_int_z_extend_or_bit_cast(bits, i32t, "").unwrap();
            b.call(runtime.get(RuntimeFn::PoolReleaseWord), &[store_to, wide.into()]);
        }
        None => {
            args.store_where(b, store_to, &postponed, true);
            if release_here {
                b.call(runtime.get(RuntimeFn::PoolRelease), &[store_to]);
            }
        }
    });

    // Every thread counts itself out where it returns.
    for ret in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Return && !abort_returns.contains(i)) {
        b.position_before(&ret);
        b.call(runtime.get(if plan.pool.is_some() { RuntimeFn::PoolExit } else { RuntimeFn::PromoteExit }), &[next]);
    }

    // Every use of a taken parameter (a postponed one; in a pool's block, every one not passed on) takes
    // the value from the slot: last, so that the code added at the launch site (the arguments stored into
    // the slot, the launch as written, its configuration) is covered too.
    for (param, value) in taken {
        param.replace_uses_with(value);
    }
}

/// Splits `at`'s block before it: the part before, without its terminator (the builder adds one), and the
/// part from `at` on.
fn split_at<'c>(at: InstructionValue<'c>) -> (BasicBlock<'c>, BasicBlock<'c>) {
    let before = at.block();
    let after = at.split_block_before();
    after.set_name("klap.promote.waited");
    before.get_terminator().expect("the branch the split added").erase();
    (before, after)
}

/// `go` and the launch condition known at entry (each part computed again at the builder's position).
fn and_condition<'c>(b: &Builder<'c>, go: IntValue<'c>, condition: Option<&[(IntValue<'c>, bool)]>, clones: &mut HashMap<InstructionValue<'c>, BasicValueEnum<'c>>) -> IntValue<'c> {
    let mut go = go;
    for &(cond, leads) in condition.into_iter().flatten() {
        let mut v = b.freeze(materialize(cond.into(), b, clones)).into_int_value();
        if !leads {
            v = b.build_not(v, "").unwrap();
        }
        go = b.build_and(go, v, "").unwrap();
    }
    go
}

/// `v` computed again at the builder's position (where the parameters are): the pure computations of
/// its expression are copied, once each.
fn materialize<'c>(v: BasicValueEnum<'c>, b: &Builder<'c>, done: &mut HashMap<InstructionValue<'c>, BasicValueEnum<'c>>) -> BasicValueEnum<'c> {
    let Some(i) = v.as_instruction() else { return v };
    if let Some(&copy) = done.get(&i) {
        return copy;
    }
    let copy = i.explicit_clone();
    for k in 0..i.get_num_operands() {
        if let Some(op) = i.value_operand(k) {
            if op.as_instruction().is_some() {
                copy.set_operand(k, materialize(op, b, done));
            }
        }
    }
    b.insert_instruction(&copy, None);
    let value = copy.result();
    done.insert(i, value);
    value
}
