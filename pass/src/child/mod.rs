//! Variants of a child kernel: forms of its code that run somewhere other than in a grid of its own,
//! built once per (kernel, kind) and shared by every transformation that needs them.
//!
//! What every variant does: the child's index registers (threadIdx, blockIdx, blockDim, gridDim in x,
//! y, z; the table in runtime/index_registers.def) are read through the runtime's accessors, which give
//! the child's view of them, in the kernel and in copies of the device functions it calls that read
//! them (the originals keep serving their other callers).
//!
//! - [`VariantKind::Aggregated`]: `K__klap(ptr chunk)`, a kernel whose blocks serve many launches'
//!   worth of blocks: each finds its launch record (a division where every launch of `K` in the
//!   module has one constant number of blocks, else the runtime's search over the records' block
//!   ranges), loads that record's arguments, and returns at once where the thread is beyond the
//!   record's block size. Each thread that ran counts itself out of its record at its exit, so that
//!   the chunk is freed once all of its blocks are done. Where some of `K`'s parameters are uniform
//!   over every scope that launches it, the variant is `K__klap(K's parameters..., ptr chunk)`: the
//!   launch copies the chunk's first record into `K`'s parameters, and the variant reads the uniform
//!   ones there, as `K` does, from the kernel's parameter space instead of registers. Coarsened
//!   ([`Coarsening`]), each block runs a range of aggregated blocks in a loop, its threads meeting
//!   between two, and a thread beyond the record's block size or returning goes to the loop's latch.
//! - [`VariantKind::Thread`]: `K__klap_thread(params..., i32 x 12)`, the code of one child thread as a
//!   device function, its index registers passed as arguments (the table's order), `byval` parameters
//!   as plain pointers that it copies from. Only for a child whose threads need nothing of each other
//!   ([`ChildVariants::runs_alone`]).
//! - [`VariantKind::Serial`]: `K__klap_serial(params..., gx, gy, gz, bx, by, bz, limit)`, every thread of
//!   a child grid below `limit` (linear), one after another, in the calling thread.
//! - [`VariantKind::SerialInBound`]: `K__klap_serial_in_bound`, the serial variant for a `limit` that is
//!   the child's guard bound ([`ChildVariants::guard_bound`]): every thread it runs passes the guard, so
//!   its copy of the thread's code branches past the guard's test.
//! - [`VariantKind::WarpSerial`]: `K__klap_warp_serial(...)`, the serial variant's parameters: the
//!   children of the lanes of a warp that call it together, their threads shared out over those lanes
//!   (each run by the thread variant with its owner lane's arguments, shuffled from it).
//! - [`VariantKind::WarpRun`]: `K__klap_warp_run(params..., gx, gy, gz, bx, by, bz, i1 mine)`, called by
//!   all 32 lanes of a warp together: the children of the lanes that pass `mine`, one after another, each
//!   run a child warp at a time, lane l playing lane l of the child's warp (its thread `32 w + l`). For a
//!   child whose threads talk within their warp but not beyond ([`ChildVariants::runs_by_warp`]).
//! - [`VariantKind::WarpThread`]: `K__klap_warp_thread(params..., i32 x 12)`, the thread code the warp run
//!   calls where the child's shuffle trees are sums reduction.rs follows: those made whole-warp additions
//!   (reduced.rs); other children's warp runs call the thread variant.
//! - [`VariantKind::Block`]: `K__klap_block(params..., i32 x 12, i32 threads)`, the code of one child
//!   thread as the thread variant has it, for a parent block whose threads run one child block together
//!   (block reuse): its static and dynamic shared memory stay shared memory, its warp collectives stay
//!   (its threads are the parent block's first `threads`, whole warps), and its `__syncthreads` become
//!   barrier 1 among the threads running the child block (`threads`; 0: the whole parent block), so that
//!   parent threads with no child thread to play wait elsewhere. A child thread that returns keeps
//!   arriving at that barrier until every thread of the child block has returned: the child's threads
//!   that end early count as arrived at the barriers of the others, as they do in a block of its own.
//! - [`VariantKind::Promoted`]: `K__klap_promoted(params..., ptr slot)`, a kernel with the kernel's code
//!   as it is (its index registers its own), for the instances a promoted launch makes
//!   (transform/promote/ adds the wait for the parent and the parameters taken from the slot).
//! - [`VariantKind::Pool`]: `K__klap_pool(params..., ptr pool)`, the kernel's code for the blocks of a
//!   pool of promoted links launched as one grid (promotion with aggregation): each block is one link,
//!   a grid of one block in the chain as written, so its reads of blockIdx give 0 and of gridDim 1, in
//!   the kernel and in copies of the device functions it calls (threadIdx and blockDim are its own).
//!   transform/promote/ adds the dynamic index, the wait, and the parameters taken from the slot.

pub mod in_thread;
mod reduced;

use crate::callgraph::CallGraph;
use crate::llvm::{
    AddressSpace, BasicMetadataTypeEnum, BasicType, BasicTypeEnum, BasicValueEnum, Builder, BuilderExt, FunctionExt, FunctionValue,
    InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, IntValue, Linkage, Module, ModuleExt, ValueExt, SHARED_SPACE,
};
use crate::reduction::{is_linear_x, thread_collective, within_warp};
use crate::runtime::{is_runtime_function, IndexRegister, Runtime, RuntimeFn, UNIFORM_RECORDS};
use crate::site::abi::{classify_entry, EntryKind};
use crate::site::ops::entry_alloca;
use crate::site::{constant_over_launches, param_layout, uniform, LaunchSite};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VariantKind {
    Aggregated,
    Thread,
    Serial,
    /// The serial variant whose limit is the child's guard bound: the guard's test folded.
    SerialInBound,
    /// The serial variant run by the launching warp together (warp_serial).
    WarpSerial,
    /// The children of a warp's lanes run by the whole warp, a child warp at a time (warp_run).
    WarpRun,
    /// The thread code the warp run calls, its shuffle-tree sums made whole-warp additions (warp_thread).
    WarpThread,
    /// Every thread of a grid, a child warp at a time, its warp reductions folded over the lanes
    /// (reduced_serial; reduction.rs).
    ReducedSerial,
    Block,
    Promoted,
    Pool,
}

/// A variant of a child kernel.
pub struct Variant<'c> {
    pub function: FunctionValue<'c>,
    /// Where the original kernel's code starts (after the record lookup and argument loads).
    pub body_start: InstructionValue<'c>,
    /// Where each thread that ran counts itself out of its record's block; a scope in the variant
    /// must be done before (a grid scope lives in the chunk the count may free).
    pub exits: Vec<InstructionValue<'c>>,
    pub param_size: u64,
    /// Which parameters are uniform over every scope that launches it (passed once per chunk), and
    /// the 4-byte words of the parameter buffer that hold only those.
    pub uniform: Vec<bool>,
    pub uniform_words: u64,
    /// The aggregated variant takes `K`'s parameters before the chunk (the launch fills them from the
    /// chunk's first record).
    pub args_in_params: bool,
    /// How the blocks of the aggregated variant run several aggregated blocks, where they do.
    pub coarsen: Option<Coarsening>,
    /// How each block of the aggregated variant finds its record.
    pub lookup: RecordLookup,
}

impl<'c> Variant<'c> {
    /// A variant that serves no chunk (thread, serial, warp, block, promoted and pool variants): none of the
    /// aggregated variant's fields apply. `param_size`: the bytes of its parameters, where they matter.
    fn unaggregated(function: FunctionValue<'c>, body_start: InstructionValue<'c>, param_size: u64) -> Self {
        Variant {
            function,
            body_start,
            exits: Vec::new(),
            param_size,
            uniform: Vec::new(),
            uniform_words: 0,
            args_in_params: false,
            coarsen: None,
            lookup: RecordLookup::Search,
        }
    }
}

/// How an aggregated block finds its record among its chunk's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RecordLookup {
    /// Every launch of the child is a grid of this many blocks (a constant): a division.
    Blocks(u32),
    /// Every launch registers one configuration over its scope (site/uniform.rs): every record of a
    /// chunk has the first's, and a division by its blocks finds a record.
    FirstRecord,
    /// A search over the records' block ranges.
    Search,
}

impl RecordLookup {
    /// The runtime's operand: the blocks, its UNIFORM_RECORDS, or 0 for a search.
    fn operand(self) -> u64 {
        match self {
            RecordLookup::Blocks(n) => n as u64,
            RecordLookup::FirstRecord => UNIFORM_RECORDS as u64,
            RecordLookup::Search => 0,
        }
    }
}

/// Coarsening of an aggregated child (`-klap-coarsen`, `-klap-coarsen-sm-threads`): each block of its
/// launch runs up to `factor` aggregated blocks, one after another, but the launch keeps blocks of
/// `sm_threads` threads for each multiprocessor (as many blocks as it holds at most; and no more blocks
/// than the aggregated ones).
/// Under `auto` (`one_warp_blocks`), only children whose every launch has blocks of one warp at most.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Coarsening {
    pub factor: u32,
    pub sm_threads: u32,
    pub one_warp_blocks: bool,
}

impl Coarsening {
    /// Whether it changes anything: a factor of 0 or 1 runs one aggregated block a block.
    pub fn on(self) -> bool {
        self.factor > 1
    }
    /// The same, off.
    pub fn off(self) -> Coarsening {
        Coarsening { factor: 0, ..self }
    }
    /// Whether it passes over `child`, launched at `sites`, for its blocks: under `auto` a child some launch
    /// of which has blocks wider than a warp, or not of one constant size over its launches.
    pub fn passes_over<'c>(self, sites: &[LaunchSite<'c>], child: FunctionValue<'c>) -> bool {
        self.one_warp_blocks && constant_over_launches(sites, child, |s| s.block.constant_product()).is_none_or(|n| n > 32)
    }
    /// The coarsening asked for `child`, launched at `sites`: off where it passes over it.
    pub fn asked_for<'c>(self, sites: &[LaunchSite<'c>], child: FunctionValue<'c>) -> Coarsening {
        if self.passes_over(sites, child) {
            self.off()
        } else {
            self
        }
    }
}

/// Set in the parameter size given to the runtime where the aggregated variant takes the child's
/// parameters (the runtime's ARGS_IN_PARAMS).
const ARGS_IN_PARAMS: u64 = 1 << 30;

/// Where the parameter size given to the runtime carries the coarsening factor and the threads per
/// multiprocessor, in 64s (the runtime's COARSEN_SHIFT, 8 bits, and COARSEN_SM_THREADS_SHIFT, 6 bits; the
/// shim keeps the options within them).
const COARSEN_SHIFT: u64 = 16;
const COARSEN_SM_THREADS_SHIFT: u64 = 24;
const COARSEN_SM_THREADS_UNIT: u64 = 64;

/// The most bytes of parameters a kernel launched from the device takes.
const PARAM_BUFFER_MAX: u64 = 4096;

impl Variant<'_> {
    /// The parameter size the runtime is given with the aggregated variant.
    pub fn launch_size(&self) -> u64 {
        let coarsen = self
            .coarsen
            .map_or(0, |c| (c.factor as u64) << COARSEN_SHIFT | (c.sm_threads as u64 / COARSEN_SM_THREADS_UNIT) << COARSEN_SM_THREADS_SHIFT);
        self.param_size | if self.args_in_params { ARGS_IN_PARAMS } else { 0 } | coarsen
    }
}

