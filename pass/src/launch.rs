//! The launch-site model: every device launch of a module, recognized or not, with what each klap
//! transformation needs to know about it. Built once per module by the launch analysis.

use crate::abi::{classify_entry, Abi, EntryKind, Stream};
use crate::ffi::{Ctx, Module, Op, Type, TypeKind, Value};
use crate::remarks::Remark;
use std::collections::{HashMap, HashSet};

/// One parameter of a child kernel as it lies in the parameter buffer.
#[derive(Clone, Debug)]
pub struct Param {
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// The parameter's type; for a `byval(T)` parameter, T.
    pub ty: Type,
    pub byval: bool,
}

/// How a grid or block dimension reaches the launch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DimForm {
    /// A pointer to a dim3 in memory, passed `byval` (clang).
    Byval,
    /// A `%struct.dim3` value: loaded, constant, or built with insertvalue (nvcc, NVVM producers).
    Value,
}

#[derive(Clone, Copy, Debug)]
pub struct Dim3 {
    pub operand: Value,
    pub form: DimForm,
    /// x, y, z where the analysis could see them (a constant or an SSA value available at the launch).
    pub fields: [Option<Value>; 3],
}

/// One write of argument bytes into the parameter buffer.
#[derive(Clone, Copy, Debug)]
pub enum WriteKind {
    Store { value: Value },
    /// `memcpy(buf + offset, src, len)`.
    Copy { src: Value, len: u64 },
}

#[derive(Clone, Copy, Debug)]
pub struct ArgWrite {
    pub inst: Value,
    pub offset: u64,
    pub size: u64,
    pub kind: WriteKind,
    /// Index into `LaunchSite::params` of the parameter written.
    pub param: usize,
}

/// A recognized device launch.
#[derive(Clone, Debug)]
pub struct LaunchSite {
    pub caller: Value,
    pub caller_is_kernel: bool,
    /// Kernels whose calls reach `caller` when it is a device function.
    pub reached_from: Vec<Value>,
    pub child: Value,
    /// The child as written at the launch (the function, a cast of it, or a load of a constant).
    pub child_operand: Value,
    pub abi: Abi,
    pub ptsz: bool,
    pub launch: Value,
    pub buffer_call: Value,
    pub grid: Dim3,
    pub block: Dim3,
    pub smem: Value,
    pub stream: Stream,
    pub stream_operand: Value,
    pub params: Vec<Param>,
    pub writes: Vec<ArgWrite>,
    /// `icmp eq/ne buf, null` instructions guarding the launch.
    pub null_checks: Vec<Value>,
    pub loop_depth: u32,
    pub divergent: bool,
    /// Only threads whose threadIdx.x equals one uniform value reach it (one per block with
    /// one-dimensional blocks).
    pub lone: bool,
    /// In a device function some chain of calls to which is made in a loop.
    pub called_in_loop: bool,
}

#[derive(Clone, Debug)]
pub struct Unrecognized {
    pub caller: Value,
    pub launch: Value,
    pub abi: Abi,
    /// Why it is left exactly as it is: one of the missed-launch remarks.
    pub reason: Remark,
    pub detail: String,
}

/// Every launch of one module.
#[derive(Default)]
pub struct LaunchModel {
    pub nvptx: bool,
    pub triple: String,
    /// Kernels in module order.
    pub kernels: Vec<Value>,
    pub sites: Vec<LaunchSite>,
    pub unrecognized: Vec<Unrecognized>,
}

struct Rejection(Remark, String);

fn reject<T>(reason: Remark, detail: impl Into<String>) -> Result<T, Rejection> {
    Err(Rejection(reason, detail.into()))
}

/// Builds the model of `module`; emits an analysis remark for every recognized launch and a missed
/// remark for every other one.
pub fn analyze(module: Module, ctx: Ctx) -> LaunchModel {
    analyze_with(module, ctx, true)
}

/// The model of a module a klap pass has just changed: without remarks or statistics, which the first
/// analysis gave already.
pub fn analyze_quietly(module: Module, ctx: Ctx) -> LaunchModel {
    analyze_with(module, ctx, false)
}

