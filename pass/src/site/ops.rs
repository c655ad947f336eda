//! Operations on a launch site that every transformation shares: read its configuration and arguments
//! where the launch is, emit it again in the canonical form, replace it under a guard with the original
//! launch as the fallback, and erase what is left of it.
//!
//! The canonical form is the V2 protocol nvcc emits, with the dim3s passed as clang's ABI passes them
//! (byval), so that the device runtime klap links in (compiled by clang) calls the same declaration:
//!
//! ```text
//!   buf = __cudaCDP2GetParameterBufferV2(kernel, ptr byval(dim3) grid, ptr byval(dim3) block, smem)
//!   if (buf) { <argument stores>; __cudaCDP2LaunchDeviceV2(buf, stream) }
//! ```

use super::abi::{cdp2_symbol, classify_stream_call, Abi, EntryKind, Stream, StreamCall, STREAM_FIRE_AND_FORGET};
use super::{DimForm, Dim3, LaunchSite, WriteKind};
use crate::llvm::{
    AddressSpace, BasicBlock, BasicTypeEnum, BasicValueEnum, Builder, BuilderExt, FunctionExt, FunctionType,
    FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, IntPredicate, IntValue, Linkage, Module, ModuleExt,
    NullTest, PointerValue, StructType, ValueExt, SHARED_SPACE,
};

/// `cudaErrorMemoryAllocation`: what the launch expression yields when no parameter buffer was had.
const NO_BUFFER_ERROR: u64 = 2;

/// A builder positioned before `inst`.
pub fn builder_before<'c>(module: &Module<'c>, inst: InstructionValue<'c>) -> Builder<'c> {
    let b = module.get_context().create_builder();
    b.position_before(&inst);
    b
}

/// The device-runtime entry points in the canonical form, declared once per module. A declaration of
/// the same name with another type (dim3 by value, from an NVVM producer) is renamed out of the way
/// and retired once nothing calls it.
pub struct CanonicalEntries<'c> {
    pub parameter_buffer: FunctionValue<'c>,
    launch: FunctionValue<'c>,
    launch_ptsz: FunctionValue<'c>,
    replaced: Vec<FunctionValue<'c>>,
}

impl<'c> CanonicalEntries<'c> {
    pub fn get(module: &Module<'c>) -> CanonicalEntries<'c> {
        let cx = module.get_context();
        let (ptr, i32t, dim3) = (cx.ptr_type(AddressSpace::default()), cx.i32_type(), dim3_type(module));
        let mut replaced = Vec::new();
        let mut declare = |kind, ptsz, ty: FunctionType<'c>, byval: &[u32]| {
            let name = cdp2_symbol(kind, Abi::V2, ptsz);
            if let Some(existing) = module.get_function(&name) {
                if existing.get_type() == ty && byval.iter().all(|&i| existing.param_byval_type(i).is_some()) {
                    return existing;
                }
                existing.set_value_name(&format!("{name}.klap.replaced"));
                replaced.push(existing);
            }
            let f = module.get_or_declare(&name, ty);
            for &i in byval {
                f.set_param_byval(i, dim3);
            }
            f
        };
        let parameter_buffer =
            declare(EntryKind::ParameterBuffer, false, ptr.fn_type(&[ptr.into(), ptr.into(), ptr.into(), i32t.into()], false), &[1, 2]);
        let launch_ty = i32t.fn_type(&[ptr.into(), ptr.into()], false);
        let launch = declare(EntryKind::Launch, false, launch_ty, &[]);
        let launch_ptsz = declare(EntryKind::Launch, true, launch_ty, &[]);
        CanonicalEntries { parameter_buffer, launch, launch_ptsz, replaced }
    }

