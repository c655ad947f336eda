//! The plugin's entry points: LLVM's plugin loader calls [`llvmGetPassPluginInfo`], and the C++ shim
//! (shim/klap_shim.cpp), which registers the passes and parses their options, calls the `klap_rust_*`
//! functions. This is the only module that knows every step: the pipeline runs them in order, each
//! with a switch of its own (`-klap-disable-<step>`).

use crate::child::Coarsening;
use crate::llvm::{drop_handle, handle_ref, into_handle, register_callbacks, write_errs, Ctx, FunctionExt, ModuleExt, RawCtx, RegisterCallbacks};
use crate::remarks::Remark;
use crate::runtime::{Runtime, RuntimeFn};
use crate::site::{self, LaunchModel};
use crate::transform::promote::{self, Promotion};
use crate::transform::{aggregate, block_reuse, devrt_stubs, grid_reuse, malloc, normalize, read_only, registers, serialize, Granularity, Options, Spawn};
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub const LLVM_VERSION: &str = env!("KLAP_LLVM_VERSION");
pub const LLVM_MAJOR: &str = env!("KLAP_LLVM_MAJOR");

/// The steps of klap's pipeline, in the order they run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Step {
    /// Every recognized launch in the canonical V2 form (transform/normalize.rs).
    Normalize,
    /// One-block kernels that launch themselves launch at their start (transform/promote/).
    Promote,
    /// Small children run in the launching thread (transform/serialize.rs).
    Serialize,
    /// Children run by the launching block at its end (transform/block_reuse.rs), and the parent's end
    /// where its blocks run child grids of their grid scope (transform/grid_reuse.rs).
    BlockReuse,
    /// Launch aggregation at the chosen granularity (transform/aggregate.rs).
    Aggregate,
    /// Device-side cudaMalloc aggregated per warp (transform/malloc.rs): last, so that the child
    /// variants the steps before made have their allocations aggregated too.
    Malloc,
    /// Kernel pointer parameters that only launches kept from being `readonly` marked so
    /// (transform/read_only.rs): after the others, on the launches they left.
    ReadOnly,
}

impl Step {
    pub const PIPELINE: [Step; 7] = [Step::Normalize, Step::Promote, Step::Serialize, Step::BlockReuse, Step::Aggregate, Step::Malloc, Step::ReadOnly];

    /// The step's bit in the shim's `DisabledSteps` (`-klap-disable-normalize`, `-klap-disable-serialize`,
    /// `-klap-disable-block-reuse`, `-klap-disable-aggregate`, `-klap-disable-malloc`, `-klap-disable-promote`,
    /// `-klap-disable-read-only`).
    fn bit(self) -> u32 {
        match self {
            Step::Normalize => 1,
            Step::Aggregate => 2,
            Step::Serialize => 4,
            Step::Malloc => 8,
            Step::BlockReuse => 16,
            Step::Promote => 32,
            Step::ReadOnly => 64,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Step::Normalize => "normalize",
            Step::Serialize => "serialize",
            Step::BlockReuse => "block-reuse",
            Step::Promote => "promote",
            Step::Aggregate => "aggregate",
            Step::Malloc => "malloc",
            Step::ReadOnly => "read-only",
        }
    }

    /// Whether the step has anything to do with these options (aggregation at granularity none has not).
    fn acts(self, options: &Options) -> bool {
        match self {
            Step::Normalize => true,
            Step::Serialize => options.serialize,
            Step::Promote => options.promote != Promotion::None,
            Step::BlockReuse => options.block_reuse || options.grid_reuse,
            Step::Aggregate | Step::Malloc => options.granularity != Granularity::None,
            // Not where klap only normalizes (the build as written, clang's launches repaired).
            Step::ReadOnly => {
                options.granularity != Granularity::None || options.serialize || options.block_reuse || options.promote != Promotion::None
            }
        }
    }

