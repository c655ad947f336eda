//! `klap<granularity=warp|block|grid>`: kernel launch aggregation (KLAP, MICRO 2016), rebuilt for
//! CDP2 on sm_90 and for IR.
//!
//! Child side: every launched kernel K gets a variant `K__klap(ptr chunk)` that serves many launches'
//! worth of blocks: its blocks find their launch record (the runtime's search over the records' block
//! ranges), load that record's arguments, remap the index registers (threadIdx, blockIdx, blockDim,
//! gridDim in x, y, z) onto the record, in K and in the device functions it calls, and return at once
//! where the thread is beyond the record's block size. Every chunk is freed by its children: each
//! aggregated block counts itself into the chunk at its exit, and the next launch near it in the pool
//! frees it once every block is counted.
//!
//! Parent side: a launch registers a record (one 64-bit atomic hands out the record index and its
//! first child block) and writes its arguments into it; the aggregated launch is made
//! - warp: right there, by the last of the lanes that reached the launch together to write its record;
//! - block / grid: by the thread that completes the block's / grid's exit count, at kernel exit.
//!
//! Deferring a launch to the end of its scope needs no control-flow-to-data-flow conversion: under
//! CDP2 a parent never waits for its children, so a launch made later in the same parent grid is
//! indistinguishable to it, and launches in divergent code and in loops simply register more records.
//! When a record cannot be had (pool exhausted, chunk full) the original launch is made instead (in a kernel
//! whose lanes run serialized children, the launching thread runs the child itself: KLAP215), and
//! if the aggregated launch fails its records are launched one by one: a launch is never lost.

use super::{Granularity, Options};
use crate::callgraph::CallGraph;
use crate::child::in_thread::{grid_run_arguments, thread_runner};
use crate::child::{runs_child_grid_by_lane, unremappable_index_read, ChildVariants, Coarsening, RecordLookup, Variant, VariantKind};
use crate::llvm::{
    count, BasicBlock, BasicValueEnum, Builder, BuilderExt, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode,
    AddressSpace, GlobalValue, InstructionValue, Linkage, Module, Statistic, ValueExt,
};
use crate::remarks::Remark;
use crate::runtime::{
    IndexRegister, Runtime, RuntimeFn, Settings, COUNT_ENTERED, LARGE_BLOCK_THREADS, PER_BLOCK_IF_LARGE_BLOCKS, PER_BLOCK_IF_SMALL_GRID, READY_FLAGS,
    SELECT_PER_TAKE, SMALL_GRID_THREADS,
};
use crate::site::abi::{launch_or_error_query, Stream, SINGLE_LAUNCH_STREAM, STREAM_FIRE_AND_FORGET, STREAM_TAIL_LAUNCH};
use crate::site::ops::{
    builder_before, config_accepted, dim3_fields, fallback_site, guarded_replace, retire_single_launch_stream, skip_allocas, stream_handle, taken_over_stream, ArgValues,
    CanonicalEntries,
};
use crate::site::{self, constant_over_launches, param_layout, uniform, LaunchModel, LaunchSite};
use super::grid_reuse;
use std::collections::{HashMap, HashSet};

/// Launch groups a block or grid scope can hold (the runtime's MAX_GROUPS).
const MAX_GROUPS: usize = 8;

/// Set in the record size given to the runtime for a chunk that counts its child threads (the
/// runtime's COUNT_THREADS).
const COUNT_THREADS: u64 = 1 << 31;

/// The record size the runtime is given for the chunks of `variant`: with [`COUNT_THREADS`] where the
/// variant has a grid scope of its own, which waits for the threads its chunks count, whether they
/// were taken by a block or grid scope or at warp granularity.
fn chunk_record_size(variant: &Variant, counted: &HashSet<FunctionValue>) -> u64 {
    variant.param_size | if counted.contains(&variant.function) { COUNT_THREADS } else { 0 }
}

/// The record size of a block or grid scope's group of `variant`'s launches: [`chunk_record_size`], or,
/// where parent blocks may take its records (`reused`, grid reuse), room for each record's ready flag
/// after the arguments, with the runtime's READY_FLAGS.
fn scope_record_size(variant: &Variant, counted: &HashSet<FunctionValue>, reused: bool) -> u64 {
    match reused {
        true => grid_reuse::flagged_record_size(variant.param_size) | READY_FLAGS | (chunk_record_size(variant, counted) & COUNT_THREADS),
        false => chunk_record_size(variant, counted),
    }
}

/// How the aggregated blocks of `child` find their records: a division by the blocks of every launch where
/// each launches a grid of the same constant size (so that every record of its chunks has that many), by the
/// first record's blocks where every launch registers one configuration over its scope, else a search.
fn record_lookup<'c>(sites: &[LaunchSite<'c>], eligible: &[&LaunchSite<'c>], child: FunctionValue<'c>, uniform: &uniform::UniformParams<'c>) -> RecordLookup {
    let constant = constant_over_launches(sites, child, |s| s.grid.constant_product()).and_then(|n| u32::try_from(n).ok());
    match constant.filter(|&n| n > 0) {
        Some(n) => RecordLookup::Blocks(n),
        None if uniform::config_uniform(eligible, child, uniform) => RecordLookup::FirstRecord,
        None => RecordLookup::Search,
    }
}

/// Why a recognized launch is not aggregated, or None.
fn ineligible<'c>(site: &LaunchSite<'c>, options: &Options, hazards: &Hazards<'c>) -> Option<(Remark, String)> {
    if site.child.is_declaration() {
        return Some((Remark::ChildNotDefined, format!("@{} is defined in another translation unit", site.child.name())));
    }
    let by_stream = match site.stream {
        Stream::Null if !options.merge_null_stream => Some((
            Remark::NullStreamKept,
            "NULL-stream launches are kept in order (-klap-merge-null-stream=false)".into(),
        )),
        Stream::Null | Stream::FireAndForget | Stream::Tail | Stream::SingleLaunch => lone(site, options).or_else(|| one_block_chain(site, hazards)),
        other => Some((Remark::StreamNotAggregated, format!("launches into a {} stream keep their stream's order", other.as_str()))),
    };
    by_stream.or_else(|| hazards.children.get(&site.child).cloned()).or_else(|| {
        let scope = scope_granularity(site, options, hazards)?;
        let how = hazards.thread_ends.get(&site.caller)?;
        Some((
            Remark::ThreadEndWithoutReturn,
            format!(
                "a thread of @{} can end without returning ({how}), and its {} scope launches once every thread has returned",
                site.caller.name(),
                scope.as_str()
            ),
        ))
    })
}

/// The launches aggregation will leave as written under `options`, found on the module before any step changes
/// it: serialization keeps away from the kernels that make them (KLAP323). None where aggregation does not run.
pub fn refused_launches<'c>(module: &Module<'c>, model: &LaunchModel<'c>, options: &Options) -> HashSet<InstructionValue<'c>> {
    if !model.nvptx || options.granularity == Granularity::None {
        return HashSet::new();
    }
    let hazards = Hazards::find(module, model);
    model.sites.iter().filter(|s| ineligible(s, options, &hazards).is_some()).map(|s| s.launch).collect()
}

/// The scope a kernel's launch is aggregated in, warp, block or grid (the per-caller choice in [`run`]),
/// or None for a launch made where it is reached (warp granularity, a device function).
fn scope_granularity<'c>(site: &LaunchSite<'c>, options: &Options, hazards: &Hazards<'c>) -> Option<Granularity> {
    match options.granularity {
        _ if !site.caller_is_kernel => None,
        Granularity::Warp if hazards.warp_scoped.contains(&site.caller) => Some(Granularity::Warp),
        Granularity::Warp | Granularity::None => None,
        g => Some(g),
    }
}

