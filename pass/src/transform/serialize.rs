//! Serialization (Olabi et al.'s thresholding; Free Launch's CKi->PTi; SPAWN's "run in the parent"): a
//! launch whose child grid has at most `threshold` threads in all is not made; the launching thread runs
//! every thread of the child itself, one after another, through the child's serial variant (child/).
//! Where the child's size is only known at run time the choice is made at run time, and a larger child is
//! launched as written (and then aggregated, at `auto`).
//!
//! Where the launching grid is small (at most `SMALL_GRID_THREADS` threads) a larger child is serialized too (up to
//! `serialize_small_grid_threshold` working threads, and as long as the grid's threads times the child's stay
//! within `SMALL_GRID_SERIAL_WORK`): a grid that small leaves most of the GPU idle, so a child's parallelism
//! gains less than its launch costs on the way of the grid's last thread. Measured on
//! an H200: gc (2,003 parent threads) 1.25x and mstv (4,096) 1.15x faster at 1,024 than at 32, gc:rmat
//! (65,536) best at 32 (BENCHMARKS.md, fourteenth session).
//!
//! A child whose threads talk within their warp but not beyond it is run by the launching warp instead
//! (`run_by_warp`, the child's warp-run variant): where the whole warp reaches the launch in a grid large
//! enough to keep the GPU busy by itself, the warp runs its lanes' children a child warp at a time.
//!
//! Sound where running the child at the launch point is one of the schedules the launch allowed: the
//! child's threads need nothing of each other (no barrier, no shared memory, no warp collective; run by
//! the warp, nothing beyond their warp), and the
//! launch is unordered with the parent's later work (NULL stream under the aggregation's assumption that
//! the NULL-stream launches of a block need no order among themselves, fire-and-forget, or a stream created
//! for this launch alone; a tail launch waits for the whole parent grid, and any other created stream
//! orders it after other work: both are launched).

use super::{aggregate, last_error, Granularity, Options, Spawn};
use crate::callgraph::CallGraph;
use crate::child::in_thread::{grid_run_arguments, reduces, runs_in_thread, unordered_stream};
use crate::child::{runs_child_grid, warp_lanes, ChildVariants};
use crate::llvm::{count, BasicValueEnum, Builder, BuilderExt, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, IntValue, Module, ModuleExt, Statistic, ValueExt};
use crate::remarks::Remark;
use crate::runtime::{IndexRegister, RuntimeFn, SMALL_GRID_THREADS};
use crate::site::abi::{makes_or_frees_runtime_object, Stream, SINGLE_LAUNCH_STREAM};
use crate::site::ops::{
    builder_before, config_accepted, constant_config, dim3_fields, fallback_site, guarded_replace, replace,
    retire_single_launch_stream, single_launch_stream_calls, ArgValues, CanonicalEntries, ConfigVerdict,
};
use crate::site::{LaunchModel, LaunchSite, WriteKind, SERIAL_FALLBACK};
use std::collections::{HashMap, HashSet};

/// Where the launching grid is small, its threads serialize children of up to this many threads over the
/// grid's threads (but no more than `serialize_small_grid_threshold`): grids of 4,096 threads (gc's, mstf's
/// and mstv's) keep 1,024, the nested benchmark's 10,000 take 419, 16,384 take 256. There, with 1,024, half
/// of the children (1,000 items a parent on average) ran in one thread each, 1.5x slower than grid
/// granularity; bounded so, 1.65x to 2.2x faster than before and than grid (H200, BENCHMARKS.md,
/// twenty-first session).
const SMALL_GRID_SERIAL_WORK: u64 = 4096 * 1024;