    /// What a step that must not run twice on one module records in its `!klap.transformed` named
    /// metadata once it changed the module (its name). Aggregating again would aggregate the fallback
    /// launches of the first run and link a second runtime with a pool of its own; normalizing again
    /// finds every launch in the canonical form already.
    fn mark(self) -> Option<&'static str> {
        match self {
            Step::Normalize | Step::ReadOnly => None,
            // Serializing (reusing) again would serialize (queue) the fallback launches of the first run
            // once more. Promoting again would promote the promoted form's launch of itself. The runtime's
            // own cudaMalloc, inlined where an aggregated one was, must stay as it is.
            Step::Serialize | Step::BlockReuse | Step::Aggregate | Step::Malloc | Step::Promote => Some(self.name()),
        }
    }
}

/// A developer's hook: `KLAP_INJECT_PANIC=<what>` (a step's name, or `analysis`) makes that part of
/// klap panic, so that a test can see a panic become an LLVM error instead of aborting opt or clang.
fn inject_panic(what: &str) {
    if std::env::var("KLAP_INJECT_PANIC").is_ok_and(|v| v == what) {
        panic!("injected by KLAP_INJECT_PANIC={what}");
    }
}

/// The named metadata in which a module records the klap steps that transformed it.
const TRANSFORMED_METADATA: &str = "klap.transformed";

/// The options as the shim passes them (KlapOptions in shim/klap_shim.cpp: same fields, same order).
#[repr(C)]
pub struct RawOptions {
    granularity: u32,
    merge_null_stream: bool,
    skip_lone: bool,
    trace: bool,
    serialize: bool,
    pool_bytes: u64,
    disabled_steps: u32,
    serialize_threshold: u64,
    block_reuse: bool,
    block_reuse_queue: u32,
    /// 0 none, 1 basic, 2 aggregate, 3 overlap, 4 all; 255 unset (aggregate under `auto`, else none).
    promote: u32,
    promote_pool: u32,
    /// Links and nanoseconds of each hand-over rule (`-klap-promote-hand-over`), the first `hand_over_rule_count`.
    hand_over_rules: [u32; 8],
    hand_over_rule_count: u32,
    serialize_warp: bool,
    serialize_small_grid_threshold: u64,
    warp_run_threshold: u64,
    warp_run_grid_threads: u64,
    max_registers: u64,
    inline_runtime: bool,
    coarsen: u32,
    coarsen_sm_threads: u32,
    spawn: bool,
    spawn_launch_cycles: u64,
    spawn_max_threads: u64,
    grid_reuse: bool,
    grid_reuse_blocks: u32,
    reduce_threshold: u64,
}