/// What the module's code does that aggregation cannot follow, found before anything is changed.
struct Hazards<'c> {
    /// Children whose aggregated variant would be wrong, with the remark that says why.
    children: HashMap<FunctionValue<'c>, (Remark, String)>,
    /// Launching kernels whose threads can end without returning, with how: a block or grid scope
    /// completes when every thread has left through a return.
    thread_ends: HashMap<FunctionValue<'c>, String>,
    /// Kernels that take a warp scope at warp granularity ([`wants_warp_scope`]).
    warp_scoped: HashSet<FunctionValue<'c>>,
    /// Kernels that make (or whose device functions make) a call whose code klap cannot see: a declaration
    /// other than an intrinsic, the launch protocol's entries and the error queries ([`return_per_path`]).
    opaque_callers: HashSet<FunctionValue<'c>>,
    /// Kernels whose one launch is a lone launch of the kernel itself as one block, outside loops: a
    /// chain of one-block grids (KLAP's los, sc, ...), where every grid a launch makes holds one launch.
    one_block_chains: HashSet<FunctionValue<'c>>,
}

impl<'c> Hazards<'c> {
    fn find(module: &Module<'c>, model: &LaunchModel<'c>) -> Hazards<'c> {
        let calls = CallGraph::build(module);
        let mut hazards = Hazards {
            children: HashMap::new(),
            thread_ends: HashMap::new(),
            warp_scoped: HashSet::new(),
            opaque_callers: HashSet::new(),
            one_block_chains: HashSet::new(),
        };
        let one_block = |site: &LaunchSite| site.grid.fields.iter().all(|f| f.and_then(|v| v.const_int()) == Some(1));
        for site in &model.sites {
            let only_launch = model.sites.iter().filter(|s| s.caller == site.caller).count() == 1;
            if site.caller_is_kernel && site.child == site.caller && site.lone && site.loop_depth == 0 && only_launch && one_block(site) {
                hazards.one_block_chains.insert(site.caller);
            }
        }
        hazards.warp_scoped = model.kernels.iter().copied().filter(|&k| wants_warp_scope(model, k)).collect();
        let opaque = |callee: FunctionValue| callee.is_declaration() && !callee.name().starts_with("llvm.") && !launch_or_error_query(&callee.name());
        hazards.opaque_callers = model
            .kernels
            .iter()
            .copied()
            .filter(|&k| calls.reachable_from(k).into_iter().any(|f| f.instructions().into_iter().filter_map(|i| i.called_function()).any(opaque)))
            .collect();
        for site in &model.sites {
            let child = site.child;
            if !child.is_declaration() && !hazards.children.contains_key(&child) {
                if let Some(hazard) = child_hazard(&calls, child) {
                    hazards.children.insert(child, hazard);
                }
            }
            if site.caller_is_kernel && !hazards.thread_ends.contains_key(&site.caller) {
                if let Some(end) = calls.thread_end_without_return(site.caller) {
                    hazards.thread_ends.insert(site.caller, describe_thread_end(end));
                }
            }
        }
        hazards
    }
}

/// Whether at warp granularity `kernel` gathers its warps' launches in warp scopes, launched at each
/// warp's end: where it, or a device function it runs, launches. Made where they were reached (the warp
/// path), launches hung in the device runtime, first in kernels that launch in a loop or tail-launch
/// (runtime/scope.cu), then also in kernels with neither (fuzz cases 220-26 and 327-8 on an H200, every
/// run): the warp path is left to device functions that no kernel's scope takes.
fn wants_warp_scope<'c>(model: &LaunchModel<'c>, kernel: FunctionValue<'c>) -> bool {
    model.sites.iter().any(|s| s.caller == kernel || (!s.caller_is_kernel && s.reached_from.contains(&kernel)))
}

/// The group a launch takes in a scope: its child and where the aggregated launch goes (a stream created
/// for one launch goes to fire-and-forget, [`taken_over_stream`], with those launches).
fn group_key<'c>(site: &LaunchSite<'c>) -> (FunctionValue<'c>, Stream) {
    let stream = if site.stream == Stream::SingleLaunch { Stream::FireAndForget } else { site.stream };
    (site.child, stream)
}

/// Launches in device functions that join the scope of the kernel running them (KLAP214). Kernels that
/// run the same device functions (a component) start their scopes with the same groups, so that a
/// device function's launch has one group whichever of them runs it; run by any other kernel, it is
/// made as written.
struct CalleeScopes<'c> {
    /// Per component, the groups of its device functions' launches: tail launches first, at most
    /// [`MAX_GROUPS`].
    groups: Vec<Vec<(FunctionValue<'c>, Stream)>>,
    /// The kernels (and aggregated children) that share their scope, with their component.
    sharing: HashMap<FunctionValue<'c>, usize>,
}

impl<'c> CalleeScopes<'c> {
    /// `per_caller`: the aggregated launches, by the function they are in.
    fn plan(model: &LaunchModel<'c>, per_caller: &[(FunctionValue<'c>, Vec<&LaunchSite<'c>>)], granularity: Granularity, calls: &CallGraph<'c>) -> Self {
        let mut plan = CalleeScopes { groups: Vec::new(), sharing: HashMap::new() };
        if granularity == Granularity::None {
            return plan;
        }
        // A scope completes when each of its threads returns from the kernel.
        let can_share = |k: FunctionValue<'c>| {
            (granularity != Granularity::Warp || wants_warp_scope(model, k)) && calls.thread_end_without_return(k).is_none()
        };
        let in_device_functions = || {
            per_caller.iter().filter(|(caller, _)| !model.kernels.contains(caller)).flat_map(|(_, sites)| sites.iter().copied())
        };
        // Asked once per kernel (a walk of its call graph), not once per launch that it reaches.
        let reaching: HashSet<FunctionValue<'c>> = in_device_functions().flat_map(|s| s.reached_from.iter().copied()).collect();
        let sharers: HashSet<FunctionValue<'c>> = reaching.into_iter().filter(|&k| can_share(k)).collect();
        let device_sites: Vec<(&LaunchSite<'c>, Vec<FunctionValue<'c>>)> = in_device_functions()
            .map(|s| (s, s.reached_from.iter().copied().filter(|k| sharers.contains(k)).collect::<Vec<_>>()))
            .filter(|(_, roots)| !roots.is_empty())
            .collect();
        // Components: kernels that run a common device function are one.
        let mut component: HashMap<FunctionValue<'c>, usize> = HashMap::new();
        let mut components = 0;
        for (_, roots) in &device_sites {
            let mut joined: Vec<usize> = roots.iter().filter_map(|k| component.get(k).copied()).collect();
            joined.sort_unstable();
            joined.dedup();
            let into = joined.first().copied().unwrap_or_else(|| {
                components += 1;
                components - 1
            });
            for c in component.values_mut() {
                if joined.contains(c) {
                    *c = into;
                }
            }
            for &k in roots {
                component.insert(k, into);
            }
        }
        let mut index: HashMap<usize, usize> = HashMap::new();
        for tail in [true, false] {
            for (site, roots) in device_sites.iter().filter(|(s, _)| (s.stream == Stream::Tail) == tail) {
                let c = *index.entry(component[&roots[0]]).or_insert_with(|| {
                    plan.groups.push(Vec::new());
                    plan.groups.len() - 1
                });
                let groups = &mut plan.groups[c];
                if !groups.contains(&group_key(site)) && groups.len() < MAX_GROUPS {
                    groups.push(group_key(site));
                }
            }
        }
        // A kernel's own tail launches must find a group too (made where reached, before the scope's
        // launches, a tail launch's child missed their work: aggregate/tail-group-order.ll).
        for (k, c) in component {
            let c = index[&c];
            let own = per_caller.iter().find(|(caller, _)| *caller == k).map_or(&[][..], |(_, sites)| sites.as_slice());
            let mut keys = plan.groups[c].clone();
            for site in own.iter().filter(|s| s.stream == Stream::Tail) {
                if !keys.contains(&group_key(site)) {
                    keys.push(group_key(site));
                }
            }
            if keys.len() <= MAX_GROUPS {
                plan.sharing.insert(k, c);
            }
        }
        plan
    }

    /// The groups a kernel's scope starts with: its component's, where it shares its scope.
    fn groups_of(&self, kernel: FunctionValue<'c>) -> Vec<(FunctionValue<'c>, Stream)> {
        self.sharing.get(&kernel).map_or_else(Vec::new, |&c| self.groups[c].clone())
    }

    /// The group of a device function's launch that joins its kernel's scope, or None.
    fn group(&self, site: &LaunchSite<'c>) -> Option<usize> {
        if site.caller_is_kernel {
            return None;
        }
        let c = site.reached_from.iter().find_map(|k| self.sharing.get(k))?;
        self.groups[*c].iter().position(|g| *g == group_key(site))
    }
}