pub struct ChildVariants<'a, 'c> {
    module: &'a Module<'c>,
    /// The device runtime, for the variants that call it (aggregated).
    runtime: Option<&'a Runtime<'c>>,
    calls: CallGraph<'c>,
    /// Functions whose code (or whose callees' code) reads an index register.
    readers: HashSet<FunctionValue<'c>>,
    /// Copies of device functions with their index registers remapped onto the runtime's accessors.
    remapped: HashMap<FunctionValue<'c>, FunctionValue<'c>>,
    /// Copies of device functions that take the index registers as twelve trailing arguments.
    with_indices: HashMap<FunctionValue<'c>, FunctionValue<'c>>,
    /// Copies of device functions whose blockIdx reads give 0 and gridDim reads 1 (pool variants).
    one_block: HashMap<FunctionValue<'c>, FunctionValue<'c>>,
    variants: HashMap<(FunctionValue<'c>, VariantKind), Variant<'c>>,
}

impl<'a, 'c> ChildVariants<'a, 'c> {
    /// `runtime` is needed for the aggregated variants only.
    pub fn new(module: &'a Module<'c>, runtime: Option<&'a Runtime<'c>>) -> Self {
        let calls = CallGraph::build(module);
        let mut readers = calls.functions_calling(|g| IndexRegister::read_by(&g.name()).is_some());
        // The runtime reads the physical registers on purpose.
        readers.retain(|&f| !is_runtime_function(f));
        ChildVariants {
            module,
            runtime,
            calls,
            readers,
            remapped: HashMap::new(),
            with_indices: HashMap::new(),
            one_block: HashMap::new(),
            variants: HashMap::new(),
        }
    }