    pub fn launch_entry(&self, ptsz: bool) -> FunctionValue<'c> {
        if ptsz {
            self.launch_ptsz
        } else {
            self.launch
        }
    }

    /// Whether a site already calls the canonical entry points with its dim3s byval.
    pub fn is_canonical(&self, site: &LaunchSite<'c>) -> bool {
        site.abi == Abi::V2
            && site.buffer_call.called_function() == Some(self.parameter_buffer)
            && site.launch.called_function() == Some(self.launch_entry(site.ptsz))
            && site.grid.form == DimForm::Byval
            && site.block.form == DimForm::Byval
    }

    /// Removes the renamed declarations nothing calls any more, and unused canonical ones.
    pub fn retire_replaced(&self, module: &Module<'c>) {
        for &old in &self.replaced {
            if old.has_users() {
                // Unrecognized launches still call it: give them the canonical symbol (same PTX ABI).
                let name = old.name();
                let canonical = module.get_function(name.trim_end_matches(".klap.replaced")).unwrap();
                old.replace_uses_with(canonical);
            }
            old.erase();
        }
        for f in [self.launch_ptsz, self.launch, self.parameter_buffer] {
            if !f.has_users() {
                f.erase();
            }
        }
    }
}

pub fn dim3_type<'c>(module: &Module<'c>) -> StructType<'c> {
    let cx = module.get_context();
    module.get_struct_type("struct.dim3").unwrap_or_else(|| {
        let t = cx.opaque_struct_type("struct.dim3");
        let i32t = cx.i32_type().into();
        t.set_body(&[i32t, i32t, i32t], false);
        t
    })
}

/// The dim3 as a value at the builder's position: from its known fields, else loaded from memory where
/// the launch protocol reads it (V2: at the parameter-buffer call, which dominates every place a
/// transformation emits the launch; V1: at the launch, where the builder is).
pub fn dim3_value<'c>(module: &Module<'c>, b: &Builder<'c>, dim: &Dim3<'c>) -> BasicValueEnum<'c> {
    if dim.form == DimForm::Value {
        return dim.operand;
    }
    let ty = dim3_type(module);
    if let [Some(x), Some(y), Some(z)] = dim.fields {
        let mut v = ty.get_poison();
        for (i, f) in [x, y, z].into_iter().enumerate() {
            v = b.build_insert_value(v, f, i as u32, "").expect("builder positioned").into_struct_value();
        }
        return v.into();
    }
    match dim.read_before_launch {
        Some(reader) => builder_before(module, reader).load_aligned(ty.into(), dim.operand, 4),
        None => b.load_aligned(ty.into(), dim.operand, 4),
    }
}

/// x, y, z of a dim3 as i32 values at the builder's position.
pub fn dim3_fields<'c>(module: &Module<'c>, b: &Builder<'c>, dim: &Dim3<'c>) -> [BasicValueEnum<'c>; 3] {
    if let [Some(x), Some(y), Some(z)] = dim.fields {
        return [x, y, z];
    }
    let v = dim3_value(module, b, dim).into_struct_value();
    [0, 1, 2].map(|i| b.build_extract_value(v, i, "").expect("a dim3 field"))
}

/// CUDA's limits on a launch's configuration (sm_90): the most of each grid and block dimension, of a block's
/// threads, and of dynamic shared memory where the host did not opt the kernel in to more.
const GRID_MAX: [u64; 3] = [0x7fff_ffff, 65535, 65535];
const BLOCK_MAX: [u64; 3] = [1024, 1024, 64];
const BLOCK_MAX_THREADS: u64 = 1024;
const DEFAULT_DYNAMIC_SMEM_MAX: u64 = 48 << 10;

/// What can be said here of whether the device runtime accepts a launch's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigVerdict {
    /// Constant, and within CUDA's limits.
    Accepted,
    /// Constant, and refused: why.
    Refused(String),
    /// A part of it is known only at run time.
    AtRunTime,
}