impl RawOptions {
    fn options(&self) -> Options {
        // `auto` (4): one-block chains promoted with aggregation, small children serialized, the rest
        // aggregated per grid.
        let granularity = match self.granularity {
            0 => Granularity::None,
            1 => Granularity::Warp,
            2 => Granularity::Block,
            _ => Granularity::Grid,
        };
        Options {
            granularity,
            merge_null_stream: self.merge_null_stream,
            skip_lone: self.skip_lone,
            pool_bytes: self.pool_bytes,
            trace: self.trace,
            serialize: self.serialize || self.granularity == 4 || self.spawn,
            spawn: self.spawn.then_some(Spawn { launch_cycles: self.spawn_launch_cycles, max_threads: self.spawn_max_threads }),
            serialize_threshold: self.serialize_threshold,
            serialize_warp: self.serialize_warp,
            serialize_small_grid_threshold: self.serialize_small_grid_threshold,
            warp_run_threshold: self.warp_run_threshold,
            warp_run_grid_threads: self.warp_run_grid_threads,
            reduce_threshold: self.reduce_threshold,
            max_registers: self.max_registers,
            inline_runtime: self.inline_runtime,
            coarsen: match self.coarsen {
                // `auto` coarsens children of one-warp blocks (bfs 1.56x faster, nested with 1,000 items a
                // parent 1.08x to 1.5x; wider blocks, as sp's 64 threads, mm's and sssp's 128, ran slower;
                // H200, BENCHMARKS.md, twenty-first session).
                COARSEN_UNSET if self.granularity == 4 => {
                    Coarsening { factor: AUTO_COARSEN, sm_threads: self.coarsen_sm_threads, one_warp_blocks: true }
                }
                COARSEN_UNSET => Coarsening { factor: 0, sm_threads: self.coarsen_sm_threads, one_warp_blocks: false },
                factor => Coarsening { factor, sm_threads: self.coarsen_sm_threads, one_warp_blocks: false },
            },
            // At `auto` (H200: bfs 1.06x, mstv 1.06x faster; BENCHMARKS.md, seventeenth session).
            large_blocks_per_block: self.granularity == 4,
            // Not part of plain `auto`: with it mandel and amr ran 1.6x to 1.8x slower at `auto` on an H200
            // (2026-11-27: a block runs its children one after another, where aggregation spreads them over
            // the GPU), bfs 5.5x and sp 2.9x, and no row was faster where only launching grids of at least
            // 65,536 to 1,048,576 threads reused (BENCHMARKS.md, eighteenth session).
            block_reuse: self.block_reuse,
            block_reuse_queue: self.block_reuse_queue as u64,
            // Asked for alone (`-klap-grid-reuse`): not part of `auto` until measured faster.
            grid_reuse: self.grid_reuse && self.granularity >= 3,
            grid_reuse_blocks: self.grid_reuse_blocks,
            promote: match self.promote {
                // Not under `auto`: basic promotion was correct on every size of the six chain benchmarks
                // but 4% to 34% slower than the chain as written (H100, 2026-11-24, BENCHMARKS.md).
                1 => Promotion::Basic,
                2 => Promotion::Aggregate,
                3 => Promotion::Overlap,
                4 => Promotion::All,
                5 => Promotion::Loop,
                // `auto` runs a chain in a loop by its block, handing a long chain of slow links over to a pool
                // with overlap (promote/looped.rs), and promotes with aggregation and overlap where the loop does
                // not apply: on an H200 4.05x faster than the chains as written (18 rows; 4.49x on the medium
                // sizes), where aggregation and overlap alone gave 2.45x (BENCHMARKS.md, twentieth session).
                255 if self.granularity == 4 => Promotion::Auto,
                _ => Promotion::None,
            },
            promote_pool: self.promote_pool as u64,
            hand_over: self.hand_over_rules.chunks(2).take(self.hand_over_rule_count as usize).map(|r| (r[0] as u64, r[1] as u64)).collect(),
        }
    }
}

/// `-klap-coarsen` not given (the shim's CoarsenUnset).
const COARSEN_UNSET: u32 = 256;
/// The coarsening factor of `auto`: 8 measured within noise of 4 to 64 on bfs (H200, twenty-first session).
const AUTO_COARSEN: u32 = 8;

/// Runs the enabled steps in order. A step sees the model of the module as the previous steps left it.
/// A step that fails ends the pipeline (the module may have been changed by the steps before it).
pub fn run_pipeline(ctx: Ctx, model: &LaunchModel<'static>, options: &Options, disabled_steps: u32) -> Result<bool, String> {
    let module = ctx.module();
    let mut changed = false;
    let mut current: Option<LaunchModel<'static>> = None;
    let done = module.named_metadata_strings(TRANSFORMED_METADATA);
    for step in Step::PIPELINE.into_iter().filter(|s| disabled_steps & s.bit() == 0 && s.acts(options)) {
        let model = current.as_ref().unwrap_or(model);
        if let Some(mark) = step.mark().filter(|m| done.iter().any(|d| d == m)) {
            if let Some(first) = model.sites.first() {
                Remark::AlreadyTransformed.emit(ctx, first.launch, &format!("klap's {mark} step transformed this module already: it is skipped"));
            }
            continue;
        }
        inject_panic(step.name());
        let step_changed = match step {
            Step::Normalize => normalize::run(&module, model, ctx),
            Step::Promote => promote::run(&module, model, ctx, options)?,
            Step::Serialize => serialize::run(&module, model, ctx, options),
            Step::BlockReuse => block_reuse::run(&module, model, ctx, options),
            Step::Aggregate => aggregate::run(&module, model, ctx, options)?,
            Step::Malloc => malloc::run(&module, ctx, options)?,
            Step::ReadOnly => read_only::run(&module, ctx),
        };
        if step_changed {
            if let Some(mark) = step.mark() {
                module.add_named_metadata_string(TRANSFORMED_METADATA, mark);
            }
            changed = true;
            ctx.invalidate_analyses();
            let mut next = site::analyze_quietly(&module, ctx);
            if step == Step::Promote {
                keep_promoted(ctx, &module, &mut next);
            }
            current = Some(next);
        }
    }
    // Grid reuse's markers that aggregation did not make loops (it was disabled).
    grid_reuse::erase_markers(&module);
    if changed {
        // Before the runtime and the variants are inlined (the shim's inliner runs after this pass).
        module.locate_calls();
        link_declared_runtime(&module)?;
        registers::cap(&module, ctx, options);
    }
    Ok(changed)
}