    pub fn get(&self, kernel: FunctionValue<'c>, kind: VariantKind) -> Option<&Variant<'c>> {
        self.variants.get(&(kernel, kind))
    }

    /// The variant that owns `function`, if it is one.
    pub fn owning(&self, function: FunctionValue<'c>) -> Option<&Variant<'c>> {
        self.variants.values().find(|v| v.function == function)
    }

    /// The aggregated variant of `kernel`, with `uniform` saying which parameters come once per chunk,
    /// and `lookup` how its blocks find their records.
    /// Coarsened as `coarsen` says where that is on and [`ChildVariants::coarsenable`] allows (the
    /// variant's `coarsen`).
    /// `after_taken`: parent blocks may have run the first records of its chunks (grid reuse), and its
    /// blocks start past them; such a child is not coarsened.
    pub fn aggregated(&mut self, kernel: FunctionValue<'c>, uniform: &[bool], lookup: RecordLookup, coarsen: Coarsening, after_taken: bool) -> &Variant<'c> {
        let key = (kernel, VariantKind::Aggregated);
        if !self.variants.contains_key(&key) {
            let coarsen = (!after_taken && self.coarsens(kernel, coarsen)).then_some(coarsen);
            let v = self.build_aggregated(kernel, uniform, lookup, coarsen, after_taken);
            self.variants.insert(key, v);
        }
        &self.variants[&key]
    }

    /// Whether `kernel`'s aggregated variant is coarsened where `coarsen` is asked for (and no parent block
    /// takes its blocks).
    pub fn coarsens(&self, kernel: FunctionValue<'c>, coarsen: Coarsening) -> bool {
        coarsen.on() && self.coarsenable(kernel).is_ok()
    }

    /// Whether a block of `kernel`'s aggregated variant can run several aggregated blocks one after another
    /// (coarsening, Olabi et al., CGO 2022): its threads must need nothing of each other
    /// ([`ChildVariants::runs_alone`]: no barrier, no warp collective, no shared memory, no launch of its
    /// own), so that a thread done with one block may wait for the others at the next one's entry, and its
    /// stack must be of a size known before it runs, so that running it again takes none more. Else why not.
    pub fn coarsenable(&self, kernel: FunctionValue<'c>) -> Result<(), String> {
        self.runs_alone(kernel)?;
        if kernel.instructions().into_iter().any(|i| i.get_opcode() == InstructionOpcode::Alloca && i.operand(0).const_int().is_none()) {
            return Err(format!("@{} takes stack of a size known only as it runs", kernel.name()));
        }
        Ok(())
    }

    fn build_aggregated(&mut self, kernel: FunctionValue<'c>, uniform: &[bool], lookup: RecordLookup, coarsen: Option<Coarsening>, after_taken: bool) -> Variant<'c> {
        let (module, runtime) = (self.module, self.runtime.expect("aggregated variants call the runtime"));
        let cx = module.get_context();
        let ptr = cx.ptr_type(AddressSpace::default());
        let (params, param_size) = param_layout(module, kernel);
        let uniform = uniform.to_vec();
        let uniform_words = uniform::uniform_words(&params, &uniform, param_size);
        // Read from parameter space, as in `K`, the uniform arguments take no registers; from the
        // record, each is a register for as long as it is live (qt's child: 78 registers with them
        // loaded from the record, 69 from parameter space, nvlink's count).
        // The chunk pointer comes after `K`'s parameters, at the next 8-byte boundary.
        let chunk_offset = param_size.div_ceil(8) * 8;
        let args_in_params = uniform.contains(&true) && chunk_offset + 8 <= PARAM_BUFFER_MAX;
        let mut types: Vec<BasicMetadataTypeEnum<'c>> = Vec::new();
        if args_in_params {
            types.extend(kernel.get_params().iter().map(|p| BasicMetadataTypeEnum::from(p.get_type())));
        }
        types.push(ptr.into());
        let f = module.add_function(&format!("{}__klap", kernel.name()), cx.void_type().fn_type(&types, false), None);
        f.set_ptx_kernel();
        f.set_linkage(kernel.get_linkage());
        let chunk = f.get_nth_param(types.len() as u32 - 1).unwrap();
        chunk.set_value_name("klap.chunk");
        if args_in_params {
            for (param, original) in f.get_params().iter().zip(kernel.get_params()) {
                param.set_value_name(&original.get_name().to_string_lossy());
            }
        }
        let entry = cx.append_basic_block(f, "klap.entry");
        let b = cx.create_builder();
        b.position_at_end(entry);
        // A parameter read from the record is a placeholder until the record is found.
        let from_record = |i: usize| !(args_in_params && uniform[i]);
        let placeholders: Vec<Option<InstructionValue<'c>>> =
            kernel.get_params().iter().enumerate().map(|(i, p)| from_record(i).then(|| b.freeze_poison(p.get_type()))).collect();
        let mapped: Vec<BasicValueEnum<'c>> = placeholders
            .iter()
            .enumerate()
            .map(|(i, p)| p.map_or_else(|| f.get_nth_param(i as u32).unwrap(), |p| p.result()))
            .collect();
        kernel.clone_body_into(f, &mapped);
        if args_in_params {
            // The clone gave attributes to the parameters it mapped onto parameters only; the others
            // need theirs (byval, align) for the same layout.
            for i in (0..params.len()).filter(|&i| from_record(i)) {
                f.copy_param_attributes(kernel, i as u32);
            }
            debug_assert_eq!(param_layout(module, f).0.last().map(|p| p.offset), Some(chunk_offset));
        }
        let body = f.get_basic_blocks()[1];

        hoist_allocas(&b, body, entry);
        b.position_at_end(entry);
        // With as many blocks in every record, a block finds its record by a division, not a search.
        let blocks_per_record = cx.i32_type().const_int(lookup.operand(), false).into();
        let (args, masked_return, latch) = if coarsen.is_some() {
            hoist_fixed_allocas(&b, f, entry);
            b.position_at_end(entry);
            let (args, done, latch) = coarsened_entry(module, runtime, &b, f, chunk, blocks_per_record, body);
            (args, done, Some(latch))
        } else {
            let enter = if after_taken { RuntimeFn::ChildEnterAfterTaken } else { RuntimeFn::ChildEnter };
            let args = b.call_value(runtime.get(enter), &[chunk, blocks_per_record]);
            let active = b.is_not_null(args);
            let masked = cx.append_basic_block(f, "klap.masked");
            b.build_conditional_branch(active, body, masked).expect("builder positioned");
            b.position_at_end(masked);
            (args, b.build_return(None).expect("builder positioned"), None)
        };

        let body_start = body.get_first_instruction().unwrap();
        b.position_before(&body_start);
        let once_per_chunk = (0..params.len()).any(|i| uniform[i] && from_record(i));
        let uniform_args = once_per_chunk.then(|| b.call_value(runtime.get(RuntimeFn::ChildUniformArgs), &[]));
        for (i, param) in params.iter().enumerate() {
            let Some(placeholder) = placeholders[i] else { continue };
            let base = if uniform[i] { uniform_args.unwrap() } else { args };
            let at = b.byte_gep(base, param.offset);
            let value = if param.byval {
                // A kernel may write its by-value struct; each thread gets its own copy, as before.
                let copy = entry_alloca(module, f, param.ty, param.align as u32);
                let v = b.load_aligned(param.ty, at, param.align.min(16) as u32);
                b.store_aligned(v, copy, param.align as u32);
                copy
            } else {
                b.load_aligned(placeholder.result().get_type(), at, param.align.min(16) as u32)
            };
            placeholder.replace_uses_with(value);
            placeholder.erase();
        }
        let mut exits = Vec::new();
        for ret in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Return && *i != masked_return) {
            b.position_before(&ret);
            exits.push(b.call(runtime.get(RuntimeFn::ChildExit), &[]));
            if let Some(latch) = latch {
                b.build_unconditional_branch(latch).expect("builder positioned");
                ret.erase();
            }
        }
        self.rewrite_index_reads(f, IndexRewrite::Accessors);
        Variant { function: f, body_start, exits, param_size, uniform, uniform_words, args_in_params, coarsen, lookup }
    }

    /// Whether each thread of `kernel` can run alone, one after another in one thread: nothing in it or
    /// in what it calls waits for, or talks to, another thread of its block or warp. Else why not.
    pub fn runs_alone(&self, kernel: FunctionValue<'c>) -> Result<(), String> {
        self.runs_serially(kernel, false)
    }

    /// Whether the threads of `kernel` can be run a warp at a time by a warp of the launching grid, each
    /// lane playing the child thread of its own lane number ([`VariantKind::WarpRun`]): as
    /// [`Self::runs_alone`], but its threads may talk within their warp (shuffles, votes, reductions,
    /// matches, `__activemask`, `__syncwarp`, lane numbers and masks), since the lanes of the child's
    /// warp are then the lanes of one warp. Nothing of the block: no barrier, no shared memory.
    pub fn runs_by_warp(&self, kernel: FunctionValue<'c>) -> Result<(), String> {
        self.runs_serially(kernel, true)
    }

    fn runs_serially(&self, kernel: FunctionValue<'c>, by_warp: bool) -> Result<(), String> {
        // Its launches would be made inside the serial loop, launches in a loop next to the aggregation's
        // warp-synchronous runtime code: test/gpu/multilevel at auto (mid serialized, some of its leaf
        // launches left to launch there) hung on an H100 in every run.
        if let Some(launch) = self.calls.find_reached(kernel, |i| {
            i.called_function().and_then(|f| classify_entry(&f.name())).is_some_and(|e| e.kind == EntryKind::Launch)
        }) {
            return Err(format!("it launches kernels itself (in @{})", launch.function().name()));
        }
        // Run in the parent, an exit would end the parent's thread.
        if let Some(end) = self.calls.thread_end_without_return(kernel) {
            return Err(format!("it can end its thread without returning (in @{})", end.function().name()));
        }
        for f in self.calls.reachable_from(kernel) {
            let within = if f == kernel { String::new() } else { format!(" (in @{}, which it calls)", f.name()) };
            if self.calls.calls_indirectly(f) {
                return Err(format!("it makes a call through a pointer{within}"));
            }
            for inst in f.instructions() {
                if let Some(what) = inst.inline_asm_text().and_then(|text| asm_needs_threads(&text)) {
                    return Err(format!("its inline assembly {what}{within}"));
                }
                if let Some(callee) = inst.called_function() {
                    let name = callee.name();
                    if let Some(what) = thread_collective(&name).filter(|_| !(by_warp && within_warp(&name))) {
                        return Err(format!("it {what}{within}"));
                    }
                    if self.readers.contains(&callee) && (0..callee.count_params()).any(|i| callee.param_byval_type(i).is_some()) {
                        return Err(format!("@{name}, which reads an index register, takes a by-value argument{within}"));
                    }
                }
                if (0..inst.get_num_operands()).any(|i| inst.value_operand(i).is_some_and(|v| v.points_into(&[SHARED_SPACE]))) {
                    return Err(format!("it uses shared memory{within}"));
                }
            }
        }
        Ok(())
    }

    /// The parameter that bounds `kernel`'s working threads, when its entry is a one-dimensional guard:
    /// `if (blockIdx.x * blockDim.x + threadIdx.x < n) { ... }` or `if (... >= n) return;`. Threads at or
    /// past n (linear, in a one-dimensional grid of one-dimensional blocks) do nothing. Returns the index
    /// of n among the parameters and whether the comparison is signed.
    pub fn guard_bound(&self, kernel: FunctionValue<'c>) -> Option<(u32, bool)> {
        guard(kernel).map(|g| (g.bound, g.signed))
    }

    /// The variant of `kernel` named with `suffix` that an earlier step's variants built, if the module has it:
    /// one that needs nothing but its function (a serial variant), shared rather than built twice.
    fn built_by_an_earlier_step(&self, kernel: FunctionValue<'c>, suffix: &str) -> Option<FunctionValue<'c>> {
        self.module.get_function(&format!("{}{suffix}", kernel.name())).filter(|f| !f.is_declaration())
    }

    /// The variant of `kernel` of this kind, built by `build` the first time it is asked for.
    fn cached(&mut self, kernel: FunctionValue<'c>, kind: VariantKind, build: impl FnOnce(&mut Self) -> Variant<'c>) -> FunctionValue<'c> {
        let key = (kernel, kind);
        if !self.variants.contains_key(&key) {
            let v = build(self);
            self.variants.insert(key, v);
        }
        self.variants[&key].function
    }

    /// `kernel` and every function its calls may reach.
    pub fn reachable(&self, kernel: FunctionValue<'c>) -> Vec<FunctionValue<'c>> {
        self.calls.reachable_from(kernel)
    }

    /// The code of one thread of `kernel` as a device function (callers check [`Self::runs_alone`]).
    pub fn thread(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        self.cached(kernel, VariantKind::Thread, |this| this.build_thread(kernel))
    }

    /// `K__klap_promoted(params..., ptr slot)`: a kernel with `kernel`'s code, as yet unchanged.
    pub fn promoted(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        self.cached(kernel, VariantKind::Promoted, |this| this.build_promoted(kernel))
    }

    /// `K__klap_pool(params..., ptr pool)`: `kernel`'s code as one link of a pool of promoted links
    /// (callers check [`unremappable_index_read`] first): its blockIdx reads give 0, its gridDim reads 1.
    pub fn pool(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        self.cached(kernel, VariantKind::Pool, |this| {
            let v = this.build_with_extra_pointer(kernel, "__klap_pool", "klap.pool");
            this.rewrite_index_reads(v.function, IndexRewrite::OneBlock);
            v
        })
    }

    fn build_promoted(&mut self, kernel: FunctionValue<'c>) -> Variant<'c> {
        self.build_with_extra_pointer(kernel, "__klap_promoted", "klap.slot")
    }

    /// A kernel `K<suffix>(params..., ptr <pointer>)` with `kernel`'s code, as yet unchanged.
    fn build_with_extra_pointer(&mut self, kernel: FunctionValue<'c>, suffix: &str, pointer: &str) -> Variant<'c> {
        let cx = self.module.get_context();
        let mut types: Vec<BasicMetadataTypeEnum<'c>> = kernel.get_type().get_param_types();
        types.push(cx.ptr_type(AddressSpace::default()).into());
        let f = self.module.add_function(&format!("{}{suffix}", kernel.name()), cx.void_type().fn_type(&types, false), None);
        f.set_ptx_kernel();
        f.set_linkage(kernel.get_linkage());
        for (p, q) in f.get_params().iter().zip(kernel.get_params()) {
            p.set_value_name(&q.get_name().to_string_lossy());
        }
        f.get_last_param().unwrap().set_value_name(pointer);
        let entry = cx.append_basic_block(f, "klap.entry");
        let args: Vec<BasicValueEnum<'c>> = f.get_params()[..kernel.count_params() as usize].to_vec();
        kernel.clone_body_into(f, &args);
        let body = f.get_basic_blocks()[1];
        let b = cx.create_builder();
        hoist_allocas(&b, body, entry);
        b.position_at_end(entry);
        b.build_unconditional_branch(body).expect("builder positioned");
        let body_start = body.get_first_instruction().expect("a cloned body");
        let (_, param_size) = param_layout(self.module, kernel);
        Variant::unaggregated(f, body_start, param_size)
    }

    /// Every thread of a grid of `kernel`, one after another, as a device function.
    pub fn serial(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        if let Some(f) = self.built_by_an_earlier_step(kernel, "__klap_serial") {
            return f;
        }
        self.cached(kernel, VariantKind::Serial, |this| {
            let thread = this.thread(kernel);
            this.build_serial(kernel, thread, "__klap_serial")
        })
    }

    /// [`Self::serial`] for a `limit` that is the child's guard bound (callers check [`Self::guard_bound`]):
    /// every thread it runs is below the bound, so its thread's code skips the guard's test.
    pub fn serial_in_bound(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        self.cached(kernel, VariantKind::SerialInBound, |this| {
            let thread = this.build_one_thread(kernel, "__klap_thread_in_bound", &[]).function;
            let guard = guard(kernel).expect("callers check guard_bound");
            // The clone's first block after its entry is the kernel's entry, ending in the guard's branch.
            let test = thread.get_basic_blocks()[1].get_terminator().expect("a cloned entry block");
            let Some(crate::llvm::Operand::Block(working)) = test.get_operand(guard.working) else {
                unreachable!("the guard's branch has two successors")
            };
            let b = this.module.get_context().create_builder();
            b.position_before(&test);
            b.build_unconditional_branch(working).expect("builder positioned");
            let condition = test.operand(0).instruction_of(InstructionOpcode::ICmp);
            test.erase();
            if let Some(c) = condition.filter(|c| c.get_first_use().is_none()) {
                c.erase();
            }
            this.build_serial(kernel, thread, "__klap_serial_in_bound")
        })
    }

    /// `K__klap_warp_serial`, with [`Self::serial`]'s parameters: the serialized children of the lanes of a
    /// warp that reach the launch together, run by those lanes together. Each lane's child has at most
    /// `2^bits - 1` threads; their threads are numbered in lane order (an exclusive sum over the lanes, by
    /// ballots of each bit of the counts), and the lanes take them in turn, `lanes` at a time: a thread of
    /// lane j's child runs on some lane with lane j's arguments (shuffled from it). So the children's work
    /// is spread evenly over the lanes, and consecutive threads of one child run on consecutive lanes.
    /// None where a parameter cannot be shuffled (by value, an aggregate or a vector).
    pub fn warp_serial(&mut self, kernel: FunctionValue<'c>, bits: u32) -> Option<FunctionValue<'c>> {
        if !Self::shufflable(kernel) {
            return None;
        }
        Some(self.cached(kernel, VariantKind::WarpSerial, |this| {
            let thread = this.thread(kernel);
            this.build_warp_serial(kernel, thread, bits.clamp(1, 31))
        }))
    }

    fn build_warp_serial(&mut self, kernel: FunctionValue<'c>, thread: FunctionValue<'c>, bits: u32) -> Variant<'c> {
        let module = self.module;
        let cx = module.get_context();
        let (i1t, i32t, i64t) = (cx.bool_type(), cx.i32_type(), cx.i64_type());
        let n = kernel.count_params() as usize;
        let f = warp_variant_function(module, kernel, "__klap_warp_serial", i64t.into());
        let intrinsic = |name: &str, ty: crate::llvm::FunctionType<'c>| module.get_or_declare(name, ty);
        let lanemask_lt = intrinsic("llvm.nvvm.read.ptx.sreg.lanemask.lt", i32t.fn_type(&[], false));
        let ballot = intrinsic("llvm.nvvm.vote.ballot.sync", i32t.fn_type(&[i32t.into(), i1t.into()], false));
        let shfl = intrinsic("llvm.nvvm.shfl.sync.idx.i32", i32t.fn_type(&[i32t.into(), i32t.into(), i32t.into(), i32t.into()], false));
        let popc = intrinsic("llvm.ctpop.i32", i32t.fn_type(&[i32t.into()], false));
        let ctlz = intrinsic("llvm.ctlz.i32", i32t.fn_type(&[i32t.into(), i1t.into()], false));
        let p: Vec<BasicValueEnum<'c>> = f.get_params();
        let entry = cx.append_basic_block(f, "entry");
        let head = cx.append_basic_block(f, "items");
        let item = cx.append_basic_block(f, "item");
        let run = cx.append_basic_block(f, "run");
        let next = cx.append_basic_block(f, "next");
        let exit = cx.append_basic_block(f, "exit");
        let b = cx.create_builder();
        let c32 = |v: u64| i32t.const_int(v, false);
        let call = |b: &Builder<'c>, f: FunctionValue<'c>, args: &[BasicValueEnum<'c>]| b.call_value(f, args).into_int_value();

        b.position_at_end(entry);
        let dim = |i: usize| p[n + i].into_int_value();
        let product = |v: [IntValue<'c>; 3]| product3(&b, v);
        let nb = product([dim(0), dim(1), dim(2)]);
        let nt = product([dim(3), dim(4), dim(5)]);
        let all = b.build_int_mul(b.build_int_z_extend(nb, i64t, "").unwrap(), b.build_int_z_extend(nt, i64t, "").unwrap(), "").unwrap();
        let limit = p[n + 6].into_int_value();
        let fewer = b.build_int_compare(IntPredicate::ULT, limit, all, "").unwrap();
        let count64 = b.build_select(fewer, limit, all, "").unwrap().into_int_value();
        let count = b.build_int_truncate(count64, i32t, "count").unwrap();
        let mask = warp_lanes(module, &b);
        // The lanes' writes before the launch are seen by every lane that runs a thread of their children.
        sync_warp_lanes(module, &b, mask);
        let mask = mask.into_int_value();
        let below = call(&b, lanemask_lt, &[]);
        // One ballot per bit of the counts: the sum over any set of lanes is the bits' popcounts, weighted.
        let slices: Vec<IntValue<'c>> = (0..bits)
            .map(|k| {
                let bit = b.build_and(b.build_right_shift(count, c32(k as u64), false, "").unwrap(), c32(1), "").unwrap();
                let set = b.build_int_compare(IntPredicate::NE, bit, c32(0), "").unwrap();
                call(&b, ballot, &[mask.into(), set.into()])
            })
            .collect();
        let working = {
            let nonzero = b.build_int_compare(IntPredicate::NE, count, c32(0), "").unwrap();
            call(&b, ballot, &[mask.into(), nonzero.into()])
        };
        // The sum of the counts of the lanes in `lanes`.
        let sum_over = |b: &Builder<'c>, lanes: IntValue<'c>| {
            let mut total = c32(0);
            for (k, slice) in slices.iter().enumerate() {
                let part = b.build_and(*slice, lanes, "").unwrap();
                let ones = call(b, popc, &[part.into()]);
                total = b.build_int_add(total, b.build_left_shift(ones, c32(k as u64), "").unwrap(), "").unwrap();
            }
            total
        };
        let total = sum_over(&b, i32t.const_all_ones());
        let lanes = call(&b, popc, &[mask.into()]);
        let rank = call(&b, popc, &[b.build_and(mask, below, "").unwrap().into()]);
        b.build_unconditional_branch(head).unwrap();

        b.position_at_end(head);
        let base = b.build_phi(i32t, "base").unwrap();
        let more = b.build_int_compare(IntPredicate::ULT, base.as_basic_value().into_int_value(), total, "").unwrap();
        b.build_conditional_branch(more, item, exit).unwrap();

        b.position_at_end(item);
        let k = b.build_int_add(base.as_basic_value().into_int_value(), rank, "k").unwrap();
        let valid = b.build_int_compare(IntPredicate::ULT, k, total, "").unwrap();
        // Lanes below j (bits 0..j-1): all ones shifted right by 32 - j, for j in 1..=31.
        let lanes_below = |b: &Builder<'c>, j: IntValue<'c>| {
            let shift = b.build_int_sub(c32(32), j, "").unwrap();
            b.build_right_shift(i32t.const_all_ones(), shift, false, "").unwrap()
        };
        // The last lane j whose children's threads before it (the sum over lanes below j) are at most k.
        let mut j = c32(0);
        for step in [16u64, 8, 4, 2, 1] {
            let candidate = b.build_int_add(j, c32(step), "").unwrap();
            let before = sum_over(&b, lanes_below(&b, candidate));
            let fits = b.build_int_compare(IntPredicate::ULE, before, k, "").unwrap();
            j = b.build_select(fits, candidate, j, "").unwrap().into_int_value();
        }
        // Its owner: the last working lane at or below j (lanes at or below j: all ones shifted right by 31 - j).
        let upto = b.build_right_shift(i32t.const_all_ones(), b.build_int_sub(c32(31), j, "").unwrap(), false, "").unwrap();
        let candidates = b.build_and(working, upto, "").unwrap();
        let zeros = call(&b, ctlz, &[candidates.into(), i1t.const_zero().into()]);
        let found = b.build_int_sub(c32(31), zeros, "").unwrap();
        let own = call(&b, intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.fn_type(&[], false)), &[]);
        let owner = b.build_select(valid, found, own, "owner").unwrap().into_int_value();
        let owner_before = {
            let zero_owner = b.build_int_compare(IntPredicate::EQ, owner, c32(0), "").unwrap();
            let below_owner = lanes_below(&b, owner);
            let lanes = b.build_select(zero_owner, c32(0), below_owner, "").unwrap().into_int_value();
            sum_over(&b, lanes)
        };
        let t = b.build_int_sub(k, owner_before, "t").unwrap();
        // The owner's arguments, every lane of the mask taking part in each shuffle.
        let take = |b: &Builder<'c>, v: BasicValueEnum<'c>| -> BasicValueEnum<'c> { shuffle(module, b, shfl, mask, owner, v) };
        let args: Vec<BasicValueEnum<'c>> = p[..n + 6].iter().map(|v| take(&b, *v)).collect();
        b.build_conditional_branch(valid, run, next).unwrap();

        b.position_at_end(run);
        let odim = |i: usize| args[n + i].into_int_value();
        let grid = [odim(0), odim(1), odim(2)];
        let block = [odim(3), odim(4), odim(5)];
        let per_block = product3(&b, block);
        let blk = b.build_int_unsigned_div(t, per_block, "").unwrap();
        let within = b.build_int_unsigned_rem(t, per_block, "").unwrap();
        let tid = split_index(&b, within, block);
        let ctaid = split_index(&b, blk, grid);
        b.call(thread, &thread_arguments(&args[..n], tid, block, ctaid, grid));
        b.build_unconditional_branch(next).unwrap();

        b.position_at_end(next);
        let base_next = b.build_int_add(base.as_basic_value().into_int_value(), lanes, "").unwrap();
        b.build_unconditional_branch(head).unwrap();

        b.position_at_end(exit);
        b.build_return(None).unwrap();
        base.add_incoming(&[(&c32(0), entry), (&base_next, next)]);
        let body_start = run.get_first_instruction().unwrap();
        Variant::unaggregated(f, body_start, 0)
    }

    /// Whether every parameter of `kernel` can be shuffled between lanes: integers, floats and pointers,
    /// none by value.
    pub fn shufflable(kernel: FunctionValue<'c>) -> bool {
        (0..kernel.count_params()).all(|i| kernel.param_byval_type(i).is_none()) && Self::warp_runnable_params(kernel)
    }

    /// Whether the warp can run `kernel`'s children: every parameter is an integer, a float or a pointer
    /// (a by-value one is a pointer: its bytes are shuffled into a copy).
    pub fn warp_runnable_params(kernel: FunctionValue<'c>) -> bool {
        kernel.get_params().iter().all(|p| matches!(p.get_type(), BasicTypeEnum::IntType(_) | BasicTypeEnum::FloatType(_) | BasicTypeEnum::PointerType(_)))
    }

    /// The warp-run variant of `kernel` ([`VariantKind::WarpRun`]; callers check [`Self::runs_by_warp`]),
    /// or None where a parameter cannot be shuffled between lanes (an aggregate or a vector not by value).
    pub fn warp_run(&mut self, kernel: FunctionValue<'c>) -> Option<FunctionValue<'c>> {
        if !Self::warp_runnable_params(kernel) {
            return None;
        }
        Some(self.cached(kernel, VariantKind::WarpRun, |this| {
            let thread = this.warp_thread(kernel);
            this.build_warp_run(kernel, thread)
        }))
    }

    fn build_warp_run(&mut self, kernel: FunctionValue<'c>, thread: FunctionValue<'c>) -> Variant<'c> {
        let module = self.module;
        let cx = module.get_context();
        let (i1t, i32t) = (cx.bool_type(), cx.i32_type());
        let n = kernel.count_params() as usize;
        let f = warp_variant_function(module, kernel, "__klap_warp_run", i1t.into());
        let intrinsic = |name: &str, ty: crate::llvm::FunctionType<'c>| module.get_or_declare(name, ty);
        let ballot = intrinsic("llvm.nvvm.vote.ballot.sync", i32t.fn_type(&[i32t.into(), i1t.into()], false));
        let shfl = intrinsic("llvm.nvvm.shfl.sync.idx.i32", i32t.fn_type(&[i32t.into(), i32t.into(), i32t.into(), i32t.into()], false));
        let cttz = intrinsic("llvm.cttz.i32", i32t.fn_type(&[i32t.into(), i1t.into()], false));
        let laneid = intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.fn_type(&[], false));
        let p: Vec<BasicValueEnum<'c>> = f.get_params();
        let block_of = |name: &str| cx.append_basic_block(f, name);
        let (entry, children, child, blocks, warps, run, flat, shaped, call, next) = (
            block_of("entry"),
            block_of("children"),
            block_of("child"),
            block_of("blocks"),
            block_of("warps"),
            block_of("run"),
            block_of("run.flat"),
            block_of("run.shaped"),
            block_of("call"),
            block_of("next"),
        );
        let (block_done, child_done, exit) = (block_of("block.done"), block_of("child.done"), block_of("exit"));
        let b = cx.create_builder();
        let c32 = |v: u64| i32t.const_int(v, false);
        let all = i32t.const_all_ones();

        b.position_at_end(entry);
        // A by-value parameter: the owner's bytes, shuffled into a copy of this lane's.
        let (params, _) = param_layout(module, kernel);
        let copies: Vec<Option<BasicValueEnum<'c>>> = params.iter().map(|param| param.byval.then(|| b.alloca_aligned(param.ty, param.align as u32))).collect();
        // The lanes' writes before their launches are seen by every lane that runs a thread of their children.
        sync_warp_lanes(module, &b, all.into());
        let owners = b.call_value(ballot, &[all.into(), p[n + 6]]).into_int_value();
        let lane = b.call_value(laneid, &[]).into_int_value();
        b.build_unconditional_branch(children).unwrap();

        // Each owner's child in turn, lowest lane first.
        b.position_at_end(children);
        let left = b.build_phi(i32t, "left").unwrap();
        let left_v = left.as_basic_value().into_int_value();
        let any = b.build_int_compare(IntPredicate::NE, left_v, c32(0), "").unwrap();
        b.build_conditional_branch(any, child, exit).unwrap();

        b.position_at_end(child);
        let owner = b.call_value(cttz, &[left_v.into(), i1t.const_all_ones().into()]).into_int_value();
        let args: Vec<BasicValueEnum<'c>> = p[..n + 6]
            .iter()
            .enumerate()
            .map(|(i, v)| match copies.get(i).copied().flatten() {
                Some(copy) => {
                    shuffle_bytes(module, &b, shfl, owner, *v, copy, module.store_size(params[i].ty), params[i].align);
                    copy
                }
                None => shuffle(module, &b, shfl, all, owner, *v),
            })
            .collect();
        let dim = |i: usize| args[n + i].into_int_value();
        let grid = [dim(0), dim(1), dim(2)];
        let block = [dim(3), dim(4), dim(5)];
        let threads = product3(&b, block);
        let warps_per_block = b.build_int_unsigned_div(b.build_int_add(threads, c32(31), "").unwrap(), c32(32), "").unwrap();
        let blocks_total = product3(&b, grid);
        let one_d = one_dimensional(&b, block);
        let child_end = b.get_insert_block().unwrap();
        b.build_unconditional_branch(blocks).unwrap();

        // The child's blocks in x-fastest order, counted like an odometer.
        b.position_at_end(blocks);
        let done_blocks = b.build_phi(i32t, "block.count").unwrap();
        let ctaid_phis: Vec<_> = ["ctaid.x", "ctaid.y", "ctaid.z"].iter().map(|name| b.build_phi(i32t, name).unwrap()).collect();
        let ctaid: [IntValue<'c>; 3] = std::array::from_fn(|d| ctaid_phis[d].as_basic_value().into_int_value());
        let more_blocks = b.build_int_compare(IntPredicate::ULT, done_blocks.as_basic_value().into_int_value(), blocks_total, "").unwrap();
        b.build_conditional_branch(more_blocks, warps, child_done).unwrap();

        // A block's warps; lane l plays thread 32 w + l where the block has it.
        let (warp, warp_v) = b.count_below(warps, warps_per_block, "warp", run, block_done);

        b.position_at_end(run);
        let t = b.build_int_add(b.build_int_mul(warp_v, c32(32), "").unwrap(), lane, "t").unwrap();
        let has = b.build_int_compare(IntPredicate::ULT, t, threads, "").unwrap();
        let split = cx.append_basic_block(f, "run.split");
        b.build_conditional_branch(has, split, next).unwrap();
        b.position_at_end(split);
        b.build_conditional_branch(one_d, flat, shaped).unwrap();
        b.position_at_end(flat);
        b.build_unconditional_branch(call).unwrap();
        b.position_at_end(shaped);
        let tid_shaped = split_index(&b, t, block);
        b.build_unconditional_branch(call).unwrap();
        b.position_at_end(call);
        let tid: [IntValue<'c>; 3] = std::array::from_fn(|d| {
            let phi = b.build_phi(i32t, ["tid.x", "tid.y", "tid.z"][d]).unwrap();
            let plain = if d == 0 { t } else { c32(0) };
            phi.add_incoming(&[(&plain, flat), (&tid_shaped[d], shaped)]);
            phi.as_basic_value().into_int_value()
        });
        b.call(thread, &thread_arguments(&args[..n], tid, block, ctaid, grid));
        b.build_unconditional_branch(next).unwrap();

        // The child's warp ends together, as a warp of its own would, before the next one starts.
        b.position_at_end(next);
        sync_warp_lanes(module, &b, all.into());
        let warp_next = b.build_int_add(warp_v, c32(1), "").unwrap();
        b.build_unconditional_branch(warps).unwrap();
        warp.add_incoming(&[(&c32(0), blocks), (&warp_next, next)]);

        b.position_at_end(block_done);
        let ctaid_next = next_index(&b, ctaid, grid);
        let blocks_next = b.build_int_add(done_blocks.as_basic_value().into_int_value(), c32(1), "").unwrap();
        b.build_unconditional_branch(blocks).unwrap();
        done_blocks.add_incoming(&[(&c32(0), child_end), (&blocks_next, block_done)]);
        for d in 0..3 {
            ctaid_phis[d].add_incoming(&[(&c32(0), child_end), (&ctaid_next[d], block_done)]);
        }

        b.position_at_end(child_done);
        let left_next = b.build_and(left_v, b.build_int_sub(left_v, c32(1), "").unwrap(), "").unwrap();
        b.build_unconditional_branch(children).unwrap();
        left.add_incoming(&[(&owners, entry), (&left_next, child_done)]);

        b.position_at_end(exit);
        b.build_return(None).unwrap();
        let body_start = call.get_first_instruction().unwrap();
        Variant::unaggregated(f, body_start, 0)
    }

    /// Whether a parent block can run blocks of `kernel` with its own threads ([`VariantKind::Block`]),
    /// else why not: the variant must see every barrier and index read of the child to rewrite it, and
    /// the child's threads must end by returning (the parent block goes on after the child block).
    pub fn block_runnable(&self, kernel: FunctionValue<'c>) -> Result<(), String> {
        if let Some(end) = self.calls.thread_end_without_return(kernel) {
            return Err(format!("it can end its thread without returning (in @{})", end.function().name()));
        }
        if let Some((_, why)) = unremappable_index_read(&self.calls, kernel) {
            return Err(why);
        }
        kernel_barriers(&self.calls, kernel)?;
        for f in self.calls.reachable_from(kernel) {
            let within = if f == kernel { String::new() } else { format!(" (in @{}, which it calls)", f.name()) };
            for callee in f.instructions().into_iter().filter_map(|i| i.called_function()) {
                if self.readers.contains(&callee) && (0..callee.count_params()).any(|i| callee.param_byval_type(i).is_some()) {
                    return Err(format!("@{}, which reads an index register, takes a by-value argument{within}", callee.name()));
                }
            }
        }
        Ok(())
    }

    /// The code of one thread of `kernel` for a parent block that runs one of its blocks with all its
    /// threads (callers check [`Self::block_runnable`]). Built from the kernel as it is when first asked
    /// for: block reuse asks before it changes any kernel.
    pub fn block(&mut self, kernel: FunctionValue<'c>) -> FunctionValue<'c> {
        self.cached(kernel, VariantKind::Block, |this| this.build_block(kernel))
    }

    fn build_block(&mut self, kernel: FunctionValue<'c>) -> Variant<'c> {
        let module = self.module;
        let cx = module.get_context();
        let barriers = kernel_barriers(&self.calls, kernel).expect("checked by block_runnable");
        let v = self.build_one_thread(kernel, "__klap_block", &[cx.i32_type().into()]);
        let f = v.function;
        f.set_convergent();
        if barriers.is_empty() {
            return v;
        }
        let threads = f.get_nth_param(f.count_params() - 1).unwrap();
        threads.set_value_name("klap.threads");
        let barrier = child_barrier(module);
        let b = cx.create_builder();
        let i1 = cx.bool_type();
        for inst in f.instructions().into_iter().filter(|i| matches!(barrier_use(*i), BarrierUse::Syncthreads)) {
            b.position_before(&inst);
            b.call(barrier, &[threads, i1.const_zero().into()]);
            inst.erase();
        }
        for ret in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Return) {
            // ret void: a kernel returns nothing.
            let block = ret.block();
            ret.erase();
            let wait = cx.append_basic_block(f, "klap.child.returned");
            let done = cx.append_basic_block(f, "klap.child.done");
            b.position_at_end(block);
            b.build_unconditional_branch(wait).expect("builder positioned");
            b.position_at_end(wait);
            let all = b.call_value(barrier, &[threads, i1.const_all_ones().into()]).into_int_value();
            b.build_conditional_branch(all, done, wait).expect("builder positioned");
            b.position_at_end(done);
            b.build_return(None).expect("builder positioned");
        }
        v
    }

    fn build_thread(&mut self, kernel: FunctionValue<'c>) -> Variant<'c> {
        self.build_one_thread(kernel, "__klap_thread", &[])
    }

    /// `kernel`'s code for one of its threads as a device function named with `suffix`: its parameters,
    /// then its index registers (the table's order), then `extra` parameters of the caller's.
    fn build_one_thread(&mut self, kernel: FunctionValue<'c>, suffix: &str, extra: &[BasicMetadataTypeEnum<'c>]) -> Variant<'c> {
        let module = self.module;
        let cx = module.get_context();
        let (params, param_size) = param_layout(module, kernel);
        let registers = IndexRegister::all();
        let mut types: Vec<BasicMetadataTypeEnum<'c>> = kernel.get_params().iter().map(|p| p.get_type().into()).collect();
        types.extend(registers.iter().map(|_| BasicMetadataTypeEnum::from(cx.i32_type())));
        types.extend_from_slice(extra);
        let name = format!("{}{suffix}", kernel.name());
        let f = module.add_function(&name, cx.void_type().fn_type(&types, false), None);
        let entry = cx.append_basic_block(f, "klap.entry");
        let b = cx.create_builder();
        b.position_at_end(entry);
        let args: Vec<BasicValueEnum<'c>> = params
            .iter()
            .enumerate()
            .map(|(i, param)| {
                let value = f.get_nth_param(i as u32).unwrap();
                if !param.byval {
                    return value;
                }
                // Each child thread has its own copy of a by-value argument, which it may write.
                let copy = b.alloca_aligned(param.ty, param.align as u32);
                let v = b.load_aligned(param.ty, value, param.align.min(16) as u32);
                b.store_aligned(v, copy, param.align as u32);
                copy
            })
            .collect();
        kernel.clone_body_into(f, &args);
        // After the clone, which copies the kernel's attributes and linkage-related flags.
        f.set_linkage(Linkage::Internal);
        f.add_inline_always();
        let body = f.get_basic_blocks()[1];
        hoist_allocas(&b, body, entry);
        b.position_at_end(entry);
        b.build_unconditional_branch(body).expect("builder positioned");
        let indices: Vec<BasicValueEnum<'c>> = (0..registers.len()).map(|i| f.get_nth_param((params.len() + i) as u32).unwrap()).collect();
        self.pass_index_registers(f, &indices);
        let body_start = body.get_first_instruction().unwrap();
        Variant::unaggregated(f, body_start, param_size)
    }

    /// Replaces the index-register reads of `f` by `indices` (in the table's order), passing them on to
    /// copies of the device functions it calls that read them.
    fn pass_index_registers(&mut self, f: FunctionValue<'c>, indices: &[BasicValueEnum<'c>]) {
        let registers: Vec<IndexRegister> = IndexRegister::all().into_iter().map(|(r, _)| r).collect();
        let b = self.module.get_context().create_builder();
        for inst in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Call) {
            let Some(callee) = inst.called_function() else { continue };
            if let Some(register) = IndexRegister::read_by(&callee.name()) {
                let i = registers.iter().position(|r| *r == register).unwrap();
                inst.replace_uses_with(indices[i]);
                inst.erase();
            } else if self.readers.contains(&callee) && !callee.is_ptx_kernel() {
                let copy = self.with_indices(callee);
                b.position_before(&inst);
                let mut args = inst.call_args();
                args.extend_from_slice(indices);
                let call = b.call(copy, &args);
                if inst.get_type().is_void_type() {
                    inst.erase();
                } else {
                    inst.replace_uses_with(call);
                    inst.erase();
                }
            }
        }
    }

    /// The copy of device function `g` that takes the index registers as twelve trailing arguments.
    fn with_indices(&mut self, g: FunctionValue<'c>) -> FunctionValue<'c> {
        if let Some(&c) = self.with_indices.get(&g) {
            return c;
        }
        let cx = self.module.get_context();
        let n = g.count_params();
        let mut types: Vec<BasicMetadataTypeEnum<'c>> = g.get_params().iter().map(|p| p.get_type().into()).collect();
        types.extend((0..IndexRegister::all().len()).map(|_| BasicMetadataTypeEnum::from(cx.i32_type())));
        let ty = match g.get_type().get_return_type() {
            Some(r) => r.fn_type(&types, false),
            None => cx.void_type().fn_type(&types, false),
        };
        let c = self.module.add_function(&format!("{}__klap_thread", g.name()), ty, None);
        self.with_indices.insert(g, c);
        let params: Vec<BasicValueEnum<'c>> = c.get_params();
        g.clone_body_into(c, &params[..n as usize]);
        c.set_linkage(Linkage::Internal);
        self.pass_index_registers(c, &params[n as usize..]);
        c
    }

    fn build_serial(&mut self, kernel: FunctionValue<'c>, thread: FunctionValue<'c>, suffix: &str) -> Variant<'c> {
        let module = self.module;
        let cx = module.get_context();
        let i32t = cx.i32_type();
        let n = kernel.count_params() as usize;
        let mut types: Vec<BasicMetadataTypeEnum<'c>> = kernel.get_params().iter().map(|p| p.get_type().into()).collect();
        types.extend((0..6).map(|_| BasicMetadataTypeEnum::from(i32t)));
        // The threads past the first `limit` (linear, x fastest) do nothing (the child's guard): not run.
        types.push(cx.i64_type().into());
        let f = module.add_function(&format!("{}{suffix}", kernel.name()), cx.void_type().fn_type(&types, false), Some(Linkage::Internal));
        f.add_inline_always();
        let p: Vec<BasicValueEnum<'c>> = f.get_params();
        let dim = |i: usize| p[n + i].into_int_value();
        let (grid, block) = ([dim(0), dim(1), dim(2)], [dim(3), dim(4), dim(5)]);
        let limit = p[n + 6].into_int_value();
        let i64t = cx.i64_type();
        let entry = cx.append_basic_block(f, "entry");
        let blocks_head = cx.append_basic_block(f, "blocks");
        let threads_head = cx.append_basic_block(f, "threads");
        let thread_body = cx.append_basic_block(f, "thread");
        let block_next = cx.append_basic_block(f, "next.block");
        let exit = cx.append_basic_block(f, "exit");
        let b = cx.create_builder();
        let zero = i32t.const_zero();
        let one = i32t.const_int(1, false);

        b.position_at_end(entry);
        let product = |v: [IntValue<'c>; 3]| product3(&b, v);
        let nblocks = product(grid);
        let nthreads = product(block);
        let nthreads64 = b.build_int_z_extend(nthreads, i64t, "").unwrap();
        b.build_unconditional_branch(blocks_head).unwrap();

        // Each thread's block and thread indices are counted along with the linear ones, not divided out of
        // them: a division per child thread cost the serialized loop more than the child's own work.
        b.position_at_end(blocks_head);
        let blk = b.build_phi(i32t, "blk").unwrap();
        let (ctaid_phis, ctaid) = index_phis(&b, "ctaid");
        let blk64 = b.build_int_z_extend(blk.as_basic_value().into_int_value(), i64t, "").unwrap();
        let base = b.build_int_mul(blk64, nthreads64, "").unwrap();
        let blocks_left = b.build_int_compare(IntPredicate::ULT, blk.as_basic_value().into_int_value(), nblocks, "").unwrap();
        let below_limit = b.build_int_compare(IntPredicate::ULT, base, limit, "").unwrap();
        let more_blocks = b.build_and(blocks_left, below_limit, "").unwrap();
        // The block's threads below the limit (where the block is run: base < limit), so that the loop
        // over them compares one 32-bit count.
        let left = b.build_int_sub(limit, base, "").unwrap();
        let fewer = b.build_int_compare(IntPredicate::ULT, left, nthreads64, "").unwrap();
        let in_block = b.build_select(fewer, left, nthreads64, "").unwrap().into_int_value();
        let in_block = b.build_int_truncate(in_block, i32t, "in.block").unwrap();
        b.build_conditional_branch(more_blocks, threads_head, exit).unwrap();

        b.position_at_end(threads_head);
        let t = b.build_phi(i32t, "t").unwrap();
        let (tid_phis, tid) = index_phis(&b, "tid");
        let more_threads = b.build_int_compare(IntPredicate::ULT, t.as_basic_value().into_int_value(), in_block, "").unwrap();
        b.build_conditional_branch(more_threads, thread_body, block_next).unwrap();

        b.position_at_end(thread_body);
        b.call(thread, &thread_arguments(&p[..n], tid, block, ctaid, grid));
        let t_next = b.build_int_add(t.as_basic_value().into_int_value(), one, "").unwrap();
        let tid_next = next_index(&b, tid, block);
        b.build_unconditional_branch(threads_head).unwrap();

        b.position_at_end(block_next);
        let blk_next = b.build_int_add(blk.as_basic_value().into_int_value(), one, "").unwrap();
        let ctaid_next = next_index(&b, ctaid, grid);
        b.build_unconditional_branch(blocks_head).unwrap();

        b.position_at_end(exit);
        b.build_return(None).unwrap();

        blk.add_incoming(&[(&zero, entry), (&blk_next, block_next)]);
        t.add_incoming(&[(&zero, blocks_head), (&t_next, thread_body)]);
        for d in 0..3 {
            ctaid_phis[d].add_incoming(&[(&zero, entry), (&ctaid_next[d], block_next)]);
            tid_phis[d].add_incoming(&[(&zero, blocks_head), (&tid_next[d], thread_body)]);
        }
        let body_start = thread_body.get_first_instruction().unwrap();
        Variant::unaggregated(f, body_start, 0)
    }

    /// Rewrites the index-register reads of `f` as `how` says, also in the device functions it calls
    /// (through copies of those that read an index register, one per callee and rewrite).
    fn rewrite_index_reads(&mut self, f: FunctionValue<'c>, how: IndexRewrite) {
        let i32t = self.module.get_context().i32_type();
        for inst in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Call) {
            let Some(callee) = inst.called_function() else { continue };
            if let Some(register) = IndexRegister::read_by(&callee.name()) {
                match how {
                    IndexRewrite::Accessors => inst.set_called_function(self.runtime.unwrap().get(RuntimeFn::IndexRegister(register))),
                    IndexRewrite::OneBlock => {
                        let value = match register.register {
                            "ctaid" => 0,
                            "nctaid" => 1,
                            _ => continue,
                        };
                        inst.replace_uses_with(i32t.const_int(value, false));
                        inst.erase();
                    }
                }
            } else if self.readers.contains(&callee) && !callee.is_ptx_kernel() {
                let copies = match how {
                    IndexRewrite::Accessors => &mut self.remapped,
                    IndexRewrite::OneBlock => &mut self.one_block,
                };
                let copy = match copies.get(&callee) {
                    Some(&c) => c,
                    None => {
                        // PTX names take no dots; the copy is this module's own.
                        let c = callee.clone_function(&format!("{}{}", callee.name(), how.suffix()));
                        c.set_linkage(crate::llvm::Linkage::Internal);
                        copies.insert(callee, c);
                        self.rewrite_index_reads(c, how);
                        c
                    }
                };
                inst.set_called_function(copy);
            }
        }
    }
}

/// How [`ChildVariants::rewrite_index_reads`] rewrites an index-register read.
#[derive(Clone, Copy)]
enum IndexRewrite {
    /// A call of the runtime's accessor of the register (aggregated variants).
    Accessors,
    /// blockIdx reads give 0 and gridDim reads 1: the code sees a grid of one block (pool variants).
    OneBlock,
}

impl IndexRewrite {
    /// The suffix of the device-function copies it makes.
    fn suffix(self) -> &'static str {
        match self {
            IndexRewrite::Accessors => "__klap",
            IndexRewrite::OneBlock => "__klap_pool",
        }
    }
}

/// The suffixes of the variants that run a child's threads in the calling thread, warp or block (thread,
/// serial, warp-serial, warp-run, reduced-serial, block, lane and lane-0 variants, and the copies of the device
/// functions they call). The four from the second (`runs_child_grid`) loop over a child grid's threads.
const THREAD_RUNNERS: [&str; 8] =
    ["__klap_thread", "__klap_serial", "__klap_warp_serial", "__klap_warp_run", "__klap_reduced_serial", "__klap_block", "__klap_lane", "__klap_lane0"];

/// Whether `function` is a variant that runs a child's threads itself: code that runs as often as the
/// child's threads would, not once per launch.
pub fn runs_child_threads(function: FunctionValue) -> bool {
    is_variant_of_kind(function, &THREAD_RUNNERS)
}

/// Whether `function` is a variant that runs every thread of a child grid, one after another or a warp at a
/// time (serial, warp-serial, warp-run and reduced-serial variants): a loop over the child's threads.
pub fn runs_child_grid(function: FunctionValue) -> bool {
    is_variant_of_kind(function, &THREAD_RUNNERS[1..5])
}

/// Whether `function` is a variant in which each lane runs a child grid on its own, one thread after another
/// (serial, warp-serial and reduced-serial variants): not the warp run, which all 32 lanes run together.
pub fn runs_child_grid_by_lane(function: FunctionValue) -> bool {
    is_variant_of_kind(function, &[THREAD_RUNNERS[1], THREAD_RUNNERS[2], THREAD_RUNNERS[4]])
}

/// Whether `function`'s name ends with one of the variant suffixes `kinds` (an `_in_bound` form included).
fn is_variant_of_kind(function: FunctionValue, kinds: &[&str]) -> bool {
    let name = function.name();
    let name = name.strip_suffix("_in_bound").unwrap_or(&name);
    kinds.iter().any(|s| name.ends_with(s))
}

/// Whether a block of these dimensions is one-dimensional.
fn one_dimensional<'c>(b: &Builder<'c>, block: [IntValue<'c>; 3]) -> IntValue<'c> {
    let one = block[0].get_type().const_int(1, false);
    let y1 = b.build_int_compare(IntPredicate::EQ, block[1], one, "").unwrap();
    let z1 = b.build_int_compare(IntPredicate::EQ, block[2], one, "").unwrap();
    b.build_and(y1, z1, "one.d").unwrap()
}

/// Three phis of i32 named `name.x`, `name.y`, `name.z` at the builder, and their values.
fn index_phis<'c>(b: &Builder<'c>, name: &str) -> ([crate::llvm::PhiValue<'c>; 3], [IntValue<'c>; 3]) {
    let i32t = b.get_insert_block().unwrap().get_context().i32_type();
    let phis = ["x", "y", "z"].map(|d| b.build_phi(i32t, &format!("{name}.{d}")).unwrap());
    let values = phis.map(|p| p.as_basic_value().into_int_value());
    (phis, values)
}

/// What inline assembly does that a thread run alone cannot do, or None. Arithmetic (the benchmarks'
/// unfused floating-point operations, say) is fine; special registers, collectives and exits are not.
fn asm_needs_threads(text: &str) -> Option<&'static str> {
    const NEEDS: [(&str, &str); 12] = [
        ("%tid", "reads an index register"),
        ("%ntid", "reads an index register"),
        ("%ctaid", "reads an index register"),
        ("%nctaid", "reads an index register"),
        ("%laneid", "reads its lane number"),
        ("%warpid", "reads its warp number"),
        ("%lanemask", "reads a lane mask"),
        ("bar.", "waits at a barrier"),
        ("barrier", "waits at a barrier"),
        ("shfl", "exchanges values within a warp"),
        ("vote", "votes within a warp"),
        ("exit", "ends the thread"),
    ];
    let lower = text.to_ascii_lowercase();
    for (needle, what) in NEEDS {
        if lower.contains(needle) {
            return Some(what);
        }
    }
    ["match.", "redux", "activemask", "trap", "%smid", "%clock"].iter().any(|n| lower.contains(n)).then_some("uses the warp or the machine")
}

/// The entry of a coarsened aggregated variant, built at `b` (the end of `f`'s entry block): the block's
/// range of aggregated blocks from the runtime, then a loop over it whose every turn enters one aggregated
/// block (its record's arguments, or null where the thread is beyond the record's block size) and runs
/// `body` where the thread is not. Returns the arguments of the turn's block (for `body`'s loads), the
/// variant's one return (past the range's end), and the latch that every return of `body` must branch to
/// once counted out of its block. No thread waits for another before the next turn's entry, a barrier
/// every thread of the block reaches (the lanes of each warp together, see [`sync_warp_lanes`]).
fn coarsened_entry<'c>(
    module: &Module<'c>,
    runtime: &Runtime<'c>,
    b: &Builder<'c>,
    f: FunctionValue<'c>,
    chunk: BasicValueEnum<'c>,
    blocks_per_record: BasicValueEnum<'c>,
    body: crate::llvm::BasicBlock<'c>,
) -> (BasicValueEnum<'c>, InstructionValue<'c>, crate::llvm::BasicBlock<'c>) {
    let cx = module.get_context();
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let lanes = warp_lanes(module, b);
    let range = b.call_value(runtime.get(RuntimeFn::ChildCoarseRange), &[chunk]).into_int_value();
    let first = b.build_int_truncate(range, i32t, "klap.coarse.first").unwrap();
    let end = b.build_int_truncate(b.build_right_shift(range, i64t.const_int(32, false), false, "").unwrap(), i32t, "klap.coarse.end").unwrap();
    let enter = cx.append_basic_block(f, "klap.coarse.enter");
    let run = cx.append_basic_block(f, "klap.coarse.run");
    let latch = cx.append_basic_block(f, "klap.coarse.latch");
    let next = cx.append_basic_block(f, "klap.coarse.next");
    let done = cx.append_basic_block(f, "klap.coarse.done");
    let any = b.build_int_compare(IntPredicate::ULT, first, end, "").unwrap();
    b.build_conditional_branch(any, enter, done).unwrap();

    b.position_at_end(enter);
    let first_args = b.call_value(runtime.get(RuntimeFn::ChildEnterFirst), &[chunk, first.into(), blocks_per_record]);
    b.build_unconditional_branch(run).unwrap();

    b.position_at_end(run);
    let block = b.build_phi(i32t, "klap.coarse.block").unwrap();
    let args = b.build_phi(first_args.get_type(), "klap.coarse.args").unwrap();
    let active = b.is_not_null(args.as_basic_value());
    b.build_conditional_branch(active, body, latch).unwrap();

    b.position_at_end(latch);
    let following = b.build_int_add(block.as_basic_value().into_int_value(), i32t.const_int(1, false), "").unwrap();
    let more = b.build_int_compare(IntPredicate::ULT, following, end, "").unwrap();
    b.build_conditional_branch(more, next, done).unwrap();

    b.position_at_end(next);
    sync_warp_lanes(module, b, lanes);
    let next_args = b.call_value(runtime.get(RuntimeFn::ChildNext), &[chunk, following.into(), blocks_per_record]);
    b.build_unconditional_branch(run).unwrap();

    block.add_incoming(&[(&first, enter), (&following, next)]);
    args.add_incoming(&[(&first_args, enter), (&next_args, next)]);
    b.position_at_end(done);
    let ret = b.build_return(None).unwrap();
    (args.as_basic_value(), ret, latch)
}

/// The active lanes of the warp, read at `b` (`__activemask()`): where they all are, as at a kernel's start,
/// for [`sync_warp_lanes`]; where they reach a launch together, the lanes that share its children's work.
pub fn warp_lanes<'c>(module: &Module<'c>, b: &Builder<'c>) -> BasicValueEnum<'c> {
    b.call_value(module.get_or_declare("llvm.nvvm.activemask", module.get_context().i32_type().fn_type(&[], false)), &[])
}

/// `bar.warp.sync` over `lanes` ([`warp_lanes`]): lanes of a warp that reach it apart (from a loop body's
/// returns) pass it together, so that ptxas sees them converged at the block's aligned barrier after it
/// (a looped link's end, a coarsened child's next block, a reusing block's exit); and what each lane wrote
/// before it, the others see after it (a warp's serialized or warp-run children).
pub fn sync_warp_lanes<'c>(module: &Module<'c>, b: &Builder<'c>, lanes: BasicValueEnum<'c>) {
    let cx = module.get_context();
    let warp_sync = module.get_or_declare("llvm.nvvm.bar.warp.sync", cx.void_type().fn_type(&[cx.i32_type().into()], false));
    b.call(warp_sync, &[lanes]);
}

/// Moves the allocas a cloned kernel body starts with to the start of the variant's entry block, in their
/// order: the kernel's stack objects stay static allocas.
pub fn hoist_allocas<'c>(b: &crate::llvm::Builder<'c>, body: crate::llvm::BasicBlock<'c>, entry: crate::llvm::BasicBlock<'c>) {
    let allocas: Vec<InstructionValue<'c>> =
        body.get_instructions().take_while(|i| i.get_opcode() == InstructionOpcode::Alloca).collect();
    let anchor = entry.get_first_instruction();
    for inst in allocas {
        match anchor {
            Some(first) => b.position_before(&first),
            None => b.position_at_end(entry),
        }
        inst.move_to(b);
    }
}

