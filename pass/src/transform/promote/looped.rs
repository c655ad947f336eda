//! Promotion into a loop (`promote=loop`): the one block of a chain link runs the next link itself.
//!
//! A chain of one-block grids (what [`super::detect`] finds) spends most of each link in the launch: a
//! device launch holds its thread about 5.5 us on an H200, and a pool of links (promotion with
//! aggregation) still pays a release and an acquire through memory per link and the pool's own launch
//! and end (docs/promotion.md). The link's block can instead run its successor: where every thread of
//! the block returns, the threads meet at a barrier, and where the link reached its launch they run the
//! kernel again with the launch's arguments, carried through shared memory. No launch (but where the
//! host launched the first link with blocks of several rows), no slot, no nesting level.
//!
//! Why it keeps the program's meaning: the successor starts only once every thread of the link has
//! returned and a barrier ordered their writes before its reads, later than the launch as written
//! allowed under any stream (fire-and-forget, NULL or tail), so it sees everything it saw before. CUDA
//! never promises that a child runs while its parent does, so a schedule that runs it after is one the
//! program already had to allow. Shared memory starts with what the link before left there, where a new
//! block's starts undefined.
//!
//! What it needs beyond detection: every thread of the block must reach the barrier at the end without
//! other threads still owing a barrier of the kernel. A thread that returns early would wait at the end
//! while the others wait at a barrier of the body, a hang or a barrier passed too early; so no branch the
//! threads may disagree on may lead some of them to the end and others to a barrier (KLAP419). A call to a
//! function defined in another translation unit counts as a barrier.

use crate::callgraph::CallGraph;
use crate::child::{barrier_use, hoist_allocas, hoist_fixed_allocas, sync_warp_lanes, warp_lanes, BarrierUse};
use crate::llvm::{
    BasicValueEnum, Builder, BuilderExt, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, Module,
    ModuleExt, ValueExt,
};
use crate::site::abi::cuda_provided;
use crate::site::ops::{builder_before, guarded_replace, shared_variable, ArgValues, CanonicalEntries};
use crate::site::{param_layout, LaunchSite};

/// Why the block of `kernel` cannot run its successor after a barrier where its threads return: a barrier
/// it cannot see (one reached through a pointer), or a branch after which some threads can reach the end
/// while others still reach a barrier.
pub fn unfit<'c>(ctx: Ctx, calls: &CallGraph<'c>, site: &LaunchSite<'c>) -> Option<String> {
    let kernel = site.caller;
    // The block that runs the next link has the dynamic shared memory its own launch gave it, which nothing
    // here shows to be enough for what the next link asks.
    if site.smem.const_int() != Some(0) {
        return Some(format!("the next link asks for dynamic shared memory ({}), which the block running it again may not have", site.smem.operand_string()));
    }
    let mut barriers: Vec<InstructionValue<'c>> = Vec::new();
    for inst in kernel.instructions() {
        if inst.get_opcode() != InstructionOpcode::Call {
            continue;
        }
        if inst.calls_through_pointer() {
            return Some(format!("@{} makes a call through a pointer, which may reach a barrier", kernel.name()));
        }
        let reaches_barrier = match inst.called_function() {
            Some(f) if f != kernel && !f.is_declaration() => {
                calls.calls_indirectly(f)
                    || calls.find_reached(f, |i| !matches!(barrier_use(i), BarrierUse::None) || i.calls_through_pointer() || i.called_function().is_some_and(may_wait_elsewhere)).is_some()
            }
            Some(f) => may_wait_elsewhere(f),
            None => false,
        };
        if reaches_barrier || !matches!(barrier_use(inst), BarrierUse::None) {
            barriers.push(inst);
        }
    }
    let branch = ctx.exit_before_barrier(&barriers)?;
    let at = branch.debug_location().map(|(file, line, _)| format!(" ({file}:{line})")).unwrap_or_default();
    Some(format!(
        "a thread of @{} can return while others of its block still have a barrier to reach (a branch the threads may disagree on{at}): \
         it would wait at the link's end while they wait at the barrier",
        kernel.name()
    ))
}

/// A function declared here and defined in another translation unit (`-fgpu-rdc`), which may wait at a
/// barrier: not an intrinsic (barrier_use knows those), nor CUDA's device runtime, libdevice or the system
/// calls of CUDA's headers.
fn may_wait_elsewhere(f: FunctionValue) -> bool {
    let name = f.name();
    f.is_declaration() && !cuda_provided(&name) && !name.starts_with("__nv_")
}

/// Where a looped chain hands over to a copy of its kernel promoted with aggregation and overlap: once, by
/// one of `rules` (links, nanoseconds; `-klap-promote-hand-over`, the shim holds the default), that many
/// links ran in the loop and they took more than that long each on average, the launch is made as written,
/// of `to`. On an H200 a link of a pool with overlap costs about 2.1 us on the chain's critical path (a
/// release and an acquire through memory), plus 20 to 30 us a chain; a looped link's whole work is on it:
/// sc's links took 2.9 us in a medium chain and 3.4 us in the large one (its input no longer in L2), unq's
/// 5.1 and 8.3 us (BENCHMARKS.md, twentieth session).
pub struct Switch<'c> {
    pub to: FunctionValue<'c>,
    pub rules: Vec<(u64, u64)>,
}