/// Links the runtime's entry points a step called but left to a later one to link, where none did: SPAWN's
/// controller, which serialization declares for aggregation to link with the rest of the runtime, where
/// aggregation had nothing to aggregate (no aggregated child times its blocks, so the thresholds decide).
fn link_declared_runtime(module: &crate::llvm::Module<'static>) -> Result<(), String> {
    let declared: Vec<RuntimeFn> =
        RuntimeFn::all().into_iter().filter(|f| module.get_function(&f.name()).is_some_and(|v| v.is_declaration())).collect();
    if !declared.is_empty() {
        Runtime::link_without_settings(module, &declared)?;
    }
    Ok(())
}

/// The launches of promoted kernels (the fallback launch as written, the promoted launch at the start)
/// are out of the later steps' model: a promoted launch is not aggregated or serialized again.
fn keep_promoted(ctx: Ctx, module: &crate::llvm::Module<'static>, model: &mut LaunchModel<'static>) {
    let promoted = promote::promoted_kernels(module);
    model.sites.retain(|s| {
        let kept = promoted.contains(&s.caller.name());
        if kept {
            Remark::PromotedKept.emit(ctx, s.launch, &format!("launch of @{} in promoted kernel @{}: left to promotion", s.child.name(), s.caller.name()));
        }
        !kept
    });
}

/// What an entry point returns to the shim: 0 unchanged, 1 changed, -1 failed (message in `error`).
const UNCHANGED: i32 = 0;
const CHANGED: i32 = 1;
const FAILED: i32 = -1;

/// Runs `f`, turning a panic into a failure the shim reports as an LLVM error (a panic must not
/// unwind into C++, where it would abort opt or clang).
fn guarded(what: &str, f: impl FnOnce() -> i32) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(status) => status,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            write_errs(&format!("klap: internal error in {what}: {message}\n"));
            FAILED
        }
    }
}

/// The LLVM library this process runs on, when it is not the one klap was built for.
///
/// A plugin built for LLVM 22 loaded into another LLVM's opt or clang would corrupt both: the plugin
/// API cannot see it, the loaded shared libraries can.
pub fn foreign_llvm_in_process() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let ours = [format!("libLLVM.so.{LLVM_MAJOR}"), format!("libLLVM-{LLVM_MAJOR}.so"), format!("llvm-{LLVM_MAJOR}/")];
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|path| path.rsplit('/').next().is_some_and(|f| f.starts_with("libLLVM")))
        .find(|path| !ours.iter().any(|o| path.contains(o.as_str())))
        .map(str::to_string)
}

#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<RegisterCallbacks>,
    pre_codegen_callback: *const c_void,
}