/// The verdict on the launch's grid, block and (with `smem`) dynamic shared memory.
pub fn constant_config(site: &LaunchSite, smem: bool) -> ConfigVerdict {
    let constant = |d: &Dim3| -> Option<[u64; 3]> {
        let f = |i: usize| d.fields[i].and_then(|v| v.const_int());
        Some([f(0)?, f(1)?, f(2)?])
    };
    let (Some(grid), Some(block)) = (constant(&site.grid), constant(&site.block)) else {
        return ConfigVerdict::AtRunTime;
    };
    let names = ["x", "y", "z"];
    for (what, dims, max) in [("grid", grid, GRID_MAX), ("block", block, BLOCK_MAX)] {
        for i in 0..3 {
            if dims[i] == 0 {
                return ConfigVerdict::Refused(format!("its {what} {} is 0", names[i]));
            }
            if dims[i] > max[i] {
                return ConfigVerdict::Refused(format!("its {what} {} is {}, above {}", names[i], dims[i], max[i]));
            }
        }
    }
    let threads = block.iter().product::<u64>();
    if threads > BLOCK_MAX_THREADS {
        return ConfigVerdict::Refused(format!("its block has {threads} threads, above {BLOCK_MAX_THREADS}"));
    }
    if smem {
        match site.smem.const_int() {
            Some(bytes) if bytes > DEFAULT_DYNAMIC_SMEM_MAX => {
                return ConfigVerdict::Refused(format!(
                    "it asks for {bytes} bytes of dynamic shared memory, above the {DEFAULT_DYNAMIC_SMEM_MAX} a kernel has unless its host opts it in"
                ))
            }
            Some(_) => {}
            None => return ConfigVerdict::AtRunTime,
        }
    }
    ConfigVerdict::Accepted
}

/// Whether the device runtime accepts a launch of these dimensions (and, where given, dynamic shared memory
/// `smem`), at the builder: constant where they are. A transformation that runs a child without launching it
/// does so only where this holds, so that a launch that would fail is still made, and fails as written.
pub fn config_accepted<'c>(
    module: &Module<'c>,
    b: &Builder<'c>,
    grid: &[IntValue<'c>; 3],
    block: &[IntValue<'c>; 3],
    smem: Option<IntValue<'c>>,
) -> IntValue<'c> {
    let i64t = module.get_context().i64_type();
    let ok = dims_within(module, b, module.get_context().bool_type().const_all_ones(), grid, GRID_MAX.map(Some));
    let ok = dims_within(module, b, ok, block, BLOCK_MAX.map(Some));
    // Each dimension within its limit: the product fits in 64 bits.
    let wide = |v: IntValue<'c>| b.build_int_z_extend(v, i64t, "").unwrap();
    let threads = b.build_int_mul(b.build_int_mul(wide(block[0]), wide(block[1]), "").unwrap(), wide(block[2]), "").unwrap();
    let mut ok = b.and_known(ok, b.build_int_compare(IntPredicate::ULE, threads, i64t.const_int(BLOCK_MAX_THREADS, false), "").unwrap(), "");
    if let Some(bytes) = smem {
        let bytes = b.build_int_z_extend_or_bit_cast(bytes, i64t, "").unwrap();
        ok = b.and_known(ok, b.build_int_compare(IntPredicate::ULE, bytes, i64t.const_int(DEFAULT_DYNAMIC_SMEM_MAX, false), "").unwrap(), "");
    }
    ok
}

