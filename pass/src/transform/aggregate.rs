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
//! - warp: by the lowest lane of the lanes that reached the launch together, right there;
//! - block / grid: by the thread that completes the block's / grid's exit count, at kernel exit.
//!
//! Deferring a launch to the end of its scope needs no control-flow-to-data-flow conversion: under
//! CDP2 a parent never waits for its children, so a launch made later in the same parent grid is
//! indistinguishable to it, and launches in divergent code and in loops simply register more records.
//! When a record cannot be had (pool exhausted, chunk full) the original launch is made instead, and
//! if the aggregated launch fails its records are launched one by one: a launch is never lost.

use crate::abi::Stream;
use crate::ffi::{first_instruction, Builder, Ctx, Module, Op, Type, Value};
use crate::launch::{self, param_layout, LaunchModel, LaunchSite};
use crate::normalize::{dim3_fields, emit_launch, erase_site, ArgValues, CanonicalEntries};
use crate::remarks::Remark;
use crate::uniform::{self, UniformParams};
use std::collections::{HashMap, HashSet};

static RUNTIME_BITCODE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/klap_rt.bc"));

/// Launch groups a block or grid scope can hold (the runtime's MAX_GROUPS).
const MAX_GROUPS: usize = 4;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Granularity {
    Warp,
    Block,
    Grid,
}

impl Granularity {
    fn as_str(self) -> &'static str {
        match self {
            Granularity::Warp => "warp",
            Granularity::Block => "block",
            Granularity::Grid => "grid",
        }
    }
}

pub struct Options {
    pub granularity: Granularity,
    pub merge_null_stream: bool,
    /// At warp and block granularity, leave launches that only one threadIdx.x reaches as written.
    pub skip_lone: bool,
    pub pool_bytes: u64,
    /// Report every fallback to an unaggregated launch at run time (device printf).
    pub trace: bool,
}

/// The aggregated variant of a child kernel.
struct Variant {
    function: Value,
    /// Where the original kernel's code starts (after the record lookup and argument loads).
    body_start: Value,
    /// Where each thread that ran counts itself out of its record's block; a scope in the variant
    /// must be done before (a grid scope lives in the chunk the count may free).
    exits: Vec<Value>,
    param_size: u64,
    /// Which parameters are uniform over every scope that launches it (passed once per chunk), and
    /// the 4-byte words of the parameter buffer that hold only those.
    uniform: Vec<bool>,
    uniform_words: u64,
}

