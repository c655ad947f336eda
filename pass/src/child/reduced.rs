//! The variants of a child whose threads talk within their warp only to reduce (reduction.rs): one thread
//! runs a child warp's lanes one after another, folding each reduced value in as it goes, then lane 0's code
//! after the reductions once with the folds: the reduced-serial variant runs every child warp of a launch so,
//! in the launching thread.

use super::{index_phis, kernel_index, one_dimensional, product3, split_index, thread_arguments, ChildVariants, Variant, VariantKind};
use crate::llvm::{
    AddressSpace, BasicMetadataTypeEnum, BasicTypeEnum, BasicValueEnum, Builder, BuilderExt, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode,
    IntPredicate, IntValue, Linkage, ModuleExt, StructType, ValueExt,
};
use crate::reduction::{self, within_warp, Bound, Fold};
use crate::runtime::IndexRegister;

/// Which index register a value of `f`, a copy of `kernel`'s thread code, reads: the index parameters after
/// the kernel's own.
fn copy_index<'c>(kernel: FunctionValue<'c>, f: FunctionValue<'c>) -> impl Fn(BasicValueEnum<'c>) -> Option<String> {
    let first = kernel.count_params();
    let names: Vec<String> = IndexRegister::all().iter().map(|(r, _)| format!("{}.{}", r.register, r.dimension)).collect();
    move |v| (0..names.len()).find(|k| f.get_nth_param(first + *k as u32) == Some(v)).map(|k| names[k].clone())
}

/// The pieces the reduced-serial variant runs a child warp with.
struct Parts<'c> {
    /// `K__klap_lane(params..., indices..., ptr out)`: a lane's code up to its reductions, storing the values it
    /// reduces into `record` at `out`.
    lane: FunctionValue<'c>,
    /// The bound on the child's working threads, where its idle threads change no fold, and
    /// `K__klap_lane_working`: the lane's part for a thread below it, its tests of the bound folded.
    below: Option<(Bound, FunctionValue<'c>)>,
    /// `K__klap_lane0(params..., indices..., folds...)`: lane 0's code, given each reduction's fold and the
    /// sum of each shuffled value.
    lane0: FunctionValue<'c>,
    record: StructType<'c>,
    input_types: Vec<BasicTypeEnum<'c>>,
    /// Each reduction's fold and the index of its value among the inputs.
    reductions: Vec<(Fold, usize)>,
    /// The inputs summed over the lanes (64 bits each) for the shuffle trees.
    summed: Vec<usize>,
    /// The types of lane 0's fold parameters: the reductions' results, then one i64 per summed input.
    fold_types: Vec<BasicTypeEnum<'c>>,
}

impl<'a, 'c> ChildVariants<'a, 'c> {
    /// Whether the threads of a warp of `kernel` can run one after another in one thread with their warp
    /// reductions folded over the lanes as they go, then lane 0's code once ([`Self::reduced_serial`]): as
    /// [`Self::runs_by_warp`], with every warp collective a whole-warp reduction or a shuffle tree that
    /// reduction.rs follows, in the kernel's own code, and its code after them writing only in lane 0. Callers
    /// check that its blocks make `threadIdx.x % 32` the lane (one-dimensional, or whole warps along x).
    pub fn runs_reduced(&self, kernel: FunctionValue<'c>) -> Result<(), String> {
        self.runs_serially(kernel, true)?;
        for f in self.calls.reachable_from(kernel).into_iter().filter(|f| *f != kernel) {
            if let Some(callee) = f.instructions().into_iter().filter_map(|i| i.called_function()).find(|c| within_warp(&c.name())) {
                return Err(format!("@{}, which it calls, talks within its warp ({})", f.name(), callee.name()));
            }
        }
        reduction::plan(kernel, &kernel_index).map(|_| ())
    }

    /// What the remarks say of `kernel`'s reductions, where its plan holds ((None, 0) elsewhere): the bound on
    /// its working threads past which they change no reduction (the parameter's index, whether compared
    /// signed), and how many values of its shuffle trees lane 0 takes as sums over the warp (what
    /// [`Self::warp_thread`] adds up by whole-warp reductions instead).
    pub fn reduction_facts(&self, kernel: FunctionValue<'c>) -> (Option<Bound>, usize) {
        match reduction::plan(kernel, &kernel_index) {
            Ok(plan) => (reduction::bound(kernel, &plan, &kernel_index), plan.exits.len()),
            Err(_) => (None, 0),
        }
    }