/// [`config_accepted`] for a block the caller has found to have at most the launching block's threads (which
/// the device runtime took): every dimension non-zero and z within its limit is what is left to check.
pub fn config_accepted_within_parent_block<'c>(module: &Module<'c>, b: &Builder<'c>, grid: &[IntValue<'c>; 3], block: &[IntValue<'c>; 3]) -> IntValue<'c> {
    let ok = dims_within(module, b, module.get_context().bool_type().const_all_ones(), grid, GRID_MAX.map(Some));
    dims_within(module, b, ok, block, [None, None, Some(BLOCK_MAX[2])])
}

/// `ok` and every dimension non-zero and at most its `max`, where it has one; the checks of constant
/// dimensions fold to true and are left out.
fn dims_within<'c>(module: &Module<'c>, b: &Builder<'c>, mut ok: IntValue<'c>, dims: &[IntValue<'c>; 3], max: [Option<u64>; 3]) -> IntValue<'c> {
    let i32t = module.get_context().i32_type();
    let cmp = |p, a: IntValue<'c>, c: IntValue<'c>| b.build_int_compare(p, a, c, "").unwrap();
    for (d, m) in dims.iter().zip(max) {
        ok = b.and_known(ok, cmp(IntPredicate::NE, *d, i32t.const_zero()), "");
        if let Some(m) = m {
            ok = b.and_known(ok, cmp(IntPredicate::ULE, *d, i32t.const_int(m, false)), "");
        }
    }
    ok
}

/// A block's variable of klap's own in shared memory, `name`, internal to the module, of `undef`'s type (shared
/// memory has no initial value).
pub fn shared_variable<'c>(module: &Module<'c>, name: &str, undef: BasicValueEnum<'c>, align: u32) -> PointerValue<'c> {
    let g = module.add_global(undef.get_type(), Some(AddressSpace::from(SHARED_SPACE)), name);
    g.set_linkage(Linkage::Internal);
    g.set_initializer(&undef);
    g.set_alignment(align);
    g.as_pointer_value()
}

/// An alloca at the start of the function's entry block.
pub fn entry_alloca<'c>(module: &Module<'c>, f: FunctionValue<'c>, ty: BasicTypeEnum<'c>, align: u32) -> BasicValueEnum<'c> {
    let first = f.entry_block().get_first_instruction().expect("an entry block with a terminator");
    builder_before(module, first).alloca_aligned(ty, align)
}

/// The first instruction at or after `inst` that is not an alloca (where code at a function's entry goes).
pub fn skip_allocas(mut inst: InstructionValue) -> InstructionValue {
    while inst.get_opcode() == InstructionOpcode::Alloca {
        inst = inst.get_next_instruction().unwrap();
    }
    inst
}

/// The argument bytes of a launch as values available at the launch, with where they go.
pub struct ArgValues<'c> {
    pub writes: Vec<(u64, BasicValueEnum<'c>, u32)>,
}

impl<'c> ArgValues<'c> {
    /// Bytes copied in by memcpy are read where the copy was, so later changes to the source don't leak in.
    pub fn capture(module: &Module<'c>, site: &LaunchSite<'c>) -> ArgValues<'c> {
        let writes = site
            .writes
            .iter()
            .map(|w| {
                let value = match w.kind {
                    WriteKind::Store { value } => value,
                    WriteKind::Element { vector, index } => {
                        let b = builder_before(module, w.inst);
                        let i32t = module.get_context().i32_type();
                        b.build_extract_element(vector.into_vector_value(), i32t.const_int(index as u64, false), "").expect("builder positioned")
                    }
                    WriteKind::Copy { src, len } => {
                        let b = builder_before(module, w.inst);
                        let param = &site.params[w.param];
                        let whole = w.offset == param.offset && len == param.size;
                        let ty = if whole { param.ty } else { module.byte_array_type(len) };
                        let align = w.inst.call_arg_align(1).unwrap_or(1);
                        b.load_aligned(ty, src, align as u32)
                    }
                };
                let align = largest_power_of_two_dividing(w.offset).min(site.params[w.param].align).min(orig_align(w.inst));
                (w.offset, value, align as u32)
            })
            .collect();
        ArgValues { writes }
    }

    pub fn store_into(&self, b: &Builder<'c>, base: BasicValueEnum<'c>) {
        self.store_if(b, base, |_| true);
    }

    /// Stores the writes `k` with `selected[k] == which`.
    pub fn store_where(&self, b: &Builder<'c>, base: BasicValueEnum<'c>, selected: &[bool], which: bool) {
        self.store_if(b, base, |k| selected[k] == which);
    }

    fn store_if(&self, b: &Builder<'c>, base: BasicValueEnum<'c>, keep: impl Fn(usize) -> bool) {
        for (_, &(offset, value, align)) in self.writes.iter().enumerate().filter(|(k, _)| keep(*k)) {
            let at = b.byte_gep(base, offset);
            b.store_aligned(value, at, align);
        }
    }
}