/// Moves every fixed-size stack slot of `f` outside `entry` to `entry`'s start: in a kernel whose body runs
/// again in a loop (a looped chain's link, a coarsened child's block), a slot left in the body would be taken
/// again on every turn, the stack growing with the loop.
pub fn hoist_fixed_allocas<'c>(b: &crate::llvm::Builder<'c>, f: FunctionValue<'c>, entry: crate::llvm::BasicBlock<'c>) {
    let slots: Vec<InstructionValue<'c>> = f
        .instructions()
        .into_iter()
        .filter(|i| i.get_opcode() == InstructionOpcode::Alloca && i.block() != entry && i.operand(0).const_int().is_some())
        .collect();
    for slot in slots {
        match entry.get_first_instruction() {
            Some(first) => b.position_before(&first),
            None => b.position_at_end(entry),
        }
        slot.move_to(b);
    }
}

/// Which index register a kernel's value reads, where it is a read of one.
fn kernel_index(v: BasicValueEnum<'_>) -> Option<String> {
    let callee = v.as_instruction().and_then(|i| i.called_function())?;
    IndexRegister::read_by(&callee.name()).map(|r| format!("{}.{}", r.register, r.dimension))
}

/// A variant the launching warp calls together: `kernel`'s parameters, the child's grid and block (six
/// `i32`), then `last`; internal, inlined, convergent.
fn warp_variant_function<'c>(module: &Module<'c>, kernel: FunctionValue<'c>, suffix: &str, last: BasicMetadataTypeEnum<'c>) -> FunctionValue<'c> {
    let cx = module.get_context();
    let mut types: Vec<BasicMetadataTypeEnum<'c>> = kernel.get_params().iter().map(|p| p.get_type().into()).collect();
    types.extend((0..6).map(|_| BasicMetadataTypeEnum::from(cx.i32_type())));
    types.push(last);
    let f = module.add_function(&format!("{}{suffix}", kernel.name()), cx.void_type().fn_type(&types, false), Some(Linkage::Internal));
    f.add_inline_always();
    f.set_convergent();
    f
}