/// Why a recognized launch is not aggregated, or None.
fn ineligible(site: &LaunchSite, options: &Options) -> Option<(Remark, String)> {
    if site.child.is_declaration() {
        return Some((Remark::ChildNotDefined, format!("@{} is defined in another translation unit", site.child.name())));
    }
    match site.stream {
        Stream::Null if !options.merge_null_stream => Some((
            Remark::NullStreamKept,
            "NULL-stream launches are kept in order (-klap-merge-null-stream=false)".into(),
        )),
        Stream::Null | Stream::FireAndForget | Stream::Tail => lone(site, options),
        other => Some((Remark::StreamNotAggregated, format!("launches into a {} stream keep their stream's order", other.as_str()))),
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

pub fn run(module: Module, model: &LaunchModel, ctx: Ctx, options: &Options) -> bool {
    if !model.nvptx {
        return false;
    }
    let mut children: Vec<Value> = Vec::new();
    for site in &model.sites {
        match ineligible(site, options) {
            Some((remark, why)) => remark.emit(ctx, site.launch, &why),
            None if !children.contains(&site.child) => children.push(site.child),
            None => {}
        }
    }
    if children.is_empty() {
        return false;
    }
    let eligible: Vec<&LaunchSite> = model.sites.iter().filter(|s| ineligible(s, options).is_none()).collect();
    let uniform = uniform::analyze(&eligible, &children);
    let names = Runtime::declare(module);
    let pool = define_pool(module, options.pool_bytes, options.trace);
    // A developer's hook for trying runtime changes without rebuilding the plugin.
    let replacement = std::env::var_os("KLAP_RUNTIME_BITCODE").map(std::fs::read);
    let bitcode = match &replacement {
        Some(Ok(bytes)) => bytes.as_slice(),
        Some(Err(e)) => {
            crate::ffi::write_errs(&format!("klap: error: KLAP_RUNTIME_BITCODE: {e}\n"));
            return false;
        }
        None => RUNTIME_BITCODE,
    };
    if let Err(e) = module.link_runtime(bitcode) {
        crate::ffi::write_errs(&format!("klap: error: {e}\n"));
        return false;
    }
    // Each translation unit keeps its own pool, like the runtime it linked.
    for g in pool {
        g.set_internal();
    }
    let runtime = Runtime::lookup(module, &names);

    let mut sreg_clones = HashMap::new();
    let readers = sreg_readers(module);
    let variants: HashMap<Value, Variant> = children
        .iter()
        .map(|&k| (k, make_variant(module, &runtime, k, &uniform, &readers, &mut sreg_clones)))
        .collect();
    let by_function: HashMap<Value, &Variant> = variants.values().map(|v| (v.function, v)).collect();

    // The variants hold launches too (multi-level and recursive launching): look again.
    let model = launch::analyze_quietly(module, ctx);
    let entries = CanonicalEntries::get(module);
    let mut per_caller: Vec<(Value, Vec<&LaunchSite>)> = Vec::new();
    for site in model.sites.iter().filter(|s| variants.contains_key(&s.child) && ineligible(s, options).is_none()) {
        match per_caller.iter_mut().find(|(c, _)| *c == site.caller) {
            Some((_, v)) => v.push(site),
            None => per_caller.push((site.caller, vec![site])),
        }
    }
    // Variants with a grid scope of their own: that scope waits for the variant's threads, which the
    // chunks they are launched from count (the runtime's COUNT_THREADS).
    let counted: HashSet<Value> = per_caller
        .iter()
        .filter(|(caller, sites)| options.granularity == Granularity::Grid && by_function.contains_key(caller) && sites[0].caller_is_kernel)
        .map(|(caller, _)| *caller)
        .collect();
    for (caller, sites) in per_caller {
        let in_variant = by_function.get(&caller).copied();
        let quiet = in_variant.is_some();
        // At warp granularity a launch is made where it is reached, by one lane, while the warp's
        // other lanes may be waiting in a warp-synchronous step of their own registration for a lane
        // that cannot run: a kernel launching in a loop hung that way (measured on an H200:
        // test/gpu/divergent_loop with 3,000 parent threads and up to 12 launches each, 10 hangs in
        // 10 runs; cuda-gdb: lanes inside cudaGetParameterBufferV2, their warp-mates waiting in a
        // shuffle for a lane claiming a chunk, never scheduled). A block scope launches at the
        // block's end, after every registration: such a kernel's launches are aggregated per block.
        let launches_in_loop = sites.iter().any(|s| s.loop_depth > 0 || s.called_in_loop);
        let warp_loop = options.granularity == Granularity::Warp && sites[0].caller_is_kernel && launches_in_loop;
        let granularity = if warp_loop { Granularity::Block } else { options.granularity };
        let scoped = granularity != Granularity::Warp && sites[0].caller_is_kernel;
        let mut groups: Vec<(Value, Stream)> = Vec::new();
        let mut warp_sites = Vec::new();
        let mut scope_sites = Vec::new();
        for site in sites {
            let key = (site.child, site.stream);
            if scoped && (groups.contains(&key) || groups.len() < MAX_GROUPS) {
                if !groups.contains(&key) {
                    groups.push(key);
                }
                scope_sites.push(site);
            } else if launches_in_loop {
                // No block scope takes it, and the warp path deadlocked in loops (above): its runtime
                // calls could also hold up the function's other launches registering in a loop.
                if !quiet {
                    Remark::WarpLoopKept.emit(ctx, site.launch, "made in a loop, where warp-granularity launches can deadlock, and no block scope can take it (a device function, or past four launch groups)");
                }
            } else {
                if !quiet && granularity != Granularity::Warp {
                    let why = if scoped { "more than four launch groups in one kernel" } else { "the launch is in a device function" };
                    Remark::WarpFallback.emit(ctx, site.launch, &format!("{why}: aggregated at warp granularity"));
                }
                warp_sites.push(site);
            }
        }
        // Measured hangs (test/gpu/streams.cu, not yet understood): warp-aggregated NULL-stream
        // (H100) and fire-and-forget (H200, with single-lane tail launches left as written) launches in
        // a kernel that also tail-launches. Those launches stay as written.
        let tail_launching = sites_tail_launch(&model, caller);
        for site in warp_sites {
            if tail_launching && site.stream != Stream::Tail {
                if !quiet {
                    Remark::WarpWithTail.emit(ctx, site.launch, "in a kernel that also tail-launches, a launch into another stream is not aggregated at warp granularity (known hang)");
                }
                continue;
            }
            if !quiet {
                Remark::Aggregated.emit(ctx, site.launch, &aggregated_message(site, &variants[&site.child], Granularity::Warp));
            }
            aggregate_at_warp(module, &runtime, &entries, site, &variants[&site.child]);
        }
        if !scope_sites.is_empty() {
            for site in &scope_sites {
                if !quiet {
                    if warp_loop {
                        Remark::BlockForWarpLoop.emit(
                            ctx,
                            site.launch,
                            "its kernel launches in a loop: aggregated at block granularity instead of warp (launches made in a loop at warp granularity can deadlock in the device runtime)",
                        );
                    }
                    Remark::Aggregated.emit(ctx, site.launch, &aggregated_message(site, &variants[&site.child], granularity));
                }
            }
            aggregate_in_scope(module, &runtime, &entries, caller, &scope_sites, &groups, &variants, &counted, in_variant, granularity);
        }
    }
    entries.retire_replaced();
    runtime.retire_unused(module);
    true
}

fn sites_tail_launch(model: &LaunchModel, caller: Value) -> bool {
    model.sites.iter().any(|s| s.caller == caller && s.stream == Stream::Tail)
}

fn aggregated_message(site: &LaunchSite, variant: &Variant, g: Granularity) -> String {
    let params = param_layout(site.child.module(), site.child).0;
    let once: u64 = params.iter().zip(&variant.uniform).filter(|(_, &u)| u).map(|(p, _)| p.size).sum();
    let what = if once == 0 {
        format!("{} argument bytes per record", variant.param_size)
    } else {
        format!("{} argument bytes per record, {} of them passed once", variant.param_size, once)
    };
    format!("launch of @{} aggregated at {} granularity ({what})", site.child.name(), g.as_str())
}

// ---- the device runtime's entry points ---------------------------------------------------------

struct Runtime {
    functions: HashMap<&'static str, Value>,
}

impl Runtime {
    /// Declares what the pass may call, so that linking the runtime brings exactly those in; returns
    /// their names.
    fn declare(module: Module) -> Vec<&'static str> {
        let (ptr, i32t, i64t, i1t, void) = (module.ptr_type(), module.i32_type(), module.i64_type(), module.i1_type(), module.void_type());
        let mut sigs: Vec<(&'static str, Type, Vec<Type>)> = vec![
            ("__klap_register", ptr, vec![ptr, i32t, i32t, i32t, i32t, i32t, i32t, i32t]),
            ("__klap_launch_chunk", void, vec![ptr, ptr, ptr, i32t, i64t, ptr]),
            ("__klap_record_args", ptr, vec![ptr]),
            ("__klap_record_first", i1t, vec![ptr]),
            ("__klap_active_mask", i32t, vec![]),
            ("__klap_warp_chunk", ptr, vec![i32t, i32t]),
            ("__klap_warp_leader", i1t, vec![i32t]),
            ("__klap_block_enter", ptr, vec![i32t; 5]),
            ("__klap_grid_enter", ptr, vec![i32t; 6]),
            ("__klap_scope_register", ptr, vec![ptr, i32t, i32t, i32t, i32t, i32t, i32t, i32t, i32t]),
            ("__klap_scope_launch", void, vec![ptr, i32t, ptr, ptr, i32t, i64t, ptr]),
            ("__klap_scope_exit", i1t, vec![ptr, i64t]),
            ("__klap_grid_release", void, vec![ptr]),
            ("__klap_child_enter", ptr, vec![ptr]),
            ("__klap_child_uniform_args", ptr, vec![]),
            ("__klap_child_exit", void, vec![]),
            ("__klap_child_block_threads", i64t, vec![]),
            ("__klap_child_grid_threads", i64t, vec![]),
        ];
        for name in SREG_ACCESSORS {
            sigs.push((name, i32t, vec![]));
        }
        sigs.into_iter()
            .map(|(name, ret, params)| {
                module.get_or_declare(name, module.function_type(ret, &params));
                name
            })
            .collect()
    }

    /// The runtime's functions as linked into the module.
    fn lookup(module: Module, names: &[&'static str]) -> Runtime {
        Runtime { functions: names.iter().map(|&n| (n, module.function(n).expect("runtime function linked"))).collect() }
    }

    fn f(&self, name: &str) -> Value {
        self.functions[name]
    }

    /// Removes the runtime functions nothing ended up calling.
    fn retire_unused(&self, module: Module) {
        loop {
            let dead: Vec<Value> = module
                .functions()
                .into_iter()
                .filter(|f| (f.name().starts_with("__klap_")) && f.users().is_empty())
                .collect();
            if dead.is_empty() {
                break;
            }
            for f in dead {
                f.erase_function();
            }
        }
    }
}

/// The runtime's settings: the pool it hands records out of, `klap_pool`, its size `klap_pool_bytes`,
/// and `klap_trace`. External until the runtime is linked against them.
fn define_pool(module: Module, bytes: u64, trace: bool) -> Vec<Value> {
    const GLOBAL_ADDRSPACE: u32 = 1;
    let pool_ty = module.array_type(module.i8_type(), bytes);
    vec![
        module.add_global("klap_pool", module.const_null(pool_ty), GLOBAL_ADDRSPACE, false),
        module.add_global("klap_pool_bytes", module.const_int(module.i64_type(), bytes), GLOBAL_ADDRSPACE, true),
        module.add_global("klap_trace", module.const_int(module.i32_type(), trace as u64), GLOBAL_ADDRSPACE, true),
    ]
}

// ---- child side --------------------------------------------------------------------------------

const SREG_ACCESSORS: [&str; 12] = [
    "__klap_tid_x", "__klap_tid_y", "__klap_tid_z", "__klap_ntid_x", "__klap_ntid_y", "__klap_ntid_z",
    "__klap_ctaid_x", "__klap_ctaid_y", "__klap_ctaid_z", "__klap_nctaid_x", "__klap_nctaid_y", "__klap_nctaid_z",
];

/// The runtime accessor replacing a read of an index register, e.g. `llvm.nvvm.read.ptx.sreg.ctaid.x`.
fn sreg_accessor(intrinsic: &str) -> Option<&'static str> {
    let rest = intrinsic.strip_prefix("llvm.nvvm.read.ptx.sreg.")?;
    let wanted = format!("__klap_{}", rest.replace('.', "_"));
    SREG_ACCESSORS.iter().copied().find(|a| *a == wanted)
}

/// Functions whose code (or whose callees' code) reads an index register.
fn sreg_readers(module: Module) -> HashSet<Value> {
    let defined: Vec<Value> = module.functions().into_iter().filter(|f| !f.is_declaration() && !f.name().starts_with("__klap_")).collect();
    let calls: HashMap<Value, Vec<Value>> = defined
        .iter()
        .map(|&f| (f, f.all_instructions().into_iter().filter(|i| i.op() == Op::Call).filter_map(|i| i.called_function()).collect()))
        .collect();
    let mut readers: HashSet<Value> =
        defined.iter().copied().filter(|f| calls[f].iter().any(|c| sreg_accessor(&c.name()).is_some())).collect();
    loop {
        let before = readers.len();
        for &f in &defined {
            if calls[&f].iter().any(|c| readers.contains(c)) {
                readers.insert(f);
            }
        }
        if readers.len() == before {
            return readers;
        }
    }
}

/// Points the index-register reads of `f` at the record's values, through copies of the device
/// functions that read them (the originals keep serving their other callers).
fn remap_sregs(runtime: &Runtime, f: Value, readers: &HashSet<Value>, clones: &mut HashMap<Value, Value>) {
    for inst in f.all_instructions().into_iter().filter(|i| i.op() == Op::Call) {
        let Some(callee) = inst.called_function() else { continue };
        if let Some(accessor) = sreg_accessor(&callee.name()) {
            inst.set_called_function(runtime.f(accessor));
        } else if readers.contains(&callee) && !callee.is_ptx_kernel_cc() {
            let clone = match clones.get(&callee) {
                Some(&c) => c,
                None => {
                    // PTX names take no dots; the copy is this module's own.
                    let c = callee.clone_function(&format!("{}__klap", callee.name()));
                    c.set_internal();
                    clones.insert(callee, c);
                    remap_sregs(runtime, c, readers, clones);
                    c
                }
            };
            inst.set_called_function(clone);
        }
    }
}

fn make_variant(
    module: Module,
    runtime: &Runtime,
    kernel: Value,
    uniform: &UniformParams,
    readers: &HashSet<Value>,
    clones: &mut HashMap<Value, Value>,
) -> Variant {
    let ptr = module.ptr_type();
    let (params, param_size) = param_layout(module, kernel);
    let uniform = uniform[&kernel].clone();
    let uniform_words = uniform::uniform_words(&params, &uniform, param_size);
    let f = module.add_function(&format!("{}__klap", kernel.name()), module.function_type(module.void_type(), &[ptr]));
    f.set_ptx_kernel();
    f.copy_linkage_from(kernel);
    f.param(0).set_name("klap.chunk");
    let entry = crate::ffi::append_block(module, f, "klap.entry");
    let mut b = Builder::at_end(module, entry);
    let placeholders: Vec<Value> = kernel.params().iter().map(|p| b.freeze_poison(p.ty())).collect();
    kernel.clone_body_into(f, &placeholders);
    let body = f.blocks()[1];

    // The kernel's stack objects stay in the entry block, so they remain static allocas.
    let first_placeholder = placeholders.first().copied();
    for inst in body.instructions().into_iter().take_while(|i| i.op() == Op::Alloca) {
        match first_placeholder {
            Some(p) => b.position_before(p),
            None => b.position_at_end(entry),
        }
        inst.move_to(&mut b);
    }
    b.position_at_end(entry);
    let args = b.call(runtime.f("__klap_child_enter"), &[f.param(0)]);
    let active = b.is_not_null(args);
    let masked = crate::ffi::append_block(module, f, "klap.masked");
    b.cond_br(active, body, masked);
    b.position_at_end(masked);
    let masked_return = b.ret_void();

    let body_start = first_instruction(body);
    b.position_before(body_start);
    let uniform_args = uniform.contains(&true).then(|| b.call(runtime.f("__klap_child_uniform_args"), &[]));
    for (i, (p, (placeholder, param))) in kernel.params().iter().zip(placeholders.iter().zip(&params)).enumerate() {
        let base = if uniform[i] { uniform_args.unwrap() } else { args };
        let at = b.byte_gep(base, param.offset);
        let value = if param.byval {
            // A kernel may write its by-value struct; each thread gets its own copy, as before.
            let copy = crate::normalize::entry_alloca(module, f, param.ty, param.align as u32);
            let v = b.load(param.ty, at, param.align.min(16) as u32);
            b.store(v, copy, param.align as u32);
            copy
        } else {
            b.load(p.ty(), at, param.align.min(16) as u32)
        };
        placeholder.replace_all_uses_with(value);
        placeholder.erase();
    }
    let mut exits = Vec::new();
    for ret in f.all_instructions().into_iter().filter(|i| i.is_return() && *i != masked_return) {
        b.position_before(ret);
        exits.push(b.call(runtime.f("__klap_child_exit"), &[]));
    }
    remap_sregs(runtime, f, readers, clones);
    Variant { function: f, body_start, exits, param_size, uniform, uniform_words }
}

// ---- parent side -------------------------------------------------------------------------------

/// Registers the launch at `site` with `register` (the runtime's registration for the scope, called
/// with `scope_args` then the launch's configuration); where no record can be had, the original
/// launch is made. Returns nothing: the site is replaced.
#[allow(clippy::too_many_arguments)]
fn register_or_launch(
    module: Module,
    runtime: &Runtime,
    entries: &CanonicalEntries,
    site: &LaunchSite,
    variant: &Variant,
    register: Value,
    scope_args: &[Value],
    b: &mut Builder,
) {
    let args = ArgValues::capture(module, site);
    b.position_before(site.launch);
    let [gx, gy, gz] = dim3_fields(module, b, &site.grid);
    let [bx, by, bz] = dim3_fields(module, b, &site.block);
    let mut call_args = scope_args.to_vec();
    call_args.extend([gx, gy, gz, bx, by, bz, site.smem]);
    let tagged = b.call(register, &call_args);
    let has_record = b.is_not_null(tagged);
    let then_end = site.launch.split_if_then(has_record);
    b.position_before(then_end);
    let record = b.call(runtime.f("__klap_record_args"), &[tagged]);
    let once: Vec<bool> = site.writes.iter().map(|w| variant.uniform[w.param]).collect();
    args.store_where(b, record, &once, false);
    if once.contains(&true) {
        // The arguments uniform over the scope: into the chunk's first record only.
        let first = b.call(runtime.f("__klap_record_first"), &[tagged]);
        let first_end = then_end.split_if_then(first);
        b.position_before(first_end);
        args.store_where(b, record, &once, true);
    }
    // The else side: the original launch, for threads that got no record.
    b.position_before(site.launch);
    let no_record = b.call_not(has_record);
    let else_end = site.launch.split_if_then(no_record);
    emit_launch(module, entries, site, &args, else_end);
    if !site.launch.users().is_empty() {
        // The launch's result: success for a registered launch.
        site.launch.replace_all_uses_with(module.const_int(module.i32_type(), 0));
    }
    erase_site(site);
}

fn aggregate_at_warp(module: Module, runtime: &Runtime, entries: &CanonicalEntries, site: &LaunchSite, variant: &Variant) {
    let mut b = Builder::before(module, site.launch);
    let mask = b.call(runtime.f("__klap_active_mask"), &[]);
    let size = module.const_int(module.i32_type(), variant.param_size);
    let chunk = b.call(runtime.f("__klap_warp_chunk"), &[mask, size]);
    // After the registration (or the lane's own launch), the lanes meet again and one launches.
    let after = site.launch.next_instruction().expect("a launch is never a terminator");
    register_or_launch(module, runtime, entries, site, variant, runtime.f("__klap_register"), &[chunk], &mut b);
    b.position_before(after);
    let leader = b.call(runtime.f("__klap_warp_leader"), &[mask]);
    let leader_end = after.split_if_then(leader);
    b.position_before(leader_end);
    let words = module.const_int(module.i64_type(), variant.uniform_words);
    b.call(runtime.f("__klap_launch_chunk"), &[chunk, variant.function, site.child, size, words, site.stream_operand]);
}

#[allow(clippy::too_many_arguments)]
fn aggregate_in_scope(
    module: Module,
    runtime: &Runtime,
    entries: &CanonicalEntries,
    kernel: Value,
    sites: &[&LaunchSite],
    groups: &[(Value, Stream)],
    variants: &HashMap<Value, Variant>,
    counted: &HashSet<Value>,
    in_variant: Option<&Variant>,
    granularity: Granularity,
) {
    let i32t = module.i32_type();
    // Entry: every thread still runs here.
    let start = match in_variant {
        Some(v) => v.body_start,
        None => first_instruction(kernel.entry_block()),
    };
    let start = skip_allocas(start);
    let mut b = Builder::before(module, start);
    let mut enter_args = vec![module.const_int(i32t, groups.len() as u64)];
    for g in 0..MAX_GROUPS {
        const COUNT_THREADS: u64 = 1 << 31;
        let size = groups
            .get(g)
            .map(|(child, _)| {
                let v = &variants[child];
                v.param_size | if counted.contains(&v.function) { COUNT_THREADS } else { 0 }
            })
            .unwrap_or(0);
        enter_args.push(module.const_int(i32t, size));
    }
    let enter = if granularity == Granularity::Grid {
        // A grid scope inside a variant lives in the variant's chunk (its blocks find it there);
        // a grid launched as written finds its scope in the runtime's grid table.
        enter_args.push(module.const_int(i32t, in_variant.is_some() as u64));
        "__klap_grid_enter"
    } else {
        "__klap_block_enter"
    };
    let scope = b.call(runtime.f(enter), &enter_args);

    // Exit: every return, in a variant before the thread counts itself out of its record.
    let exits: Vec<Value> = match in_variant {
        Some(v) => v.exits.clone(),
        None => kernel.all_instructions().into_iter().filter(|i| i.is_return()).collect(),
    };

    for site in sites {
        let group = groups.iter().position(|g| *g == (site.child, site.stream)).unwrap();
        let scope_args = [scope, module.const_int(i32t, group as u64)];
        register_or_launch(module, runtime, entries, site, &variants[&site.child], runtime.f("__klap_scope_register"), &scope_args, &mut b);
    }

    let streams: Vec<Value> = groups
        .iter()
        .map(|(child, stream)| {
            let site = sites.iter().find(|s| s.child == *child && s.stream == *stream).unwrap();
            site.stream_operand
        })
        .collect();
    for exit in exits {
        b.position_before(exit);
        let expected = expected_threads(module, runtime, &mut b, granularity, in_variant.is_some());
        let last = b.call(runtime.f("__klap_scope_exit"), &[scope, expected]);
        let last_end = exit.split_if_then(last);
        b.position_before(last_end);
        for (g, (child, _)) in groups.iter().enumerate() {
            let variant = &variants[child];
            let size = module.const_int(i32t, variant.param_size);
            let words = module.const_int(module.i64_type(), variant.uniform_words);
            let group = module.const_int(i32t, g as u64);
            b.call(runtime.f("__klap_scope_launch"), &[scope, group, variant.function, *child, size, words, streams[g]]);
        }
        if granularity == Granularity::Grid {
            b.call(runtime.f("__klap_grid_release"), &[scope]);
        }
    }
}

fn skip_allocas(mut inst: Value) -> Value {
    while inst.op() == Op::Alloca {
        inst = inst.next_instruction().unwrap();
    }
    inst
}

/// The threads a scope's exit count waits for: the block's or the grid's; in a variant, those that
/// serve records (the others returned at entry).
fn expected_threads(module: Module, runtime: &Runtime, b: &mut Builder, granularity: Granularity, in_variant: bool) -> Value {
    let i64t = module.i64_type();
    if in_variant {
        let f = if granularity == Granularity::Grid { "__klap_child_grid_threads" } else { "__klap_child_block_threads" };
        return b.call(runtime.f(f), &[]);
    }
    let mut names = vec!["llvm.nvvm.read.ptx.sreg.ntid.x", "llvm.nvvm.read.ptx.sreg.ntid.y", "llvm.nvvm.read.ptx.sreg.ntid.z"];
    if granularity == Granularity::Grid {
        names.extend(["llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y", "llvm.nvvm.read.ptx.sreg.nctaid.z"]);
    }
    let sreg_ty = module.function_type(module.i32_type(), &[]);
    let mut total = module.const_int(i64t, 1);
    for name in names {
        let read = module.get_or_declare_intrinsic(name, sreg_ty);
        let v = b.call(read, &[]);
        let v = b.zext(v, i64t);
        total = b.mul(total, v);
    }
    total
}
