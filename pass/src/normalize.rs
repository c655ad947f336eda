//! `klap-normalize`: rewrites every recognized V1 launch into the V2 form nvcc emits, re-emitting it
//! from the launch-site model at the launch point:
//!
//! ```text
//!   buf = __cudaCDP2GetParameterBufferV2(kernel, grid, block, smem)
//!   if (buf) { <argument stores>; __cudaCDP2LaunchDeviceV2(buf, stream) }
//! ```
//!
//! clang 22's V1 lowering silently loses launches into the tail and fire-and-forget streams on CUDA
//! 13 (measured: 0 of 64 ran); the V2 entry points run them. V2 launches keep their form but call the
//! `__cudaCDP2` symbols libcudadevrt defines.

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
        Remark::NotNormalized.emit(ctx, u.launch, &format!("it is not recognized ({})", u.reason.as_str()));
    }
    let mut changed = false;
    for site in &model.sites {
        changed |= match site.abi {
            Abi::V1 => {
                Remark::Normalized.emit(ctx, site.launch, &format!("V1 launch of @{} rewritten into the V2 form", site.child.name()));
                rewrite_v1(module, site);
                crate::ffi::count(Statistic::NormalizedLaunch, 1);
                true
            }
            Abi::V2 => rename_v2_entries(module, site),
        };
    }
    changed
}

fn dim3_type(module: Module) -> Type {
    module.struct_type("struct.dim3").unwrap_or_else(|| {
        let i32t = module.i32_type();
        module.new_struct_type("struct.dim3", &[i32t, i32t, i32t])
    })
}

fn parameter_buffer_v2(module: Module) -> Value {
    let (ptr, dim3, i32t) = (module.ptr_type(), dim3_type(module), module.i32_type());
    let ty = module.function_type(ptr, &[ptr, dim3, dim3, i32t]);
    module.get_or_declare(&cdp2_symbol(EntryKind::ParameterBuffer, Abi::V2, false), ty)
}

fn launch_v2(module: Module, ptsz: bool) -> Value {
    let ptr = module.ptr_type();
    let ty = module.function_type(module.i32_type(), &[ptr, ptr]);
    module.get_or_declare(&cdp2_symbol(EntryKind::Launch, Abi::V2, ptsz), ty)
}

/// The dim3 as a value at the builder's position: from its known fields, else loaded from memory.
fn dim3_value(module: Module, b: &mut Builder, dim: &Dim3) -> Value {
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

fn rewrite_v1(module: Module, site: &LaunchSite) {
    // Bytes copied in by memcpy are read where the copy was, so later changes to the source don't leak in.
    let copied: Vec<Option<Value>> = site
        .writes
        .iter()
        .map(|w| match w.kind {
            WriteKind::Copy { src, len } => {
                let mut b = Builder::before(module, w.inst);
                let param = &site.params[w.param];
                let whole = w.offset == param.offset && len == param.size;
                let ty = if whole { param.ty } else { module.array_type(module.i8_type(), len) };
                let align = w.inst.call_arg_align(1).unwrap_or(1);
                Some(b.load(ty, src, align as u32))
            }
            WriteKind::Store { .. } => None,
        })
        .collect();

    let launch = site.launch;
    let mut b = Builder::before(module, launch);
    let grid = dim3_value(module, &mut b, &site.grid);
    let block = dim3_value(module, &mut b, &site.block);
    let smem = site.smem;
    let buffer = b.call(parameter_buffer_v2(module), &[site.child_operand, grid, block, smem]);
    let head = buffer.parent_block();
    let has_buffer = b.is_not_null(buffer);
    let then_end = launch.split_if_then(has_buffer);
    b.position_before(then_end);
    for (w, copied) in site.writes.iter().zip(copied) {
        let value = match w.kind {
            WriteKind::Store { value } => value,
            WriteKind::Copy { .. } => copied.unwrap(),
        };
        let param_align = site.params[w.param].align;
        let align = largest_power_of_two_dividing(w.offset).min(param_align).min(orig_align(w.inst));
        let at = b.byte_gep(buffer, w.offset);
        b.store(value, at, align as u32);
    }
    let new_launch = b.call(launch_v2(module, site.ptsz), &[buffer, site.stream_operand]);

    if !launch.users().is_empty() {
        let mut at_join = Builder::before(module, first_instruction(launch.parent_block()));
        let failed = module.const_int(module.i32_type(), NO_BUFFER_ERROR);
        let result = at_join.phi(module.i32_type(), &[(new_launch, then_end.parent_block()), (failed, head)]);
        launch.replace_all_uses_with(result);
    }
    launch.erase();
    for w in &site.writes {
        let ptr = if w.inst.op() == Op::Store { w.inst.operand(1) } else { w.inst.operand(0) };
        w.inst.erase();
        erase_dead_address(ptr);
    }
    let module_true = module.const_int(has_buffer.ty(), 1);
    let module_false = module.const_int(has_buffer.ty(), 0);
    for &check in &site.null_checks {
        check.replace_all_uses_with(match check.null_test() {
            Some(NullTest::IsNull) => module_false,
            _ => module_true,
        });
        check.erase();
    }
    if site.buffer_call.users().is_empty() {
        site.buffer_call.erase();
    }
    for dim in [&site.grid, &site.block] {
        if dim.form == DimForm::Byval && dim.fields.iter().all(Option::is_some) {
            erase_dead_stack_object(dim.operand);
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

/// Points V2 launches that use plain or per-thread names at the `__cudaCDP2` symbols.
fn rename_v2_entries(module: Module, site: &LaunchSite) -> bool {
    let mut changed = false;
    for (call, kind) in [(site.buffer_call, EntryKind::ParameterBuffer), (site.launch, EntryKind::Launch)] {
        let Some(callee) = call.called_function() else { continue };
        let wanted = cdp2_symbol(kind, Abi::V2, site.ptsz);
        // A definition with an entry's name is a header wrapper around the real entry: leave it be.
        if callee.name() == wanted || !callee.is_declaration() {
            continue;
        }
        match module.function(&wanted) {
            None => callee.set_name(&wanted),
            Some(target) if target.function_type() == callee.function_type() => callee.replace_all_uses_with(target),
            Some(_) => continue,
        }
        changed = true;
    }
    changed
}