    /// [`Self::serial`] for a child whose threads reduce within their warp (callers check
    /// [`Self::runs_reduced`]): each child warp's threads run one after another, every reduced value folded
    /// in as it comes, then lane 0's code after the reductions once, with the folds. Takes no guard limit
    /// (every thread of a warp takes part in its reductions).
    pub fn reduced_serial(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        if let Some(f) = self.built_by_an_earlier_step(kernel, "__klap_reduced_serial") {
            return f;
        }
        self.cached(kernel, VariantKind::ReducedSerial, |this| {
            let parts = this.reduced_parts(kernel);
            this.build_reduced_serial(kernel, &parts)
        })
    }

    /// The thread code the launching warp runs a child warp with (KLAP308), its lanes playing the child's: for
    /// a child whose shuffle trees reduction.rs follows ([`Self::runs_reduced`]), a copy whose trees are
    /// replaced by whole-warp `redux.sync` additions (`K__klap_warp_thread`); else the thread variant. Lane 0
    /// uses a tree's results only where it is the sum over the lanes (that is what the plan proves), and every
    /// lane reaches the trees' block once: there each summed value's 27-bit pieces are added over the warp
    /// (a piece's sum over 32 lanes fits 32 bits), the pieces' sums joined into the 64-bit sum, and lane 0's
    /// values computed from those. A 64-bit tree of ten shuffles and twenty additions becomes three
    /// reductions and a few shifts.
    pub fn warp_thread(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        if self.runs_reduced(kernel).is_err() {
            return self.thread(kernel);
        }
        self.cached(kernel, VariantKind::WarpThread, |this| {
            let variant = this.build_one_thread(kernel, "__klap_warp_thread", &[]);
            let f = variant.function;
            let plan = reduction::plan(f, &copy_index(kernel, f)).expect("callers check runs_reduced");
            this.sums_by_redux(&plan);
            variant
        })
    }

    /// Replaces `plan`'s shuffle trees by whole-warp additions (see [`Self::warp_thread`]).
    fn sums_by_redux(&self, plan: &reduction::Plan<'c>) {
        if plan.exits.is_empty() {
            return;
        }
        let cx = self.module.get_context();
        let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
        let redux = self.module.get_or_declare("llvm.nvvm.redux.sync.add", i32t.fn_type(&[i32t.into(), i32t.into()], false));
        let b = cx.create_builder();
        b.position_before(&plan.block.get_terminator().expect("a terminated block"));
        const PIECE: u32 = 27;
        let mut sums: Vec<Option<IntValue<'c>>> = vec![None; plan.inputs.len()];
        for e in &plan.exits {
            for &(k, _) in &e.sums {
                if sums[k].is_some() {
                    continue;
                }
                let v = plan.inputs[k].into_int_value();
                let bits = v.get_type().get_bit_width();
                let wide = b.build_int_z_extend_or_bit_cast(v, i64t, "").unwrap();
                let mut sum: Option<IntValue<'c>> = None;
                for j in 0..bits.div_ceil(PIECE) {
                    let at = i64t.const_int((PIECE * j) as u64, false);
                    let shifted = if j == 0 { wide } else { b.build_right_shift(wide, at, false, "").unwrap() };
                    let piece = b.build_and(shifted, i64t.const_int((1u64 << PIECE) - 1, false), "").unwrap();
                    let piece = b.build_int_truncate(piece, i32t, "piece").unwrap();
                    let total = b.call_value(redux, &[piece.into(), i32t.const_all_ones().into()]).into_int_value();
                    let total = b.build_int_z_extend(total, i64t, "").unwrap();
                    let total = if j == 0 { total } else { b.build_left_shift(total, at, "").unwrap() };
                    sum = Some(match sum {
                        Some(s) => b.build_int_add(s, total, "").unwrap(),
                        None => total,
                    });
                }
                sums[k] = sum;
            }
        }
        for e in &plan.exits {
            e.value.replace_uses_with(exit_value(&b, e, |k| sums[k].expect("each summed input added over the warp above")));
        }
        // The trees are dead now: lane 0 took the exits' values, and nothing else used them.
        for i in plan.chain.iter().rev() {
            if !i.result().instruction_users().is_empty() {
                i.replace_uses_with(i.get_type().into_int_type().get_undef());
            }
            i.erase();
        }
    }