/// The launch emitted by [`emit_launch`]: the call, the block it is in, and the block that tests the
/// parameter buffer (the phi predecessors when the result is used).
pub struct EmittedLaunch<'c> {
    pub call: InstructionValue<'c>,
    pub block: BasicBlock<'c>,
    pub head: BasicBlock<'c>,
}

/// Emits the canonical launch of `site` before `at`.
pub fn emit_launch<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    site: &LaunchSite<'c>,
    args: &ArgValues<'c>,
    at: InstructionValue<'c>,
) -> EmittedLaunch<'c> {
    let f = at.function();
    let b = builder_before(module, at);
    let dim3 = dim3_type(module);
    let dims = [&site.grid, &site.block].map(|d| {
        let v = dim3_value(module, &b, d);
        let slot = entry_alloca(module, f, dim3.into(), 4);
        b.store_aligned(v, slot, 4);
        slot
    });
    let buffer = b.call(entries.parameter_buffer, &[site.child_operand, dims[0], dims[1], site.smem]);
    buffer.set_call_arg_byval(1, dim3);
    buffer.set_call_arg_byval(2, dim3);
    let head = buffer.block();
    let has_buffer = b.is_not_null(buffer.result());
    let then_end = at.split_if_then(has_buffer);
    b.position_before(&then_end);
    args.store_into(&b, buffer.result());
    let call = b.call(entries.launch_entry(site.ptsz), &[buffer.result(), site.stream_operand]);
    EmittedLaunch { call, block: then_end.block(), head }
}

/// Replaces the launch of `site` by a new path that runs where `cond` (computed before the launch)
/// holds; elsewhere the launch is made as written (the launch call returned), so that no launch is lost
/// when the new path cannot take it. `new_path` gets a builder positioned in the guarded block. The launch's result becomes
/// success (a launch taken by the new path did not fail).
pub fn guarded_replace<'c>(
    module: &Module<'c>,
    entries: &CanonicalEntries<'c>,
    site: &LaunchSite<'c>,
    args: &ArgValues<'c>,
    b: &Builder<'c>,
    cond: IntValue<'c>,
    new_path: impl FnOnce(&Builder<'c>, InstructionValue<'c>),
) -> InstructionValue<'c> {
    let then_end = site.launch.split_if_then(cond);
    b.position_before(&then_end);
    new_path(b, then_end);
    b.position_before(&site.launch);
    let otherwise = b.build_not(cond, "").expect("builder positioned");
    let else_end = site.launch.split_if_then(otherwise);
    let fallback = emit_launch(module, entries, site, args, else_end).call;
    if site.launch.has_users() {
        site.launch.replace_uses_with(module.get_context().i32_type().const_zero());
    }
    erase_site(site);
    fallback
}

/// Replaces the launch of `site` by `new_path` everywhere (where the new path always applies). The
/// launch's result becomes success.
pub fn replace<'c>(module: &Module<'c>, site: &LaunchSite<'c>, new_path: impl FnOnce(&Builder<'c>)) {
    let b = builder_before(module, site.launch);
    new_path(&b);
    if site.launch.has_users() {
        site.launch.replace_uses_with(module.get_context().i32_type().const_zero());
    }
    erase_site(site);
}

/// Re-emits `site` in the canonical form where it is, keeping its result for its users.
pub fn rewrite_canonical<'c>(module: &Module<'c>, entries: &CanonicalEntries<'c>, site: &LaunchSite<'c>) {
    let args = ArgValues::capture(module, site);
    let emitted = emit_launch(module, entries, site, &args, site.launch);
    if site.launch.has_users() {
        let join = site.launch.block().get_first_instruction().unwrap();
        let b = builder_before(module, join);
        let i32t = module.get_context().i32_type();
        let result = b.build_phi(i32t, "").expect("builder positioned");
        let failed = i32t.const_int(NO_BUFFER_ERROR, false);
        result.add_incoming(&[(&emitted.call.result(), emitted.block), (&failed, emitted.head)]);
        site.launch.replace_uses_with(result.as_basic_value());
    }
    erase_site(site);
}

