//! Grid reuse (Free Launch's T2, CK*->PB*): a parent block that is done with its own work runs whole child
//! grids registered in its grid scope, with all its threads, before the scope's aggregated launch; what
//! is left when the grid's last thread exits is launched aggregated, from the first record no block took
//! (runtime/reuse.cu, launch.cu). Where a parent's blocks end at different times, the first to finish
//! take the children of the others, and no child waits for the launch at the grid's end.
//!
//! Two steps build it. Block reuse (block_reuse.rs) gives the parent its one exit, where every thread of
//! the block has arrived, and leaves there a marker per child, [`MARKER`], with the thread's index and
//! the block's threads read as the kernel reads them (in an aggregated parent they become its record's).
//! Aggregation, which knows the kernel's grid scope and the child's group in it, makes each marker the
//! loop that takes records and runs their grids ([`insert_take_loop`]), gives the group's records a ready
//! flag after their arguments (a block takes a record only once its registering thread has written it),
//! and gives the child's aggregated variant an entry that starts past the records parent blocks ran.
//!
//! Sound where block reuse is (docs/block-reuse.md): a child grid runs after its launching thread's
//! writes (its record is released after them), is unordered with the parent's other work (NULL-stream
//! or fire-and-forget), and no block waits for one that may not be resident: a taker waits only for a
//! registering thread that has taken its record and is writing it.

use crate::callgraph::CallGraph;
use crate::child::{run_child_grid, ChildVariants, Coarsening, RecordArgs};
use crate::llvm::{AddressSpace, BasicValueEnum, Builder, BuilderExt, FunctionExt, FunctionValue, InstructionExt, InstructionValue, Module, ModuleExt, ValueExt};
use crate::runtime::{Runtime, RuntimeFn};
use crate::site::{LaunchModel, LaunchSite};

/// `call void @klap.grid.reuse(ptr @K, ptr @K__klap_block, i32 thread, i32 threads)`: where a parent's
/// blocks may run `K`'s grids (its end), the child's block variant, the thread's linear index in its
/// block and the block's threads.
pub const MARKER: &str = "klap.grid.reuse";

/// Why parent blocks may not run the grids of the launch at `site`, beyond block reuse's own checks.
/// A child that aggregation coarsens (`coarsen`, as `variants` can build it) is left to coarsening: an
/// aggregated child whose blocks parents may have taken is not coarsened, and under `auto` bfs's one-warp
/// children ran 1.6x slower taken one block at a time than coarsened (H200, twenty-eighth session).
pub fn unfit<'c>(site: &LaunchSite<'c>, model: &LaunchModel<'c>, calls: &CallGraph<'c>, coarsen: Coarsening, variants: &ChildVariants<'_, 'c>) -> Option<String> {
    let reached = calls.reachable_from(site.child);
    if let Some(s) = model.sites.iter().find(|s| reached.contains(&s.caller)) {
        return Some(format!(
            "@{} launches @{} itself: run by a parent block at its end, that launch would be made as written, outside any scope",
            site.child.name(),
            s.child.name()
        ));
    }
    variants.coarsens(site.child, coarsen.asked_for(&model.sites, site.child)).then(|| {
        format!(
            "the aggregated blocks of @{} are coarsened ({} child blocks a block at most), which blocks taken by parents would undo",
            site.child.name(),
            coarsen.factor
        )
    })
}

/// Leaves the marker for `child` (whose block variant is `variant`) where `b` is.
pub fn mark<'c>(module: &Module<'c>, b: &Builder<'c>, child: FunctionValue<'c>, variant: FunctionValue<'c>, thread: BasicValueEnum<'c>, threads: BasicValueEnum<'c>) {
    let cx = module.get_context();
    let ptr = cx.ptr_type(AddressSpace::default());
    let i32t = cx.i32_type();
    let marker = module.get_or_declare(MARKER, cx.void_type().fn_type(&[ptr.into(), ptr.into(), i32t.into(), i32t.into()], false));
    let function = |f: FunctionValue<'c>| f.as_global_value().as_pointer_value().into();
    b.call(marker, &[function(child), function(variant), thread, threads]);
}