/// Turns the launch `site` of its kernel (itself, one block: detected) into a loop over the chain's links
/// within the block. `passed_on`: per parameter, whether every link passes it on unchanged (it stays the
/// parameter); the others are carried from the launch to the next link through shared memory. With
/// `switch`, a long chain of slow links goes on as a chain of `switch.to` instead.
/// Returns the launch made as written where the loop cannot go on.
pub fn promote<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    site: &LaunchSite<'c>,
    passed_on: &[bool],
    switch: Option<&Switch<'c>>,
) -> InstructionValue<'c> {
    let cx = module.get_context();
    let f = site.caller;
    let (params, param_size) = param_layout(module, f);
    let i32t = cx.i32_type();
    let shared = |undef: BasicValueEnum<'c>, name: &str, align: u32| -> BasicValueEnum<'c> {
        shared_variable(module, &format!("{}__klap_loop_{name}", f.name()), undef, align).into()
    };
    // The link the launching thread asked for (the count of links that launched), and the arguments of the
    // next link, two buffers used in turn: a thread still reading the one of link L at its end cannot have
    // it overwritten by link L + 1, which writes the other, and link L + 2 writes it only after every
    // thread has passed the barrier at the end of link L + 1.
    let stride = param_size.div_ceil(16).max(1) * 16;
    let next = shared(i32t.get_undef().into(), "next", 4);
    let args_buf = shared(cx.i8_type().array_type((2 * stride) as u32).get_undef().into(), "args", 16);

    let b = cx.create_builder();
    let body = f.entry_block();
    let start = cx.prepend_basic_block(body, "klap.loop.start");
    let head = cx.insert_basic_block_after(start, "klap.loop.head");
    hoist_allocas(&b, body, start);
    hoist_fixed_allocas(&b, f, start);
    // Shared memory starts undefined: every thread stores the same 0, then a barrier, before any thread can
    // reach the launch.
    b.position_at_end(start);
    b.store_aligned(i32t.const_zero().into(), next, 4);
    barrier(module, &b);
    // The lanes of each warp, read where they all are: at the kernel's start.
    let lanes = warp_lanes(module, &b);
    let i64t = cx.i64_type();
    let started = switch.map(|_| b.call_value(module.get_or_declare("llvm.nvvm.read.ptx.sreg.globaltimer", i64t.fn_type(&[], false)), &[]).into_int_value());
    b.build_unconditional_branch(head).unwrap();

    b.position_at_end(head);
    let link = b.build_phi(i32t, "klap.loop.link").unwrap();
    let carried: Vec<(usize, crate::llvm::PhiValue<'c>)> =
        (0..params.len()).filter(|&i| !passed_on[i]).map(|i| (i, b.build_phi(params[i].ty, "").unwrap())).collect();
    b.build_unconditional_branch(body).unwrap();

    // The launch: the next link's arguments into this link's buffer, then its number. The arguments are
    // taken before the parameters become the loop's values, so that they are this link's.
    let args = ArgValues::capture(module, site);
    let link_value = link.as_basic_value().into_int_value();
    // The argument buffer of this link's parity.
    let link_buffer = |b: &Builder<'c>| {
        let parity = b.build_and(link_value, i32t.const_int(1, false), "").unwrap();
        let offset = b.build_int_mul(parity, i32t.const_int(stride, false), "").unwrap();
        b.byte_gep_at(args_buf, offset)
    };
    let go_on = |b: &Builder<'c>| {
        let to = link_buffer(b);
        let carried_write: Vec<bool> = site.writes.iter().map(|w| !passed_on[w.param]).collect();
        args.store_where(b, to, &carried_write, true);
        let following = b.build_int_add(link_value, i32t.const_int(1, false), "").unwrap();
        b.store_aligned(following.into(), next, 4);
    };
    // The block runs the next link only where it is what the launch asks for: a grid of one block, of one
    // row as wide as the launch's. A first link launched otherwise (by the host, or by another kernel) makes
    // the launch as written: in a grid of several blocks each block's launch starts a chain of one-block
    // grids, whose blockIdx and gridDim differ from the block's; in a block of several rows a thread of each
    // row launches.
    let b = builder_before(module, site.launch);
    let sreg = |name: &str| b.call_value(module.get_or_declare(&format!("llvm.nvvm.read.ptx.sreg.{name}"), i32t.fn_type(&[], false)), &[]).into_int_value();
    let one = i32t.const_int(1, false);
    let rows = b.build_int_mul(sreg("ntid.y"), sreg("ntid.z"), "").unwrap();
    let one_row = b.build_int_compare(IntPredicate::EQ, rows, one, "").unwrap();
    let blocks = b.build_int_mul(b.build_int_mul(sreg("nctaid.x"), sreg("nctaid.y"), "").unwrap(), sreg("nctaid.z"), "").unwrap();
    let one_block = b.build_int_compare(IntPredicate::EQ, blocks, one, "").unwrap();
    let width = site.block.fields[0].expect("detection: a block known at entry").into_int_value();
    let width = b.build_int_z_extend_or_bit_cast(width, i32t, "").unwrap();
    let as_wide = b.build_int_compare(IntPredicate::EQ, sreg("ntid.x"), width, "").unwrap();
    let mut take = b.build_and(b.build_and(one_row, one_block, "").unwrap(), as_wide, "klap.loop.same.shape").unwrap();
    let mut handed_over = site.clone();
    if let (Some(switch), Some(started)) = (switch, started) {
        // The loop goes on while, by each rule, it is short or its links are fast; else the launch as
        // written, of the copy.
        let following = b.build_int_add(link_value, one, "").unwrap();
        let timer = module.get_or_declare("llvm.nvvm.read.ptx.sreg.globaltimer", i64t.fn_type(&[], false));
        let now = b.call_value(timer, &[]).into_int_value();
        let elapsed = b.build_int_sub(now, started, "").unwrap();
        let links = b.build_int_z_extend(following, i64t, "").unwrap();
        for &(after_links, link_ns) in &switch.rules {
            let short = b.build_int_compare(IntPredicate::ULT, following, i32t.const_int(after_links, false), "").unwrap();
            let budget = b.build_int_mul(links, i64t.const_int(link_ns, false), "").unwrap();
            let fast = b.build_int_compare(IntPredicate::ULT, elapsed, budget, "").unwrap();
            let stay = b.build_or(short, fast, "klap.loop.stay").unwrap();
            take = b.build_and(take, stay, "").unwrap();
        }
        handed_over.child = switch.to;
        handed_over.child_operand = switch.to.as_global_value().as_pointer_value().into();
    }
    let fallback = guarded_replace(module, entries, &handed_over, &args, &b, take, |b, _| go_on(b));

    // Where the threads return: a barrier, then the next link where this one launched.
    let latch = cx.append_basic_block(f, "klap.loop.latch");
    let reload = cx.append_basic_block(f, "klap.loop.next");
    let exit = cx.append_basic_block(f, "klap.loop.exit");
    for ret in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Return) {
        b.position_before(&ret);
        b.build_unconditional_branch(latch).unwrap();
        ret.erase();
    }
    b.position_at_end(latch);
    latch_barrier(module, &b, lanes);
    let asked = b.load_aligned(i32t.into(), next, 4).into_int_value();
    // Once this link launched, the number is link + 1, or link + 2 where the launching thread of the next
    // link got there first; where it did not launch, nothing writes it again.
    let go = b.build_int_compare(IntPredicate::NE, asked, link_value, "").unwrap();
    b.build_conditional_branch(go, reload, exit).unwrap();
    b.position_at_end(reload);
    let from = link_buffer(&b);
    let loaded: Vec<BasicValueEnum<'c>> = carried.iter().map(|&(i, _)| b.load_aligned(params[i].ty, b.byte_gep(from, params[i].offset), params[i].align.min(16) as u32)).collect();
    let following = b.build_int_add(link_value, i32t.const_int(1, false), "").unwrap();
    b.build_unconditional_branch(head).unwrap();
    b.position_at_end(exit);
    b.build_return(None).unwrap();

    link.add_incoming(&[(&i32t.const_zero(), start), (&following, reload)]);
    for (&(i, phi), value) in carried.iter().zip(&loaded) {
        let param = f.get_nth_param(i as u32).unwrap();
        param.replace_uses_with(phi.as_basic_value());
        phi.add_incoming(&[(&param, start), (value, reload)]);
    }
    fallback
}