/// The `size` bytes at `from` in lane `lane` (every lane of the warp executes it), into `to` of the calling
/// lane: 32-bit words where the alignment allows, bytes elsewhere.
#[allow(clippy::too_many_arguments)]
fn shuffle_bytes<'c>(module: &Module<'c>, b: &Builder<'c>, shfl: FunctionValue<'c>, lane: IntValue<'c>, from: BasicValueEnum<'c>, to: BasicValueEnum<'c>, size: u64, align: u64) {
    let cx = module.get_context();
    let (i8t, i32t) = (cx.i8_type(), cx.i32_type());
    let all = i32t.const_all_ones();
    let word = if align >= 4 { 4 } else { 1 };
    let mut at = 0;
    while at < size {
        let step = if word == 4 && at + 4 <= size { 4 } else { 1 };
        let ty = if step == 4 { i32t } else { i8t };
        let v = b.load_aligned(ty.into(), b.byte_gep(from, at), step as u32);
        let moved = shuffle(module, b, shfl, all, lane, v);
        b.store_aligned(moved, b.byte_gep(to, at), step as u32);
        at += step;
    }
}

/// `v` from lane `lane` of `mask` (every lane of the mask executes it): integers up to 64 bits, floats and
/// pointers, in 32-bit pieces.
fn shuffle<'c>(module: &Module<'c>, b: &Builder<'c>, shfl: FunctionValue<'c>, mask: IntValue<'c>, lane: IntValue<'c>, v: BasicValueEnum<'c>) -> BasicValueEnum<'c> {
    let cx = module.get_context();
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let ty = v.get_type();
    let bits = module.store_size(ty) * 8;
    let word = |b: &Builder<'c>, x: IntValue<'c>| -> IntValue<'c> {
        b.call_value(shfl, &[mask.into(), x.into(), lane.into(), i32t.const_int(31, false).into()]).into_int_value()
    };
    let as_int = cx.custom_width_int_type(std::num::NonZeroU32::new(bits as u32).expect("a sized type")).expect("a valid width");
    let int = match ty {
        BasicTypeEnum::PointerType(_) => b.build_ptr_to_int(v.into_pointer_value(), as_int, "").unwrap(),
        BasicTypeEnum::FloatType(_) => b.build_bit_cast(v, as_int, "").unwrap().into_int_value(),
        _ => v.into_int_value(),
    };
    let int_ty = int.get_type();
    let moved = if int_ty.get_bit_width() <= 32 {
        let wide = b.build_int_z_extend_or_bit_cast(int, i32t, "").unwrap();
        b.build_int_truncate_or_bit_cast(word(b, wide), int_ty, "").unwrap()
    } else {
        let wide = b.build_int_z_extend_or_bit_cast(int, i64t, "").unwrap();
        let low = word(b, b.build_int_truncate(wide, i32t, "").unwrap());
        let high = word(b, b.build_int_truncate(b.build_right_shift(wide, i64t.const_int(32, false), false, "").unwrap(), i32t, "").unwrap());
        let joined = b.build_or(b.build_int_z_extend(low, i64t, "").unwrap(), b.build_left_shift(b.build_int_z_extend(high, i64t, "").unwrap(), i64t.const_int(32, false), "").unwrap(), "").unwrap();
        b.build_int_truncate_or_bit_cast(joined, int_ty, "").unwrap()
    };
    match ty {
        BasicTypeEnum::PointerType(pt) => b.build_int_to_ptr(moved, pt, "").unwrap().into(),
        BasicTypeEnum::FloatType(_) => b.build_bit_cast(moved, ty, "").unwrap(),
        _ => moved.into(),
    }
}