pub fn run<'c>(module: &Module<'c>, model: &LaunchModel<'c>, ctx: Ctx, options: &Options) -> bool {
    if !model.nvptx || !options.serialize {
        return false;
    }
    let mut variants = ChildVariants::new(module, None);
    let entries = CanonicalEntries::get(module);
    let mut changed = false;
    // Per kernel with a serialized launch, the launches serialization left for larger children (where it
    // checks at run time): its cudaGetLastError may fold.
    let mut folds: Vec<(FunctionValue<'c>, Vec<InstructionValue<'c>>)> = Vec::new();
    // Launches aggregation will leave as written: serialization keeps away from the kernels making them.
    let refused = aggregate::refused_launches(module, model, options);
    let graph = CallGraph::build(module);
    let calls_kept = kernels_keeping_runtime_calls(model, options, &variants, ctx, &refused, &graph);
    let unrunnable = kernels_launching_unrunnable_children(model, options, &variants, &refused, &graph);
    for site in &model.sites {
        let runner = match kept(site, options, &variants) {
            Ok(runner) => runner,
            Err((remark, why)) => {
                remark.emit(ctx, site.launch, &why);
                continue;
            }
        };
        if let Some(kernel) = calls_kept.get(&site.caller) {
            Remark::SerialBesideRuntimeCalls.emit(
                ctx,
                site.launch,
                &format!(
                    "@{} creates or destroys streams or events in the device runtime, or makes launches, that stay as \
                     written: a warp whose lanes were inside those calls while their warp-mates ran a serialized child \
                     stopped for good on an H200 (fuzz case 3301-0){}",
                    kernel.name(),
                    match options.granularity {
                        Granularity::None => "; with no aggregation, every launch not serialized with no check at run time stays so, a serialized one's launch for larger children too",
                        _ => "",
                    }
                ),
            );
            continue;
        }
        // A child whose threads wait for an atomic's result costs more serialized than launched by the
        // measurements behind that rule, but not on every input: SPAWN's controller may still take it once it
        // has timed it (bfs:rmat's many one-neighbour children ran 1.4x faster serialized at threshold 32, bfs and
        // sssp slower). Not a child with a loop: the serial variant in the parent alone (64 registers where sp's
        // parent had 48) made sp 1.25x slower, whatever was decided (BENCHMARKS.md, twenty-second session).
        let costly = match (worth_a_thread(site, &variants, ctx), options.spawn, &runner) {
            (None, ..) => None,
            (Some(cost), Some(_), &Runner::Thread) if cost.0 == Remark::SerialChildAtomics => Some(cost),
            (Some((remark, why)), ..) => {
                remark.emit(ctx, site.launch, &why);
                continue;
            }
        };
        if let (Runner::Thread | Runner::Reduced, Some((kernel, launch, why))) = (&runner, unrunnable.get(&site.caller)) {
            Remark::SerialBesideRuntimeCalls.emit(
                ctx,
                site.launch,
                &format!(
                    "@{} launches @{}, whose threads no thread can run ({why}): where no record can be had (the record pool is \
                     short), that launch is made as written, and a lane in the device runtime beside warp-mates running a child \
                     in their lanes hung on an H200 (test/gpu/warp_reduce.cu, thirty-fourth session)",
                    kernel.name(),
                    launch.name()
                ),
            );
            continue;
        }
        let serialized = match runner {
            Runner::Warp(not_folded) => by_warp(module, &entries, &mut variants, site, options, not_folded, ctx),
            Runner::Thread => in_thread(module, &entries, &mut variants, site, options, costly.map(|c| c.1), ctx),
            Runner::Reduced => reduced(module, &entries, &mut variants, site, options, ctx),
        };
        // The launch made where the check at run time fails, if any.
        let Some(fallback) = serialized else { continue };
        if site.caller_is_kernel {
            let at = folds.iter().position(|(k, _)| *k == site.caller).unwrap_or_else(|| {
                folds.push((site.caller, Vec::new()));
                folds.len() - 1
            });
            folds[at].1.extend(fallback);
        }
        changed = true;
    }
    entries.retire_replaced(module);
    if !folds.is_empty() {
        let reaching_runtime = CallGraph::build(module).functions_reaching(last_error::enters_runtime);
        for (kernel, fallbacks) in folds {
            last_error::fold(module, ctx, &reaching_runtime, kernel, &fallbacks);
        }
    }
    changed
}

/// For each function with launches, a kernel running it whose code, or a function it calls, creates or
/// destroys a stream or an event in the device runtime, other than the stream of a launch that carries it
/// alone (which that launch's transformation drops: KLAP209), or makes a launch klap leaves as written. Those
/// calls stay as they are, and a warp whose lanes are in them while their warp-mates run a serialized child
/// hung on an H200 (BENCHMARKS.md, thirty-second session: the same case passed with serialization off;
/// thirty-third session: events and a launch into `cudaStreamPerThread` the same, device `cudaMalloc`/`cudaFree`
/// not; thirty-fourth session: a launch aggregation refuses the same). `refused`: the launches aggregation
/// will leave as written.
fn kernels_keeping_runtime_calls<'c>(
    model: &LaunchModel<'c>,
    options: &Options,
    variants: &ChildVariants<'_, 'c>,
    ctx: Ctx,
    refused: &HashSet<InstructionValue<'c>>,
    graph: &CallGraph<'c>,
) -> HashMap<FunctionValue<'c>, FunctionValue<'c>> {
    let dropped: HashSet<InstructionValue<'c>> = model.sites.iter().flat_map(single_launch_stream_calls).map(|(call, _)| call).collect();
    // Launches no klap step takes: those aggregation will refuse (into the per-thread stream or a stream other
    // than a single launch's, KLAP201; KLAP203, KLAP211, ...: a launch of a child reading %tid in inline
    // assembly hung the same way, thirty-fourth session), and those the analysis cannot read. Where aggregation
    // does not run, every launch but those serialized with no check at run time: the launches serialization
    // itself leaves for larger children, made as written, hung beside the children it ran (test/gpu's
    // devfn_launch, warp_reduce, runtime_calls_beside_serialized at granularity none, same session).
    let mut as_written: HashSet<InstructionValue<'c>> = match options.granularity {
        Granularity::None => model.sites.iter().filter(|s| !always_serialized(s, options, variants, ctx)).map(|s| s.launch).collect(),
        _ => refused.clone(),
    };
    as_written.extend(model.unrecognized.iter().map(|u| u.launch));
    graph.kernel_with(&model.kernels, model.sites.iter().map(|s| s.caller), |i| {
        let object_call = i.get_opcode() == InstructionOpcode::Call
            && i.called_function().is_some_and(|f| makes_or_frees_runtime_object(&f.name()))
            && !dropped.contains(&i);
        object_call || as_written.contains(&i)
    })
}