fn analyze_with(module: Module, ctx: Ctx, report: bool) -> LaunchModel {
    let mut model = LaunchModel { nvptx: module.is_nvptx(), triple: module.triple(), ..Default::default() };
    if !model.nvptx {
        return model;
    }
    let annotated: HashSet<Value> = module.annotated_kernels().into_iter().collect();
    let functions = module.functions();
    model.kernels =
        functions.iter().copied().filter(|f| f.is_ptx_kernel_cc() || annotated.contains(f)).collect();
    let kernel_set: HashSet<Value> = model.kernels.iter().copied().collect();
    let reach = kernels_reaching(&functions, &model.kernels);

    // A definition with an entry point's name is a header wrapper: its calls are the launches.
    let wrappers = |f: &&Value| classify_entry(&f.name()).is_none();
    for &f in functions.iter().filter(|f| !f.is_declaration()).filter(wrappers) {
        // Walked up the callers once per function, at its first launch.
        let mut f_called_in_loop: Option<bool> = None;
        for inst in f.all_instructions() {
            if inst.op() != Op::Call {
                continue;
            }
            let Some(entry) = inst.called_function().and_then(|c| classify_entry(&c.name())) else { continue };
            if entry.kind != EntryKind::Launch {
                continue;
            }
            let recognizer = Recognizer { module, ctx, kernels: &kernel_set };
            match recognizer.site(f, inst, entry.abi, entry.ptsz) {
                Ok(mut site) => {
                    site.caller_is_kernel = kernel_set.contains(&f);
                    site.called_in_loop =
                        !site.caller_is_kernel && *f_called_in_loop.get_or_insert_with(|| called_in_loop(ctx, f));
                    site.reached_from = reach.get(&f).cloned().unwrap_or_default();
                    if report {
                        Remark::Recognized.emit(ctx, inst, &site.summary());
                    }
                    if report && !site.caller_is_kernel {
                        let kernels: Vec<String> = site.reached_from.iter().map(|k| format!("@{}", k.name())).collect();
                        let from = if kernels.is_empty() { "no kernel".to_string() } else { kernels.join(", ") };
                        Remark::LaunchInDeviceFunction.emit(ctx, inst, &format!("launch in device function @{} reached from {from}", f.name()));
                    }
                    model.sites.push(site);
                }
                Err(Rejection(reason, detail)) => {
                    if report {
                        reason.emit(ctx, inst, &detail);
                    }
                    model.unrecognized.push(Unrecognized { caller: f, launch: inst, abi: entry.abi, reason, detail });
                }
            }
        }
    }
    if report {
        crate::ffi::count(crate::ffi::Statistic::RecognizedLaunch, model.sites.len());
        crate::ffi::count(crate::ffi::Statistic::UnrecognizedLaunch, model.unrecognized.len());
    }
    model
}

/// Whether a call to `f`, or to a function whose calls reach `f`, is made in a loop.
fn called_in_loop(ctx: Ctx, f: Value) -> bool {
    let mut seen = HashSet::from([f]);
    let mut work = vec![f];
    while let Some(g) = work.pop() {
        for call in g.users().into_iter().filter(|u| u.is_instruction() && u.op() == Op::Call && u.called_function() == Some(g)) {
            if ctx.loop_depth(call) > 0 {
                return true;
            }
            let caller = call.parent_function();
            if seen.insert(caller) {
                work.push(caller);
            }
        }
    }
    false
}

/// For each function, the kernels whose direct calls reach it (kernels reach themselves).
fn kernels_reaching(functions: &[Value], kernels: &[Value]) -> HashMap<Value, Vec<Value>> {
    let mut callees: HashMap<Value, Vec<Value>> = HashMap::new();
    for &f in functions.iter().filter(|f| !f.is_declaration()) {
        let mut called: Vec<Value> = f
            .all_instructions()
            .into_iter()
            .filter(|i| i.op() == Op::Call)
            .filter_map(|i| i.called_function())
            .filter(|c| !c.is_declaration())
            .collect();
        called.dedup();
        callees.insert(f, called);
    }
    let mut reach: HashMap<Value, Vec<Value>> = HashMap::new();
    for &k in kernels {
        let mut seen = HashSet::from([k]);
        let mut work = vec![k];
        while let Some(f) = work.pop() {
            reach.entry(f).or_default().push(k);
            for &c in callees.get(&f).into_iter().flatten() {
                if seen.insert(c) {
                    work.push(c);
                }
            }
        }
    }
    reach
}

