//! Block reuse (Free Launch's T3, CKi->PBi): a parent block runs, at its end and with all its threads,
//! the child blocks its threads launched, instead of launching them. This is what children whose threads
//! need each other (barriers, shared memory, warp collectives: KLAP301) can have instead of a launch.
//!
//! At a launch, the launching thread writes a record (which child, grid, block, arguments) into a
//! queue of `block_reuse_queue` records in the block's shared memory, where the run-time checks allow it;
//! else, and when the queue is full, the launch is made as written (`guarded_replace`). Every return of
//! the kernel goes to one exit, where every thread of the block waits until all have arrived, then all
//! run the queued child blocks, one child block at a time: the first `c` threads of the block (the child
//! block's size) each play the child thread of the same linear index, through the child's block variant
//! (child/), and all meet at a barrier before the next child block, whose shared memory is the same.
//!
//! Why shared memory for the queue: a block's records live exactly as long as the block, which is what
//! shared memory's lifetime is; no allocation, no freeing, no global atomics, and the records are read
//! by every thread of the block at once. The cost is the parent's shared memory (occupancy).
//!
//! Barriers: the threads wait at the exit with barrier 0 and a reduction (each `__syncthreads` of the
//! parent becomes the same barrier with `false`, the exit's brings `true`, repeated until every thread
//! has arrived). A thread that returned early from the original kernel counted as arrived at the
//! barriers of those still running; waiting at the exit instead, its lane would be at another barrier
//! instruction than the rest of its warp, which the hardware does not follow (docs/block-reuse.md), so
//! a parent whose threads can return before its last barrier keeps its launches (KLAP313). The child
//! block's barriers are barrier 1 among the threads running it (child/), the run loop's barrier 0.
//!
//! Run-time checks (else the launch as written): a child block of as many threads as the parent block
//! (every thread reaches every child barrier), or fewer in whole warps (a counted barrier needs whole
//! warps, and the warps of the child are then the parent's first warps, lane for lane); a valid
//! configuration (so that a launch that would fail still fails); dynamic shared memory no larger than the
//! parent block's (the child's `extern __shared__` arrays name the parent's). Tail, per-thread and created
//! streams keep their order: such launches are not queued.
//!
//! Recursion: the block variant is built from the child as written, so a child block run by its parent
//! keeps its own launches as launches (which aggregation may take). A reused child does not queue
//! again: a parent block never runs more than one generation of its tree, and the tree stays parallel.
//!
//! Sound where running the child blocks at the end of their launching block is one of the schedules the
//! launch allowed: the child sees every write the launching thread made before the launch (and those of
//! its block, ordered by the barrier), the launch is unordered with the parent's other work (NULL stream
//! under the aggregation's assumption that a block's NULL-stream launches need no order among
//! themselves, or fire-and-forget), and no child waits for work of another parent block.

use super::Options;
use crate::callgraph::CallGraph;
use super::grid_reuse;
use crate::child::{barrier_function, kernel_barriers, run_child_grid, sync_warp_lanes, ChildVariants, RecordArgs};
use crate::llvm::{
    count, AddressSpace, AtomicOrdering, AtomicRMWBinOp, BasicValueEnum, Builder, BuilderExt, Ctx, FunctionExt,
    FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, IntValue, Module, ModuleExt,
    PointerValue, Statistic, ValueExt, SHARED_SPACE,
};
use crate::remarks::Remark;
use crate::site::abi::Stream;
use crate::site::ops::{builder_before, config_accepted_within_parent_block, dim3_fields, guarded_replace, shared_variable, ArgValues, CanonicalEntries};
use crate::site::{param_layout, LaunchModel, LaunchSite};
use std::collections::HashMap;

/// Bytes of a record before the child's arguments: the child's index among the kernel's reused children,
/// grid x y z, block x y z, and padding so that the arguments start 16-byte aligned.
const RECORD_HEADER: u64 = 32;
/// The static shared memory a kernel may have without the host opting in to more.
const STATIC_SHARED_LIMIT: u64 = 48 << 10;