/// Why `child`'s aggregated variant would be wrong: it would read a physical index register where the
/// remapping cannot see the read, or it would not count every thread out of its record (its chunk
/// never freed, a grid scope in it never complete).
fn child_hazard<'c>(calls: &CallGraph<'c>, child: FunctionValue<'c>) -> Option<(Remark, String)> {
    if let Some((_, why)) = unremappable_index_read(calls, child) {
        return Some((Remark::IndexReadNotRemapped, format!("{why}, which the aggregated variant of @{} cannot remap", child.name())));
    }
    calls.thread_end_without_return(child).map(|end| {
        (
            Remark::ThreadEndWithoutReturn,
            format!(
                "a thread of @{} can end without returning ({}), and the aggregated variant counts its threads out where they return",
                child.name(),
                describe_thread_end(end)
            ),
        )
    })
}

fn describe_thread_end(end: InstructionValue) -> String {
    let at = end.function().name();
    match (end.inline_asm_text(), end.called_function()) {
        (Some(_), _) => format!("`exit` in inline assembly in @{at}"),
        (None, Some(f)) => format!("the call of @{} in @{at}", f.name()),
        (None, None) => format!("a call through a pointer that does not return in @{at}"),
    }
}

/// A launch only one threadIdx.x reaches has, with one-dimensional blocks, one launching thread per
/// block: nothing to aggregate at warp or block granularity. Its code would only cost the kernel
/// registers, and past 32 registers CDP2's launches of the kernel got slower (measured on an H200,
/// qt at warp granularity, nothing aggregated: 23.5 ms with at most 32 registers, 37 ms with 40 or
/// more; the original kernel takes 32).
fn lone(site: &LaunchSite, options: &Options) -> Option<(Remark, String)> {
    (options.skip_lone && site.lone && options.granularity != Granularity::Grid).then(|| {
        (
            Remark::LoneLauncher,
            format!(
                "only threads with one threadIdx.x reach it, one per one-dimensional block: nothing to aggregate at {} \
                 granularity (-klap-skip-lone-launches=false aggregates it anyway)",
                options.granularity.as_str()
            ),
        )
    })
}

/// A chain of one-block grids launches once per grid: a grid scope would hold that one launch, and its
/// entry, exit and record lookup cost each link of the chain more than the launch (measured on an H100:
/// los 0.44 ms at grid granularity against 0.27 ms as written, sc 0.48 against 0.31).
fn one_block_chain<'c>(site: &LaunchSite<'c>, hazards: &Hazards<'c>) -> Option<(Remark, String)> {
    hazards.one_block_chains.contains(&site.caller).then(|| {
        (
            Remark::LoneLauncher,
            format!(
                "@{} launches itself as one block from one thread, its only launch: every grid of the chain makes one launch, nothing to aggregate",
                site.caller.name()
            ),
        )
    })
}

/// KLAP620 or KLAP621 for child `k`, at its first aggregated launch: whether each block of its aggregated
/// variant runs up to `coarsen` aggregated blocks, or why it runs one (`wide`: under `auto`, its blocks
/// may have more than one warp).
fn coarsening_remark<'c>(
    ctx: Ctx,
    variants: &ChildVariants<'_, 'c>,
    eligible: &[&LaunchSite<'c>],
    k: FunctionValue<'c>,
    coarsen: Option<Coarsening>,
    wide: bool,
) {
    let Some(site) = eligible.iter().find(|s| s.child == k) else { return };
    if wide {
        Remark::NotCoarsened.emit(
            ctx,
            site.launch,
            &format!(
                "each block of @{}'s aggregated child runs one aggregated block: not every launch of it has a constant block of one warp at most, which is all that auto coarsens",
                k.name()
            ),
        );
        return;
    }
    if let Some(c) = coarsen {
        Remark::Coarsened.emit(
            ctx,
            site.launch,
            &format!(
                "each block of @{}'s aggregated child runs up to {} aggregated blocks, one after another, where the aggregated launch has more than {} threads a multiprocessor",
                k.name(),
                c.factor,
                c.sm_threads
            ),
        );
        count(Statistic::CoarsenedChild, 1);
    } else if let Err(why) = variants.coarsenable(k) {
        Remark::NotCoarsened.emit(ctx, site.launch, &format!("each block of @{}'s aggregated child runs one aggregated block: {why}", k.name()));
    }
}