/// The arguments of a thread variant's call: the kernel's parameters, then the index registers' values in
/// `IndexRegister::all()`'s order.
fn thread_arguments<'c>(params: &[BasicValueEnum<'c>], tid: [IntValue<'c>; 3], block: [IntValue<'c>; 3], ctaid: [IntValue<'c>; 3], grid: [IntValue<'c>; 3]) -> Vec<BasicValueEnum<'c>> {
    let mut args = params.to_vec();
    for (register, _) in IndexRegister::all() {
        let d = ["x", "y", "z"].iter().position(|x| *x == register.dimension).unwrap();
        let value = match register.register {
            "tid" => tid[d],
            "ntid" => block[d],
            "ctaid" => ctaid[d],
            _ => grid[d],
        };
        args.push(value.into());
    }
    args
}

/// x * y * z of a dim3's fields.
fn product3<'c>(b: &crate::llvm::Builder<'c>, v: [IntValue<'c>; 3]) -> IntValue<'c> {
    let xy = b.build_int_mul(v[0], v[1], "").unwrap();
    b.build_int_mul(xy, v[2], "").unwrap()
}

/// The index after `index` in x-fastest order within `dims`, counted like an odometer (no division).
fn next_index<'c>(b: &crate::llvm::Builder<'c>, index: [IntValue<'c>; 3], dims: [IntValue<'c>; 3]) -> [IntValue<'c>; 3] {
    let ty = index[0].get_type();
    let x = b.build_int_add(index[0], ty.const_int(1, false), "").unwrap();
    let x_wraps = b.build_int_compare(IntPredicate::EQ, x, dims[0], "").unwrap();
    let y = b.build_int_add(index[1], b.build_int_z_extend(x_wraps, ty, "").unwrap(), "").unwrap();
    let y_wraps = b.build_int_compare(IntPredicate::EQ, y, dims[1], "").unwrap();
    let z = b.build_int_add(index[2], b.build_int_z_extend(y_wraps, ty, "").unwrap(), "").unwrap();
    let wrapped = |wraps: IntValue<'c>, v: IntValue<'c>| b.build_select(wraps, ty.const_zero(), v, "").unwrap().into_int_value();
    [wrapped(x_wraps, x), wrapped(y_wraps, y), z]
}