pub fn run<'c>(module: &Module<'c>, model: &LaunchModel<'c>, ctx: Ctx, options: &Options) -> bool {
    if !model.nvptx || !(options.block_reuse || options.grid_reuse) {
        return false;
    }
    let calls = CallGraph::build(module);
    let mut variants = ChildVariants::new(module, None);
    let mut parent_fit: HashMap<FunctionValue<'c>, Result<Vec<InstructionValue<'c>>, String>> = HashMap::new();
    let mut parents: Vec<ReuseParent> = Vec::new();
    for site in &model.sites {
        let decided = decide(site, model, ctx, options, &variants, &calls, &mut parent_fit);
        let fact = match decided {
            Err((remark, why)) => {
                if options.block_reuse {
                    remark.emit(ctx, site.launch, &why);
                } else {
                    Remark::GridReuseUnfit.emit(ctx, site.launch, &why);
                }
                continue;
            }
            Ok(fact) => fact,
        };
        let grid = options.grid_reuse && match grid_reuse::unfit(site, model, &calls, options.coarsen, &variants) {
            Some(why) => {
                Remark::GridReuseUnfit.emit(ctx, site.launch, &why);
                false
            }
            None => true,
        };
        if !grid && !options.block_reuse {
            continue;
        }
        let at = match parents.iter().position(|p| p.kernel == site.caller) {
            Some(at) => at,
            None => {
                parents.push(ReuseParent { kernel: site.caller, queued: Vec::new(), grid: Vec::new() });
                parents.len() - 1
            }
        };
        if grid {
            parents[at].grid.push(site);
        } else {
            parents[at].queued.push((site, fact));
        }
    }
    let shared_now = static_shared_bytes(module);
    parents.retain_mut(|ReuseParent { kernel, queued: sites, grid }| {
        let queue = options.block_reuse_queue * record_size(module, sites.iter().map(|(s, _)| s.child));
        let fits = sites.is_empty() || shared_now + queue + 4 <= STATIC_SHARED_LIMIT;
        if !fits {
            for (site, _) in sites.iter() {
                Remark::ReuseSharedMemory.emit(
                    ctx,
                    site.launch,
                    &format!(
                        "a queue of {} records of {} bytes in @{}'s shared memory, beside the module's {shared_now} bytes of \
                         static shared memory, would pass the {STATIC_SHARED_LIMIT} bytes a kernel may have",
                        options.block_reuse_queue,
                        queue / options.block_reuse_queue.max(1),
                        kernel.name()
                    ),
                );
            }
            sites.clear();
        }
        !sites.is_empty() || !grid.is_empty()
    });
    if parents.is_empty() {
        return false;
    }
    // Every block variant from the kernels as written, before any of them changes: a kernel that is a
    // parent and a child (recursion) runs its own blocks as it was written, launches included.
    for p in &parents {
        for site in p.queued.iter().map(|(s, _)| *s).chain(p.grid.iter().copied()) {
            variants.block(site.child);
        }
    }
    let entries = CanonicalEntries::get(module);
    for ReuseParent { kernel, queued: sites, grid } in parents {
        for (site, fact) in &sites {
            Remark::BlockReused.emit(
                ctx,
                site.launch,
                &format!(
                    "launch of @{} run by the launching block at its end: {fact}; queue of {} records in shared memory (the \
                     launch as written when it is full)",
                    site.child.name(),
                    options.block_reuse_queue
                ),
            );
            count(Statistic::BlockReusedLaunch, 1);
        }
        let barriers = parent_fit.remove(&kernel).expect("decided").expect("fit");
        let mut children: Vec<(FunctionValue<'c>, FunctionValue<'c>)> = Vec::new();
        let mut grid_children: Vec<(FunctionValue<'c>, FunctionValue<'c>)> = Vec::new();
        let queued = sites.iter().map(|(s, _)| (*s, false));
        for (site, grid) in queued.chain(grid.iter().map(|s| (*s, true))) {
            let list = if grid { &mut grid_children } else { &mut children };
            if !list.iter().any(|(c, _)| *c == site.child) {
                list.push((site.child, variants.block(site.child)));
            }
        }
        let capacity = if sites.is_empty() { 0 } else { options.block_reuse_queue };
        let parent = Parent::new(module, &entries, kernel, children, capacity);
        for (site, _) in &sites {
            parent.record(site);
        }
        parent.rewrite_barriers(&barriers);
        parent.run_at_exit(&grid_children);
        parent.start_queue();
    }
    entries.retire_replaced(module);
    true
}