/// Fails when the device runtime cannot be used (one that does not pass its check leaves the module
/// unchanged).
pub fn run<'c>(module: &Module<'c>, model: &LaunchModel<'c>, ctx: Ctx, options: &Options) -> Result<bool, String> {
    if !model.nvptx || options.granularity == Granularity::None {
        return Ok(false);
    }
    let hazards = Hazards::find(module, model);
    let mut children: Vec<FunctionValue<'c>> = Vec::new();
    for site in &model.sites {
        match ineligible(site, options, &hazards) {
            Some((remark, why)) => remark.emit(ctx, site.launch, &why),
            None if !children.contains(&site.child) => children.push(site.child),
            None => {}
        }
    }
    if children.is_empty() {
        return Ok(false);
    }
    let eligible: Vec<&LaunchSite> = model.sites.iter().filter(|s| ineligible(s, options, &hazards).is_none()).collect();
    let uniform = uniform::analyze(module, &eligible, &children);
    let runtime = Runtime::link(module, &Settings { pool_bytes: options.pool_bytes, trace: options.trace, spawn: options.spawn.is_some() })?;

    let mut variants = ChildVariants::new(module, Some(&runtime));
    // Children whose grids parent blocks may run (grid reuse: block reuse left markers at their parents' ends).
    let reused = grid_reuse::marked_children(module);
    for &k in &children {
        let wide = options.coarsen.passes_over(&model.sites, k);
        let asked = options.coarsen.asked_for(&model.sites, k);
        let lookup = record_lookup(&model.sites, &eligible, k, &uniform);
        let coarsen = variants.aggregated(k, &uniform[&k], lookup, asked, reused.contains(&k)).coarsen;
        if options.coarsen.on() {
            coarsening_remark(ctx, &variants, &eligible, k, coarsen, wide);
        }
    }

    // The variants hold launches too (multi-level and recursive launching): look again.
    let model = site::analyze_quietly(module, ctx);
    let entries = CanonicalEntries::get(module);
    let mut per_caller: Vec<(FunctionValue<'c>, Vec<&LaunchSite<'c>>)> = Vec::new();
    for site in model.sites.iter().filter(|s| variants.get(s.child, VariantKind::Aggregated).is_some() && ineligible(s, options, &hazards).is_none()) {
        match per_caller.iter_mut().find(|(c, _)| *c == site.caller) {
            Some((_, v)) => v.push(site),
            None => per_caller.push((site.caller, vec![site])),
        }
    }
    let callees = CalleeScopes::plan(&model, &per_caller, options.granularity, &CallGraph::build(module));
    // A kernel that shares its scope with its device functions takes one even without launches of its own.
    let mut sharing: Vec<FunctionValue<'c>> = callees.sharing.keys().copied().collect();
    sharing.sort_by_key(|k| k.name());
    for k in sharing {
        if !per_caller.iter().any(|(caller, _)| *caller == k) {
            per_caller.push((k, Vec::new()));
        }
    }
    // Variants with a grid scope of their own: that scope waits for the variant's threads, which the
    // chunks they are launched from count (the runtime's COUNT_THREADS).
    let counted: HashSet<FunctionValue<'c>> = per_caller
        .iter()
        .filter(|(caller, _)| {
            options.granularity == Granularity::Grid && variants.owning(*caller).is_some() && model.kernels.contains(caller)
        })
        .map(|(caller, _)| *caller)
        .collect();
    let registered: Vec<&LaunchSite<'c>> = per_caller.iter().flat_map(|(_, sites)| sites.iter().copied()).collect();
    let in_thread = runs_in_thread_without_record(module, &model, &registered, &mut variants, options, ctx);
    let aggregated = |k: FunctionValue<'c>| variants.get(k, VariantKind::Aggregated);
    let parent = Parent {
        module,
        runtime: &runtime,
        entries: &entries,
        variants: &variants,
        opaque_callers: &hazards.opaque_callers,
        in_thread: &in_thread,
        reused: &reused,
    };
    for (caller, sites) in per_caller {
        let in_variant = variants.owning(caller);
        let quiet = in_variant.is_some();
        let granularity = options.granularity;
        let shape = CallerShape::of(&model, caller, &sites, granularity);
        let placed = place(ctx, caller, &shape, sites, &callees, quiet);
        let shares = callees.sharing.contains_key(&caller);
        let scoped = !placed.scope.is_empty() || shares;
        // Grid reuse's remarks go out before the launches are rewritten: a rewritten launch is erased.
        if !scoped {
            unscoped_marker_remarks(ctx, &model, caller);
        }
        // `note`: what the remark adds after the aggregation's description.
        let reported = |site: &LaunchSite<'c>, g: Granularity, note: &str| {
            if !quiet {
                single_launch_remark(ctx, site);
                Remark::Aggregated.emit(ctx, site.launch, &format!("{}{note}", aggregated_message(module, site, aggregated(site.child).unwrap(), g)));
                count(Statistic::AggregatedLaunch, 1);
            }
        };
        for site in placed.warp {
            reported(site, Granularity::Warp, "");
            parent.aggregate_at_warp(site, aggregated(site.child).unwrap(), &counted);
        }
        for (site, group) in placed.joining {
            if !quiet {
                let kernels: Vec<String> =
                    site.reached_from.iter().filter(|k| callees.sharing.contains_key(k)).map(|k| format!("@{}", k.name())).collect();
                Remark::CalleeScope.emit(
                    ctx,
                    site.launch,
                    &format!(
                        "the launch is in a device function: it joins the {} scope of the kernel running it ({}); run by any other kernel, it is made as written",
                        granularity.as_str(),
                        kernels.join(", ")
                    ),
                );
            }
            reported(site, granularity, "");
            parent.aggregate_in_callee_scope(site, aggregated(site.child).unwrap(), group);
        }
        if scoped {
            let as_written_grid = granularity == Granularity::Grid && in_variant.is_none();
            let small = as_written_grid && small_grid_per_block(&placed.scope, shares);
            let large_blocks = as_written_grid && options.large_blocks_per_block;
            let per_block_when = if small { PER_BLOCK_IF_SMALL_GRID } else { 0 } | if large_blocks { PER_BLOCK_IF_LARGE_BLOCKS } else { 0 };
            let mut note = String::new();
            if small {
                note += &format!(
                    "; per block where the launching grid has at most {SMALL_GRID_THREADS} threads (checked at run time): every launch of its kernel is what serialization left for larger children"
                );
            }
            if large_blocks {
                note += &format!(
                    "; per block where the launching blocks have {LARGE_BLOCK_THREADS} threads or more (checked at run time): such a block gathers enough launches by itself, and its children start when it ends"
                );
            }
            for site in &placed.scope {
                if !quiet && shape.warp_scoped {
                    let why = if shape.launches_in_loop {
                        "launches in a loop"
                    } else if shape.tail_launching {
                        "also tail-launches"
                    } else {
                        "launches"
                    };
                    Remark::WarpScope.emit(
                        ctx,
                        site.launch,
                        &format!("its kernel {why}: the launches of each warp are made when the warp's last thread returns (a warp scope)"),
                    );
                }
                reported(site, granularity, &note);
            }
            // Whether one thread of a block reaches each launch (qt's), judged on the kernel as written:
            // in its aggregated variant, threadIdx is the runtime's.
            let as_written = children.iter().copied().find(|&k| aggregated(k).is_some_and(|v| v.function == caller)).unwrap_or(caller);
            let mut own = model.sites.iter().filter(|s| s.caller == as_written).peekable();
            let lone = own.peek().is_some() && own.all(|s| s.lone);
            // Blocks take child grids only from the grid table's scopes (runtime/reuse.cu): of a kernel launched as written.
            let per_take = (granularity == Granularity::Grid && in_variant.is_none()).then_some(options.grid_reuse_blocks);
            if !quiet {
                grid_reuse_remarks(ctx, caller, &placed.scope, &placed.groups, per_take);
            }
            let scope = parent.aggregate_in_scope(caller, &placed.scope, &placed.groups, &counted, in_variant, granularity, shares, lone, per_block_when);
            parent.grid_reuse(caller, &placed.groups, per_take.map(|n| (scope, n)));
        }
    }
    // Markers of kernels with no launch this step rewrote (each caller's were dealt with above).
    if grid_reuse::any_markers(module) {
        for f in module.get_functions() {
            unscoped_marker_remarks(ctx, &model, f);
        }
        grid_reuse::erase_markers(module);
    }
    entries.retire_replaced(module);
    runtime.retire_unused(module);
    Ok(true)
}