/// For each function with launches, a kernel running it that (in its code or a function it calls) makes a launch
/// aggregation registers whose child the launching thread cannot run ([`runs_in_thread`]), with that child and why.
/// Where no record can be had, aggregation runs the child of a launch in a kernel whose lanes run children on
/// their own in the launching thread instead of making the launch as written (KLAP215); this launch it would make
/// as written. Not those aggregation refuses (`refused`: [`kernels_keeping_runtime_calls`] has them).
fn kernels_launching_unrunnable_children<'c>(
    model: &LaunchModel<'c>,
    options: &Options,
    variants: &ChildVariants<'_, 'c>,
    refused: &HashSet<InstructionValue<'c>>,
    graph: &CallGraph<'c>,
) -> HashMap<FunctionValue<'c>, (FunctionValue<'c>, FunctionValue<'c>, String)> {
    if options.granularity == Granularity::None {
        return HashMap::new();
    }
    let unrunnable: HashMap<InstructionValue<'c>, (FunctionValue<'c>, String)> = model
        .sites
        .iter()
        .filter(|s| !refused.contains(&s.launch))
        .filter_map(|s| runs_in_thread(variants, s, options.merge_null_stream).err().map(|why| (s.launch, (s.child, why))))
        .collect();
    if unrunnable.is_empty() {
        return HashMap::new();
    }
    let is_unrunnable = |i: InstructionValue<'c>| unrunnable.contains_key(&i);
    graph
        .kernel_with(&model.kernels, model.sites.iter().map(|s| s.caller), is_unrunnable)
        .into_iter()
        .map(|(caller, kernel)| {
            let launch = graph.find_reached(kernel, is_unrunnable).expect("the kernel reaches such a launch");
            let (child, why) = &unrunnable[&launch];
            (caller, (kernel, *child, why.clone()))
        })
        .collect()
}

/// What the warp run does with the child's shuffle trees, for a remark (ChildVariants::warp_thread).
fn trees_note(tree_sums: usize) -> String {
    match tree_sums {
        0 => String::new(),
        1 => "; the sum over the warp lane 0 takes from the child's shuffle tree is added up by whole-warp reductions (redux.sync) instead".to_string(),
        n => format!("; the {n} sums over the warp lane 0 takes from the child's shuffle trees are added up by whole-warp reductions (redux.sync) instead"),
    }
}

/// Runs the children of the launch at `site` by the launching warp (KLAP308), or keeps the launch where the
/// child is a constant size above the threshold (None). Some(the launch left for what the warp does not run).
fn by_warp<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    variants: &mut ChildVariants<'_, 'c>,
    site: &LaunchSite<'c>,
    options: &Options,
    not_folded: Option<String>,
    ctx: Ctx,
) -> Option<Option<InstructionValue<'c>>> {
    let constant = constant_threads(site);
    let threshold = options.warp_run_threshold;
    if let Some(n) = constant.filter(|&n| n > threshold) {
        Remark::SerialTooLarge.emit(ctx, site.launch, &format!("the child grid has {n} threads, more than the warp-run threshold {threshold}"));
        return None;
    }
    let run = variants.warp_run(site.child).expect("kept checked that the parameters shuffle");
    let size = match constant {
        Some(n) => format!("its {n} threads"),
        None => format!("children of at most {threshold} threads (checked at run time)"),
    };
    // Why one thread does not run the child warps with their reductions folded (KLAP321).
    let not_folded = not_folded.map_or(String::new(), |why| format!("; not run by the launching thread with its warp reductions folded: {why}"));
    let not_folded = format!("{not_folded}{}", trees_note(variants.reduction_facts(site.child).1));
    Remark::WarpRun.emit(
        ctx,
        site.launch,
        &format!(
            "launch of @{} run by the launching warp: where all 32 lanes reach it together and the launching grid has at least \
             {} threads (checked at run time: a grid that large keeps the GPU busy by itself), the warp \
             runs the children of those lanes, {size}, one after another, a child warp at a time, each lane playing the \
             child's lane of its own number (the child's threads talk within their warp, not beyond it); a larger child, a \
             launch that not all 32 lanes reach together, and a launch from a smaller grid are launched{not_folded}",
            site.child.name(),
            options.warp_run_grid_threads
        ),
    );
    count(Statistic::SerializedLaunch, 1);
    Some(Some(run_by_warp(module, entries, run, site, threshold, options.warp_run_grid_threads)))
}

/// Serializes the launch at `site` into the launching thread (KLAP300), or keeps it where the child is a
/// constant size above the thresholds (None). Some(the launch left for larger children, where the size is
/// checked at run time).
fn in_thread<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    variants: &mut ChildVariants<'_, 'c>,
    site: &LaunchSite<'c>,
    options: &Options,
    costly: Option<String>,
    ctx: Ctx,
) -> Option<Option<InstructionValue<'c>>> {
    let thresholds = Thresholds::of(options);
    let constant = constant_threads(site);
    let bound = guard_value(site, variants);
    // Also under SPAWN's controller: asking it at every launch of bt's constant 2-thread children made bt 1.4x
    // slower on an H200 (its loads on the launching thread's way; BENCHMARKS.md, twenty-second session).
    // A constant configuration the device runtime accepts (kept() launched the others): no check at run time.
    let always = costly.is_none() && constant_within(site, &thresholds);
    let rule = Rule { thresholds, always, bound, spawn: options.spawn.map(|s| (s, costly.is_none())) };
    let most = rule.most();
    if let (false, None, Some(n)) = (always, bound, constant) {
        if n > most {
            let threshold = match options.spawn {
                Some(spawn) => format!("{} (SPAWN's controller's most)", spawn.max_threads),
                None => thresholds.describe(),
            };
            Remark::SerialTooLarge.emit(ctx, site.launch, &format!("the child grid has {n} threads, more than the threshold {threshold}"));
            return None;
        }
    }
    let working = if bound.is_some() { "its working threads (those below its guard's bound)" } else { "its threads" };
    let until_timed = match &costly {
        Some(why) => format!("launched ({why})"),
        None => format!("at most {}", thresholds.describe()),
    };
    let how = match (constant, options.spawn) {
        (Some(n), _) if always => format!("its {n} threads always"),
        (_, Some(spawn)) => format!(
            "{working} where SPAWN's controller estimates that sooner than a launch (decided at run time, at most {} threads or what the thresholds take; \
             until a child block has been timed, {until_timed})",
            spawn.max_threads
        ),
        (_, None) => format!("{working} when there are at most {} (checked at run time; larger ones are launched)", thresholds.describe()),
    };
    let stream = if site.stream == Stream::SingleLaunch { format!("; {SINGLE_LAUNCH_STREAM}") } else { String::new() };
    // With `serialize-warp`, the lanes of a warp that reach the launch together run their children
    // together; the counts are below 2^bits (at most the threshold, or the controller's most).
    let bits = 64 - most.leading_zeros();
    let warp_serial = match options.serialize_warp {
        true => variants.warp_serial(site.child, bits),
        false => None,
    };
    let warp = warp_serial.is_some();
    let together = match (options.serialize_warp, warp) {
        (true, true) => "; the lanes of the launching warp run their children's threads together, shared out evenly",
        (true, false) => "; each thread alone (a parameter is by value or an aggregate: it cannot be shuffled between lanes)",
        _ => "",
    };
    let remark = if options.spawn.is_some() && !always { Remark::SpawnControlled } else { Remark::Serialized };
    remark.emit(ctx, site.launch, &format!("launch of @{} serialized: the launching thread runs {how}{stream}{together}", site.child.name()));
    count(Statistic::SerializedLaunch, 1);
    let serial = match (warp_serial, bound) {
        (Some(f), _) => f,
        (None, Some(_)) => variants.serial_in_bound(site.child),
        (None, None) => variants.serial(site.child),
    };
    Some(serialize(module, entries, serial, site, rule, None))
}