/// A parent kernel's launches its blocks queue (with the facts that decided each, for the remark), and
/// those whose child grids its blocks may take from the grid scope (grid reuse: the launch stays, for
/// aggregation to register).
struct ReuseParent<'s, 'c> {
    kernel: FunctionValue<'c>,
    queued: Vec<(&'s LaunchSite<'c>, String)>,
    grid: Vec<&'s LaunchSite<'c>>,
}

/// Whether a launch is queued, with the facts that decided it (for the remark), or why not.
fn decide<'c>(
    site: &LaunchSite<'c>,
    model: &LaunchModel<'c>,
    ctx: Ctx,
    options: &Options,
    variants: &ChildVariants<'_, 'c>,
    calls: &CallGraph<'c>,
    parent_fit: &mut HashMap<FunctionValue<'c>, Result<Vec<InstructionValue<'c>>, String>>,
) -> Result<String, (Remark, String)> {
    let child = site.child;
    if child.is_declaration() {
        return Err((Remark::ReuseChildNotDefined, format!("@{} is defined in another translation unit", child.name())));
    }
    let stream = match site.stream {
        Stream::FireAndForget => "fire-and-forget",
        Stream::Null if options.merge_null_stream => "NULL-stream",
        other => {
            let stream = match other {
                Stream::Tail => "the tail stream (it waits for the whole parent grid)",
                Stream::PerThread => "the per-thread stream",
                Stream::Null => "the NULL stream, with -klap-merge-null-stream=false",
                _ => "a created stream",
            };
            return Err((Remark::ReuseStreamKept, format!("a launch into {stream} is ordered after other work: it is launched")));
        }
    };
    let needs_block = variants.runs_alone(child).err();
    if !site.caller_is_kernel {
        return Err((
            Remark::ReuseParentUnfit,
            format!("the launch is in a device function (@{}): the end of the launching block is not here", site.caller.name()),
        ));
    }
    variants.block_runnable(child).map_err(|why| (Remark::ReuseChildUnfit, format!("a parent block cannot run @{}: {why}", child.name())))?;
    let kernel = site.caller;
    let fit = parent_fit.entry(kernel).or_insert_with(|| {
        if let Some(end) = calls.thread_end_without_return(kernel) {
            return Err(format!(
                "a thread of @{} can end without returning (in @{}), and the block runs its children once every thread returned",
                kernel.name(),
                end.function().name()
            ));
        }
        let barriers = kernel_barriers(calls, kernel).map_err(|why| format!("its threads wait at barriers the run loop cannot follow: {why}"))?;
        // The threads that wait at the end and those at a barrier of the kernel would be lanes of one warp
        // at two barrier instructions: an illegal instruction on an H100 with the barriers inlined, a
        // barrier that let a warp through early with them in one function (test/gpu/block_reuse.cu).
        if let Some(branch) = ctx.exit_before_barrier(&barriers) {
            let at = branch.debug_location().map(|(file, line, _)| format!(" ({file}:{line})")).unwrap_or_default();
            return Err(format!(
                "a thread of @{} can end while others of its block still have a barrier to reach (a branch the threads may \
                 disagree on{at}), and it would wait at the end at another barrier instruction than its warp",
                kernel.name()
            ));
        }
        // A lane in the device runtime's tail launch did not return while the rest of its warp waited at the
        // end (test/gpu/streams.cu hung on an H100).
        if model.sites.iter().any(|s| s.caller == kernel && s.stream == Stream::Tail) {
            return Err(format!(
                "@{} launches into the tail stream: a lane in the device runtime's tail launch never returned while its \
                 warp waited at the block's end",
                kernel.name()
            ));
        }
        Ok(barriers)
    });
    if let Err(why) = fit {
        return Err((Remark::ReuseParentUnfit, why.clone()));
    }

    let mut facts = Vec::new();
    if let Some(why) = needs_block {
        facts.push(format!("its threads need each other ({why})"));
    }
    facts.push(block_size_fact(site));
    let barriers = kernel_barriers(calls, child).map(|b| b.len()).unwrap_or(0);
    facts.push(match barriers {
        0 => "it has no barrier".to_string(),
        n => format!("its {n} barrier(s) kept among the threads that run a child block"),
    });
    if site.smem.const_int().is_none_or(|n| n != 0) {
        facts.push("its dynamic shared memory within the parent block's (checked at run time)".into());
    }
    let recursive = child == kernel || calls.recursive_sets().iter().any(|set| set.contains(&child) && set.contains(&kernel));
    if recursive {
        facts.push(format!(
            "recursion (@{} launches its own kernel again): the child blocks the block runs keep their own launches as launches",
            child.name()
        ));
    }
    facts.push(format!("a {stream} launch"));
    Ok(facts.join("; "))
}