/// LLVM_PLUGIN_API_VERSION of LLVM 22.
const PLUGIN_API_VERSION: u32 = 2;

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    let foreign = foreign_llvm_in_process();
    if let Some(lib) = &foreign {
        eprintln!(
            "error: klap was built for LLVM {LLVM_VERSION} but is being loaded into a program that uses {lib}; \
             use opt-{LLVM_MAJOR} / clang-{LLVM_MAJOR} or rebuild klap against that LLVM"
        );
    }
    PassPluginLibraryInfo {
        // A version no LLVM accepts makes the loader refuse the plugin after our message.
        api_version: if foreign.is_some() { u32::MAX } else { PLUGIN_API_VERSION },
        plugin_name: c"klap".as_ptr(),
        plugin_version: c"0.1.0".as_ptr(),
        register_pass_builder_callbacks: Some(register_callbacks()),
        pre_codegen_callback: std::ptr::null(),
    }
}

/// The launch analysis: the model of the shim's module, which the shim caches until the IR changes.
#[no_mangle]
pub extern "C" fn klap_rust_analyze(ctx: *mut RawCtx) -> *mut c_void {
    let mut handle = std::ptr::null_mut();
    guarded("the launch analysis", || {
        let ctx = Ctx::from_shim(ctx);
        inject_panic("analysis");
        handle = into_handle(Box::new(site::analyze(&ctx.module(), ctx)));
        UNCHANGED
    });
    handle
}

#[no_mangle]
pub extern "C" fn klap_rust_model_free(model: *mut c_void) {
    drop_handle::<LaunchModel<'static>>(model);
}

#[no_mangle]
pub extern "C" fn klap_rust_print_launches(model: *mut c_void) -> i32 {
    if model.is_null() {
        return FAILED;
    }
    guarded("print<klap-launches>", || {
        crate::print::print_launches(handle_ref::<LaunchModel<'static>>(model));
        UNCHANGED
    })
}

#[no_mangle]
pub extern "C" fn klap_rust_print_graph(model: *mut c_void) -> i32 {
    if model.is_null() {
        return FAILED;
    }
    guarded("print<klap-graph>", || {
        crate::print::print_graph(handle_ref::<LaunchModel<'static>>(model));
        UNCHANGED
    })
}

/// The pipeline over the shim's module with the shim's options.
#[no_mangle]
pub extern "C" fn klap_rust_run(model: *mut c_void, ctx: *mut RawCtx, options: *const RawOptions) -> i32 {
    if model.is_null() || options.is_null() {
        return FAILED;
    }
    guarded("the klap pipeline", || {
        let raw = handle_ref::<RawOptions>(options as *mut c_void);
        match run_pipeline(Ctx::from_shim(ctx), handle_ref(model), &raw.options(), raw.disabled_steps) {
            Ok(true) => CHANGED,
            Ok(false) => UNCHANGED,
            Err(e) => {
                write_errs(&format!("klap: error: {e}\n"));
                FAILED
            }
        }
    })
}

/// At a compile that leaves klap to the device link (`-klap-at-link` with `-foffload-lto`): KLAP140 on
/// every launch, which the compile does not aggregate or serialize (docs/link-time.md).
#[no_mangle]
pub extern "C" fn klap_rust_note_left_to_link(model: *mut c_void, ctx: *mut RawCtx) -> i32 {
    if model.is_null() {
        return FAILED;
    }
    guarded("-klap-at-link", || {
        let ctx = Ctx::from_shim(ctx);
        for site in &handle_ref::<LaunchModel<'static>>(model).sites {
            Remark::LeftToLink.emit(
                ctx,
                site.launch,
                &format!(
                    "launch of @{} left to the device link (-klap-at-link): klap aggregates it on the linked device module, \
                     where the link loads the plugin",
                    site.child.name()
                ),
            );
        }
        UNCHANGED
    })
}

/// `klap-devrt-stubs` (transform/devrt_stubs.rs), which the shim runs at the start of clang's pipeline,
/// apart from the steps: it needs no launch model and must come before the inliner.
#[no_mangle]
pub extern "C" fn klap_rust_devrt_stubs(ctx: *mut RawCtx) -> i32 {
    guarded("klap-devrt-stubs", || {
        let ctx = Ctx::from_shim(ctx);
        if devrt_stubs::run(&ctx.module(), ctx) {
            CHANGED
        } else {
            UNCHANGED
        }
    })
}