/// Whether the launch at `site` has a constant configuration the device runtime accepts, of at most the threshold's
/// threads anywhere: serialized by its thread, it needs no check at run time and leaves no launch.
fn constant_within(site: &LaunchSite, thresholds: &Thresholds) -> bool {
    constant_config(site, true) == ConfigVerdict::Accepted && constant_threads(site).is_some_and(|n| n <= thresholds.anywhere)
}

/// Whether serialization will run the launch at `site` in its thread with no launch left of it ([`in_thread`]
/// with no check at run time). Where aggregation does not run, every other launch stays as written.
fn always_serialized<'c>(site: &LaunchSite<'c>, options: &Options, variants: &ChildVariants<'_, 'c>, ctx: Ctx) -> bool {
    matches!(kept(site, options, variants), Ok(Runner::Thread))
        && worth_a_thread(site, variants, ctx).is_none()
        && constant_within(site, &Thresholds::of(options))
}

/// Who runs a serialized child's threads.
enum Runner {
    /// The launching thread, one thread after another (or, with `serialize-warp`, its warp's lanes
    /// sharing them out).
    Thread,
    /// The launching warp, a child warp at a time (the child's threads talk within their warp); and why one
    /// thread does not run them with their reductions folded, where that was asked.
    Warp(Option<String>),
    /// The launching thread, a child warp at a time, folding the warp's reductions lane by lane
    /// (reduction.rs); larger children run by the launching warp.
    Reduced,
}

/// Who runs the child where the launch is serialized, or why it is launched.
fn kept<'c>(site: &LaunchSite<'c>, options: &Options, variants: &ChildVariants<'_, 'c>) -> Result<Runner, (Remark, String)> {
    if site.child.is_declaration() {
        return Err((Remark::SerialChildNotDefined, format!("@{} is defined in another translation unit", site.child.name())));
    }
    if let ConfigVerdict::Refused(why) = constant_config(site, true) {
        return Err((Remark::SerialConfigRefused, format!("the device runtime refuses this launch ({why}): it is made as written, to fail as written")));
    }
    if let Err(why) = unordered_stream(site.stream, options.merge_null_stream) {
        return Err((Remark::SerialStreamKept, format!("{why}: it is launched")));
    }
    let runner = match variants.runs_alone(site.child) {
        Ok(()) => Runner::Thread,
        Err(why) => {
            let folded = (options.reduce_threshold > 0).then(|| reduces(site, variants));
            if let Some(Ok(())) = folded {
                return Ok(Runner::Reduced);
            }
            let by_warp = match variants.runs_by_warp(site.child) {
                Err(beyond) => Err(beyond),
                Ok(()) if options.warp_run_threshold == 0 => Err("warp runs are off (-klap-warp-run-threshold=0)".to_string()),
                Ok(()) if !ChildVariants::warp_runnable_params(site.child) => {
                    Err("a parameter is an aggregate or a vector, which cannot be shuffled between lanes".to_string())
                }
                Ok(()) => Ok(()),
            };
            match by_warp {
                Ok(()) => Runner::Warp(folded.and_then(Result::err)),
                Err(beyond) if beyond == why => {
                    return Err((Remark::SerialChildCollective, format!("the threads of @{} cannot run one by one, nor a warp at a time: {why}", site.child.name())))
                }
                Err(beyond) => {
                    return Err((
                        Remark::SerialChildCollective,
                        format!("the threads of @{} cannot run one by one: {why}; nor a warp at a time: {beyond}", site.child.name()),
                    ))
                }
            }
        }
    };
    Ok(runner)
}