    /// A copy of `kernel`'s thread code (with `extra` parameters), and its reduction plan there.
    fn reduction_copy(&mut self, kernel: FunctionValue<'c>, suffix: &str, extra: &[BasicMetadataTypeEnum<'c>]) -> (FunctionValue<'c>, reduction::Plan<'c>) {
        let f = self.build_one_thread(kernel, suffix, extra).function;
        let plan = reduction::plan(f, &copy_index(kernel, f)).expect("callers check runs_reduced");
        (f, plan)
    }

    /// A lane's part of `kernel` (`K<suffix>`): its code up to the end of the collectives' block, the values it
    /// gives the reductions stored through its last parameter, the collectives and what follows them left out.
    /// Also the plan (whose collectives are gone from the copy: only their folds, inputs and exits' sums may be
    /// read), the bound, and each reduction's result type.
    fn lane_part(&mut self, kernel: FunctionValue<'c>, suffix: &str, below: Option<Bound>) -> (FunctionValue<'c>, reduction::Plan<'c>, Option<Bound>, Vec<BasicTypeEnum<'c>>) {
        let cx = self.module.get_context();
        let b = cx.create_builder();
        let (lane, plan) = self.reduction_copy(kernel, suffix, &[cx.ptr_type(AddressSpace::default()).into()]);
        // The bound, found before the copy changes; a copy for the threads below a known one needs none.
        let bound = if below.is_none() { reduction::bound(lane, &plan, &copy_index(kernel, lane)) } else { below };
        let results: Vec<BasicTypeEnum<'c>> = plan.reductions.iter().map(|r| r.call.get_type().into_int_type().into()).collect();
        let input_types: Vec<BasicTypeEnum<'c>> = plan.inputs.iter().map(|v| v.get_type()).collect();
        let record = cx.struct_type(&input_types, false);
        let out = lane.get_last_param().unwrap().into_pointer_value();
        plan.block.get_terminator().expect("a terminated block").split_block_before();
        let branch = plan.block.get_terminator().unwrap();
        b.position_before(&branch);
        for (k, v) in plan.inputs.iter().enumerate() {
            let at = b.build_struct_gep(record, out, k as u32, "").unwrap();
            b.build_store(at, *v).unwrap();
        }
        b.build_return(None).unwrap();
        branch.erase();
        let shuffles = plan.chain.iter().filter(|i| i.get_opcode() == InstructionOpcode::Call);
        for call in plan.reductions.iter().map(|r| r.call).chain(shuffles.copied()).collect::<Vec<_>>() {
            call.replace_uses_with(call.get_type().into_int_type().const_zero());
            call.erase();
        }
        if let Some(bound) = below {
            // After the stores: a test may be an input itself.
            reduction::fold_bound_tests(lane, &copy_index(kernel, lane), bound);
        }
        (lane, plan, bound, results)
    }

    /// The lane and lane-0 functions of `kernel`.
    fn reduced_parts(&mut self, kernel: FunctionValue<'c>) -> Parts<'c> {
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let b = cx.create_builder();

        // Each thread's own part; where a bound shows which threads only idle, a second copy for the threads
        // below it, its tests of the bound folded.
        let (lane, plan, bound, results) = self.lane_part(kernel, "__klap_lane", None);
        let below = bound.map(|bound| (bound, self.lane_part(kernel, "__klap_lane_working", Some(bound)).0));
        let input_types: Vec<BasicTypeEnum<'c>> = plan.inputs.iter().map(|v| v.get_type()).collect();
        let record = cx.struct_type(&input_types, false);

        // Lane 0's part after the reductions, given the folds: each reduction's result, then the sum over the
        // lanes of each value a shuffle tree adds up (64 bits).
        let summed: Vec<usize> = {
            let mut s: Vec<usize> = plan.exits.iter().flat_map(|e| e.sums.iter().map(|(i, _)| *i)).collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let mut extra: Vec<BasicMetadataTypeEnum<'c>> = results.iter().map(|t| (*t).into()).collect();
        extra.extend(summed.iter().map(|_| BasicMetadataTypeEnum::from(i64t)));
        let (lane0, plan0) = self.reduction_copy(kernel, "__klap_lane0", &extra);
        assert!(plan0.inputs.len() == plan.inputs.len() && plan0.exits.len() == plan.exits.len(), "two copies of one kernel, two plans");
        let first_fold = lane0.count_params() - extra.len() as u32;
        let entry_end = lane0.get_first_basic_block().unwrap().get_terminator().unwrap();
        b.position_before(&entry_end);
        for (k, r) in plan0.reductions.iter().enumerate() {
            r.call.replace_uses_with(lane0.get_nth_param(first_fold + k as u32).unwrap());
        }
        for e in &plan0.exits {
            let sum = |input: usize| {
                let k = summed.iter().position(|i| *i == input).unwrap();
                lane0.get_nth_param(first_fold + (plan0.reductions.len() + k) as u32).unwrap().into_int_value()
            };
            e.value.replace_uses_with(exit_value(&b, e, sum));
        }
        let gone: Vec<_> = plan0.reductions.iter().map(|r| r.call).chain(plan0.chain.iter().copied()).collect();
        for i in &gone {
            i.replace_uses_with(i.get_type().into_int_type().const_zero());
        }
        for i in gone {
            i.erase();
        }
        let fold_types = extra.iter().map(|t| BasicTypeEnum::try_from(*t).unwrap()).collect();
        Parts { lane, below, lane0, record, input_types, reductions: plan.reductions.iter().map(|r| (r.fold, r.input)).collect(), summed, fold_types }
    }

    /// Every child warp of a launch, block by block, run by the calling thread.
    fn build_reduced_serial(&mut self, kernel: FunctionValue<'c>, parts: &Parts<'c>) -> Variant<'c> {
        let module = self.module;
        let cx = module.get_context();
        let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
        let b = cx.create_builder();
        let n = kernel.count_params() as usize;
        let mut types: Vec<BasicMetadataTypeEnum<'c>> = kernel.get_params().iter().map(|p| p.get_type().into()).collect();
        types.extend((0..6).map(|_| BasicMetadataTypeEnum::from(i32t)));
        types.push(i64t.into());
        let f = module.add_function(&format!("{}__klap_reduced_serial", kernel.name()), cx.void_type().fn_type(&types, false), Some(Linkage::Internal));
        f.add_inline_always();
        let p: Vec<BasicValueEnum<'c>> = f.get_params();
        let dim = |i: usize| p[n + i].into_int_value();
        let (grid, block) = ([dim(0), dim(1), dim(2)], [dim(3), dim(4), dim(5)]);
        let block_of = |name: &str| cx.append_basic_block(f, name);
        let (entry, blocks_head, warps_head, warp_start, block_next, exit) =
            (block_of("entry"), block_of("blocks"), block_of("warps"), block_of("warp"), block_of("next.block"), block_of("exit"));
        let c32 = |v: u64| i32t.const_int(v, false);

        b.position_at_end(entry);
        let slot = b.build_alloca(parts.record, "lane.values").unwrap();
        let nblocks = product3(&b, grid);
        let nthreads = product3(&b, block);
        let one_d = one_dimensional(&b, block);
        b.build_unconditional_branch(blocks_head).unwrap();

        b.position_at_end(blocks_head);
        let blk = b.build_phi(i32t, "blk").unwrap();
        let (ctaid_phis, ctaid) = index_phis(&b, "ctaid");
        let more_blocks = b.build_int_compare(IntPredicate::ULT, blk.as_basic_value().into_int_value(), nblocks, "").unwrap();
        b.build_conditional_branch(more_blocks, warps_head, exit).unwrap();

        // The block's warps: 32 threads in order (x fastest), the last one maybe fewer.
        b.position_at_end(warps_head);
        let w = b.build_phi(i32t, "warp.first").unwrap();
        let wv = w.as_basic_value().into_int_value();
        let more_warps = b.build_int_compare(IntPredicate::ULT, wv, nthreads, "").unwrap();
        b.build_conditional_branch(more_warps, warp_start, block_next).unwrap();

        b.position_at_end(warp_start);
        let run = ChildWarp { params: &p[..n], block, ctaid, grid, one_d, slot };
        run.emit(&b, f, parts, wv, nthreads);
        let w_next = b.build_int_add(wv, c32(32), "").unwrap();
        let warp_end = b.get_insert_block().unwrap();
        b.build_unconditional_branch(warps_head).unwrap();

        b.position_at_end(block_next);
        let blk_next = b.build_int_add(blk.as_basic_value().into_int_value(), c32(1), "").unwrap();
        let ctaid_next = super::next_index(&b, ctaid, grid);
        b.build_unconditional_branch(blocks_head).unwrap();

        b.position_at_end(exit);
        b.build_return(None).unwrap();

        let zero = c32(0);
        blk.add_incoming(&[(&zero, entry), (&blk_next, block_next)]);
        w.add_incoming(&[(&zero, blocks_head), (&w_next, warp_end)]);
        for d in 0..3 {
            ctaid_phis[d].add_incoming(&[(&zero, entry), (&ctaid_next[d], block_next)]);
        }
        let body_start = warp_start.get_first_instruction().unwrap();
        Variant::unaggregated(f, body_start, 0)
    }
}

