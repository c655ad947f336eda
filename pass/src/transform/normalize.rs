//! `klap-normalize`: rewrites every recognized launch that is not already in the canonical form into
//! it, re-emitting the launch from the launch-site model at the launch point:
//!
//! ```text
//!   buf = __cudaCDP2GetParameterBufferV2(kernel, ptr byval(dim3) grid, ptr byval(dim3) block, smem)
//!   if (buf) { <argument stores>; __cudaCDP2LaunchDeviceV2(buf, stream) }
//! ```
//!
//! That is the V2 form nvcc emits, with the dim3s passed as clang's ABI passes them (byval), so that
//! the device runtime klap links in (compiled by clang) calls the same declaration. clang 22's V1
//! lowering silently loses launches into the tail and fire-and-forget streams on CUDA 13 (measured:
//! 0 of 64 ran); the V2 entry points run them.

use crate::abi::{cdp2_symbol, Abi, EntryKind};
use crate::ffi::{first_instruction, Builder, Ctx, Module, NullTest, Op, Statistic, Type, Value};
use crate::launch::{DimForm, Dim3, LaunchModel, LaunchSite, WriteKind};
use crate::remarks::Remark;

/// `cudaErrorMemoryAllocation`: what the launch expression yields when no parameter buffer was had.
const NO_BUFFER_ERROR: u64 = 2;

pub fn run(module: Module, model: &LaunchModel, ctx: Ctx) -> bool {
    if !model.nvptx {
        return false;
    }
    for u in model.unrecognized.iter().filter(|u| u.abi == Abi::V1) {
        Remark::NotNormalized.emit(ctx, u.launch, &format!("it is not recognized ({})", u.reason.reason()));
    }
    let entries = CanonicalEntries::get(module);
    let mut changed = false;
    for site in model.sites.iter().filter(|s| !entries.is_canonical(s)) {
        if site.abi == Abi::V1 {
            Remark::Normalized.emit(ctx, site.launch, &format!("V1 launch of @{} rewritten into the V2 form", site.child.name()));
            crate::ffi::count(Statistic::NormalizedLaunch, 1);
        }
        rewrite(module, &entries, site);
        changed = true;
    }
    entries.retire_replaced();
    changed
}

fn rewrite(module: Module, entries: &CanonicalEntries, site: &LaunchSite) {
    let args = ArgValues::capture(module, site);
    let (launch, then_block, head) = emit_launch(module, entries, site, &args, site.launch);
    if !site.launch.users().is_empty() {
        let mut at_join = Builder::before(module, first_instruction(site.launch.parent_block()));
        let failed = module.const_int(module.i32_type(), NO_BUFFER_ERROR);
        let result = at_join.phi(module.i32_type(), &[(launch, then_block), (failed, head)]);
        site.launch.replace_all_uses_with(result);
    }
    erase_site(site);
}

/// The device-runtime entry points in the canonical form, declared once per module. A declaration of
/// the same name with another type (dim3 by value, from an NVVM producer) is renamed out of the way
/// and retired once nothing calls it.
pub struct CanonicalEntries {
    module: Module,
    pub parameter_buffer: Value,
    launch: Value,
    launch_ptsz: Value,
    replaced: Vec<Value>,
}

impl CanonicalEntries {
    pub fn get(module: Module) -> CanonicalEntries {
        let (ptr, i32t, dim3) = (module.ptr_type(), module.i32_type(), dim3_type(module));
        let mut replaced = Vec::new();
        let mut declare = |kind, ptsz, ty: Type, byval: &[u32]| {
            let name = cdp2_symbol(kind, Abi::V2, ptsz);
            if let Some(existing) = module.function(&name) {
                if existing.function_type() == ty && byval.iter().all(|&i| existing.param_byval_type(i).is_some()) {
                    return existing;
                }
                existing.set_name(&format!("{name}.klap.replaced"));
                replaced.push(existing);
            }
            let f = module.get_or_declare(&name, ty);
            for &i in byval {
                f.set_param_byval(i, dim3, module);
            }
            f
        };
        let parameter_buffer = declare(EntryKind::ParameterBuffer, false, module.function_type(ptr, &[ptr, ptr, ptr, i32t]), &[1, 2]);
        let launch_ty = module.function_type(i32t, &[ptr, ptr]);
        let launch = declare(EntryKind::Launch, false, launch_ty, &[]);
        let launch_ptsz = declare(EntryKind::Launch, true, launch_ty, &[]);
        CanonicalEntries { module, parameter_buffer, launch, launch_ptsz, replaced }
    }

