//! The recognizer: from a call of a launch entry point to a [`LaunchSite`], or the reason it is not one.

use super::abi::{classify_entry, classify_stream_call, Abi, EntryKind, Stream, StreamCall, STREAM_NON_BLOCKING};
use super::{param_layout, resolve_function, ArgWrite, Dim3, DimForm, LaunchSite, Param, WriteKind};
use crate::llvm::{
    same, BasicTypeEnum, BasicValueEnum, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue,
    Module, ModuleExt, ValueExt,
};
use crate::remarks::Remark;
use std::collections::HashSet;

pub(super) struct Rejection(pub Remark, pub String);

fn reject<T>(reason: Remark, detail: impl Into<String>) -> Result<T, Rejection> {
    Err(Rejection(reason, detail.into()))
}

pub(super) struct Recognizer<'a, 'c> {
    pub module: &'a Module<'c>,
    pub ctx: Ctx,
    pub kernels: &'a HashSet<FunctionValue<'c>>,
}

impl<'c> Recognizer<'_, 'c> {
    pub fn site(&self, caller: FunctionValue<'c>, launch: InstructionValue<'c>, abi: Abi, ptsz: bool) -> Result<LaunchSite<'c>, Rejection> {
        let args = launch.call_args();
        let expected = if abi == Abi::V1 { 6 } else { 2 };
        if args.len() != expected {
            return reject(Remark::BadSignature, format!("launch entry takes {} arguments, expected {expected}", args.len()));
        }
        let buffer_operand = args[if abi == Abi::V1 { 1 } else { 0 }].strip_casts();
        let buffer_call = buffer_operand.instruction_of(InstructionOpcode::Call);
        let buffer_entry = buffer_call.and_then(|c| c.called_function()).and_then(|f| classify_entry(&f.name()));
        let buffer_call = match (buffer_call, buffer_entry) {
            (Some(call), Some(e)) if e.kind == EntryKind::ParameterBuffer && e.abi == abi => call,
            _ => {
                return reject(
                    Remark::UnknownBuffer,
                    format!("the parameter buffer {} is not the result of a {} parameter-buffer call", buffer_operand.operand_string(), abi.as_str()),
                )
            }
        };
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
        let grid = self.dim3(grid.0, grid.1, launch, buffer_call)?;
        let block = self.dim3(block.0, block.1, launch, buffer_call)?;
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
            stream: match Stream::from_handle(stream_operand.const_pointer_int()) {
                Stream::Other if self.single_launch_stream(launch, stream_operand) => Stream::SingleLaunch,
                stream => stream,
            },
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

    /// Whether the launch's stream was created for it alone: the handle is loaded from a stack slot of
    /// the caller that one `cudaStreamCreateWithFlags(&slot, cudaStreamNonBlocking)` fills before the
    /// launch; every load of it goes to this launch or to `cudaStreamDestroy`; no path leads from the
    /// launch back to itself, or from a destroy to the launch, without creating a new stream; and at
    /// least one destroy follows. Nothing else can then order the launch after anything.
    fn single_launch_stream(&self, launch: InstructionValue<'c>, stream: BasicValueEnum<'c>) -> bool {
        let Some(load) = stream.instruction_of(InstructionOpcode::Load) else { return false };
        let slot = load.operand(0);
        if slot.instruction_of(InstructionOpcode::Alloca).is_none() {
            return false;
        }
        let (mut creates, mut destroys, mut launches) = (Vec::new(), Vec::new(), 0);
        for user in slot.instruction_users() {
            match user.get_opcode() {
                InstructionOpcode::Call if user.is_lifetime_marker() => {}
                InstructionOpcode::Call => {
                    let args = user.call_args();
                    let is_create = user.called_function().and_then(|f| classify_stream_call(&f.name())) == Some(StreamCall::CreateWithFlags);
                    let flags = args.get(1).and_then(|f| f.const_int());
                    if !is_create || args.len() != 2 || !same(args[0], slot) || flags != Some(STREAM_NON_BLOCKING) {
                        return false;
                    }
                    creates.push(user);
                }
                InstructionOpcode::Load if same(user.operand(0), slot) => {
                    for use_of_handle in user.instruction_users() {
                        if use_of_handle.get_opcode() != InstructionOpcode::Call {
                            return false;
                        }
                        let args = use_of_handle.call_args();
                        if use_of_handle == launch {
                            // The handle may only be the launch's stream, once.
                            if args.iter().filter(|a| same(**a, user)).count() != 1 || !same(stream, user) {
                                return false;
                            }
                            launches += 1;
                        } else if use_of_handle.called_function().and_then(|f| classify_stream_call(&f.name())) == Some(StreamCall::Destroy)
                            && args.len() == 1
                        {
                            destroys.push(use_of_handle);
                        } else {
                            return false;
                        }
                    }
                }
                _ => return false,
            }
        }
        let [create] = creates[..] else { return false };
        launches == 1
            && !destroys.is_empty()
            && self.ctx.dominates(create, launch)
            && !self.ctx.reachable_avoiding(launch, launch, create)
            && destroys.iter().all(|&d| !self.ctx.reachable_avoiding(d, launch, create))
    }

    /// The dim3 argument `index` of `call` (the launch or its parameter-buffer call, `buffer`).
    fn dim3(&self, call: InstructionValue<'c>, index: u32, launch: InstructionValue<'c>, buffer: InstructionValue<'c>) -> Result<Dim3<'c>, Rejection> {
        let operand = call.call_args()[index as usize];
        let read_before_launch = (call != launch).then_some(call);
        match operand.get_type() {
            BasicTypeEnum::PointerType(_) => {
                if !call.call_arg_is_byval(index) {
                    return reject(Remark::BadSignature, "a dim3 is passed as a pointer without byval");
                }
                let fields = fields_in_memory(self.module, self.ctx, operand, call, Some(buffer));
                Ok(Dim3 { operand, form: DimForm::Byval, fields, read_before_launch })
            }
            BasicTypeEnum::StructType(s) if s.count_fields() == 3 => {
                let fields = [0, 1, 2].map(|i| struct_field(self.module, self.ctx, operand, i));
                Ok(Dim3 { operand, form: DimForm::Value, fields, read_before_launch })
            }
            other => reject(Remark::BadSignature, format!("a dim3 of type {}", super::type_ir(other))),
        }
    }

    /// Sorts every use of the parameter buffer into argument writes, null checks and the launch itself;
    /// anything else means the buffer escapes.
    fn buffer_uses(
        &self,
        buffer: InstructionValue<'c>,
        launch: InstructionValue<'c>,
        params: &[Param<'c>],
        abi: Abi,
    ) -> Result<(Vec<ArgWrite<'c>>, Vec<InstructionValue<'c>>), Rejection> {
        let launch_buffer_arg = if abi == Abi::V1 { 1 } else { 0 };
        let mut writes = Vec::new();
        let mut null_checks = Vec::new();
        let mut work = vec![(buffer, 0i64)];
        while let Some((ptr, offset)) = work.pop() {
            for user in ptr.instruction_users() {
                match user.get_opcode() {
                    InstructionOpcode::GetElementPtr | InstructionOpcode::BitCast | InstructionOpcode::AddrSpaceCast => {
                        let (base, off) = user.base_and_offset(self.module);
                        if !same(base, buffer) {
                            return reject(Remark::UnknownOffset, format!("the parameter buffer is indexed by a non-constant offset in {}", user.operand_string()));
                        }
                        work.push((user, off));
                    }
                    InstructionOpcode::Store if same(user.operand(1), ptr) && !same(user.operand(0), ptr) => {
                        let value = user.operand(0);
                        let size = self.module.store_size(value.get_type());
                        match self.write(user, offset, size, WriteKind::Store { value }, params) {
                            Ok(w) => writes.push(w),
                            Err(e) => match value.get_type() {
                                BasicTypeEnum::VectorType(v) => {
                                    let elem = self.module.store_size(v.get_element_type());
                                    for index in 0..v.get_size() {
                                        let at = offset + (index as u64 * elem) as i64;
                                        writes.push(self.write(user, at, elem, WriteKind::Element { vector: value, index }, params)?);
                                    }
                                }
                                _ => return Err(e),
                            },
                        }
                    }
                    InstructionOpcode::ICmp if offset == 0 && user.null_test().is_some() => null_checks.push(user),
                    InstructionOpcode::Call if user == launch => {
                        let args = launch.call_args();
                        if args.iter().enumerate().any(|(i, a)| same(a.strip_casts(), ptr) && i != launch_buffer_arg) {
                            return reject(Remark::BufferEscapes, "the parameter buffer is passed to the launch as another argument");
                        }
                    }
                    InstructionOpcode::Call if user.is_lifetime_marker() => {}
                    InstructionOpcode::Call => match user.as_mem_transfer() {
                        Some((dest, src, len)) if same(dest, ptr) && !same(src, ptr) => {
                            writes.push(self.write(user, offset, len, WriteKind::Copy { src, len }, params)?);
                        }
                        _ => return reject(Remark::BufferEscapes, format!("the parameter buffer is passed to {}", describe_call(user))),
                    },
                    _ => return reject(Remark::BufferEscapes, format!("the parameter buffer is used by `{}`", user.ir())),
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

    fn write(&self, inst: InstructionValue<'c>, offset: i64, size: u64, kind: WriteKind<'c>, params: &[Param]) -> Result<ArgWrite<'c>, Rejection> {
        let param = (offset >= 0)
            .then(|| params.iter().position(|p| p.offset <= offset as u64 && offset as u64 + size <= p.offset + p.size))
            .flatten()
            .ok_or_else(|| {
                Rejection(Remark::UnknownOffset, format!("a {size}-byte write at offset {offset} does not fall inside one parameter of the child"))
            })?;
        Ok(ArgWrite { inst, offset: offset as u64, size, kind, param })
    }
}

/// Field i of a dim3 value: through insertvalue chains, constants and loads from memory.
fn struct_field<'c>(module: &Module<'c>, ctx: Ctx, v: BasicValueEnum<'c>, i: u32) -> Option<BasicValueEnum<'c>> {
    if let Some((agg, elem, index)) = v.as_instruction().and_then(|inst| inst.as_insert_value()) {
        return if index == i { Some(elem) } else { struct_field(module, ctx, agg, i) };
    }
    if let Some(e) = v.const_aggregate_element(i) {
        return Some(e);
    }
    let load = v.instruction_of(InstructionOpcode::Load)?;
    fields_in_memory(module, ctx, load.operand(0), load, None)[i as usize]
}

/// The bytes of a dim3 in memory.
const DIM3_BYTES: u64 = 12;

/// The x, y, z a dim3 in memory holds when `at` executes: the last stores to it in the same block.
/// A field last written by anything but a plain i32 store of that field is unknown, and so is every
/// field not yet seen once something that alias analysis says may write the dim3 is passed (a store
/// through another pointer, an atomic). Stores into `parameter_buffer`, the runtime's fresh memory for
/// this launch, cannot write it.
fn fields_in_memory<'c>(
    module: &Module<'c>,
    ctx: Ctx,
    ptr: BasicValueEnum<'c>,
    at: InstructionValue<'c>,
    parameter_buffer: Option<InstructionValue<'c>>,
) -> [Option<BasicValueEnum<'c>>; 3] {
    let (base, base_off) = ptr.base_and_offset(module);
    // None: not yet seen; Some(None): unknown; Some(Some(v)): v.
    let mut fields: [Option<Option<BasicValueEnum<'c>>>; 3] = [None; 3];
    let block: Vec<InstructionValue<'c>> = at.block().get_instructions().collect();
    let Some(pos) = block.iter().position(|&i| i == at) else { return [None; 3] };
    for &inst in block[..pos].iter().rev() {
        match inst.get_opcode() {
            InstructionOpcode::Store => {
                let (b, off) = inst.operand(1).base_and_offset(module);
                if !same(b, base) {
                    let into_buffer = parameter_buffer.is_some_and(|buf| same(inst.operand(1).underlying_object(), buf));
                    if !into_buffer && ctx.may_write(inst, ptr, DIM3_BYTES) {
                        fields.iter_mut().filter(|f| f.is_none()).for_each(|f| *f = Some(None));
                    }
                    continue;
                }
                let value = inst.operand(0);
                let rel = off - base_off;
                let size = module.store_size(value.get_type()) as i64;
                for (i, f) in fields.iter_mut().enumerate() {
                    let field = 4 * i as i64;
                    if f.is_some() || rel + size <= field || field + 4 <= rel {
                        continue;
                    }
                    let is_i32 = matches!(value.get_type(), BasicTypeEnum::IntType(t) if t.get_bit_width() == 32);
                    *f = Some(if value.get_type().is_struct_type() && rel == 0 && size == 12 {
                        struct_field(module, ctx, value, i as u32)
                    } else if rel == field && is_i32 {
                        Some(value)
                    } else {
                        None
                    });
                }
            }
            InstructionOpcode::Call if inst.is_lifetime_marker() => {}
            // Anything else might write the dim3 behind our back.
            InstructionOpcode::Call => break,
            _ if ctx.may_write(inst, ptr, DIM3_BYTES) => fields.iter_mut().filter(|f| f.is_none()).for_each(|f| *f = Some(None)),
            _ => {}
        }
        if fields.iter().all(Option::is_some) {
            break;
        }
    }
    fields.map(Option::flatten)
}

fn describe_call(call: InstructionValue) -> String {
    call.called_function().map(|f| format!("@{}", f.name())).unwrap_or_else(|| "an indirect call".into())
}