/// For each of the `registered` launches made in a kernel whose lanes run child grids on their own (serialization's
/// serial and reduced-serial runs), or in a function such a kernel calls, the variant with which the launching
/// thread runs its child where no record can be had (the record pool is short, or on the warp path a lane reaches
/// the launch alone: `__klap_warp_chunk` gives it no chunk). There the launch as written,
/// its lane in the device runtime beside warp-mates running a child, hung on an H200: test/gpu/warp_reduce.cu
/// at `auto` with a 1 MiB pool, in 3 of 3 runs (BENCHMARKS.md, thirty-fourth session). Not beside the warp run
/// alone: all 32 lanes run it together, none of them in the device runtime. Serialization keeps its runs by lane
/// away from kernels making launches whose child no thread can run (KLAP323).
fn runs_in_thread_without_record<'c>(
    module: &Module<'c>,
    model: &LaunchModel<'c>,
    registered: &[&LaunchSite<'c>],
    variants: &mut ChildVariants<'_, 'c>,
    options: &Options,
    ctx: Ctx,
) -> HashMap<InstructionValue<'c>, FunctionValue<'c>> {
    let by_lane = CallGraph::build(module).kernel_with(&model.kernels, registered.iter().map(|s| s.caller), |i| {
        i.called_function().is_some_and(runs_child_grid_by_lane)
    });
    let mut runners = HashMap::new();
    for site in registered {
        let Some(&kernel) = by_lane.get(&site.caller) else { continue };
        match thread_runner(variants, site, options.merge_null_stream) {
            Ok(runner) => {
                Remark::RunInThreadWithoutRecord.emit(
                    ctx,
                    site.launch,
                    &format!(
                        "where no record can be had (the record pool is short; on the warp path, KLAP204, also a lane that reaches the launch \
                         alone), the launching thread runs @{}'s threads itself instead of launching it as written: @{} runs children in its \
                         lanes, and a lane in the device runtime beside them hung",
                        site.child.name(),
                        kernel.name()
                    ),
                );
                count(Statistic::NoRecordRunInThread, 1);
                runners.insert(site.launch, runner);
            }
            Err(why) => Remark::RunInThreadWithoutRecord.emit(
                ctx,
                site.launch,
                &format!("where no record can be had, the launch is made as written beside the children @{} runs in its lanes: {why}", kernel.name()),
            ),
        }
    }
    runners
}

/// The groups of a scope whose records parent blocks may take for `child`: its NULL-stream and
/// fire-and-forget ones.
fn taken_groups<'c>(groups: &[(FunctionValue<'c>, Stream)], child: FunctionValue<'c>) -> Vec<usize> {
    (0..groups.len()).filter(|&g| groups[g].0 == child && matches!(groups[g].1, Stream::Null | Stream::FireAndForget)).collect()
}

/// Grid reuse's remarks at `kernel`'s markers, for `sites`, its launches registered in its block or grid
/// scope of `groups`, where `per_take` (blocks per take, as grid_reuse's) says its blocks take from that
/// scope. Made before the launches are rewritten, which erases them.
fn grid_reuse_remarks<'c>(ctx: Ctx, kernel: FunctionValue<'c>, sites: &[&LaunchSite<'c>], groups: &[(FunctionValue<'c>, Stream)], per_take: Option<u32>) {
    for m in &grid_reuse::markers(kernel) {
        let child_sites = sites.iter().filter(|s| s.child == m.child);
        match per_take.filter(|_| !taken_groups(groups, m.child).is_empty()) {
            Some(per_take) => {
                let what = match per_take {
                    0 => "child grids".to_string(),
                    SELECT_PER_TAKE => "child grids (whole, where a grid has at most a parent block's share of the child blocks registered \
                                        in its chunk, else that share of its blocks at a time: Free Launch's selector between T2 and T1)"
                        .to_string(),
                    1 => "child blocks, one at a time,".to_string(),
                    n => format!("child blocks, up to {n} of a grid at a time,"),
                };
                for site in child_sites {
                    Remark::GridReused.emit(
                        ctx,
                        site.launch,
                        &format!(
                            "{what} of @{} run by the blocks of @{} that are done, with all their threads, in the order they \
                             were registered in the grid scope (a block takes a grid's blocks only where it has the grid's block of \
                             threads, or more in whole warps, and its dynamic shared memory); what is left when the grid's last \
                             thread exits is launched aggregated",
                            m.child.name(),
                            kernel.name()
                        ),
                    );
                    count(Statistic::GridReusedLaunch, 1);
                }
            }
            None => {
                for site in child_sites {
                    Remark::GridReuseUnfit.emit(ctx, site.launch, "the launch is not registered in a grid scope of its kernel: it is aggregated alone");
                }
            }
        }
    }
}

/// Grid reuse's remarks at the markers of `kernel`, which gets no block or grid scope, and the markers
/// gone: its launches are made as written or gathered per warp. Made before they are rewritten.
fn unscoped_marker_remarks<'c>(ctx: Ctx, model: &LaunchModel<'c>, kernel: FunctionValue<'c>) {
    for m in grid_reuse::markers(kernel) {
        for site in model.sites.iter().filter(|s| s.caller == kernel && s.child == m.child) {
            Remark::GridReuseUnfit.emit(ctx, site.launch, "the launch is not registered in a grid scope of its kernel (it is made as written, or gathered per warp)");
        }
        m.call.erase();
    }
}

/// What decides where a function's launches go.
struct CallerShape {
    granularity: Granularity,
    launches_in_loop: bool,
    tail_launching: bool,
    /// At warp granularity, a launching kernel (or variant) takes a warp scope ([`wants_warp_scope`]).
    warp_scoped: bool,
    /// The function has a scope: a kernel at block or grid granularity, or a warp-scoped one.
    scoped: bool,
}

impl CallerShape {
    fn of<'c>(model: &LaunchModel<'c>, caller: FunctionValue<'c>, sites: &[&LaunchSite<'c>], granularity: Granularity) -> Self {
        let is_kernel = model.kernels.contains(&caller);
        let warp_scoped = granularity == Granularity::Warp && is_kernel && wants_warp_scope(model, caller);
        CallerShape {
            granularity,
            launches_in_loop: sites.iter().any(|s| s.loop_depth > 0 || s.called_in_loop),
            tail_launching: model.sites.iter().any(|s| s.caller == caller && s.stream == Stream::Tail),
            warp_scoped,
            scoped: (granularity != Granularity::Warp || warp_scoped) && is_kernel,
        }
    }
}

/// Where each of a function's aggregated launches goes.
struct Placement<'a, 'c> {
    /// Its scope's groups: those it shares with its device functions first, then its own.
    groups: Vec<(FunctionValue<'c>, Stream)>,
    scope: Vec<&'a LaunchSite<'c>>,
    /// Launches in a device function, into the scope of the kernel running it, with their group.
    joining: Vec<(&'a LaunchSite<'c>, usize)>,
    /// Launches made where they are reached, by the last lane of the warp (the warp path).
    warp: Vec<&'a LaunchSite<'c>>,
}

/// Places the launches of one function; a launch that no scope takes, in a function that launches in a
/// loop or also tail-launches, is left as written with a missed remark.
fn place<'a, 'c>(
    ctx: Ctx,
    caller: FunctionValue<'c>,
    shape: &CallerShape,
    sites: Vec<&'a LaunchSite<'c>>,
    callees: &CalleeScopes<'c>,
    quiet: bool,
) -> Placement<'a, 'c> {
    let mut placed = Placement { groups: callees.groups_of(caller), scope: Vec::new(), joining: Vec::new(), warp: Vec::new() };
    // Tail launches take their scope's groups first: a tail launch made where it is reached, while
    // the kernel's other launches wait for the scope's end, was made before them, and its child
    // did not see theirs (fuzz case 220-20 at grid granularity, five groups: a wrong checksum).
    let (tail_sites, other_sites): (Vec<_>, Vec<_>) = sites.into_iter().partition(|s| s.stream == Stream::Tail);
    for site in tail_sites.into_iter().chain(other_sites) {
        let key = group_key(site);
        if let Some(group) = callees.group(site) {
            placed.joining.push((site, group));
        } else if shape.scoped && (placed.groups.contains(&key) || placed.groups.len() < MAX_GROUPS) {
            if !placed.groups.contains(&key) {
                placed.groups.push(key);
            }
            placed.scope.push(site);
        } else if shape.launches_in_loop || shape.tail_launching && site.stream != Stream::Tail {
            // Made where it is reached, it would take the warp path that hung in such functions.
            if !quiet {
                let (remark, why) = if shape.launches_in_loop {
                    (Remark::WarpLoopKept, "made in a loop, where launches made where they are reached hung in the device runtime, and no scope can take it (a device function, or past eight launch groups)")
                } else {
                    (Remark::WarpWithTail, "in a function that also tail-launches, where launches made where they are reached hung in the device runtime, and no scope can take it (a device function, or past eight launch groups)")
                };
                remark.emit(ctx, site.launch, why);
            }
        } else {
            if !quiet && shape.granularity != Granularity::Warp {
                let why = if shape.scoped { "more than eight launch groups in one kernel" } else { "the launch is in a device function" };
                Remark::WarpFallback.emit(ctx, site.launch, &format!("{why}: aggregated at warp granularity"));
            }
            placed.warp.push(site);
        }
    }
    placed
}

/// KLAP209 beside KLAP200 for a launch into a stream created for it alone.
fn single_launch_remark(ctx: Ctx, site: &LaunchSite) {
    if site.stream == Stream::SingleLaunch {
        Remark::SingleLaunchStream.emit(
            ctx,
            site.launch,
            &format!(
                "launch of @{} aggregated into the fire-and-forget stream: {SINGLE_LAUNCH_STREAM}; the launch as written, made \
                 where no record can be had, goes there too, and the stream's creation and destruction are removed",
                site.child.name()
            ),
        );
    }
}

/// The stream a scope's group is launched into: its launches' own, a constant for every stream kind a
/// scope takes (a stream created for one launch: fire-and-forget, as [`taken_over_stream`] says).
fn group_stream<'c>(module: &Module<'c>, stream: Stream) -> BasicValueEnum<'c> {
    let handle = match stream {
        Stream::Null => 0,
        Stream::Tail => STREAM_TAIL_LAUNCH,
        Stream::FireAndForget | Stream::SingleLaunch => STREAM_FIRE_AND_FORGET,
        other => unreachable!("a scope takes no launch into a {} stream", other.as_str()),
    };
    stream_handle(module, handle)
}