/// x, y, z of a linear index within dimensions `dims`: x fastest.
fn split_index<'c>(b: &crate::llvm::Builder<'c>, linear: IntValue<'c>, dims: [IntValue<'c>; 3]) -> [IntValue<'c>; 3] {
    let x = b.build_int_unsigned_rem(linear, dims[0], "").unwrap();
    let rest = b.build_int_unsigned_div(linear, dims[0], "").unwrap();
    let y = b.build_int_unsigned_rem(rest, dims[1], "").unwrap();
    let z = b.build_int_unsigned_div(rest, dims[1], "").unwrap();
    [x, y, z]
}

/// Where `kernel`'s code may read an index register that its variants cannot remap, and how: a variant
/// remaps the read intrinsics of the kernel and of the functions it calls directly, but inline assembly
/// that names an index register, or a call through a pointer that may reach a function reading one,
/// would read the physical registers.
pub fn unremappable_index_read<'c>(calls: &CallGraph<'c>, kernel: FunctionValue<'c>) -> Option<(InstructionValue<'c>, String)> {
    let in_asm = |i: InstructionValue<'c>| i.inline_asm_text().and_then(|text| IndexRegister::named_in_asm(&text));
    let reads = |i: InstructionValue<'c>| in_asm(i).is_some() || i.called_function().is_some_and(|f| IndexRegister::read_by(&f.name()).is_some());
    let through_pointer = calls.pointer_may_call_any(&calls.functions_reaching(reads));
    let found = calls.find_reached(kernel, |i| in_asm(i).is_some() || (through_pointer && i.calls_through_pointer()))?;
    let at = found.function().name();
    let why = match in_asm(found) {
        Some(register) => format!("@{at} reads %{register} in inline assembly"),
        None => format!("@{at} makes a call through a pointer that may reach a function reading an index register"),
    };
    Some((found, why))
}