/// The barrier at a link's end, which the threads of a warp may reach apart (from their returns): first
/// `bar.warp.sync` over the warp's lanes (`lanes`, read at the kernel's start), which they all pass
/// together, then the block's `bar.sync 0` (`.aligned`). With a `barrier.sync 0` (not aligned) there,
/// ptxas took every warp vote and shuffle of the next link as possibly divergent where the kernel also has
/// a call (the launch as written, made where the loop cannot go on): sc's link compiled to 1,616 SASS
/// instructions, 40 of them `WARPSYNC.COLLECTIVE`, against 960 and 8, 96 registers against 80, and ran
/// 1.5x slower (H200, BENCHMARKS.md, twentieth session).
fn latch_barrier<'c>(module: &Module<'c>, b: &crate::llvm::Builder<'c>, lanes: BasicValueEnum<'c>) {
    let cx = module.get_context();
    let i32t = cx.i32_type();
    sync_warp_lanes(module, b, lanes);
    let sync = module.get_or_declare("llvm.nvvm.barrier.cta.sync.aligned.all", cx.void_type().fn_type(&[i32t.into()], false));
    b.call(sync, &[i32t.const_zero().into()]);
}

/// `barrier.sync 0` for every thread of the block.
fn barrier<'c>(module: &Module<'c>, b: &crate::llvm::Builder<'c>) {
    let cx = module.get_context();
    let sync = module.get_or_declare("llvm.nvvm.barrier.cta.sync.all", cx.void_type().fn_type(&[cx.i32_type().into()], false));
    b.call(sync, &[cx.i32_type().const_zero().into()]);
}