/// One child warp, to be run by one thread: its kernel's arguments and its block's indices.
struct ChildWarp<'p, 'c> {
    params: &'p [BasicValueEnum<'c>],
    block: [IntValue<'c>; 3],
    ctaid: [IntValue<'c>; 3],
    grid: [IntValue<'c>; 3],
    /// Whether the block is one-dimensional (threads' indices are their linear ones).
    one_d: IntValue<'c>,
    /// Where a lane's part stores its values (`Parts::record`).
    slot: crate::llvm::PointerValue<'c>,
}

impl<'c> ChildWarp<'_, 'c> {
    /// Emits at `b`, in `f`, the run of the warp whose first thread is `first` (linear, in a block of `nthreads`):
    /// its lanes' parts one after another, each value folded in, then lane 0's part. Leaves `b` at the end of
    /// the block after it, unterminated.
    fn emit(&self, b: &Builder<'c>, f: FunctionValue<'c>, parts: &Parts<'c>, first: IntValue<'c>, nthreads: IntValue<'c>) {
        let cx = f.get_type().get_context();
        let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
        let c32 = |v: u64| i32t.const_int(v, false);
        let c64 = |v: u64| i64t.const_int(v, false);
        let left = b.build_int_sub(nthreads, first, "").unwrap();
        let full = b.build_int_compare(IntPredicate::UGE, left, c32(32), "").unwrap();
        let lanes = b.build_select(full, c32(32), left, "warp.lanes").unwrap().into_int_value();
        let folds = match parts.below {
            None => self.lane_loop(b, parts, parts.lane, first, lanes, false),
            Some((bound, working_lane)) => {
                // The lanes below the bound, where the warp's x indices are its lanes' linear ones and fit in 32
                // bits as the child computes them; the others would give every fold its neutral value.
                let (trimmed, all, join) = (cx.append_basic_block(f, "lanes.working"), cx.append_basic_block(f, "lanes.all"), cx.append_basic_block(f, "lanes.folded"));
                let wide = |v: IntValue<'c>| b.build_int_z_extend(v, i64t, "").unwrap();
                let x0 = b.build_int_add(b.build_int_mul(wide(self.ctaid[0]), wide(self.block[0]), "").unwrap(), wide(first), "x0").unwrap();
                let fits = b.build_int_compare(IntPredicate::ULE, x0, c64(i32::MAX as u64 - 32), "").unwrap();
                let exact = b.build_and(self.one_d, fits, "").unwrap();
                b.build_conditional_branch(exact, trimmed, all).unwrap();

                b.position_at_end(trimmed);
                let n = self.params[bound.param as usize].into_int_value();
                let n = if bound.signed { b.build_int_s_extend(n, i64t, "").unwrap() } else { wide(n) };
                let working = b.build_int_sub(n, x0, "").unwrap();
                let some = b.build_int_compare(IntPredicate::SGT, working, c64(0), "").unwrap();
                let fewer = b.build_int_compare(IntPredicate::SLT, working, wide(lanes), "").unwrap();
                let clamped = b.build_select(fewer, b.build_int_truncate(working, i32t, "").unwrap(), lanes, "").unwrap().into_int_value();
                let count = b.build_select(some, clamped, c32(0), "lanes.below").unwrap().into_int_value();
                let trimmed_folds = self.lane_loop(b, parts, working_lane, first, count, true);
                let trimmed_end = b.get_insert_block().unwrap();
                b.build_unconditional_branch(join).unwrap();

                b.position_at_end(all);
                let all_folds = self.lane_loop(b, parts, parts.lane, first, lanes, false);
                let all_end = b.get_insert_block().unwrap();
                b.build_unconditional_branch(join).unwrap();

                b.position_at_end(join);
                parts
                    .fold_types
                    .iter()
                    .zip(trimmed_folds.iter().zip(&all_folds))
                    .map(|(ty, (t, a))| {
                        let phi = b.build_phi(*ty, "fold").unwrap();
                        phi.add_incoming(&[(t, trimmed_end), (a, all_end)]);
                        phi.as_basic_value()
                    })
                    .collect()
            }
        };
        let lane0_tid = self.thread_index(b, f, first, "lane0.tid");
        let mut args = thread_arguments(self.params, lane0_tid, self.block, self.ctaid, self.grid);
        args.extend(folds);
        b.call(parts.lane0, &args);
    }

    /// Emits at `b` (inside the variant) the loop over the warp's first `lanes` lanes (from linear thread `first`
    /// on), each running `lane` and its values folded in; returns the folds, `b` left after the loop,
    /// unterminated. `flat`: the block is known one-dimensional there.
    fn lane_loop(&self, b: &Builder<'c>, parts: &Parts<'c>, lane: FunctionValue<'c>, first: IntValue<'c>, lanes: IntValue<'c>, flat: bool) -> Vec<BasicValueEnum<'c>> {
        let f = b.get_insert_block().and_then(|block| block.get_parent()).expect("a builder inside a function");
        let cx = f.get_type().get_context();
        let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
        let c32 = |v: u64| i32t.const_int(v, false);
        let (lanes_head, lane_body, warp_done) = (cx.append_basic_block(f, "lanes"), cx.append_basic_block(f, "lane"), cx.append_basic_block(f, "warp.done"));
        let start = b.get_insert_block().unwrap();
        b.build_unconditional_branch(lanes_head).unwrap();

        b.position_at_end(lanes_head);
        let l = b.build_phi(i32t, "lane").unwrap();
        let fold_phis: Vec<_> = parts.fold_types.iter().map(|ty| b.build_phi(*ty, "fold").unwrap()).collect();
        let lv = l.as_basic_value().into_int_value();
        let more = b.build_int_compare(IntPredicate::ULT, lv, lanes, "").unwrap();
        b.build_conditional_branch(more, lane_body, warp_done).unwrap();

        b.position_at_end(lane_body);
        let t = b.build_int_add(first, lv, "t").unwrap();
        let tid = if flat { [t, i32t.const_zero(), i32t.const_zero()] } else { self.thread_index(b, f, t, "tid") };
        let mut args = thread_arguments(self.params, tid, self.block, self.ctaid, self.grid);
        args.push(self.slot.into());
        b.call(lane, &args);
        let given = |k: usize| {
            let at = b.build_struct_gep(parts.record, self.slot, k as u32, "").unwrap();
            b.build_load(parts.input_types[k], at, "").unwrap().into_int_value()
        };
        let mut folds: Vec<BasicValueEnum<'c>> = Vec::new();
        for (k, &(how, input)) in parts.reductions.iter().enumerate() {
            folds.push(fold(b, how, fold_phis[k].as_basic_value().into_int_value(), given(input), lv).into());
        }
        for (k, &input) in parts.summed.iter().enumerate() {
            let acc = fold_phis[parts.reductions.len() + k].as_basic_value().into_int_value();
            let v = b.build_int_z_extend_or_bit_cast(given(input), i64t, "").unwrap();
            folds.push(b.build_int_add(acc, v, "").unwrap().into());
        }
        let l_next = b.build_int_add(lv, c32(1), "").unwrap();
        let lane_end = b.get_insert_block().unwrap();
        b.build_unconditional_branch(lanes_head).unwrap();

        l.add_incoming(&[(&c32(0), start), (&l_next, lane_end)]);
        for (k, phi) in fold_phis.iter().enumerate() {
            let initial = match parts.reductions.get(k) {
                Some(&(how, _)) => identity(how, parts.fold_types[k].into_int_type()),
                None => i64t.const_zero(),
            };
            phi.add_incoming(&[(&initial, start), (&folds[k], lane_end)]);
        }
        b.position_at_end(warp_done);
        fold_phis.iter().map(|phi| phi.as_basic_value()).collect()
    }

    /// A thread's index from its linear one: in a one-dimensional block the linear index itself (a branch on a
    /// value the same for every thread, not a division per thread); else divided out.
    fn thread_index(&self, b: &Builder<'c>, f: FunctionValue<'c>, t: IntValue<'c>, name: &str) -> [IntValue<'c>; 3] {
        let cx = f.get_type().get_context();
        let i32t = cx.i32_type();
        let (flat, shaped, join) = (cx.append_basic_block(f, &format!("{name}.flat")), cx.append_basic_block(f, &format!("{name}.shaped")), cx.append_basic_block(f, &format!("{name}.index")));
        b.build_conditional_branch(self.one_d, flat, shaped).unwrap();
        b.position_at_end(flat);
        b.build_unconditional_branch(join).unwrap();
        b.position_at_end(shaped);
        let split = split_index(b, t, self.block);
        let shaped_end = b.get_insert_block().unwrap();
        b.build_unconditional_branch(join).unwrap();
        b.position_at_end(join);
        std::array::from_fn(|d| {
            let phi = b.build_phi(i32t, &format!("{name}.{}", ["x", "y", "z"][d])).unwrap();
            let plain = if d == 0 { t } else { i32t.const_zero() };
            phi.add_incoming(&[(&plain, flat), (&split[d], shaped_end)]);
            phi.as_basic_value().into_int_value()
        })
    }
}

/// Lane 0's value of the exit `e` at `b`: its constant plus each summed input's sum over the warp (`sum`, 64 bits)
/// times its count, in the exit's width.
fn exit_value<'c>(b: &Builder<'c>, e: &reduction::Exit<'c>, sum: impl Fn(usize) -> IntValue<'c>) -> IntValue<'c> {
    let i64t = e.value.get_type().into_int_type().get_context().i64_type();
    let mut v: Option<IntValue<'c>> = (e.konst != 0).then(|| i64t.const_int(e.konst, false));
    for &(input, c) in &e.sums {
        let s = sum(input);
        let term = if c == 1 { s } else { b.build_int_mul(s, i64t.const_int(c, false), "").unwrap() };
        v = Some(match v {
            Some(v) => b.build_int_add(v, term, "lane0.sum").unwrap(),
            None => term,
        });
    }
    let v = v.unwrap_or_else(|| i64t.const_zero());
    let ty = e.value.get_type().into_int_type();
    if ty.get_bit_width() < 64 { b.build_int_truncate(v, ty, "").unwrap() } else { v }
}