fn aggregated_message<'c>(module: &Module<'c>, site: &LaunchSite<'c>, variant: &Variant<'c>, g: Granularity) -> String {
    let params = param_layout(module, site.child).0;
    let once: u64 = params.iter().zip(&variant.uniform).filter(|(_, &u)| u).map(|(p, _)| p.size).sum();
    let what = if once == 0 {
        format!("{} argument bytes per record", variant.param_size)
    } else {
        let how = if variant.args_in_params { "as the aggregated kernel's parameters" } else { "in the first record" };
        format!("{} argument bytes per record, {} of them passed once, {how}", variant.param_size, once)
    };
    let lookup = match variant.lookup {
        RecordLookup::FirstRecord => ", one configuration over the scope: records found by a division",
        _ => "",
    };
    format!("launch of @{} aggregated at {} granularity ({what}{lookup})", site.child.name(), g.as_str())
}

/// The parent side: a launch registers a record in its scope and writes its arguments there; the
/// aggregated launch of a scope's records is made once the scope is complete.
struct Parent<'a, 'c> {
    module: &'a Module<'c>,
    runtime: &'a Runtime<'c>,
    entries: &'a CanonicalEntries<'c>,
    variants: &'a ChildVariants<'a, 'c>,
    opaque_callers: &'a HashSet<FunctionValue<'c>>,
    /// Launches whose child the launching thread runs where no record can be had, with the variant that runs it
    /// ([`runs_in_thread_without_record`]).
    in_thread: &'a HashMap<InstructionValue<'c>, FunctionValue<'c>>,
    /// Children whose grids parent blocks may run (grid reuse): their scope groups' records have ready flags.
    reused: &'a [FunctionValue<'c>],
}