/// The layout of a kernel's parameters in its parameter buffer: each at its natural alignment, in order.
pub fn param_layout(module: Module, kernel: Value) -> (Vec<Param>, u64) {
    let mut end = 0u64;
    let params = kernel
        .params()
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let byval = kernel.param_byval_type(i as u32);
            let ty = byval.unwrap_or(p.ty());
            let mut align = module.abi_align(ty);
            // On a pointer parameter `align` speaks of the pointee, not of the parameter.
            if let (Some(a), Some(_)) = (kernel.param_align(i as u32), byval) {
                align = align.max(a);
            }
            let size = if byval.is_some() { module.alloc_size(ty) } else { module.store_size(ty) };
            let offset = end.div_ceil(align) * align;
            end = offset + size;
            Param { offset, size, align, ty, byval: byval.is_some() }
        })
        .collect();
    (params, end)
}

struct Recognizer<'a> {
    module: Module,
    ctx: Ctx,
    kernels: &'a HashSet<Value>,
}

impl Recognizer<'_> {
    fn site(&self, caller: Value, launch: Value, abi: Abi, ptsz: bool) -> Result<LaunchSite, Rejection> {
        let args = launch.call_args();
        let expected = if abi == Abi::V1 { 6 } else { 2 };
        if args.len() != expected {
            return reject(Remark::BadSignature, format!("launch entry takes {} arguments, expected {expected}", args.len()));
        }
        let buffer_call = args[if abi == Abi::V1 { 1 } else { 0 }].strip_casts();
        let buffer_entry = (buffer_call.is_instruction() && buffer_call.op() == Op::Call)
            .then(|| buffer_call.called_function())
            .flatten()
            .and_then(|f| classify_entry(&f.name()));
        match buffer_entry {
            Some(e) if e.kind == EntryKind::ParameterBuffer && e.abi == abi => {}
            _ => {
                return reject(
                    Remark::UnknownBuffer,
                    format!("the parameter buffer {} is not the result of a {} parameter-buffer call", buffer_call.operand_string(), abi.as_str()),
                )
            }
        }
        let buffer_args = buffer_call.call_args();
        let buffer_expected = if abi == Abi::V1 { 2 } else { 4 };
        if buffer_args.len() != buffer_expected {
            return reject(Remark::BadSignature, format!("parameter-buffer entry takes {} arguments, expected {buffer_expected}", buffer_args.len()));
        }
        // V1 names the kernel and configuration at the launch, V2 at the buffer.
        let (child_operand, grid, block, smem, stream_operand) = match abi {
            Abi::V1 => (args[0], (launch, 2), (launch, 3), args[4], args[5]),
            Abi::V2 => (buffer_args[0], (buffer_call, 1), (buffer_call, 2), buffer_args[3], args[1]),
        };
        let child = resolve_function(child_operand).ok_or_else(|| {
            Rejection(Remark::UnknownChild, format!("the launched kernel {} is not a known function", child_operand.operand_string()))
        })?;
        // A kernel of another translation unit (-fgpu-rdc) is only declared: launching it says it is one.
        if !self.kernels.contains(&child) && !child.is_declaration() {
            return reject(Remark::NotAKernel, format!("@{} is launched but is not a kernel", child.name()));
        }
        let grid = self.dim3(grid.0, grid.1)?;
        let block = self.dim3(block.0, block.1)?;
        let (params, layout_size) = param_layout(self.module, child);
        if abi == Abi::V1 {
            if let Some(size) = buffer_args[1].const_int() {
                if size < layout_size {
                    return reject(Remark::LayoutMismatch, format!("the buffer holds {size} bytes but the parameters of @{} take {layout_size}", child.name()));
                }
            }
        }
        let (writes, null_checks) = self.buffer_uses(buffer_call, launch, &params, abi)?;
        Ok(LaunchSite {
            caller,
            caller_is_kernel: false,
            reached_from: Vec::new(),
            child,
            child_operand,
            abi,
            ptsz,
            launch,
            buffer_call,
            grid,
            block,
            smem,
            stream: Stream::from_handle(stream_operand.const_pointer_int()),
            stream_operand,
            params,
            writes,
            loop_depth: self.ctx.loop_depth(launch),
            // Measured where the launch starts: its own null check comes later and may skip it.
            divergent: self.ctx.control_divergent(buffer_call, &null_checks),
            lone: self.ctx.lone_launcher(buffer_call),
            called_in_loop: false,
            null_checks,
        })
    }

    fn dim3(&self, call: Value, index: u32) -> Result<Dim3, Rejection> {
        let operand = call.call_args()[index as usize];
        match operand.ty().kind() {
            TypeKind::Pointer => {
                if !call.call_arg_is_byval(index) {
                    return reject(Remark::BadSignature, "a dim3 is passed as a pointer without byval");
                }
                Ok(Dim3 { operand, form: DimForm::Byval, fields: fields_in_memory(operand, call) })
            }
            TypeKind::Struct if operand.ty().struct_fields().len() == 3 => {
                let fields = [0, 1, 2].map(|i| struct_field(operand, i));
                Ok(Dim3 { operand, form: DimForm::Value, fields })
            }
            _ => reject(Remark::BadSignature, format!("a dim3 of type {}", operand.ty().to_ir())),
        }
    }

    /// Sorts every use of the parameter buffer into argument writes, null checks and the launch itself;
    /// anything else means the buffer escapes.
    fn buffer_uses(&self, buffer: Value, launch: Value, params: &[Param], abi: Abi) -> Result<(Vec<ArgWrite>, Vec<Value>), Rejection> {
        let launch_buffer_arg = if abi == Abi::V1 { 1 } else { 0 };
        let mut writes = Vec::new();
        let mut null_checks = Vec::new();
        let mut work = vec![(buffer, 0i64)];
        while let Some((ptr, offset)) = work.pop() {
            for user in ptr.users() {
                match user.op() {
                    Op::Gep | Op::Cast => {
                        let (base, off) = user.base_and_offset();
                        if base != buffer {
                            return reject(Remark::UnknownOffset, format!("the parameter buffer is indexed by a non-constant offset in {}", user.operand_string()));
                        }
                        work.push((user, off));
                    }
                    Op::Store if user.operand(1) == ptr && user.operand(0) != ptr => {
                        let value = user.operand(0);
                        let size = self.module.store_size(value.ty());
                        writes.push(self.write(user, offset, size, WriteKind::Store { value }, params)?);
                    }
                    Op::ICmp if offset == 0 && user.null_test().is_some() => null_checks.push(user),
                    Op::Call if user == launch => {
                        let args = launch.call_args();
                        if args.iter().enumerate().any(|(i, a)| a.strip_casts() == ptr && i != launch_buffer_arg) {
                            return reject(Remark::BufferEscapes, "the parameter buffer is passed to the launch as another argument");
                        }
                    }
                    Op::Call if user.is_lifetime_marker() => {}
                    Op::Call => match user.as_mem_transfer() {
                        Some((dest, src, len)) if dest == ptr && src != ptr => {
                            writes.push(self.write(user, offset, len, WriteKind::Copy { src, len }, params)?);
                        }
                        _ => return reject(Remark::BufferEscapes, format!("the parameter buffer is passed to {}", describe_call(user))),
                    },
                    _ => return reject(Remark::BufferEscapes, format!("the parameter buffer is used by `{}`", user.to_ir())),
                }
            }
        }
        for w in &writes {
            if !self.ctx.dominates(w.inst, launch) {
                return reject(Remark::ConditionalWrite, format!("the write of the argument at offset {} does not always happen before the launch", w.offset));
            }
        }
        let mut sorted: Vec<&ArgWrite> = writes.iter().collect();
        sorted.sort_by_key(|w| w.offset);
        if let Some(pair) = sorted.windows(2).find(|p| p[0].offset + p[0].size > p[1].offset) {
            return reject(Remark::OverlappingWrites, format!("the writes at offsets {} and {} overlap", pair[0].offset, pair[1].offset));
        }
        writes.sort_by_key(|w| w.offset);
        Ok((writes, null_checks))
    }

    fn write(&self, inst: Value, offset: i64, size: u64, kind: WriteKind, params: &[Param]) -> Result<ArgWrite, Rejection> {
        let param = (offset >= 0)
            .then(|| params.iter().position(|p| p.offset <= offset as u64 && offset as u64 + size <= p.offset + p.size))
            .flatten()
            .ok_or_else(|| {
                Rejection(Remark::UnknownOffset, format!("a {size}-byte write at offset {offset} does not fall inside one parameter of the child"))
            })?;
        Ok(ArgWrite { inst, offset: offset as u64, size, kind, param })
    }
}