/// The value a fold over no lanes starts from.
fn identity<'c>(f: Fold, ty: crate::llvm::IntType<'c>) -> IntValue<'c> {
    use Fold::*;
    let bits = ty.get_bit_width();
    match f {
        Add | Or | Xor | UMax | Ballot | Any => ty.const_zero(),
        And | UMin | All => ty.const_all_ones(),
        Min => ty.const_int((1u64 << (bits - 1)) - 1, false),
        Max => ty.const_int(1u64 << (bits - 1), false),
    }
}

/// `acc` with lane `lane`'s value `v` folded in.
fn fold<'c>(b: &Builder<'c>, f: Fold, acc: IntValue<'c>, v: IntValue<'c>, lane: IntValue<'c>) -> IntValue<'c> {
    use Fold::*;
    let pick = |p: IntPredicate| {
        let keep = b.build_int_compare(p, acc, v, "").unwrap();
        b.build_select(keep, acc, v, "").unwrap().into_int_value()
    };
    match f {
        Add => b.build_int_add(acc, v, "").unwrap(),
        And | All => b.build_and(acc, v, "").unwrap(),
        Or | Any => b.build_or(acc, v, "").unwrap(),
        Xor => b.build_xor(acc, v, "").unwrap(),
        Min => pick(IntPredicate::SLT),
        Max => pick(IntPredicate::SGT),
        UMin => pick(IntPredicate::ULT),
        UMax => pick(IntPredicate::UGT),
        Ballot => {
            let bit = b.build_int_z_extend(v, acc.get_type(), "").unwrap();
            b.build_or(acc, b.build_left_shift(bit, lane, "").unwrap(), "").unwrap()
        }
    }
}