    fn launch_entry(&self, ptsz: bool) -> Value {
        if ptsz {
            self.launch_ptsz
        } else {
            self.launch
        }
    }

    /// Whether a site already calls the canonical entry points with its dim3s byval.
    pub fn is_canonical(&self, site: &LaunchSite) -> bool {
        site.abi == Abi::V2
            && site.buffer_call.called_function() == Some(self.parameter_buffer)
            && site.launch.called_function() == Some(self.launch_entry(site.ptsz))
            && site.grid.form == DimForm::Byval
            && site.block.form == DimForm::Byval
    }

    /// Removes the renamed declarations nothing calls any more, and unused canonical ones.
    pub fn retire_replaced(&self) {
        for &old in &self.replaced {
            if old.users().is_empty() {
                old.erase_function();
            } else {
                // Unrecognized launches still call it: give them the canonical symbol (same PTX ABI).
                let name = old.name();
                let canonical = self.module.function(name.trim_end_matches(".klap.replaced")).unwrap();
                old.replace_all_uses_with(canonical);
                old.erase_function();
            }
        }
        for f in [self.launch_ptsz, self.launch, self.parameter_buffer] {
            if f.users().is_empty() {
                f.erase_function();
            }
        }
    }
}

pub fn dim3_type(module: Module) -> Type {
    module.struct_type("struct.dim3").unwrap_or_else(|| {
        let i32t = module.i32_type();
        module.new_struct_type("struct.dim3", &[i32t, i32t, i32t])
    })
}

/// The dim3 as a value at the builder's position: from its known fields, else loaded from memory.
pub fn dim3_value(module: Module, b: &mut Builder, dim: &Dim3) -> Value {
    if dim.form == DimForm::Value {
        return dim.operand;
    }
    let ty = dim3_type(module);
    if let [Some(x), Some(y), Some(z)] = dim.fields {
        let mut v = module.poison(ty);
        for (i, f) in [x, y, z].into_iter().enumerate() {
            v = b.insert_value(v, f, i as u32);
        }
        return v;
    }
    b.load(ty, dim.operand, 4)
}

/// x, y, z of a dim3 as i32 values at the builder's position.
pub fn dim3_fields(module: Module, b: &mut Builder, dim: &Dim3) -> [Value; 3] {
    if let [Some(x), Some(y), Some(z)] = dim.fields {
        return [x, y, z];
    }
    let v = dim3_value(module, b, dim);
    [0, 1, 2].map(|i| b.extract_value(v, i))
}

/// An alloca at the start of the function's entry block.
pub fn entry_alloca(module: Module, f: Value, ty: Type, align: u32) -> Value {
    let mut b = Builder::before(module, first_instruction(f.entry_block()));
    b.alloca(ty, align)
}

/// The argument bytes of a launch as values available at the launch, with where they go.
pub struct ArgValues {
    pub writes: Vec<(u64, Value, u32)>,
}

impl ArgValues {
    /// Bytes copied in by memcpy are read where the copy was, so later changes to the source don't leak in.
    pub fn capture(module: Module, site: &LaunchSite) -> ArgValues {
        let writes = site
            .writes
            .iter()
            .map(|w| {
                let value = match w.kind {
                    WriteKind::Store { value } => value,
                    WriteKind::Copy { src, len } => {
                        let mut b = Builder::before(module, w.inst);
                        let param = &site.params[w.param];
                        let whole = w.offset == param.offset && len == param.size;
                        let ty = if whole { param.ty } else { module.array_type(module.i8_type(), len) };
                        let align = w.inst.call_arg_align(1).unwrap_or(1);
                        b.load(ty, src, align as u32)
                    }
                };
                let align = largest_power_of_two_dividing(w.offset).min(site.params[w.param].align).min(orig_align(w.inst));
                (w.offset, value, align as u32)
            })
            .collect();
        ArgValues { writes }
    }

    pub fn store_into(&self, b: &mut Builder, base: Value) {
        self.store_if(b, base, |_| true);
    }