/// Serializes the launch at `site` into the launching thread with the child's warp reductions folded
/// (KLAP321), a larger child run by the launching warp where it can be (KLAP308's conditions), or keeps the
/// launch where the child is a constant size above both. Some(the launch left for the rest).
fn reduced<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    variants: &mut ChildVariants<'_, 'c>,
    site: &LaunchSite<'c>,
    options: &Options,
    ctx: Ctx,
) -> Option<Option<InstructionValue<'c>>> {
    let thresholds = Thresholds { anywhere: options.reduce_threshold, small_grid: (options.serialize_small_grid_threshold > 0).then_some(options.serialize_small_grid_threshold) };
    let constant = constant_threads(site);
    let warp_ok = options.warp_run_threshold > 0 && variants.runs_by_warp(site.child).is_ok() && ChildVariants::warp_runnable_params(site.child);
    let warp_most = if warp_ok { options.warp_run_threshold } else { 0 };
    if let Some(n) = constant.filter(|&n| n > thresholds.most() && n > warp_most) {
        Remark::SerialTooLarge.emit(
            ctx,
            site.launch,
            &format!("the child grid has {n} threads, more than the reduction threshold {} and the warp-run threshold {warp_most}", thresholds.describe()),
        );
        return None;
    }
    let accepted = constant_config(site, true) == ConfigVerdict::Accepted;
    let always = accepted && constant.is_some_and(|n| n <= options.serialize_threshold);
    // A larger child is run by the launching warp as written, where the whole warp is here. Measured on an H200
    // (BENCHMARKS.md, thirtieth session): join:gauss's children of 1,800 to 3,840 threads serialized too, 1.4x
    // slower; their warps shared out over the launching warp's lanes, each run by one lane with its reductions
    // folded, 1.2x slower (and join:uniform 1.1x slower for that path's presence alone).
    let warp = if warp_ok && !always { variants.warp_run(site.child) } else { None };
    let (bound, tree_sums) = variants.reduction_facts(site.child);
    let serial = variants.reduced_serial(site.child);
    let larger = match warp {
        Some(_) => format!(
            "; a larger child of at most {} threads is run by the launching warp where all 32 lanes reach the launch together in a grid of at least {} threads (KLAP308{})",
            options.warp_run_threshold,
            options.warp_run_grid_threads,
            trees_note(tree_sums)
        ),
        None => String::new(),
    };
    let how = match constant {
        Some(n) if always => format!("its {n} threads always"),
        _ => format!("children of at most {} threads (checked at run time){larger}; any other is launched", thresholds.describe()),
    };
    let stop = match bound {
        Some(b) => format!(
            "; a warp's lanes stop at parameter {} of the child, compared {}: a thread whose blockIdx.x * blockDim.x + threadIdx.x is at or past it \
             changes no reduction (where the child's blocks are one-dimensional)",
            b.param,
            if b.signed { "signed" } else { "unsigned" }
        ),
        None => String::new(),
    };
    Remark::SerializedReduced.emit(
        ctx,
        site.launch,
        &format!(
            "launch of @{} serialized with its warp reductions folded: the launching thread runs each child warp's threads one after \
             another, adding each lane's reduced values up as it goes, then lane 0's code after the reductions once with the sums \
             (the child's threads talk within their warp only to reduce, and write only in lane 0 after that); {how}{stop}",
            site.child.name()
        ),
    );
    count(Statistic::SerializedLaunch, 1);
    let rule = Rule { thresholds, always, bound: None, spawn: None };
    let warp_first = warp.map(|run| WarpFirst { run, threshold: options.warp_run_threshold, grid_threads: options.warp_run_grid_threads });
    Some(serialize(module, entries, serial, site, rule, warp_first))
}

/// Why the child's threads are worth a launch rather than a run one after another in the launching thread
/// (measured: each has a loop of its own, or waits for an atomic's result), if they are.
fn worth_a_thread<'c>(site: &LaunchSite<'c>, variants: &ChildVariants<'_, 'c>, ctx: Ctx) -> Option<(Remark, String)> {
    // Where the child or a function it calls has an instruction `has` accepts: " (in @f, which it calls)" or "".
    let found = |has: &dyn Fn(InstructionValue<'c>) -> bool| {
        let f = variants.reachable(site.child).into_iter().find(|f| !f.is_declaration() && f.instructions().into_iter().any(has))?;
        Some(if f == site.child { String::new() } else { format!(" (in @{}, which it calls)", f.name()) })
    };
    // A child thread with a loop of its own is work worth a thread: one after another in the launching
    // thread such children cost more than their launch (measured on an H100: sp, whose child loops over a
    // clause's literals, 1.82 ms serialized at threshold 32 against 0.70 aggregated per grid).
    if let Some(within) = found(&|i| ctx.loop_depth(i) > 0) {
        return Some((Remark::SerialChildLoops, format!("each thread of @{} runs a loop{within}: it is worth a thread of its own", site.child.name())));
    }
    // A child thread that runs a serialized launch of its own runs that child's threads one after another: a
    // loop the analysis before the transformation did not see, whose work the threshold, counting this child's
    // threads alone, would not count (32 threads each running 32 were 1,024 in the launching thread).
    if let Some(within) = found(&|i| i.called_function().is_some_and(runs_child_grid)) {
        return Some((
            Remark::SerialChildLoops,
            format!("each thread of @{} runs the threads of a serialized launch of its own{within}: it is worth a thread of its own", site.child.name()),
        ));
    }
    // A child thread that waits for the result of an atomic (a round trip to memory it cannot go on
    // without): one after another in the launching thread those waits add up, launched they overlap
    // (measured on an H100: sssp, whose child's atomicMin decides whether the vertex is pushed, 1.68 ms
    // serialized at threshold 32 against 1.17 ms aggregated per grid; bfs's atomicCAS 0.52 against 0.45).
    if let Some(within) = found(&|i| matches!(i.get_opcode(), InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg) && i.result().has_users()) {
        return Some((
            Remark::SerialChildAtomics,
            format!("each thread of @{} waits for the result of an atomic{within}: one after another in the launching thread those waits add up, launched they overlap", site.child.name()),
        ));
    }
    None
}