/// What the compiler knows of the child block's size against the parent's.
fn block_size_fact(site: &LaunchSite) -> String {
    let reads_ntid = |v: &Option<BasicValueEnum>, d: &str| {
        v.and_then(|v| v.instruction_of(InstructionOpcode::Call))
            .and_then(|c| c.called_function())
            .is_some_and(|f| f.name() == format!("llvm.nvvm.read.ptx.sreg.ntid.{d}"))
    };
    let one = |v: &Option<BasicValueEnum>| v.and_then(|v| v.const_int()) == Some(1);
    let f = &site.block.fields;
    let check = "checked at run time: the child block must have the parent block's thread count, or fewer in whole warps";
    if reads_ntid(&f[0], "x") && reads_ntid(&f[1], "y") && reads_ntid(&f[2], "z") {
        return "its block is the parent's blockDim: equal".into();
    }
    if reads_ntid(&f[0], "x") && one(&f[1]) && one(&f[2]) {
        return format!("its block is the parent's blockDim.x: equal where the parent's blocks are one-dimensional, {check}");
    }
    match f.iter().map(|v| v.and_then(|v| v.const_int())).collect::<Option<Vec<u64>>>() {
        Some(d) => format!("its block is constant ({}, {}, {}) and the parent's size unknown, {check}", d[0], d[1], d[2]),
        None => format!("its block size is known at run time only, {check}"),
    }
}

/// Bytes of one record of a queue for these children (16-byte aligned).
fn record_size<'c>(module: &Module<'c>, children: impl Iterator<Item = FunctionValue<'c>>) -> u64 {
    let args = children.map(|c| param_layout(module, c).1).max().unwrap_or(0);
    (RECORD_HEADER + args).div_ceil(16) * 16
}

/// The module's static shared memory: every shared variable it defines (the dynamic ones are
/// declarations), whoever uses it, which bounds what any one kernel has.
fn static_shared_bytes(module: &Module) -> u64 {
    module
        .get_globals()
        .filter(|g| !g.is_declaration() && g.as_pointer_value().get_type().get_address_space() == AddressSpace::from(SHARED_SPACE))
        .map(|g| module.alloc_size(g.get_value_type()))
        .sum()
}

/// One parent kernel being given its queue and run loop.
struct Parent<'a, 'c> {
    module: &'a Module<'c>,
    entries: &'a CanonicalEntries<'c>,
    kernel: FunctionValue<'c>,
    /// The children it runs, each with its block variant; a record names its child by its index here.
    children: Vec<(FunctionValue<'c>, FunctionValue<'c>)>,
    /// The queue and its count, where the kernel queues launches (capacity above 0).
    queue: Option<(PointerValue<'c>, PointerValue<'c>)>,
    capacity: u64,
    record_size: u64,
}

impl<'a, 'c> Parent<'a, 'c> {
    fn new(
        module: &'a Module<'c>,
        entries: &'a CanonicalEntries<'c>,
        kernel: FunctionValue<'c>,
        children: Vec<(FunctionValue<'c>, FunctionValue<'c>)>,
        capacity: u64,
    ) -> Self {
        let cx = module.get_context();
        let record_size = record_size(module, children.iter().map(|(c, _)| *c));
        let shared = |undef: BasicValueEnum<'c>, name: &str, align: u32| shared_variable(module, &format!("{}__klap_reuse_{name}", kernel.name()), undef, align);
        let queue = (capacity > 0).then(|| {
            let queue = shared(cx.i8_type().array_type((capacity * record_size) as u32).get_undef().into(), "queue", 16);
            (queue, shared(cx.i32_type().get_undef().into(), "count", 4))
        });
        Parent { module, entries, kernel, children, queue, capacity, record_size }
    }