impl<'c> Parent<'_, 'c> {
    fn i32(&self, v: u64) -> BasicValueEnum<'c> {
        self.module.get_context().i32_type().const_int(v, false).into()
    }
    fn i64(&self, v: u64) -> BasicValueEnum<'c> {
        self.module.get_context().i64_type().const_int(v, false).into()
    }
    fn call(&self, b: &Builder<'c>, f: RuntimeFn, args: &[BasicValueEnum<'c>]) -> InstructionValue<'c> {
        b.call(self.runtime.get(f), args)
    }
    fn function_value(f: FunctionValue<'c>) -> BasicValueEnum<'c> {
        f.as_global_value().as_pointer_value().into()
    }

    /// What a launch of `variant` gives the runtime to set the variant's own grid scope up with before
    /// its blocks run: the variant's [`Self::child_scope_global`], or null for a variant without one.
    fn child_scope(&self, variant: &Variant<'c>, counted: &HashSet<FunctionValue<'c>>) -> BasicValueEnum<'c> {
        match counted.contains(&variant.function) {
            true => self.child_scope_global(variant.function).as_pointer_value().into(),
            false => self.module.get_context().ptr_type(AddressSpace::default()).const_null().into(),
        }
    }

    /// The constant `<variant>.grid_scope` (the runtime's ChildScope: the number of groups of the
    /// variant's grid scope, then each group's record size), filled in where that scope is planned.
    fn child_scope_global(&self, variant: FunctionValue<'c>) -> GlobalValue<'c> {
        let name = format!("{}.grid_scope", variant.name());
        self.module.get_global(&name).unwrap_or_else(|| {
            let ty = self.module.get_context().i32_type().array_type(1 + MAX_GROUPS as u32);
            let g = self.module.add_global(ty, None, &name);
            g.set_initializer(&ty.const_zero());
            g.set_constant(true);
            g.set_linkage(Linkage::Private);
            g
        })
    }

    /// Registers the launch at `site` with `register` (the runtime's registration for the scope, called
    /// with `scope_args` then the launch's configuration); where no record can be had, the original
    /// launch is made, or for a launch in `in_thread` its child run by the launching thread. The site is
    /// replaced. `written`: what the registering thread calls once its record is written (a warp chunk's
    /// arrival releases its records itself: none).
    fn register_or_launch(
        &self,
        site: &LaunchSite<'c>,
        variant: &Variant<'c>,
        register: RuntimeFn,
        scope_args: &[BasicValueEnum<'c>],
        b: &Builder<'c>,
        written: Option<RuntimeFn>,
    ) {
        let args = ArgValues::capture(self.module, site);
        b.position_before(&site.launch);
        let [gx, gy, gz] = dim3_fields(self.module, b, &site.grid);
        let [bx, by, bz] = dim3_fields(self.module, b, &site.block);
        let mut call_args = scope_args.to_vec();
        call_args.extend([gx, gy, gz, bx, by, bz, site.smem]);
        // A group whose records parent blocks may take: each record's ready flag pending until written.
        let register = match register {
            RuntimeFn::ScopeRegister if self.reused.contains(&site.child) => RuntimeFn::ScopeRegisterFlagged,
            other => other,
        };
        let tagged = self.call(b, register, &call_args).result();
        let has_record = b.is_not_null(tagged);
        let runner = self.in_thread.get(&site.launch).copied();
        // Run in the thread where the device runtime would accept the launch; else made, to fail as written.
        let taken = match runner {
            Some(_) => {
                let int = |v: BasicValueEnum<'c>| v.into_int_value();
                let accepted = config_accepted(self.module, b, &[gx, gy, gz].map(int), &[bx, by, bz].map(int), Some(int(site.smem)));
                b.build_or(has_record, accepted, "").expect("builder positioned")
            }
            None => has_record,
        };
        let fallback = fallback_site(self.module, site);
        let as_written = guarded_replace(self.module, self.entries, &fallback, &args, b, taken, |b, taken_end| {
            let then_end = match runner {
                Some(runner) => {
                    let record_end = taken_end.split_if_then(has_record);
                    b.position_before(&taken_end);
                    let no_record = b.build_not(has_record, "").expect("builder positioned");
                    let thread_end = taken_end.split_if_then(no_record);
                    b.position_before(&thread_end);
                    let every_thread = self.module.get_context().i64_type().const_all_ones().into();
                    b.call_not_inlined(runner, &grid_run_arguments(self.module, b, site, &args, &[gx, gy, gz, bx, by, bz], every_thread));
                    b.position_before(&record_end);
                    record_end
                }
                None => taken_end,
            };
            let record = self.call(b, RuntimeFn::RecordArgs, &[tagged]).result();
            let once: Vec<bool> = site.writes.iter().map(|w| variant.uniform[w.param]).collect();
            args.store_where(b, record, &once, false);
            if once.contains(&true) {
                // The arguments uniform over the scope: into the chunk's first record only.
                let first = self.call(b, RuntimeFn::RecordFirst, &[tagged]).result().into_int_value();
                let first_end = then_end.split_if_then(first);
                b.position_before(&first_end);
                args.store_where(b, record, &once, true);
            }
            if let Some(written) = written {
                b.position_before(&then_end);
                self.call(b, written, &[]);
                if self.reused.contains(&site.child) {
                    let flag = grid_reuse::flagged_record_size(variant.param_size) - 8;
                    self.call(b, RuntimeFn::RecordReady, &[tagged, self.i32(flag)]);
                }
            }
        });
        // Its error is reported where it is the device runtime's room (the caller sees success).
        b.position_before(&as_written.get_next_instruction().expect("a launch is never a terminator"));
        self.call(b, RuntimeFn::AsWrittenResult, &[as_written.result()]);
        retire_single_launch_stream(self.module, site);
    }

    fn aggregate_at_warp(&self, site: &LaunchSite<'c>, variant: &Variant<'c>, counted: &HashSet<FunctionValue<'c>>) {
        let b = builder_before(self.module, site.launch);
        let record_size = self.i32(chunk_record_size(variant, counted));
        let chunk = self.call(&b, RuntimeFn::WarpChunk, &[record_size]).result();
        // After its registration (or its own launch) each lane arrives; the last to arrive launches.
        let after = site.launch.get_next_instruction().expect("a launch is never a terminator");
        self.register_or_launch(site, variant, RuntimeFn::Register, &[chunk], &b, None);
        b.position_before(&after);
        let last = self.call(&b, RuntimeFn::WarpArrive, &[chunk]).result().into_int_value();
        let last_end = after.split_if_then(last);
        b.position_before(&last_end);
        let words = self.i64(variant.uniform_words);
        let size = self.i32(variant.launch_size());
        let launch_args = [
            chunk,
            Self::function_value(variant.function),
            Self::function_value(site.child),
            size,
            words,
            taken_over_stream(self.module, site),
            self.child_scope(variant, counted),
        ];
        self.call(&b, RuntimeFn::LaunchChunk, &launch_args);
    }

    /// A device function's launch registered in the scope its kernel shares (the runtime finds it), in
    /// group `group`; where there is none, or no record, the original launch is made.
    fn aggregate_in_callee_scope(&self, site: &LaunchSite<'c>, variant: &Variant<'c>, group: usize) {
        let b = builder_before(self.module, site.launch);
        let scope = self.call(&b, RuntimeFn::CalleeScope, &[]).result();
        self.register_or_launch(site, variant, RuntimeFn::ScopeRegister, &[scope, self.i32(group as u64)], &b, Some(RuntimeFn::RecordWritten));
    }

    #[allow(clippy::too_many_arguments)]
    fn aggregate_in_scope(
        &self,
        kernel: FunctionValue<'c>,
        sites: &[&LaunchSite<'c>],
        groups: &[(FunctionValue<'c>, Stream)],
        counted: &HashSet<FunctionValue<'c>>,
        in_variant: Option<&Variant<'c>>,
        granularity: Granularity,
        shares: bool,
        lone: bool,
        per_block_when: u32,
    ) -> BasicValueEnum<'c> {
        let variant_of = |child: FunctionValue<'c>| self.variants.get(child, VariantKind::Aggregated).unwrap();
        // Entry: every thread still runs here.
        let start = match in_variant {
            Some(v) => v.body_start,
            None => kernel.entry_block().get_first_instruction().unwrap(),
        };
        let start = skip_allocas(start);
        let b = builder_before(self.module, start);
        // A grid scope whose every launch one thread of a block reaches (qt's), and that no device
        // function registers into, counts its exits per block first: its other warps have nothing to
        // release. The registering thread marks its lane for that count, which the block zeroes before
        // the barrier of its entry (the record lookup's in a variant). Elsewhere each warp counts itself
        // into the scope (per-block counting there cost join 11% to 15% on an H200).
        let per_block = granularity == Granularity::Grid && !shares && !sites.is_empty() && lone;
        if per_block {
            let lookups = [RuntimeFn::ChildEnter, RuntimeFn::ChildEnterAfterTaken].map(|f| self.runtime.get(f));
            let entry_barrier = match in_variant {
                Some(v) => v
                    .function
                    .instructions()
                    .into_iter()
                    .find(|i| i.called_function().is_some_and(|f| lookups.contains(&f)))
                    .expect("an aggregated variant looks its record up"),
                None => start,
            };
            let reset = builder_before(self.module, entry_barrier);
            self.call(&reset, RuntimeFn::GridExitsReset, &[]);
        }
        let mut enter_args = vec![self.i32(groups.len() as u64)];
        for g in 0..MAX_GROUPS {
            let size = groups.get(g).map(|(child, _)| scope_record_size(variant_of(*child), counted, self.reused.contains(child))).unwrap_or(0);
            enter_args.push(self.i32(size));
        }
        // A kernel whose blocks take child grids from its scope takes them once every block has entered.
        let per_block_when = per_block_when | if grid_reuse::markers(kernel).is_empty() || in_variant.is_some() { 0 } else { COUNT_ENTERED };
        let enter = match (granularity, in_variant) {
            (Granularity::Grid, Some(v)) => {
                // A grid scope inside a variant lives in the variant's chunk, set up by its launch
                // (described by the variant's constant); a grid launched as written finds its scope
                // in the runtime's grid table.
                let sizes: Vec<_> = enter_args.drain(..).map(|a| a.into_int_value()).collect();
                let ty = self.module.get_context().i32_type();
                self.child_scope_global(v.function).set_initializer(&ty.const_array(&sizes));
                RuntimeFn::ChildGridScope
            }
            // Per block where the runtime finds the grid small or its blocks large, as `per_block_when`
            // asks (runtime/scope.cu's grid_enter says why).
            (Granularity::Grid, None) if per_block_when != 0 => {
                enter_args.insert(0, self.i32(per_block_when as u64));
                RuntimeFn::GridEnterPerBlock
            }
            (Granularity::Grid, None) => RuntimeFn::GridEnter,
            (Granularity::Warp, _) => {
                let threads = self.expected_threads(&b, Granularity::Block, in_variant.is_some()).into_int_value();
                let threads = b.build_int_truncate(threads, self.module.get_context().i32_type(), "").expect("builder positioned");
                enter_args.insert(0, threads.into());
                RuntimeFn::WarpEnter
            }
            _ => RuntimeFn::BlockEnter,
        };
        let scope = self.call(&b, enter, &enter_args).result();
        if shares {
            self.call(&b, RuntimeFn::ShareScope, &[scope]);
        }

        // Exit: every return, in a variant before the thread counts itself out of its record.
        let exits: Vec<InstructionValue<'c>> = match in_variant {
            Some(v) => v.exits.clone(),
            None => {
                if self.opaque_callers.contains(&kernel) {
                    return_per_path(self.module, kernel);
                }
                kernel.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Return).collect()
            }
        };

        let written = if per_block { RuntimeFn::RecordWrittenInBlock } else { RuntimeFn::RecordWritten };
        for site in sites {
            let group = groups.iter().position(|g| *g == group_key(site)).unwrap();
            let scope_args = [scope, self.i32(group as u64)];
            self.register_or_launch(site, variant_of(site.child), RuntimeFn::ScopeRegister, &scope_args, &b, Some(written));
        }

        let streams: Vec<BasicValueEnum<'c>> = groups.iter().map(|(_, stream)| group_stream(self.module, *stream)).collect();
        // Tail groups last: the scope's other launches are made before them.
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&g| groups[g].1 == Stream::Tail);
        for exit in exits {
            b.position_before(&exit);
            let expected = match granularity {
                Granularity::Warp => self.call(&b, RuntimeFn::WarpScopeThreads, &[scope]).result(),
                _ => self.expected_threads(&b, granularity, in_variant.is_some()),
            };
            let last = if per_block {
                // Counted per block first: the block's threads, then the grid's.
                let block = self.expected_threads(&b, Granularity::Block, in_variant.is_some());
                self.call(&b, RuntimeFn::GridScopeExit, &[scope, expected, block])
            } else {
                self.call(&b, RuntimeFn::ScopeExit, &[scope, expected])
            };
            let last = last.result().into_int_value();
            let last_end = exit.split_if_then(last);
            b.position_before(&last_end);
            for &g in &order {
                let child = &groups[g].0;
                let variant = variant_of(*child);
                let args = [
                    scope,
                    self.i32(g as u64),
                    Self::function_value(variant.function),
                    Self::function_value(*child),
                    self.i32(variant.launch_size()),
                    self.i64(variant.uniform_words),
                    streams[g],
                    self.child_scope(variant, counted),
                ];
                self.call(&b, RuntimeFn::ScopeLaunch, &args);
            }
            if granularity == Granularity::Grid {
                self.call(&b, RuntimeFn::GridRelease, &[scope]);
            }
        }
        scope
    }

    /// Grid reuse at `kernel`'s markers (block reuse left them at its one exit): each becomes the loop
    /// that takes the records of the child's groups in `takes_from`'s scope, the kernel's grid scope where
    /// its blocks may take from it, and runs their grids, or as many blocks of one at a time as its number
    /// says (0: whole grids; SELECT_PER_TAKE: as the runtime chooses). Where there is none (an aggregated
    /// parent, another granularity), or the child has no group in it, the marker goes and the launches are
    /// aggregated alone ([`grid_reuse_remarks`] said which).
    fn grid_reuse(&self, kernel: FunctionValue<'c>, groups: &[(FunctionValue<'c>, Stream)], takes_from: Option<(BasicValueEnum<'c>, u32)>) {
        let mut at_end = false;
        for m in &grid_reuse::markers(kernel) {
            if let Some((scope, per_take)) = takes_from {
                for g in taken_groups(groups, m.child) {
                    if !at_end {
                        // The block's threads have done their own work: blocks take grids while another has not.
                        self.call(&builder_before(self.module, m.call), RuntimeFn::GridAtEnd, &[scope, m.threads]);
                        at_end = true;
                    }
                    let uniform = &self.variants.get(m.child, VariantKind::Aggregated).expect("an aggregated child").uniform;
                    grid_reuse::insert_take_loop(self.module, self.runtime, m, scope, g as u32, per_take, uniform);
                }
            }
            m.call.erase();
        }
    }

    /// The threads a scope's exit count waits for: the block's or the grid's; in a variant, those that
    /// serve records (the others returned at entry).
    fn expected_threads(&self, b: &Builder<'c>, granularity: Granularity, in_variant: bool) -> BasicValueEnum<'c> {
        if in_variant {
            let f = if granularity == Granularity::Grid { RuntimeFn::ChildGridThreads } else { RuntimeFn::ChildBlockThreads };
            return self.call(b, f, &[]).result();
        }
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let mut registers = vec!["ntid"];
        if granularity == Granularity::Grid {
            registers.push("nctaid");
        }
        let sreg_ty = cx.i32_type().fn_type(&[], false);
        let mut total = i64t.const_int(1, false);
        for register in registers {
            for dimension in ["x", "y", "z"] {
                let name = IndexRegister { register, dimension }.intrinsic();
                let read = self.module.get_function(&name).unwrap_or_else(|| self.module.add_function(&name, sreg_ty, None));
                let v = b.call_value(read, &[]).into_int_value();
                let v = b.build_int_z_extend(v, i64t, "").expect("builder positioned");
                total = b.build_int_mul(total, v, "").expect("builder positioned");
            }
        }
        total.into()
    }
}