/// The serialization thresholds: anywhere, and where the launching grid is small.
#[derive(Clone, Copy)]
struct Thresholds {
    anywhere: u64,
    /// Only where larger than `anywhere`.
    small_grid: Option<u64>,
}

impl Thresholds {
    fn of(options: &Options) -> Self {
        let small = options.serialize_small_grid_threshold;
        Thresholds { anywhere: options.serialize_threshold, small_grid: (small > options.serialize_threshold).then_some(small) }
    }

    fn most(self) -> u64 {
        self.small_grid.map_or(self.anywhere, |small| small.max(self.anywhere))
    }

    fn describe(self) -> String {
        match self.small_grid {
            Some(small) => format!(
                "{} ({small} where the launching grid has at most {SMALL_GRID_THREADS} threads and its threads times the child's are at most {SMALL_GRID_SERIAL_WORK})",
                self.anywhere
            ),
            None => format!("{}", self.anywhere),
        }
    }
}

/// The child's total thread count when the launch's configuration is constant.
fn constant_threads(site: &LaunchSite) -> Option<u64> {
    Some(site.grid.constant_product()?.saturating_mul(site.block.constant_product()?))
}

/// The value of the child's guard bound at this launch (see `ChildVariants::guard_bound`), and whether it
/// compares signed, when the child grid is one-dimensional and the launch writes the bound whole.
fn guard_value<'c>(site: &LaunchSite<'c>, variants: &ChildVariants<'_, 'c>) -> Option<(BasicValueEnum<'c>, bool)> {
    let (index, signed) = variants.guard_bound(site.child)?;
    let one = |f: &Option<BasicValueEnum>| f.and_then(|v| v.const_int()) == Some(1);
    if !(site.grid.fields[1..].iter().all(one) && site.block.fields[1..].iter().all(one)) {
        return None;
    }
    let p = &site.params[index as usize];
    site.writes.iter().find_map(|w| match w.kind {
        WriteKind::Store { value } if w.offset == p.offset && w.size == p.size && value.get_type().is_int_type() => Some((value, signed)),
        _ => None,
    })
}

/// When a serialized launch runs in the launching thread.
struct Rule<'c> {
    thresholds: Thresholds,
    /// The child's size is a constant within the threshold: no check.
    always: bool,
    /// The child's guard bound at the launch, and whether it compares signed (`guard_value`).
    bound: Option<(BasicValueEnum<'c>, bool)>,
    /// SPAWN's controller decides, and whether the thresholds' answer holds until it has timed a block.
    spawn: Option<(Spawn, bool)>,
}

impl Rule<'_> {
    /// The most working threads a serialized run may have: the thresholds' or the controller's.
    fn most(&self) -> u64 {
        self.spawn.map_or(0, |(s, _)| s.max_threads).max(self.thresholds.most())
    }
}

/// A run by the whole warp of the children serialization does not take, tried first (`run_by_warp`'s conditions).
struct WarpFirst<'c> {
    run: FunctionValue<'c>,
    threshold: u64,
    grid_threads: u64,
}