/// The function a launch names: directly, through casts, or through a load of a constant global.
pub fn resolve_function(v: Value) -> Option<Value> {
    let v = v.strip_casts();
    if let Some(f) = v.as_function() {
        return Some(f);
    }
    if v.is_instruction() && v.op() == Op::Load {
        let global = v.operand(0).strip_casts();
        return global.constant_global_initializer().and_then(|init| init.strip_casts().as_function());
    }
    None
}

/// Field i of a dim3 value: through insertvalue chains, constants and loads from memory.
fn struct_field(v: Value, i: u32) -> Option<Value> {
    if let Some((agg, elem, index)) = v.as_insert_value() {
        return if index == i { Some(elem) } else { struct_field(agg, i) };
    }
    if let Some(e) = v.const_aggregate_element(i) {
        return Some(e);
    }
    if v.is_instruction() && v.op() == Op::Load {
        return fields_in_memory(v.operand(0), v)[i as usize];
    }
    None
}

/// The x, y, z a dim3 in memory holds when `at` executes: the last stores to it in the same block.
/// A field last written by anything but a plain i32 store of that field is unknown.
fn fields_in_memory(ptr: Value, at: Value) -> [Option<Value>; 3] {
    let (base, base_off) = ptr.base_and_offset();
    // None: not yet seen; Some(None): unknown; Some(Some(v)): v.
    let mut fields: [Option<Option<Value>>; 3] = [None; 3];
    let block = at.parent_block().instructions();
    let Some(pos) = block.iter().position(|&i| i == at) else { return [None; 3] };
    let module = at.parent_function().module();
    for &inst in block[..pos].iter().rev() {
        match inst.op() {
            Op::Store => {
                let (b, off) = inst.operand(1).base_and_offset();
                if b != base {
                    continue;
                }
                let value = inst.operand(0);
                let rel = off - base_off;
                let size = module.store_size(value.ty()) as i64;
                for (i, f) in fields.iter_mut().enumerate() {
                    let field = 4 * i as i64;
                    if f.is_some() || rel + size <= field || field + 4 <= rel {
                        continue;
                    }
                    *f = Some(if value.ty().kind() == TypeKind::Struct && rel == 0 && size == 12 {
                        struct_field(value, i as u32)
                    } else if rel == field && value.ty().kind() == TypeKind::Integer(32) {
                        Some(value)
                    } else {
                        None
                    });
                }
            }
            Op::Call if inst.is_lifetime_marker() => {}
            // Anything else might write the dim3 behind our back.
            Op::Call => break,
            _ => {}
        }
        if fields.iter().all(Option::is_some) {
            break;
        }
    }
    fields.map(Option::flatten)
}