/// The site a transformation replaces, with its launch as written (the fallback) going into the
/// fire-and-forget stream where the launch's stream was created for it alone ([`Stream::SingleLaunch`]):
/// that orders it after nothing, as the created stream did. Nothing then needs the created stream:
/// [`retire_single_launch_stream`] removes its creation and destruction once the site is replaced.
pub fn fallback_site<'c>(module: &Module<'c>, site: &LaunchSite<'c>) -> LaunchSite<'c> {
    LaunchSite { stream_operand: taken_over_stream(module, site), ..site.clone() }
}

/// The stream a launch goes into once a transformation takes it over: its own, but for a stream created
/// for the launch alone, which the launching thread destroys before a scope launches (and each lane of
/// a warp has its own): fire-and-forget, which orders the launch after nothing as well.
pub fn taken_over_stream<'c>(module: &Module<'c>, site: &LaunchSite<'c>) -> BasicValueEnum<'c> {
    match site.stream {
        Stream::SingleLaunch => stream_handle(module, STREAM_FIRE_AND_FORGET),
        _ => site.stream_operand,
    }
}

/// A stream handle as a constant pointer (`ptr null` for the NULL stream).
pub fn stream_handle<'c>(module: &Module<'c>, handle: u64) -> BasicValueEnum<'c> {
    let cx = module.get_context();
    let ptr = cx.ptr_type(AddressSpace::default());
    match handle {
        0 => ptr.const_null().into(),
        h => cx.i64_type().const_int(h, false).const_to_pointer(ptr).into(),
    }
}

/// The calls that create and destroy the stream a launch carries alone ([`Stream::SingleLaunch`]), which
/// [`retire_single_launch_stream`] takes away with the launch: none for any other site.
pub fn single_launch_stream_calls<'c>(site: &LaunchSite<'c>) -> Vec<(InstructionValue<'c>, StreamCall)> {
    single_launch_stream_slot(site).map_or_else(Vec::new, stream_calls_on)
}

/// The calls that create a stream into `slot` and those that destroy the handle loaded from it.
fn stream_calls_on<'c>(slot: BasicValueEnum<'c>) -> Vec<(InstructionValue<'c>, StreamCall)> {
    let stream_call = |i: InstructionValue<'c>| {
        (i.get_opcode() == InstructionOpcode::Call).then(|| i.called_function().and_then(|f| classify_stream_call(&f.name()))).flatten()
    };
    let mut calls = Vec::new();
    for user in slot.instruction_users() {
        match (user.get_opcode(), stream_call(user)) {
            (InstructionOpcode::Call, Some(StreamCall::CreateWithFlags)) => calls.push((user, StreamCall::CreateWithFlags)),
            (InstructionOpcode::Load, _) => calls.extend(
                user.instruction_users().into_iter().filter(|&u| stream_call(u) == Some(StreamCall::Destroy)).map(|u| (u, StreamCall::Destroy)),
            ),
            _ => {}
        }
    }
    calls
}

/// After a single-launch site was replaced through [`fallback_site`]: the stream's creation leaves a
/// null handle and succeeds, its destruction goes. Made by some lanes of a warp while their warp-mates
/// were in klap's runtime, the creation hung in the device runtime (fuzz case 223-31 at `auto`, every
/// run on an H200: a lane in `__cudaCDP2StreamCreateWithFlags`, its warp-mates at collectives).
pub fn retire_single_launch_stream<'c>(module: &Module<'c>, site: &LaunchSite<'c>) {
    let Some(slot) = single_launch_stream_slot(site) else {
        return;
    };
    let cx = module.get_context();
    for (call, what) in stream_calls_on(slot) {
        if what == StreamCall::CreateWithFlags {
            builder_before(module, call)
                .build_store(call.call_args()[0].into_pointer_value(), cx.ptr_type(AddressSpace::default()).const_null())
                .expect("builder positioned");
        }
        call.replace_uses_with(cx.i32_type().const_zero());
        call.erase();
    }
    // The handle's loads that fed the destruction (or the launch, replaced) feed nothing now.
    for load in slot.instruction_users().into_iter().filter(|u| u.get_opcode() == InstructionOpcode::Load && !u.has_users()) {
        load.erase();
    }
}