/// How a call takes part in a barrier of the thread block.
pub enum BarrierUse {
    /// Not a barrier of the block.
    None,
    /// `__syncthreads()`: barrier 0, every thread of the block.
    Syncthreads,
    /// Another barrier of the block (a named or counted one, a reduction, a cluster barrier, one in
    /// inline assembly), with what it is.
    Other(&'static str),
}

/// What `inst` does with the block's barriers.
pub fn barrier_use(inst: InstructionValue) -> BarrierUse {
    if inst.get_opcode() != InstructionOpcode::Call {
        return BarrierUse::None;
    }
    if let Some(text) = inst.inline_asm_text() {
        let lower = text.to_ascii_lowercase();
        let warp_only = lower.contains("bar.warp") && !lower.replace("bar.warp", "").contains("bar");
        return if (lower.contains("bar.") || lower.contains("barrier")) && !warp_only {
            BarrierUse::Other("a barrier in inline assembly")
        } else {
            BarrierUse::None
        };
    }
    let Some(name) = inst.called_function().map(|f| f.name()) else { return BarrierUse::None };
    let barrier_zero = || inst.operand(0).const_int() == Some(0);
    match name.as_str() {
        "llvm.nvvm.barrier0" => BarrierUse::Syncthreads,
        "llvm.nvvm.barrier.cta.sync.aligned.all" | "llvm.nvvm.barrier.cta.sync.all" if barrier_zero() => BarrierUse::Syncthreads,
        "llvm.nvvm.bar.warp.sync" => BarrierUse::None,
        n if n.starts_with("llvm.nvvm.barrier.cta.red") || n.starts_with("llvm.nvvm.barrier0.") => {
            BarrierUse::Other("a barrier with a reduction (__syncthreads_count, _and, _or)")
        }
        n if n.starts_with("llvm.nvvm.barrier.cluster") => BarrierUse::Other("a cluster barrier"),
        n if n.starts_with("llvm.nvvm.barrier") || n.starts_with("llvm.nvvm.bar.") => BarrierUse::Other("a named or counted barrier"),
        _ => BarrierUse::None,
    }
}

/// The `__syncthreads()` calls of `kernel` itself, when they are all the barriers its threads can reach:
/// else why a transformation cannot follow its barriers (another kind, or one in a function it calls,
/// which would need a copy; a call through a pointer might reach one).
pub fn kernel_barriers<'c>(calls: &CallGraph<'c>, kernel: FunctionValue<'c>) -> Result<Vec<InstructionValue<'c>>, String> {
    let mut found = Vec::new();
    for f in calls.reachable_from(kernel).into_iter().filter(|f| !f.is_declaration()) {
        if calls.calls_indirectly(f) {
            return Err(format!("@{} makes a call through a pointer, which may reach a barrier", f.name()));
        }
        for inst in f.instructions() {
            match barrier_use(inst) {
                BarrierUse::None => {}
                BarrierUse::Other(what) => return Err(format!("@{} uses {what}", f.name())),
                BarrierUse::Syncthreads if f != kernel => {
                    return Err(format!("@{} waits at a barrier in @{}, which it calls", kernel.name(), f.name()))
                }
                BarrierUse::Syncthreads => found.push(inst),
            }
        }
    }
    Ok(found)
}

/// `__klap_child_barrier(i32 threads, i1 done) -> i1`: barrier 1 among the first `threads` threads of the
/// block (0: all of them); true when every thread arrived with `done`. Not inlined: the threads that
/// returned from the child wait at the same barrier instruction as those still in it.
fn child_barrier<'c>(module: &Module<'c>) -> FunctionValue<'c> {
    let cx = module.get_context();
    let (i1, i32t) = (cx.bool_type(), cx.i32_type());
    barrier_function(module, "__klap_child_barrier", &[i32t.into(), i1.into()], |b, f| {
        let all = module.get_or_declare("llvm.nvvm.barrier.cta.red.and.all", i1.fn_type(&[i32t.into(), i1.into()], false));
        let counted = module.get_or_declare("llvm.nvvm.barrier.cta.red.and.count", i1.fn_type(&[i32t.into(), i32t.into(), i1.into()], false));
        let (threads, done) = (f.get_nth_param(0).unwrap(), f.get_nth_param(1).unwrap());
        let whole = cx.append_basic_block(f, "whole.block");
        let some = cx.append_basic_block(f, "some.warps");
        let id = i32t.const_int(1, false).into();
        let is_whole = b.build_int_compare(IntPredicate::EQ, threads.into_int_value(), i32t.const_zero(), "").unwrap();
        b.build_conditional_branch(is_whole, whole, some).unwrap();
        b.position_at_end(whole);
        let r = b.call_value(all, &[id, done]);
        b.build_return(Some(&r)).unwrap();
        b.position_at_end(some);
        let r = b.call_value(counted, &[id, threads, done]);
        b.build_return(Some(&r)).unwrap();
    })
}

/// Where a child's parameters are read from when a parent block runs its grid: a record in the
/// parameter-buffer layout, with the parameters uniform over a scope (`uniform[i]`) in `uniform_args`.
pub struct RecordArgs<'c> {
    pub args: BasicValueEnum<'c>,
    pub uniform_args: Option<(BasicValueEnum<'c>, Vec<bool>)>,
}

/// Every block of one child grid run by the calling block's threads (block reuse, grid reuse), or where
/// `taken` is given, its (first, count) blocks in linear order (i32), one child block at a time, through
/// `variant`, the child's block variant: the first `c` threads (`c` the child
/// block's threads) each play the child thread of their linear index `me`, then all meet at barrier 0,
/// since the next child block uses the same shared memory and the threads that play no child thread must
/// not run ahead. Ends the builder's block with a branch into the loop, which goes on to `done`.
#[allow(clippy::too_many_arguments)]
pub fn run_child_grid<'c>(
    module: &Module<'c>,
    b: &Builder<'c>,
    child: FunctionValue<'c>,
    variant: FunctionValue<'c>,
    record: &RecordArgs<'c>,
    grid: [IntValue<'c>; 3],
    block: [IntValue<'c>; 3],
    taken: Option<(IntValue<'c>, IntValue<'c>)>,
    me: IntValue<'c>,
    parent_threads: IntValue<'c>,
    done: crate::llvm::BasicBlock<'c>,
) {
    let cx = module.get_context();
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let pred = b.get_insert_block().expect("builder positioned");
    let f = pred.get_parent().expect("a block of a function");
    let child_threads = product3(b, block);
    // 0: the child block is the whole parent block (child_barrier's barrier for all threads).
    let whole = b.build_int_compare(IntPredicate::EQ, child_threads, parent_threads, "").unwrap();
    let barrier_threads = b.build_select(whole, i32t.const_zero(), child_threads, "").unwrap().into_int_value();
    let (first, end) = match taken {
        Some((first, count)) => {
            let first = b.build_int_z_extend(first, i64t, "").unwrap();
            (first, b.build_int_nuw_add(first, b.build_int_z_extend(count, i64t, "").unwrap(), "").unwrap())
        }
        None => (i64t.const_zero(), product3(b, grid.map(|d| b.build_int_z_extend(d, i64t, "").unwrap()))),
    };
    let plays = b.build_int_compare(IntPredicate::ULT, me, child_threads, "").unwrap();
    let thread = split_index(b, me, block);
    let mut params = Vec::new();
    for (i, p) in param_layout(module, child).0.iter().enumerate() {
        let base = match &record.uniform_args {
            Some((at, uniform)) if uniform[i] => *at,
            _ => record.args,
        };
        let at = b.byte_gep(base, p.offset);
        params.push(if p.byval {
            // The variant copies a by-value argument from a generic pointer.
            b.build_address_space_cast(at.into_pointer_value(), cx.ptr_type(AddressSpace::default()), "").unwrap().into()
        } else {
            b.load_aligned(p.ty, at, p.align.min(16) as u32)
        });
    }
    let head = cx.append_basic_block(f, "klap.reuse.blocks");
    let one = cx.append_basic_block(f, "klap.reuse.block");
    let call = cx.append_basic_block(f, "klap.reuse.child");
    let after = cx.append_basic_block(f, "klap.reuse.block.done");
    b.build_unconditional_branch(head).unwrap();

    let (blk, blk_value) = b.count_below(head, end, "child.block", one, done);

    b.position_at_end(one);
    b.build_conditional_branch(plays, call, after).unwrap();

    b.position_at_end(call);
    // A grid may have more than 2^32 blocks: the block's index is split in 64 bits.
    let ctaid = split_index(b, blk_value, grid.map(|d| b.build_int_z_extend(d, i64t, "").unwrap())).map(|v| b.build_int_truncate(v, i32t, "").unwrap());
    let mut call_args = thread_arguments(&params, thread, block, ctaid, grid);
    call_args.push(barrier_threads.into());
    b.call(variant, &call_args);
    b.build_unconditional_branch(after).unwrap();

    b.position_at_end(after);
    let barrier = module.get_or_declare("llvm.nvvm.barrier.cta.sync.all", cx.void_type().fn_type(&[i32t.into()], false));
    b.call(barrier, &[i32t.const_zero().into()]);
    let blk_next = b.build_int_add(blk_value, i64t.const_int(1, false), "").unwrap();
    b.build_unconditional_branch(head).unwrap();
    blk.add_incoming(&[(&first, pred), (&blk_next, after)]);
}

/// The function attribute of the functions [`barrier_function`] makes.
pub const BARRIER_FUNCTION: &str = "klap-barrier";

/// The module's function `name(params) -> i1` that waits at a barrier, made once: internal, convergent and
/// never inlined, `body` building it from its entry block. Every wait at that barrier calls it, so that
/// lanes of one warp arriving from different places wait at one barrier instruction: lanes of a warp at
/// two instructions of the same barrier stop the kernel with an illegal instruction on an H100
/// (test/gpu/block_reuse.cu), although PTX's non-aligned barriers read as if that were allowed.
/// It carries [`BARRIER_FUNCTION`]: a few registers, which a capped kernel may call (registers.rs).
pub fn barrier_function<'c>(
    module: &Module<'c>,
    name: &str,
    params: &[BasicMetadataTypeEnum<'c>],
    body: impl FnOnce(&Builder<'c>, FunctionValue<'c>),
) -> FunctionValue<'c> {
    if let Some(f) = module.get_function(name) {
        return f;
    }
    let cx = module.get_context();
    let f = module.add_function(name, cx.bool_type().fn_type(params, false), Some(Linkage::Internal));
    f.set_noinline();
    f.set_convergent();
    f.set_string_attribute(BARRIER_FUNCTION, "");
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(f, "entry"));
    body(&b, f);
    f
}

/// A kernel's entry guard (see [`ChildVariants::guard_bound`]).
struct Guard {
    /// The bound's index among the kernel's parameters.
    bound: u32,
    signed: bool,
    /// The operand of the entry's branch that is the successor of the threads below the bound.
    working: u32,
}

fn guard(kernel: FunctionValue<'_>) -> Option<Guard> {
    let branch = kernel.entry_block().get_terminator()?;
    if branch.get_opcode() != InstructionOpcode::Br || branch.get_num_operands() != 3 {
        return None;
    }
    // A conditional branch's operands: the condition, the false successor, the true successor.
    let cond = branch.operand(0).instruction_of(InstructionOpcode::ICmp)?;
    let successor = |i: u32| match branch.get_operand(i) {
        Some(crate::llvm::Operand::Block(b)) => Some(b),
        _ => None,
    };
    let (on_false, on_true) = (successor(1)?, successor(2)?);
    let (a, b) = (cond.operand(0), cond.operand(1));
    use IntPredicate::*;
    // Normalized to "x < n works": (n, signed, the operand of the successor the threads past n take).
    let (n, signed, exit) = match cond.get_icmp_predicate()? {
        SLT if is_linear_x(a, &kernel_index, true) => (b, true, 1),
        ULT if is_linear_x(a, &kernel_index, true) => (b, false, 1),
        SGT if is_linear_x(b, &kernel_index, true) => (a, true, 1),
        UGT if is_linear_x(b, &kernel_index, true) => (a, false, 1),
        SGE if is_linear_x(a, &kernel_index, true) => (b, true, 2),
        UGE if is_linear_x(a, &kernel_index, true) => (b, false, 2),
        SLE if is_linear_x(b, &kernel_index, true) => (a, true, 2),
        ULE if is_linear_x(b, &kernel_index, true) => (a, false, 2),
        _ => return None,
    };
    let exit_block = if exit == 1 { on_false } else { on_true };
    let only_returns = exit_block.get_first_instruction().is_some_and(|i| i.get_opcode() == InstructionOpcode::Return);
    let (f, index) = n.as_param()?;
    (only_returns && f == kernel && n.get_type().is_int_type()).then_some(Guard { bound: index, signed, working: 3 - exit })
}