/// Replaces the launch of `site` by a call of `serial` (the child's serial, warp-serial or reduced-serial
/// variant); with `warp_first`, the children the rule does not serialize are run by the launching warp where
/// they can be, before.
fn serialize<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    serial: FunctionValue<'c>,
    site: &LaunchSite<'c>,
    rule: Rule<'c>,
    warp_first: Option<WarpFirst<'c>>,
) -> Option<InstructionValue<'c>> {
    let most = rule.most();
    let Rule { thresholds, always, bound, spawn } = rule;
    let i64t = module.get_context().i64_type();
    let args = ArgValues::capture(module, site);
    let b = builder_before(module, site.launch);
    let dims: Vec<BasicValueEnum<'c>> = [&site.grid, &site.block].into_iter().flat_map(|d| dim3_fields(module, &b, d)).collect();
    let select = |take_a: IntValue<'c>, a: IntValue<'c>, other: IntValue<'c>| b.build_select(take_a, a, other, "").unwrap().into_int_value();
    // The threads that do any work: those below the guard's bound (a negative signed bound: none).
    let limit = match bound {
        Some((n, signed)) => {
            let n = n.into_int_value();
            if signed {
                let wide = b.build_int_s_extend_or_bit_cast(n, i64t, "").unwrap();
                let negative = b.build_int_compare(IntPredicate::SLT, wide, i64t.const_zero(), "").unwrap();
                select(negative, i64t.const_zero(), wide)
            } else {
                b.build_int_z_extend_or_bit_cast(n, i64t, "").unwrap()
            }
        }
        None => i64t.const_all_ones(),
    };
    let run_serially = |b: &Builder<'c>| {
        b.call(serial, &grid_run_arguments(module, b, site, &args, &dims, limit.into()));
    };
    if always {
        replace(module, site, run_serially);
        retire_single_launch_stream(module, site);
        return None;
    }
    let total = product_capped(module, &b, &dims, most);
    let work = match bound {
        Some(_) => {
            let fewer = b.build_int_compare(IntPredicate::ULT, limit, total, "").unwrap();
            select(fewer, limit, total)
        }
        None => total,
    };
    let at_most = |limit: u64| b.build_int_compare(IntPredicate::ULE, work, i64t.const_int(limit, false), "").unwrap();
    let small = match thresholds.small_grid {
        Some(small) => {
            let launching = launching_grid(module, &b);
            let launching = product_capped(module, &b, &launching, SMALL_GRID_THREADS);
            let few = b.build_int_compare(IntPredicate::ULE, launching, i64t.const_int(SMALL_GRID_THREADS, false), "").unwrap();
            // The serial work the small grid's threads take on together stays within SMALL_GRID_SERIAL_WORK
            // (both factors are capped: the product cannot wrap).
            let together = b.build_int_mul(work, launching, "").unwrap();
            let within = b.build_int_compare(IntPredicate::ULE, together, i64t.const_int(SMALL_GRID_SERIAL_WORK, false), "").unwrap();
            let in_small_grid = b.build_and(at_most(small), within, "").unwrap();
            b.build_select(few, in_small_grid, at_most(thresholds.anywhere), "").unwrap().into_int_value()
        }
        None => at_most(thresholds.anywhere),
    };
    // A launch the device runtime would refuse is made, to fail as written.
    let accepted = config_accepted(module, &b, &int_dims(&dims, 0), &int_dims(&dims, 3), Some(site.smem.into_int_value()));
    let (chosen, timed) = match spawn {
        Some((spawn, thresholds_hold)) => {
            // A child the thresholds would not take: launched until timed.
            let until_timed = if thresholds_hold { small } else { module.get_context().bool_type().const_zero() };
            (spawn_decision(module, &b, spawn, &dims, work, until_timed), Some(work))
        }
        None => (small, None),
    };
    let serial_here = b.and_known(chosen, accepted, "serial");
    // The lanes whose children are not serialized, run by the whole warp where it reaches the launch together.
    let (taken, by_warp) = match warp_first {
        Some(WarpFirst { run, threshold, grid_threads }) => {
            let not_serial = b.build_not(serial_here, "").unwrap();
            let ran = warp_runs(module, site, &args, &b, &dims, run, threshold, grid_threads, |_| accepted, Some(not_serial));
            (b.build_or(serial_here, ran, "").unwrap(), true)
        }
        None => (serial_here, false),
    };
    let fallback = guarded_replace(module, entries, &fallback_site(module, site), &args, &b, taken, |b, then_end| match timed {
        Some(threads) => {
            let started = b.call_value(spawn_entry(module, RuntimeFn::SpawnRunStart), &[]);
            run_serially(b);
            b.call(spawn_entry(module, RuntimeFn::SpawnRunEnd), &[started, threads.into()]);
        }
        None if by_warp => {
            let serial_end = then_end.split_if_then(serial_here);
            b.position_before(&serial_end);
            run_serially(b);
        }
        None => run_serially(b),
    });
    fallback.mark(SERIAL_FALLBACK);
    retire_single_launch_stream(module, site);
    Some(fallback)
}

/// SPAWN's decision at the builder (runtime/spawn.cu): whether the launching thread runs the child's `work`
/// threads itself. `thresholds`: the thresholds' answer, which holds until the controller has timed a child
/// block. Beyond `max_threads` working threads and what the thresholds take, launched.
fn spawn_decision<'c>(module: &Module<'c>, b: &Builder<'c>, spawn: Spawn, dims: &[BasicValueEnum<'c>], work: IntValue<'c>, thresholds: IntValue<'c>) -> IntValue<'c> {
    let cx = module.get_context();
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let blocks = product_capped(module, b, &dims[..3], u32::MAX as u64);
    // A block of more than 1,024 threads fails to launch: capped so, the product still says so.
    let block_threads = product_capped(module, b, &dims[3..], 1024);
    let block_threads = b.build_int_truncate(block_threads, i32t, "").unwrap();
    let launch_cycles = i64t.const_int(spawn.launch_cycles, false);
    let args = [work.into(), blocks.into(), block_threads.into(), thresholds.into(), launch_cycles.into()];
    let chosen = b.call_value(spawn_entry(module, RuntimeFn::SpawnSerial), &args).into_int_value();
    // Up to `max_threads` working threads, or as many as the thresholds take.
    let within = b.build_int_compare(IntPredicate::ULE, work, i64t.const_int(spawn.max_threads, false), "").unwrap();
    let within = b.build_or(within, thresholds, "").unwrap();
    b.build_and(chosen, within, "spawn.serial").unwrap()
}

/// An entry point of SPAWN's controller, declared: aggregation links it with the rest of the runtime, so that
/// the aggregated children that time their blocks and the decisions share one state (plugin.rs links it
/// where aggregation did not).
fn spawn_entry<'c>(module: &Module<'c>, f: RuntimeFn) -> FunctionValue<'c> {
    module.get_or_declare(&f.name(), f.signature(module.get_context()))
}

/// The launching grid's blockDim and gridDim (x, y, z), read at the builder.
fn launching_grid<'c>(module: &Module<'c>, b: &Builder<'c>) -> Vec<BasicValueEnum<'c>> {
    let i32t = module.get_context().i32_type();
    ["ntid", "nctaid"]
        .into_iter()
        .flat_map(|register| ["x", "y", "z"].map(|dimension| IndexRegister { register, dimension }))
        .map(|r| b.call_value(module.get_or_declare(&r.intrinsic(), i32t.fn_type(&[], false)), &[]))
        .collect()
}