/// A marker left by block reuse.
pub struct Marker<'c> {
    pub call: InstructionValue<'c>,
    pub child: FunctionValue<'c>,
    variant: FunctionValue<'c>,
    thread: BasicValueEnum<'c>,
    pub threads: BasicValueEnum<'c>,
}

/// The markers in `f`.
pub fn markers<'c>(f: FunctionValue<'c>) -> Vec<Marker<'c>> {
    f.instructions()
        .into_iter()
        .filter(|i| i.called_function().is_some_and(|c| c.name() == MARKER))
        .map(|call| {
            let args = call.call_args();
            let function = |v: BasicValueEnum<'c>| v.as_function().expect("the marker names functions");
            Marker { call, child: function(args[0]), variant: function(args[1]), thread: args[2], threads: args[3] }
        })
        .collect()
}

/// Whether block reuse left a marker in the module (else no function need be scanned for one).
pub fn any_markers(module: &Module) -> bool {
    module.get_function(MARKER).is_some()
}

/// The children whose grids parent blocks may run somewhere in the module.
pub fn marked_children<'c>(module: &Module<'c>) -> Vec<FunctionValue<'c>> {
    let mut children = Vec::new();
    if !any_markers(module) {
        return children;
    }
    for f in module.get_functions() {
        for m in markers(f) {
            if !children.contains(&m.child) {
                children.push(m.child);
            }
        }
    }
    children
}

/// The record size of a child's groups whose records parent blocks may take: the arguments, then the
/// ready flag in the last 8 bytes (16-byte aligned, as the runtime aligns records).
pub fn flagged_record_size(param_size: u64) -> u64 {
    (param_size + 8).div_ceil(16) * 16
}

/// Before `marker`: while group `group` of `scope` has child blocks this block can run, take them and run
/// them: `per_take` blocks of a grid at a time, or the rest of the grid where it is 0 (`uniform`: the
/// child's parameters passed once per chunk, in its first record).
pub fn insert_take_loop<'c>(module: &Module<'c>, runtime: &Runtime<'c>, marker: &Marker<'c>, scope: BasicValueEnum<'c>, group: u32, per_take: u32, uniform: &[bool]) {
    let cx = module.get_context();
    let i32t = cx.i32_type();
    let before = marker.call.block();
    let rest = marker.call.split_block_before();
    before.get_terminator().expect("the split's branch").erase();
    let f = marker.call.function();
    let take = cx.append_basic_block(f, "klap.grid.reuse.take");
    let run = cx.append_basic_block(f, "klap.grid.reuse.run");
    let b = cx.create_builder();
    b.position_at_end(before);
    b.build_unconditional_branch(take).unwrap();

    b.position_at_end(take);
    let call = |b: &Builder<'c>, which: RuntimeFn, args: &[BasicValueEnum<'c>]| b.call_value(runtime.get(which), args);
    let args = call(&b, RuntimeFn::GridTake, &[scope, i32t.const_int(group as u64, false).into(), marker.threads, i32t.const_int(per_take as u64, false).into()]);
    let none = b.build_is_null(args.into_pointer_value(), "").unwrap();
    b.build_conditional_branch(none, rest, run).unwrap();

    b.position_at_end(run);
    let dim = |i: u64| call(&b, RuntimeFn::TakenDim, &[i32t.const_int(i, false).into()]).into_int_value();
    let grid = [dim(0), dim(1), dim(2)];
    let block = [dim(3), dim(4), dim(5)];
    let taken = Some((dim(6), dim(7)));
    let uniform_args = uniform.contains(&true).then(|| (call(&b, RuntimeFn::TakenUniformArgs, &[]), uniform.to_vec()));
    let record = RecordArgs { args, uniform_args };
    let (thread, threads) = (marker.thread.into_int_value(), marker.threads.into_int_value());
    run_child_grid(module, &b, marker.child, marker.variant, &record, grid, block, taken, thread, threads, take);
}

/// Removes every marker left (a kernel that got no grid scope, or aggregation did not run), and the
/// marker's declaration; nothing to scan where block reuse left none.
pub fn erase_markers(module: &Module) {
    let Some(declaration) = module.get_function(MARKER) else { return };
    for f in module.get_functions() {
        for m in markers(f) {
            m.call.erase();
        }
    }
    declaration.erase();
}