/// The stack slot holding the stream handle a launch carries alone.
fn single_launch_stream_slot<'c>(site: &LaunchSite<'c>) -> Option<BasicValueEnum<'c>> {
    site.stream_operand.instruction_of(InstructionOpcode::Load).filter(|_| site.stream == Stream::SingleLaunch).map(|l| l.operand(0))
}

/// Removes a launch that has been re-emitted: the launch, its argument writes, its parameter buffer
/// (its null checks become constants) and the dim3 stack objects that only fed it.
pub fn erase_site(site: &LaunchSite) {
    site.launch.erase();
    let mut erased: Vec<InstructionValue> = Vec::new();
    for w in &site.writes {
        // The elements of one vector store are writes of one instruction.
        if erased.contains(&w.inst) {
            continue;
        }
        erased.push(w.inst);
        let ptr = if w.inst.get_opcode() == InstructionOpcode::Store { w.inst.operand(1) } else { w.inst.operand(0) };
        w.inst.erase();
        erase_dead_address(ptr);
    }
    for &check in &site.null_checks {
        let v = match check.null_test() {
            Some(NullTest::IsNull) => 0,
            _ => 1,
        };
        check.replace_uses_with(check.get_type().into_int_type().const_int(v, false));
        check.erase();
    }
    if !site.buffer_call.has_users() {
        site.buffer_call.erase();
    }
    for dim in [&site.grid, &site.block] {
        if dim.form == DimForm::Byval && dim.fields.iter().all(Option::is_some) {
            erase_dead_stack_object(dim.operand);
        } else if dim.form == DimForm::Value {
            if let Some(i) = dim.operand.as_instruction().filter(|i| !i.has_users()) {
                i.erase();
            }
        }
    }
}

fn orig_align(write: InstructionValue) -> u64 {
    match write.get_opcode() {
        InstructionOpcode::Store => write.get_alignment().unwrap_or(0).max(1) as u64,
        _ => write.call_arg_align(0).unwrap_or(1),
    }
}

fn largest_power_of_two_dividing(offset: u64) -> u64 {
    if offset == 0 {
        16
    } else {
        1 << offset.trailing_zeros().min(4)
    }
}


/// Removes an address computation (GEP or cast chain) left without users.
fn erase_dead_address(ptr: BasicValueEnum) {
    let mut v = ptr;
    while let Some(i) = v.as_instruction().filter(|&i| i.is_address_computation() && !i.has_users()) {
        v = i.operand(0);
        i.erase();
    }
}

/// Removes an alloca that is only written (and marked by lifetime intrinsics), with those writes.
fn erase_dead_stack_object(ptr: BasicValueEnum) {
    let Some(base) = ptr.underlying_object().instruction_of(InstructionOpcode::Alloca) else { return };
    let mut dead = Vec::new();
    let mut work = vec![base];
    while let Some(p) = work.pop() {
        for u in p.instruction_users() {
            match u.get_opcode() {
                _ if u.is_address_computation() => work.push(u),
                InstructionOpcode::Store if crate::llvm::same(u.operand(1), p) && !crate::llvm::same(u.operand(0), p) => {}
                InstructionOpcode::Call if u.is_lifetime_marker() => {}
                _ => return,
            }
            dead.push(u);
        }
    }
    // Users before their operands: stores and markers first, then addresses, then the alloca.
    dead.sort_by_key(|&u| u.is_address_computation());
    dead.dedup();
    for u in dead {
        if !u.has_users() {
            u.erase();
        }
    }
    if !base.has_users() {
        base.erase();
    }
}