    /// Stores the writes `k` with `selected[k] == which`.
    pub fn store_where(&self, b: &mut Builder, base: Value, selected: &[bool], which: bool) {
        self.store_if(b, base, |k| selected[k] == which);
    }

    fn store_if(&self, b: &mut Builder, base: Value, keep: impl Fn(usize) -> bool) {
        for (_, &(offset, value, align)) in self.writes.iter().enumerate().filter(|(k, _)| keep(*k)) {
            let at = b.byte_gep(base, offset);
            b.store(value, at, align);
        }
    }
}

/// Emits the canonical launch of `site` before `at`: returns the launch call, the block it is in, and
/// the block that tests the parameter buffer (the phi predecessors when the result is used).
pub fn emit_launch(module: Module, entries: &CanonicalEntries, site: &LaunchSite, args: &ArgValues, at: Value) -> (Value, Value, Value) {
    let f = at.parent_function();
    let mut b = Builder::before(module, at);
    let dims = [&site.grid, &site.block].map(|d| {
        let v = dim3_value(module, &mut b, d);
        let slot = entry_alloca(module, f, dim3_type(module), 4);
        b.store(v, slot, 4);
        slot
    });
    let buffer = b.call(entries.parameter_buffer, &[site.child_operand, dims[0], dims[1], site.smem]);
    buffer.set_call_arg_byval(1, dim3_type(module), module);
    buffer.set_call_arg_byval(2, dim3_type(module), module);
    let head = buffer.parent_block();
    let has_buffer = b.is_not_null(buffer);
    let then_end = at.split_if_then(has_buffer);
    b.position_before(then_end);
    args.store_into(&mut b, buffer);
    let launch = b.call(entries.launch_entry(site.ptsz), &[buffer, site.stream_operand]);
    (launch, then_end.parent_block(), head)
}

/// Removes a launch that has been re-emitted: the launch, its argument writes, its parameter buffer
/// (its null checks become constants) and the dim3 stack objects that only fed it.
pub fn erase_site(site: &LaunchSite) {
    site.launch.erase();
    for w in &site.writes {
        let ptr = if w.inst.op() == Op::Store { w.inst.operand(1) } else { w.inst.operand(0) };
        w.inst.erase();
        erase_dead_address(ptr);
    }
    for &check in &site.null_checks {
        let ty = check.ty();
        let module = check.parent_function().module();
        let v = match check.null_test() {
            Some(NullTest::IsNull) => 0,
            _ => 1,
        };
        check.replace_all_uses_with(module.const_int(ty, v));
        check.erase();
    }
    if site.buffer_call.users().is_empty() {
        site.buffer_call.erase();
    }
    for dim in [&site.grid, &site.block] {
        if dim.form == DimForm::Byval && dim.fields.iter().all(Option::is_some) {
            erase_dead_stack_object(dim.operand);
        } else if dim.form == DimForm::Value && dim.operand.is_instruction() && dim.operand.users().is_empty() {
            dim.operand.erase();
        }
    }
}

fn orig_align(write: Value) -> u64 {
    match write.op() {
        Op::Store => write.alignment().max(1) as u64,
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
fn erase_dead_address(ptr: Value) {
    let mut v = ptr;
    while v.is_instruction() && matches!(v.op(), Op::Gep | Op::Cast) && v.users().is_empty() {
        let next = v.operand(0);
        v.erase();
        v = next;
    }
}

/// Removes an alloca that is only written (and marked by lifetime intrinsics), with those writes.
fn erase_dead_stack_object(ptr: Value) {
    let (base, _) = ptr.base_and_offset();
    if !base.is_instruction() || base.op() != Op::Alloca {
        return;
    }
    let mut dead = Vec::new();
    let mut work = vec![base];
    while let Some(p) = work.pop() {
        for u in p.users() {
            match u.op() {
                Op::Gep | Op::Cast => work.push(u),
                Op::Store if u.operand(1) == p && u.operand(0) != p => {}
                Op::Call if u.is_lifetime_marker() => {}
                _ => return,
            }
            dead.push(u);
        }
    }
    // Users before their operands: stores and markers first, then addresses, then the alloca.
    dead.sort_by_key(|u| matches!(u.op(), Op::Gep | Op::Cast));
    dead.dedup();
    for u in dead {
        if u.users().is_empty() {
            u.erase();
        }
    }
    if base.users().is_empty() {
        base.erase();
    }
}