/// The product of `dims` (32-bit) at the builder, as 64 bits: the constant dimensions folded into one
/// factor, the others multiplied in at run time. After each product the count is capped just past `most`:
/// it cannot wrap around, whatever the grid.
fn product_capped<'c>(module: &Module<'c>, b: &Builder<'c>, dims: &[BasicValueEnum<'c>], most: u64) -> IntValue<'c> {
    let i64t = module.get_context().i64_type();
    let cap = i64t.const_int(most.saturating_add(1), false);
    let factor = dims.iter().filter_map(|d| d.const_int()).fold(1u64, u64::saturating_mul).min(most.saturating_add(1));
    let mut total = i64t.const_int(factor, false);
    for d in dims.iter().filter(|d| d.const_int().is_none()) {
        let wide = b.build_int_z_extend(d.into_int_value(), i64t, "").unwrap();
        let product = if factor == 1 && total.is_const() { wide } else { b.build_int_mul(total, wide, "").unwrap() };
        let over = b.build_int_compare(IntPredicate::UGT, product, cap, "").unwrap();
        total = b.build_select(over, cap, product, "").unwrap().into_int_value();
    }
    total
}

/// Replaces the launch of `site` by a run of its child by the launching warp (`run`, the child's warp-run
/// variant) where all 32 lanes reach it together in a grid of at least `grid_threads` threads (a grid that
/// large keeps the GPU busy by itself, so a child launched from it adds work, not parallelism; beside a
/// smaller one the launched child runs in parallel: measured on an H200, join with children of about 512
/// threads, BENCHMARKS.md, sixteenth session: at 65,536 parent threads run by the warp 0.59 ms against 0.85
/// launched and aggregated, at 16,384 0.59 against 0.50, at 4,096 0.60 against 0.41); the lanes whose child
/// has more than `threshold` threads, and every lane where that does not hold, launch as written. Returns
/// that launch.
fn run_by_warp<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    run: FunctionValue<'c>,
    site: &LaunchSite<'c>,
    threshold: u64,
    grid_threads: u64,
) -> InstructionValue<'c> {
    let args = ArgValues::capture(module, site);
    let b = builder_before(module, site.launch);
    let dims: Vec<BasicValueEnum<'c>> = [&site.grid, &site.block].into_iter().flat_map(|d| dim3_fields(module, &b, d)).collect();
    // A launch the device runtime would refuse is made, to fail as written.
    let valid = |b: &Builder<'c>| config_accepted(module, b, &int_dims(&dims, 0), &int_dims(&dims, 3), Some(site.smem.into_int_value()));
    let ran = warp_runs(module, site, &args, &b, &dims, run, threshold, grid_threads, valid, None);
    // Not marked SERIAL_FALLBACK: in a small grid no child is run by its warp, every launch is made, and
    // those launches are not the large remainder that per-block scopes suit (aggregate.rs).
    let fallback = guarded_replace(module, entries, &fallback_site(module, site), &args, &b, ran, |_, _| {});
    retire_single_launch_stream(module, site);
    fallback
}

/// Calls `run` (a variant the whole warp runs) where all 32 lanes reach the launch together in a launching grid
/// of at least `grid_threads` threads, each lane's child taken where it has at most `threshold` threads, the
/// runtime would accept its configuration (`accepted`, asked after the count) and `also` holds. Returns where the
/// lane's child ran.
#[allow(clippy::too_many_arguments)]
fn warp_runs<'c>(
    module: &Module<'c>,
    site: &LaunchSite<'c>,
    args: &ArgValues<'c>,
    b: &Builder<'c>,
    dims: &[BasicValueEnum<'c>],
    run: FunctionValue<'c>,
    threshold: u64,
    grid_threads: u64,
    accepted: impl FnOnce(&Builder<'c>) -> IntValue<'c>,
    also: Option<IntValue<'c>>,
) -> IntValue<'c> {
    let i64t = module.get_context().i64_type();
    let threads = product_capped(module, b, dims, threshold);
    let accepted = accepted(b);
    let within = b.build_int_compare(IntPredicate::ULE, threads, i64t.const_int(threshold, false), "").unwrap();
    let mine = b.build_and(within, accepted, "mine").unwrap();
    let mine = match also {
        Some(also) => b.build_and(mine, also, "warp.mine").unwrap(),
        None => mine,
    };
    let whole = whole_warp_in_busy_grid(module, b, grid_threads);
    let call_args = grid_run_arguments(module, b, site, args, dims, mine.into());
    let then_end = site.launch.split_if_then(whole);
    b.position_before(&then_end);
    b.call(run, &call_args);
    b.position_before(&site.launch);
    b.build_and(mine, whole, "").unwrap()
}

/// Whether all 32 lanes of the warp are here together, in a launching grid of at least `grid_threads` threads.
fn whole_warp_in_busy_grid<'c>(module: &Module<'c>, b: &Builder<'c>, grid_threads: u64) -> IntValue<'c> {
    let cx = module.get_context();
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let launching: Vec<BasicValueEnum<'c>> = launching_grid(module, b);
    let launching = product_capped(module, b, &launching, grid_threads);
    let busy = b.build_int_compare(IntPredicate::UGE, launching, i64t.const_int(grid_threads, false), "grid.large").unwrap();
    let mask = warp_lanes(module, b).into_int_value();
    let whole = b.build_int_compare(IntPredicate::EQ, mask, i32t.const_all_ones(), "warp.whole").unwrap();
    b.build_and(whole, busy, "").unwrap()
}

/// Three of a launch's six dimensions (grid x, y, z, then block x, y, z) from `first`, as integers.
fn int_dims<'c>(dims: &[BasicValueEnum<'c>], first: usize) -> [IntValue<'c>; 3] {
    [0, 1, 2].map(|i| dims[first + i].into_int_value())
}