    fn i32(&self, v: u64) -> IntValue<'c> {
        self.module.get_context().i32_type().const_int(v, false)
    }
    fn i64(&self, v: u64) -> IntValue<'c> {
        self.module.get_context().i64_type().const_int(v, false)
    }

    /// A read of special register `name` (`tid.x`, `dynamic_smem_size`, ...).
    fn sreg(&self, b: &Builder<'c>, name: &str) -> IntValue<'c> {
        let cx = self.module.get_context();
        let f = self.module.get_or_declare(&format!("llvm.nvvm.read.ptx.sreg.{name}"), cx.i32_type().fn_type(&[], false));
        b.call_value(f, &[]).into_int_value()
    }

    /// The block's thread count, as i32 (at most 1024).
    fn block_threads(&self, b: &Builder<'c>) -> IntValue<'c> {
        let [x, y, z] = ["ntid.x", "ntid.y", "ntid.z"].map(|r| self.sreg(b, r));
        let xy = b.build_int_mul(x, y, "").unwrap();
        b.build_int_mul(xy, z, "").unwrap()
    }

    /// The thread's linear index in its block (x fastest).
    fn linear_thread(&self, b: &Builder<'c>) -> IntValue<'c> {
        let [tx, ty, tz] = ["tid.x", "tid.y", "tid.z"].map(|r| self.sreg(b, r));
        let [nx, ny] = ["ntid.x", "ntid.y"].map(|r| self.sreg(b, r));
        let zy = b.build_int_mul(tz, ny, "").unwrap();
        let row = b.build_int_add(zy, ty, "").unwrap();
        let rows = b.build_int_mul(row, nx, "").unwrap();
        b.build_int_add(rows, tx, "").unwrap()
    }

    fn barrier(&self, b: &Builder<'c>) {
        let cx = self.module.get_context();
        let f = self.module.get_or_declare("llvm.nvvm.barrier.cta.sync.all", cx.void_type().fn_type(&[cx.i32_type().into()], false));
        b.call(f, &[self.i32(0).into()]);
    }

    /// Barrier 0 with a reduction: true when every thread of the block brought `done`; the exit and the
    /// parent's barriers call one function (child/'s `barrier_function`).
    fn barrier_and(&self, b: &Builder<'c>, done: bool) -> IntValue<'c> {
        let module = self.module;
        let cx = module.get_context();
        let (i1, i32t) = (cx.bool_type(), cx.i32_type());
        let f = barrier_function(module, "__klap_reuse_barrier", &[i1.into()], |fb, f| {
            let red = module.get_or_declare("llvm.nvvm.barrier.cta.red.and.all", i1.fn_type(&[i32t.into(), i1.into()], false));
            let all = fb.call_value(red, &[i32t.const_zero().into(), f.get_nth_param(0).unwrap()]);
            fb.build_return(Some(&all)).unwrap();
        });
        b.call_value(f, &[i1.const_int(done as u64, false).into()]).into_int_value()
    }

    /// The launch at `site` writes a record where the checks allow it and the queue has room; elsewhere
    /// it is made as written.
    fn record(&self, site: &LaunchSite<'c>) {
        let module = self.module;
        let (queue, count) = self.queue.expect("a kernel that queues launches has a queue");
        let i64t = module.get_context().i64_type();
        let tag = self.children.iter().position(|(c, _)| *c == site.child).unwrap() as u64;
        let args = ArgValues::capture(module, site);
        let b = builder_before(module, site.launch);
        let fields = |d| dim3_fields(module, &b, d).map(|v| v.into_int_value());
        let (grid, block) = (fields(&site.grid), fields(&site.block));
        let wide = |v: IntValue<'c>| b.build_int_z_extend(v, i64t, "").unwrap();
        let cmp = |p, a: IntValue<'c>, c: IntValue<'c>| b.build_int_compare(p, a, c, "").unwrap();
        // A check that is constant true where it is built adds nothing (the later ones LLVM simplifies).
        let and = |a: IntValue<'c>, c: IntValue<'c>| b.and_known(a, c, "");

        let threads = [block[1], block[2]].into_iter().fold(wide(block[0]), |n, d| b.build_int_mul(n, wide(d), "").unwrap());
        let parent = wide(self.block_threads(&b));
        let fewer_warps = {
            let whole_warps = cmp(IntPredicate::EQ, b.build_and(threads, self.i64(31), "").unwrap(), self.i64(0));
            and(cmp(IntPredicate::ULT, threads, parent), whole_warps)
        };
        let fits = b.build_or(cmp(IntPredicate::EQ, threads, parent), fewer_warps, "").unwrap();
        // A launch that would fail is made, and fails.
        let mut ok = and(fits, config_accepted_within_parent_block(module, &b, &grid, &block));
        let smem = site.smem.into_int_value();
        if smem.get_zero_extended_constant() != Some(0) {
            ok = and(ok, cmp(IntPredicate::ULE, smem, self.sreg(&b, "dynamic_smem_size")));
        }
        let claim = b.build_int_z_extend(ok, module.get_context().i32_type(), "").unwrap();
        let slot = b.build_atomicrmw(AtomicRMWBinOp::Add, count, claim, AtomicOrdering::Monotonic).unwrap();
        let take = and(ok, cmp(IntPredicate::ULT, slot, self.i32(self.capacity)));
        guarded_replace(module, self.entries, site, &args, &b, take, |b, _| {
            let at = b.build_int_mul(b.build_int_z_extend(slot, i64t, "").unwrap(), self.i64(self.record_size), "").unwrap();
            let record = b.byte_gep_at(queue.into(), at);
            b.store_aligned(self.i32(tag).into(), record, 16);
            for (k, v) in grid.iter().chain(&block).enumerate() {
                b.store_aligned((*v).into(), b.byte_gep(record, 4 + 4 * k as u64), 4);
            }
            args.store_into(b, b.byte_gep(record, RECORD_HEADER));
        });
    }

    /// Each `__syncthreads` of the kernel becomes barrier 0 with a reduction to which it brings `false`
    /// (the threads waiting at the exit bring `true`).
    fn rewrite_barriers(&self, barriers: &[InstructionValue<'c>]) {
        for &inst in barriers {
            let b = builder_before(self.module, inst);
            self.barrier_and(&b, false);
            inst.erase();
        }
    }

    /// The queue starts empty: one thread empties it, and the block waits for that before any thread
    /// can write a record.
    fn start_queue(&self) {
        let Some((_, count)) = self.queue else { return };
        let mut first = self.kernel.entry_block().get_first_instruction().unwrap();
        while first.get_opcode() == InstructionOpcode::Alloca {
            first = first.get_next_instruction().unwrap();
        }
        let b = builder_before(self.module, first);
        let is_first = b.build_int_compare(IntPredicate::EQ, self.linear_thread(&b), self.i32(0), "").unwrap();
        let then_end = first.split_if_then(is_first);
        b.position_before(&then_end);
        b.store_aligned(self.i32(0).into(), count.into(), 4);
        b.position_before(&first);
        self.barrier(&b);
    }

    /// Every return goes to one exit, where the threads wait for each other, then run the queued child
    /// blocks together; then, for each of `grid_children` (child, block variant), grid reuse's marker,
    /// which aggregation makes the loop that runs child grids of the grid scope (grid_reuse.rs).
    fn run_at_exit(&self, grid_children: &[(FunctionValue<'c>, FunctionValue<'c>)]) {
        let cx = self.module.get_context();
        let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
        let f = self.kernel;
        let returns: Vec<InstructionValue<'c>> = f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Return).collect();
        let converge = cx.append_basic_block(f, "klap.reuse.converge");
        let wait = cx.append_basic_block(f, "klap.reuse.wait");
        let b = cx.create_builder();
        for ret in returns {
            b.position_before(&ret);
            b.build_unconditional_branch(converge).unwrap();
            ret.erase();
        }
        // The lanes of a warp reach the exit together before its barrier: lanes arriving there apart (some
        // still in the aggregation's registration of a launch the queue did not take) let the barrier
        // through early, and the first child block run raced with them (test/gpu/block_reuse.cu's `sync`
        // part beside aggregation). No lane can be held elsewhere at a barrier meanwhile: a thread reaches
        // the exit only once every thread of its block is past the kernel's last barrier (KLAP313).
        b.position_at_end(converge);
        let lane_mask = {
            let me = self.linear_thread(&b);
            let threads = self.block_threads(&b);
            let first = b.build_and(me, self.i32(!31u32 as u64), "").unwrap();
            let left = b.build_int_sub(threads, first, "").unwrap();
            let whole = b.build_int_compare(IntPredicate::UGE, left, self.i32(32), "").unwrap();
            let some = b.build_int_sub(b.build_left_shift(self.i32(1), left, "").unwrap(), self.i32(1), "").unwrap();
            b.build_select(whole, self.i32(u32::MAX as u64), some, "warp.lanes").unwrap().into_int_value()
        };
        sync_warp_lanes(self.module, &b, lane_mask.into());
        b.build_unconditional_branch(wait).unwrap();
        let run = cx.append_basic_block(f, "klap.reuse.run");
        let queue_blocks = self.queue.map(|_| ["records", "record", "next"].map(|name| cx.append_basic_block(f, &format!("klap.reuse.{name}"))));
        let done = cx.append_basic_block(f, "klap.reuse.done");

        b.position_at_end(wait);
        let all_here = self.barrier_and(&b, true);
        b.build_conditional_branch(all_here, run, wait).unwrap();

        b.position_at_end(run);
        let me = self.linear_thread(&b);
        let parent_threads = self.block_threads(&b);
        if let (Some((queue, count)), Some([records, record, next])) = (self.queue, queue_blocks) {
            let queued = b.load_aligned(i32t.into(), count.into(), 4).into_int_value();
            let capacity = self.i32(self.capacity);
            let full = b.build_int_compare(IntPredicate::UGT, queued, capacity, "").unwrap();
            let n = b.build_select(full, capacity, queued, "").unwrap().into_int_value();
            b.build_unconditional_branch(records).unwrap();

            let (r, r_value) = b.count_below(records, n, "record", record, done);

            b.position_at_end(record);
            let at = b.build_int_mul(b.build_int_z_extend(r_value, i64t, "").unwrap(), self.i64(self.record_size), "").unwrap();
            let rec = b.byte_gep_at(queue.into(), at);
            let tag = b.load_aligned(i32t.into(), rec, 16).into_int_value();
            let field = |k: u64| b.load_aligned(i32t.into(), b.byte_gep(rec, 4 + 4 * k), 4).into_int_value();
            let grid = [field(0), field(1), field(2)];
            let block = [field(3), field(4), field(5)];
            let args = RecordArgs { args: b.byte_gep(rec, RECORD_HEADER), uniform_args: None };
            let mut cases = Vec::new();
            for (tag_value, (child, variant)) in self.children.iter().enumerate() {
                let case = cx.append_basic_block(f, "klap.reuse.case");
                cases.push((self.i32(tag_value as u64), case));
                b.position_at_end(case);
                run_child_grid(self.module, &b, *child, *variant, &args, grid, block, None, me, parent_threads, next);
            }
            b.position_at_end(record);
            b.build_switch(tag, next, &cases).unwrap();

            b.position_at_end(next);
            let r_next = b.build_int_add(r_value, self.i32(1), "").unwrap();
            b.build_unconditional_branch(records).unwrap();
            r.add_incoming(&[(&self.i32(0), run), (&r_next, next)]);
        } else {
            b.build_unconditional_branch(done).unwrap();
        }

        b.position_at_end(done);
        for (child, variant) in grid_children {
            grid_reuse::mark(self.module, &b, *child, *variant, me.into(), parent_threads.into());
        }
        b.build_return(None).unwrap();
    }
}