fn describe_call(call: Value) -> String {
    call.called_function().map(|f| format!("@{}", f.name())).unwrap_or_else(|| "an indirect call".into())
}

impl Dim3 {
    pub fn describe(&self) -> String {
        let f = |v: Option<Value>| v.map(short_operand).unwrap_or_else(|| "?".into());
        format!("({},{},{})", f(self.fields[0]), f(self.fields[1]), f(self.fields[2]))
    }
}

/// Constants as numbers, everything else as its IR operand.
pub fn short_operand(v: Value) -> String {
    match v.const_int() {
        Some(c) => (c as i64).to_string(),
        None => v.operand_string(),
    }
}

impl LaunchSite {
    /// The parameters with how their bytes are written, e.g. `8:i32=%21`.
    pub fn describe_args(&self) -> String {
        let mut parts = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            let writes: Vec<&ArgWrite> = self.writes.iter().filter(|w| w.param == i).collect();
            let ty = if p.byval { format!("byval({})", p.ty.to_ir()) } else { p.ty.to_ir() };
            let value = match writes.as_slice() {
                [] => "unset".to_string(),
                [w] if w.offset == p.offset && w.size == p.size => match w.kind {
                    WriteKind::Store { value } => short_operand(value),
                    WriteKind::Copy { src, .. } => format!("copy({})", src.operand_string()),
                },
                ws => format!("{{{} writes}}", ws.len()),
            };
            parts.push(format!("{}:{}={}", p.offset, ty, value));
        }
        format!("[{}]", parts.join(" "))
    }

    pub fn summary(&self) -> String {
        format!(
            "launch of @{} recognized ({} form, grid {}, block {}, stream {}, {} arguments{}{})",
            self.child.name(),
            self.abi.as_str(),
            self.grid.describe(),
            self.block.describe(),
            self.stream.as_str(),
            self.params.len(),
            if self.loop_depth > 0 { ", in a loop" } else { "" },
            if self.divergent { ", under divergent control flow" } else { "" },
        )
    }
}