/// The most paths to one return that [`return_per_path`] gives a return each: the scope's exit is inlined
/// at every return, and a kernel of many early returns would grow by a copy of it at each.
const RETURN_PATHS: usize = 8;

/// Gives each branch to a block that only returns a return of its own, where the kernel makes a call whose
/// code klap cannot see (`Hazards::opaque_callers`). clang's -O2 merges a kernel's returns into one block; the scope's exit
/// there makes it a point where the warp reconverges, so that a thread that returns early waits for the
/// rest of its warp instead of ending, and such a call made meanwhile by the rest of the warp may not
/// return: fuzz case 1953-8 (`cudaStreamCreateWithFlags` after an early return, at `auto`) hung there every
/// time, where as written the threads that returned had ended; with a return each, it ran right (H200,
/// twentieth session). Each return gets the exit, and ends its threads at once. Not where every call is
/// klap's own or a launch: the suite, whose kernels make none, ran 0.99x as fast with every kernel split
/// (bt 0.79x, mstf 0.91x, sssp:rmat 1.22x).
fn return_per_path<'c>(module: &Module<'c>, kernel: FunctionValue<'c>) {
    let cx = module.get_context();
    let b = cx.create_builder();
    let only_returns: Vec<BasicBlock<'c>> = kernel
        .get_basic_block_iter()
        .filter(|block| block.get_first_instruction().is_some_and(|i| i.get_opcode() == InstructionOpcode::Return && i.get_num_operands() == 0))
        .collect();
    for ret_block in only_returns {
        let entries: Vec<(InstructionValue<'c>, u32)> = kernel
            .get_basic_block_iter()
            .filter_map(|block| block.get_terminator())
            .flat_map(|t| t.successors().into_iter().enumerate().filter(|(_, s)| *s == ret_block).map(move |(i, _)| (t, i as u32)).collect::<Vec<_>>())
            .collect();
        if entries.len() < 2 || entries.len() > RETURN_PATHS {
            continue;
        }
        // The first branch keeps the block; each other terminator gets one new return for its branches there.
        let mut own: Vec<(InstructionValue<'c>, BasicBlock<'c>)> = Vec::new();
        let first = entries[0].0;
        for (t, index) in entries.into_iter().filter(|(t, _)| *t != first) {
            let to = match own.iter().find(|(o, _)| *o == t) {
                Some((_, block)) => *block,
                None => {
                    let block = cx.insert_basic_block_after(t.block(), "klap.return");
                    b.position_at_end(block);
                    b.build_return(None).unwrap();
                    own.push((t, block));
                    block
                }
            };
            t.set_successor(index, to);
        }
    }
}

/// Whether a kernel's grid scope gathers per block where the grid is small: every launch of it is
/// serialization's run-time fallback, and no device function registers into it.
fn small_grid_per_block(sites: &[&LaunchSite], shares: bool) -> bool {
    !shares && !sites.is_empty() && sites.iter().all(|s| s.is_serial_fallback())
}
