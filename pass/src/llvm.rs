//! The LLVM layer: the one module of klap with `unsafe` in it.
//!
//! IR is read and built with inkwell. This module adds what inkwell does not offer, as extension traits
//! on inkwell's own types (never a parallel wrapper), and reaches what only LLVM's C++ API offers
//! (analyses, remarks, statistics, cloning, linking) through the C++ shim (shim/klap_shim.cpp).
//!
//! Lifetimes: the module klap works on belongs to the pass manager (opt, clang). The plugin boundary
//! lends it to the Rust side as a `Module<'static>` that is never disposed ([`LentModule`]); every value
//! taken from it is valid while the module is alive and unchanged in the parts it names, which a klap
//! pass guarantees for the duration of one call from the shim. The launch model the shim's analysis
//! caches holds such values; the analysis manager drops it when a pass changes the IR.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub use inkwell::basic_block::BasicBlock;
pub use inkwell::builder::Builder;
pub use inkwell::context::{Context, ContextRef};
pub use inkwell::memory_buffer::MemoryBuffer;
pub use inkwell::module::{Linkage, Module};
pub use inkwell::types::{AnyType, AnyTypeEnum, BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FunctionType, IntType, StructType};
pub use inkwell::values::{
    AnyValue, AsValueRef, BasicValue, BasicValueEnum, FunctionValue, GlobalValue, InstructionOpcode, InstructionValue,
    IntValue, Operand, PhiValue, PointerValue,
};
pub use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, IntPredicate};

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::types::AsTypeRef;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use inkwell::llvm_sys::LLVMOpcode;
use std::ffi::{c_char, c_void, CStr, CString};
use std::mem::ManuallyDrop;
use std::ops::Deref;

/// The shim's view of one module and its function analysis manager.
#[repr(C)]
pub struct RawCtx {
    _private: [u8; 0],
}

extern "C" {
    fn klap_loop_depth(ctx: *mut RawCtx, inst: LLVMValueRef) -> u32;
    fn klap_dominates(ctx: *mut RawCtx, a: LLVMValueRef, b: LLVMValueRef) -> bool;
    fn klap_reachable_avoiding(ctx: *mut RawCtx, from: LLVMValueRef, to: LLVMValueRef, avoid: LLVMValueRef) -> bool;
    fn klap_control_divergent(ctx: *mut RawCtx, inst: LLVMValueRef, ignored: *const LLVMValueRef, n: u32) -> bool;
    fn klap_lone_launcher(ctx: *mut RawCtx, inst: LLVMValueRef) -> bool;
    fn klap_exit_before_barrier(ctx: *mut RawCtx, barriers: *const LLVMValueRef, n: u32) -> LLVMValueRef;
    fn klap_remark(ctx: *mut RawCtx, kind: u32, inst: LLVMValueRef, id: *const c_char, msg: *const c_char);
    fn klap_count(which: u32, n: u32);
    fn klap_strip_constant_offsets(module: LLVMModuleRef, ptr: LLVMValueRef, offset: *mut i64) -> LLVMValueRef;
    fn klap_underlying_object(ptr: LLVMValueRef) -> LLVMValueRef;
    fn klap_may_write(ctx: *mut RawCtx, inst: LLVMValueRef, ptr: LLVMValueRef, size: u64) -> bool;
    fn klap_wait_point(ctx: *mut RawCtx, f: LLVMValueRef, must: *const LLVMValueRef, n: u32) -> LLVMValueRef;
    fn klap_operand_string(v: LLVMValueRef) -> *mut c_char;
    fn klap_split_if_then(cond: LLVMValueRef, before: LLVMValueRef) -> LLVMValueRef;
    fn klap_split_block(before: LLVMValueRef) -> LLVMBasicBlockRef;
    fn klap_errs(s: *const c_char, n: usize);
    fn klap_user_location(inst: LLVMValueRef, file: *mut *mut c_char, line: *mut u32, col: *mut u32) -> bool;
    fn klap_ctx_module(ctx: *mut RawCtx) -> LLVMModuleRef;
    fn klap_invalidate_analyses(ctx: *mut RawCtx);
    fn klap_register_pass_builder_callbacks(pass_builder: *mut c_void);
    fn klap_link_runtime(dest: LLVMModuleRef, data: *const c_char, size: usize, error: *mut *mut c_char) -> bool;
    fn klap_clone_body_into(from: LLVMValueRef, to: LLVMValueRef, args: *mut LLVMValueRef, n: u32);
    fn klap_clone_function(f: LLVMValueRef, name: *const c_char) -> LLVMValueRef;
    fn klap_delete_body(f: LLVMValueRef);
}

fn take_message(p: *mut c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: p is a message allocated by LLVM (LLVMCreateMessage or a Print*ToString call).
    unsafe {
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap()
}

/// Writes to LLVM's error stream, where opt's own diagnostics go.
pub fn write_errs(text: &str) {
    // SAFETY: the pointer and length describe a live &str.
    unsafe { klap_errs(text.as_ptr() as *const c_char, text.len()) }
}

// ---- the plugin boundary -------------------------------------------------------------------------

/// A module lent by the pass manager: dereferences to inkwell's `Module` and is never disposed
/// (inkwell's `Module` disposes of its module when dropped, and the pass manager would then crash).
pub struct LentModule(ManuallyDrop<Module<'static>>);

impl Deref for LentModule {
    type Target = Module<'static>;
    fn deref(&self) -> &Module<'static> {
        &self.0
    }
}

/// Access to the analyses, remark emitter and module of the pass run the shim is in.
#[derive(Clone, Copy)]
pub struct Ctx(*mut RawCtx);

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RemarkKind {
    Passed = 0,
    Missed = 1,
    Analysis = 2,
}

/// Which statistic (the shim's STATISTIC counters) to add to.
#[derive(Clone, Copy)]
pub enum Statistic {
    RecognizedLaunch = 0,
    UnrecognizedLaunch = 1,
    NormalizedLaunch = 2,
    AggregatedLaunch = 3,
    SerializedLaunch = 4,
    AggregatedMalloc = 5,
    BlockReusedLaunch = 6,
    RegisterCappedKernel = 7,
    ReadOnlyParam = 8,
    CoarsenedChild = 9,
    GridReusedLaunch = 10,
    NoRecordRunInThread = 11,
}

pub fn count(which: Statistic, n: usize) {
    // SAFETY: plain counter update in the shim.
    unsafe { klap_count(which as u32, n as u32) }
}

impl Ctx {
    /// `raw` is the context the shim passed to an entry point; it lives through that call.
    pub fn from_shim(raw: *mut RawCtx) -> Ctx {
        Ctx(raw)
    }
    pub fn module(self) -> LentModule {
        // SAFETY: the shim's context names the live module of this pass run; it is never disposed here.
        LentModule(ManuallyDrop::new(unsafe { Module::new(klap_ctx_module(self.0)) }))
    }
    /// Drops the cached function analyses, which describe the IR as it was before a change.
    pub fn invalidate_analyses(self) {
        // SAFETY: the shim's context is live for the pass run.
        unsafe { klap_invalidate_analyses(self.0) }
    }
    pub fn loop_depth(self, inst: InstructionValue) -> u32 {
        // SAFETY: inst is an instruction of the module this context belongs to.
        unsafe { klap_loop_depth(self.0, inst.as_value_ref()) }
    }
    pub fn dominates(self, a: InstructionValue, b: InstructionValue) -> bool {
        // SAFETY: both are instructions of one function of this module.
        unsafe { klap_dominates(self.0, a.as_value_ref(), b.as_value_ref()) }
    }
    /// Whether a path of the CFG leads from `from` to `to` (from `from` back to itself when they are one)
    /// without executing `avoid`.
    pub fn reachable_avoiding(self, from: InstructionValue, to: InstructionValue, avoid: InstructionValue) -> bool {
        // SAFETY: the three are instructions of one function of this module.
        unsafe { klap_reachable_avoiding(self.0, from.as_value_ref(), to.as_value_ref(), avoid.as_value_ref()) }
    }
    /// Whether threads can disagree on reaching `inst`, not counting branches on `ignored` conditions.
    pub fn control_divergent(self, inst: InstructionValue, ignored: &[InstructionValue]) -> bool {
        let raw: Vec<LLVMValueRef> = ignored.iter().map(|v| v.as_value_ref()).collect();
        // SAFETY: inst is an instruction of this module; raw lives through the call.
        unsafe { klap_control_divergent(self.0, inst.as_value_ref(), raw.as_ptr(), raw.len() as u32) }
    }
    /// Whether only threads whose threadIdx.x equals one uniform value reach `inst`.
    pub fn lone_launcher(self, inst: InstructionValue) -> bool {
        // SAFETY: inst is an instruction of this module.
        unsafe { klap_lone_launcher(self.0, inst.as_value_ref()) }
    }
    /// A branch of the barriers' function after which some threads of a block reach none of `barriers`
    /// while others still reach one, on a condition they may disagree on (an early return before a
    /// barrier), if there is one.
    pub fn exit_before_barrier<'c>(self, barriers: &[InstructionValue<'c>]) -> Option<InstructionValue<'c>> {
        let raw: Vec<LLVMValueRef> = barriers.iter().map(|v| v.as_value_ref()).collect();
        // SAFETY: the barriers are instructions of one function of this module; raw lives through the call.
        let branch = unsafe { klap_exit_before_barrier(self.0, raw.as_ptr(), raw.len() as u32) };
        // SAFETY: the shim returns null or one of the function's terminators.
        (!branch.is_null()).then(|| unsafe { InstructionValue::new(branch) })
    }
    /// Whether `inst` may write any of the `size` bytes at `ptr` (LLVM's alias analysis).
    pub fn may_write(self, inst: InstructionValue, ptr: BasicValueEnum, size: u64) -> bool {
        // SAFETY: inst is an instruction of this module and ptr a pointer value of it.
        unsafe { klap_may_write(self.0, inst.as_value_ref(), ptr.as_value_ref(), size) }
    }
    /// Whether `inst` may write any byte of the object `ptr` points into (LLVM's alias analysis).
    pub fn may_write_object(self, inst: InstructionValue, ptr: BasicValueEnum) -> bool {
        // SAFETY: inst is an instruction of this module and ptr a pointer value of it; u64::MAX asks for
        // the whole object.
        unsafe { klap_may_write(self.0, inst.as_value_ref(), ptr.as_value_ref(), u64::MAX) }
    }
    /// The latest point of `f` that every thread of a block passes once, with none of `must` (nor a
    /// return) before it: the instruction to insert a promoted kernel's wait before.
    pub fn wait_point<'c>(self, f: FunctionValue<'c>, must: &[InstructionValue<'c>]) -> InstructionValue<'c> {
        let raw: Vec<LLVMValueRef> = must.iter().map(|v| v.as_value_ref()).collect();
        // SAFETY: f is a function with a body of this module, the instructions are f's; raw lives through
        // the call, which returns one of f's instructions.
        unsafe { InstructionValue::new(klap_wait_point(self.0, f.as_value_ref(), raw.as_ptr(), raw.len() as u32)) }
    }
    pub fn remark(self, kind: RemarkKind, inst: InstructionValue, id: &str, msg: &str) {
        let (id, msg) = (c_string(id), c_string(msg));
        // SAFETY: inst is an instruction of this module; the strings outlive the call, which emits at once.
        unsafe { klap_remark(self.0, kind as u32, inst.as_value_ref(), id.as_ptr(), msg.as_ptr()) }
    }
}

/// The shim's function that registers klap's passes with a pass builder (LLVM's plugin loader calls it).
pub type RegisterCallbacks = unsafe extern "C" fn(*mut c_void);

pub fn register_callbacks() -> RegisterCallbacks {
    klap_register_pass_builder_callbacks
}

/// A Rust object handed to the shim as an opaque pointer (the cached launch model).
pub fn into_handle<T>(object: Box<T>) -> *mut c_void {
    Box::into_raw(object) as *mut c_void
}

/// The object behind a handle from [`into_handle`], which the shim keeps alive until [`drop_handle`].
pub fn handle_ref<'a, T>(handle: *mut c_void) -> &'a T {
    // SAFETY: the shim passes back a pointer into_handle returned for a T, not yet dropped.
    unsafe { &*(handle as *const T) }
}

pub fn drop_handle<T>(handle: *mut c_void) {
    if !handle.is_null() {
        // SAFETY: handle came from into_handle::<T> and the shim drops it once.
        drop(unsafe { Box::from_raw(handle as *mut T) });
    }
}

// ---- values ------------------------------------------------------------------------------------

/// The first-class value behind a raw pointer (any value of a type other than void, label, metadata).
fn basic<'c>(raw: LLVMValueRef) -> BasicValueEnum<'c> {
    // SAFETY: raw is a live value of a first-class type (callers only pass operands and results).
    unsafe { BasicValueEnum::new(raw) }
}

fn instruction<'c>(raw: LLVMValueRef) -> Option<InstructionValue<'c>> {
    // SAFETY: dynamic type test before the conversion.
    unsafe { (!raw.is_null() && !LLVMIsAInstruction(raw).is_null()).then(|| InstructionValue::new(raw)) }
}

fn function<'c>(raw: LLVMValueRef) -> Option<FunctionValue<'c>> {
    // SAFETY: FunctionValue::new tests the value's kind.
    unsafe { FunctionValue::new(raw) }
}

/// Whether two handles of any inkwell kind name the same LLVM value.
pub fn same(a: impl AsValueRef, b: impl AsValueRef) -> bool {
    a.as_value_ref() == b.as_value_ref()
}

/// What klap asks of any value: its IR text, what kind of value it is, constants, pointers.
pub trait ValueExt<'c>: AsValueRef + Copy {
    /// How the value is written as an operand in IR (`%7`, `@k`, `32`, `null`).
    fn operand_string(self) -> String {
        // SAFETY: printing a live value.
        take_message(unsafe { klap_operand_string(self.as_value_ref()) })
    }
    /// The value as it reads in IR, without leading spaces.
    fn ir(self) -> String {
        // SAFETY: printing a live value.
        take_message(unsafe { LLVMPrintValueToString(self.as_value_ref()) }).trim().to_string()
    }
    fn value_type(self) -> BasicTypeEnum<'c> {
        // SAFETY: the type of a first-class value.
        unsafe { BasicTypeEnum::new(LLVMTypeOf(self.as_value_ref())) }
    }
    fn as_function(self) -> Option<FunctionValue<'c>> {
        function(self.as_value_ref())
    }
    fn as_instruction(self) -> Option<InstructionValue<'c>> {
        instruction(self.as_value_ref())
    }
    /// The instruction behind the value, when it is one with opcode `op`.
    fn instruction_of(self, op: InstructionOpcode) -> Option<InstructionValue<'c>> {
        self.as_instruction().filter(|i| i.get_opcode() == op)
    }
    /// For a function parameter: its function and index.
    fn as_param(self) -> Option<(FunctionValue<'c>, u32)> {
        let raw = self.as_value_ref();
        // SAFETY: dynamic type test, then the parameter's function.
        let f = unsafe {
            if LLVMIsAArgument(raw).is_null() {
                return None;
            }
            function(LLVMGetParamParent(raw))?
        };
        f.get_param_iter().position(|p| p.as_value_ref() == raw).map(|i| (f, i as u32))
    }
    /// A constant: a literal, a global's or function's address, or a constant expression of them.
    fn is_constant(self) -> bool {
        // SAFETY: dynamic type test.
        !unsafe { LLVMIsAConstant(self.as_value_ref()) }.is_null()
    }
    fn const_int(self) -> Option<u64> {
        let raw = self.as_value_ref();
        // SAFETY: dynamic type test, then reading a ConstantInt of at most 64 bits.
        unsafe {
            if LLVMIsAConstantInt(raw).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(raw)) > 64 {
                return None;
            }
            Some(LLVMConstIntGetZExtValue(raw))
        }
    }
    /// A constant pointer's integer value: null is 0, `inttoptr (i64 4 to ptr)` is 4.
    fn const_pointer_int(self) -> Option<u64> {
        let raw = self.as_value_ref();
        // SAFETY: dynamic type tests and constant-expression operands.
        unsafe {
            if !LLVMIsAConstantPointerNull(raw).is_null() {
                return Some(0);
            }
            if !LLVMIsAConstantExpr(raw).is_null()
                && matches!(LLVMGetConstOpcode(raw), LLVMOpcode::LLVMIntToPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast)
            {
                let inner = basic(LLVMGetOperand(raw, 0));
                return inner.const_int().or_else(|| inner.const_pointer_int());
            }
            None
        }
    }
    /// The value with pointer casts (bitcast, addrspacecast, constant or not) removed.
    fn strip_casts(self) -> BasicValueEnum<'c> {
        let mut v = self.as_value_ref();
        // SAFETY: dynamic type tests and operand reads.
        unsafe {
            loop {
                let is_cast_inst = !LLVMIsABitCastInst(v).is_null() || !LLVMIsAAddrSpaceCastInst(v).is_null();
                let is_cast_expr = !LLVMIsAConstantExpr(v).is_null()
                    && matches!(LLVMGetConstOpcode(v), LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast);
                if !(is_cast_inst || is_cast_expr) {
                    return basic(v);
                }
                v = LLVMGetOperand(v, 0);
            }
        }
    }
    /// The base pointer and constant byte offset of a pointer value of `module` (through GEPs and
    /// casts, constant expressions included: the offsets are the module's data layout's).
    fn base_and_offset(self, module: &Module<'c>) -> (BasicValueEnum<'c>, i64) {
        let mut off = 0i64;
        // SAFETY: the shim only reads the value and the module's data layout.
        let base = unsafe { klap_strip_constant_offsets(module.as_mut_ptr(), self.as_value_ref(), &mut off) };
        (basic(base), off)
    }
    /// Whether the value is a pointer in one of `spaces` (address-space numbers).
    fn points_into(self, spaces: &[u16]) -> bool {
        match self.value_type() {
            BasicTypeEnum::PointerType(p) => spaces.iter().any(|&s| p.get_address_space() == AddressSpace::from(s)),
            _ => false,
        }
    }
    /// The object a pointer value points into (an alloca, a global, an argument, a call's result...).
    fn underlying_object(self) -> BasicValueEnum<'c> {
        // SAFETY: the shim only reads the value.
        basic(unsafe { klap_underlying_object(self.as_value_ref()) })
    }
    /// The initializer of a constant global variable.
    fn constant_global_initializer(self) -> Option<BasicValueEnum<'c>> {
        let raw = self.as_value_ref();
        // SAFETY: dynamic type test and global-variable queries.
        unsafe {
            if LLVMIsAGlobalVariable(raw).is_null() || LLVMIsGlobalConstant(raw) == 0 {
                return None;
            }
            let init = LLVMGetInitializer(raw);
            (!init.is_null()).then(|| basic(init))
        }
    }
    /// Field `i` of a constant aggregate.
    fn const_aggregate_element(self, i: u32) -> Option<BasicValueEnum<'c>> {
        let raw = self.as_value_ref();
        // SAFETY: dynamic type test, then element access.
        unsafe {
            if LLVMIsAConstant(raw).is_null() {
                return None;
            }
            let e = LLVMGetAggregateElement(raw, i);
            (!e.is_null()).then(|| basic(e))
        }
    }
    /// The instructions that use the value, each once, in use-list order.
    fn instruction_users(self) -> Vec<InstructionValue<'c>> {
        let mut out: Vec<InstructionValue<'c>> = Vec::new();
        // SAFETY: walking the use list.
        unsafe {
            let mut u = LLVMGetFirstUse(self.as_value_ref());
            while !u.is_null() {
                if let Some(i) = instruction(LLVMGetUser(u)) {
                    if !out.contains(&i) {
                        out.push(i);
                    }
                }
                u = LLVMGetNextUse(u);
            }
        }
        out
    }
    /// Whether anything (an instruction, a constant, a global's initializer) uses the value.
    fn has_users(self) -> bool {
        // SAFETY: reading the use list's head.
        !unsafe { LLVMGetFirstUse(self.as_value_ref()) }.is_null()
    }
    /// Whether anything other than a direct call uses the function (its address is taken).
    fn address_taken(self) -> bool {
        let raw = self.as_value_ref();
        // SAFETY: walking the use list; a call's callee is its last operand.
        unsafe {
            let mut u = LLVMGetFirstUse(raw);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                let is_callee = !LLVMIsACallInst(user).is_null()
                    && LLVMGetOperand(user, (LLVMGetNumOperands(user) - 1) as u32) == raw;
                if !is_callee {
                    return true;
                }
                u = LLVMGetNextUse(u);
            }
        }
        false
    }
    /// Replaces every use of the value (which must have the same type as `new`).
    fn replace_uses_with(self, new: impl AsValueRef) {
        // SAFETY: both values have the same type (callers guarantee it).
        unsafe { LLVMReplaceAllUsesWith(self.as_value_ref(), new.as_value_ref()) }
    }
    fn set_value_name(self, name: &str) {
        // SAFETY: naming a live value.
        unsafe { LLVMSetValueName2(self.as_value_ref(), name.as_ptr() as *const c_char, name.len()) }
    }
}

impl<'c> ValueExt<'c> for BasicValueEnum<'c> {}
impl<'c> ValueExt<'c> for InstructionValue<'c> {}
impl<'c> ValueExt<'c> for FunctionValue<'c> {}
impl<'c> ValueExt<'c> for PointerValue<'c> {}
impl<'c> ValueExt<'c> for IntValue<'c> {}

/// Equality of an instruction with an operand value.
pub fn is<'c>(v: BasicValueEnum<'c>, inst: InstructionValue<'c>) -> bool {
    same(v, inst)
}

/// `icmp eq/ne p, null` (either order).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NullTest {
    IsNull,
    IsNotNull,
}

/// What klap asks of an instruction beyond inkwell: calls, memory transfers, results, block splits.
pub trait InstructionExt<'c>: Copy {
    fn this(self) -> InstructionValue<'c>;

    /// The instruction's result, for one that has a first-class one.
    fn result(self) -> BasicValueEnum<'c> {
        basic(self.this().as_value_ref())
    }
    /// Operand `k` where it is a value of a first-class type; None for a block, metadata or a token, and
    /// past the last operand. (inkwell's `get_operand` panics on a metadata operand, as intrinsics take at
    /// -O0 and with debug info.)
    fn value_operand(self, k: u32) -> Option<BasicValueEnum<'c>> {
        let raw = self.this().as_value_ref();
        // SAFETY: operand k of an instruction, read after the count check; its type read, not changed.
        unsafe {
            if k >= LLVMGetNumOperands(raw) as u32 {
                return None;
            }
            let v = LLVMGetOperand(raw, k);
            if v.is_null() || LLVMValueIsBasicBlock(v) != 0 {
                return None;
            }
            use inkwell::llvm_sys::LLVMTypeKind::*;
            match LLVMGetTypeKind(LLVMTypeOf(v)) {
                LLVMMetadataTypeKind | LLVMLabelTypeKind | LLVMTokenTypeKind | LLVMVoidTypeKind | LLVMTargetExtTypeKind => None,
                _ => Some(basic(v)),
            }
        }
    }
    /// Operand `i` as a value (never a block).
    fn operand(self, i: u32) -> BasicValueEnum<'c> {
        // SAFETY: callers check the operand count through the opcode.
        basic(unsafe { LLVMGetOperand(self.this().as_value_ref(), i) })
    }
    fn function(self) -> FunctionValue<'c> {
        self.this().get_parent().and_then(|b| b.get_parent()).expect("an instruction in a function")
    }
    fn block(self) -> BasicBlock<'c> {
        self.this().get_parent().expect("an instruction in a block")
    }
    /// Marks the instruction with an empty metadata node of kind `kind` (klap's notes between steps).
    fn mark(self, kind: &str) {
        let cx = self.block().get_context();
        let id = cx.get_kind_id(kind);
        self.this().set_metadata(cx.metadata_node(&[]), id).expect("a node is metadata");
    }
    /// Whether [`Self::mark`] marked the instruction with `kind`.
    fn marked(self, kind: &str) -> bool {
        let cx = self.block().get_context();
        self.this().get_metadata(cx.get_kind_id(kind)).is_some()
    }
    /// The directly called function of a call (through pointer casts).
    fn called_function(self) -> Option<FunctionValue<'c>> {
        let raw = self.this().as_value_ref();
        // SAFETY: dynamic type test, then the callee operand.
        unsafe {
            if LLVMIsACallInst(raw).is_null() {
                return None;
            }
            basic(LLVMGetCalledValue(raw)).strip_casts().as_function()
        }
    }
    /// Whether this is a call of inline assembly.
    fn calls_inline_asm(self) -> bool {
        let raw = self.this().as_value_ref();
        // SAFETY: dynamic type tests on a call and its callee operand.
        unsafe { !LLVMIsACallInst(raw).is_null() && !LLVMIsAInlineAsm(LLVMGetCalledValue(raw)).is_null() }
    }
    /// The `memory` attribute's value on a call instruction (LLVM's MemoryEffects), where it has one.
    fn call_site_memory(self) -> Option<u64> {
        let raw = self.this().as_value_ref();
        // SAFETY: a dynamic type test, then the call's function attributes.
        unsafe {
            if LLVMIsACallInst(raw).is_null() {
                return None;
            }
            let a = LLVMGetCallSiteEnumAttribute(raw, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind_id("memory"));
            (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
        }
    }
    /// Whether a call touches no memory: `memory(none)` on the call or on its callee (a pure intrinsic; inline
    /// assembly without side effects or a memory clobber, as clang marks it).
    fn call_accesses_no_memory(self) -> bool {
        self.call_site_memory() == Some(0) || self.called_function().is_some_and(|f| f.accesses_no_memory())
    }
    /// Whether a call writes no memory: a `memory` attribute without a write on the call or on its callee
    /// (`memory(read)`, `memory(argmem: read)`, `memory(none)`).
    fn call_only_reads_memory(self) -> bool {
        self.call_site_memory().is_some_and(writes_nothing) || self.called_function().is_some_and(|f| f.only_reads_memory())
    }
    /// The assembly text of a call of inline assembly (`mov.u32 $0, %ctaid.x;`).
    fn inline_asm_text(self) -> Option<String> {
        if !self.calls_inline_asm() {
            return None;
        }
        let mut len = 0usize;
        // SAFETY: the callee of a call of inline assembly is an InlineAsm value; LLVM owns the text.
        unsafe {
            let text = LLVMGetInlineAsmAsmString(LLVMGetCalledValue(self.this().as_value_ref()), &mut len);
            Some(String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len)).into_owned())
        }
    }
    /// Whether this is a call through a pointer (neither a function nor inline assembly is called).
    fn calls_through_pointer(self) -> bool {
        let raw = self.this().as_value_ref();
        // SAFETY: dynamic type test.
        let is_call = unsafe { !LLVMIsACallInst(raw).is_null() };
        is_call && self.called_function().is_none() && !self.calls_inline_asm()
    }
    /// Whether this is a call marked `noreturn` (at the call or on the called function).
    fn is_noreturn_call(self) -> bool {
        let raw = self.this().as_value_ref();
        // SAFETY: dynamic type test, then an attribute lookup on the call site.
        let at_call = unsafe {
            !LLVMIsACallInst(raw).is_null()
                && !LLVMGetCallSiteEnumAttribute(raw, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind_id("noreturn")).is_null()
        };
        at_call || self.called_function().is_some_and(|f| f.get_enum_attribute(AttributeLoc::Function, kind_id("noreturn")).is_some())
    }
    fn call_args(self) -> Vec<BasicValueEnum<'c>> {
        let raw = self.this().as_value_ref();
        // SAFETY: self is a call; its argument operands come first.
        unsafe { (0..LLVMGetNumArgOperands(raw)).map(|i| basic(LLVMGetOperand(raw, i))).collect() }
    }
    /// Whether the callee neither writes through call argument `index` nor keeps it: `readonly` (or
    /// `readnone`) and `captures(none)`, at the call or on the called function's parameter.
    fn call_arg_only_read(self, index: u32) -> bool {
        let raw = self.this().as_value_ref();
        let callee = self.called_function();
        let has = |kind: &str, value: Option<u64>| {
            // SAFETY: attribute lookup on a call site.
            let at_call = unsafe { LLVMGetCallSiteEnumAttribute(raw, index + 1, kind_id(kind)) };
            let found = if at_call.is_null() {
                callee.and_then(|f| f.get_enum_attribute(AttributeLoc::Param(index), kind_id(kind))).map(|a| a.get_enum_value())
            } else {
                // SAFETY: a live attribute of the call.
                Some(unsafe { LLVMGetEnumAttributeValue(at_call) })
            };
            found.is_some_and(|v| value.is_none_or(|want| v == want))
        };
        // `captures(none)` is the `captures` attribute with no component set.
        (has("readonly", None) || has("readnone", None)) && has("captures", Some(0))
    }
    /// Whether call argument `index` carries `byval`.
    fn call_arg_is_byval(self, index: u32) -> bool {
        // SAFETY: attribute lookup on a call site.
        unsafe { !LLVMGetCallSiteEnumAttribute(self.this().as_value_ref(), index + 1, kind_id("byval")).is_null() }
    }
    /// The `align` attribute of call argument `index`, if any.
    fn call_arg_align(self, index: u32) -> Option<u64> {
        // SAFETY: attribute lookup on a call site.
        unsafe {
            let a = LLVMGetCallSiteEnumAttribute(self.this().as_value_ref(), index + 1, kind_id("align"));
            (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
        }
    }
    /// Points a call at another function of the same type.
    fn set_called_function(self, f: FunctionValue<'c>) {
        let raw = self.this().as_value_ref();
        // SAFETY: a call's callee is its last operand.
        unsafe { LLVMSetOperand(raw, (LLVMGetNumOperands(raw) - 1) as u32, f.as_value_ref()) }
    }
    /// Marks call argument `index` `byval(ty) align 4`.
    fn set_call_arg_byval(self, index: u32, ty: StructType<'c>) {
        let raw = self.this().as_value_ref();
        // SAFETY: attributes created in the call's context, added to the call site.
        unsafe {
            let cx = LLVMGetTypeContext(LLVMTypeOf(raw));
            LLVMAddCallSiteAttribute(raw, index + 1, LLVMCreateTypeAttribute(cx, kind_id("byval"), ty.as_type_ref()));
            LLVMAddCallSiteAttribute(raw, index + 1, LLVMCreateEnumAttribute(cx, kind_id("align"), 4));
        }
    }
    /// For `icmp eq/ne v, null` (either order): which test it is.
    fn null_test(self) -> Option<NullTest> {
        let i = self.this();
        if i.get_opcode() != InstructionOpcode::ICmp {
            return None;
        }
        if self.operand(0).const_pointer_int() != Some(0) && self.operand(1).const_pointer_int() != Some(0) {
            return None;
        }
        match i.get_icmp_predicate()? {
            IntPredicate::EQ => Some(NullTest::IsNull),
            IntPredicate::NE => Some(NullTest::IsNotNull),
            _ => None,
        }
    }
    /// The constant length of an `llvm.memcpy`/`llvm.memmove` call: (dest, src, len).
    fn as_mem_transfer(self) -> Option<(BasicValueEnum<'c>, BasicValueEnum<'c>, u64)> {
        let raw = self.this().as_value_ref();
        // SAFETY: dynamic type tests.
        unsafe {
            if LLVMIsAMemCpyInst(raw).is_null() && LLVMIsAMemMoveInst(raw).is_null() {
                return None;
            }
        }
        let len = self.operand(2).const_int()?;
        Some((self.operand(0), self.operand(1), len))
    }
    /// Whether this is a call to an `llvm.lifetime.*` intrinsic.
    fn is_lifetime_marker(self) -> bool {
        self.called_function().is_some_and(|f| f.name().starts_with("llvm.lifetime."))
    }
    /// For a single-index `insertvalue agg, v, i`: (agg, v, i).
    fn as_insert_value(self) -> Option<(BasicValueEnum<'c>, BasicValueEnum<'c>, u32)> {
        let i = self.this();
        if i.get_opcode() != InstructionOpcode::InsertValue || i.get_num_indices() != 1 {
            return None;
        }
        Some((self.operand(0), self.operand(1), i.get_indices()[0]))
    }
    /// An instruction whose result depends only on its operands' values: arithmetic, comparisons,
    /// casts, address arithmetic, selects, aggregate element reads and writes.
    fn is_pure_computation(self) -> bool {
        use InstructionOpcode::*;
        matches!(
            self.this().get_opcode(),
            Add | Sub | Mul | UDiv | SDiv | URem | SRem | Shl | LShr | AShr | And | Or | Xor | FAdd | FSub | FMul | FDiv
                | FRem | FNeg | Trunc | ZExt | SExt | FPTrunc | FPExt | FPToUI | FPToSI | UIToFP | SIToFP | PtrToInt
                | IntToPtr | BitCast | AddrSpaceCast | ICmp | FCmp | Select | GetElementPtr | ExtractValue | InsertValue
                | Freeze
        )
    }
    /// A GEP or pointer cast: an address computed from its first operand.
    fn is_address_computation(self) -> bool {
        matches!(self.this().get_opcode(), InstructionOpcode::GetElementPtr | InstructionOpcode::BitCast | InstructionOpcode::AddrSpaceCast)
    }
    /// Where the user wrote the instruction (through inlined header wrappers): (file, line, column).
    fn debug_location(self) -> Option<(String, u32, u32)> {
        let (mut file, mut line, mut col) = (std::ptr::null_mut(), 0u32, 0u32);
        // SAFETY: self is an instruction; the shim allocates the file name with LLVMCreateMessage.
        let found = unsafe { klap_user_location(self.this().as_value_ref(), &mut file, &mut line, &mut col) };
        found.then(|| (take_message(file), line, col))
    }
    /// Splits the block before the instruction so that it and what follows run only when `cond` is
    /// true; returns the branch that ends the conditional block.
    fn split_if_then(self, cond: IntValue<'c>) -> InstructionValue<'c> {
        // SAFETY: cond is an i1 that dominates self.
        instruction(unsafe { klap_split_if_then(cond.as_value_ref(), self.this().as_value_ref()) }).unwrap()
    }
    /// Splits the block before this instruction: the new block, which starts with it, follows the old one,
    /// which ends with a branch to it.
    fn split_block_before(self) -> BasicBlock<'c> {
        // SAFETY: self is an instruction of a block (not a phi: the caller's), and the shim returns the new block.
        unsafe { BasicBlock::new(klap_split_block(self.this().as_value_ref())) }.expect("the block split off")
    }
    /// The blocks a terminator may branch to, in operand order (one per successor slot).
    fn successors(self) -> Vec<BasicBlock<'c>> {
        let raw = self.this().as_value_ref();
        // SAFETY: self is a terminator (callers take it from a block's end); each successor is a live block.
        unsafe { (0..LLVMGetNumSuccessors(raw)).filter_map(|i| BasicBlock::new(LLVMGetSuccessor(raw, i))).collect() }
    }
    /// Makes successor slot `index` of a terminator branch to `to`.
    fn set_successor(self, index: u32, to: BasicBlock<'c>) {
        // SAFETY: self is a terminator with more than `index` successors, `to` a block of its function.
        unsafe { LLVMSetSuccessor(self.this().as_value_ref(), index, to.as_mut_ptr()) }
    }
    /// Moves the instruction to the builder's position.
    fn move_to(self, b: &Builder<'c>) {
        let i = self.this();
        i.remove_from_basic_block();
        b.insert_instruction(&i, None);
    }
    /// Removes an instruction without users.
    fn erase(self) {
        self.this().erase_from_basic_block();
    }
}

impl<'c> InstructionExt<'c> for InstructionValue<'c> {
    fn this(self) -> InstructionValue<'c> {
        self
    }
}

fn kind_id(name: &str) -> u32 {
    Attribute::get_named_enum_kind_id(name)
}

/// What klap asks of a function beyond inkwell.
pub trait FunctionExt<'c>: Copy {
    fn this(self) -> FunctionValue<'c>;

    fn name(self) -> String {
        self.this().get_name().to_string_lossy().into_owned()
    }
    fn is_declaration(self) -> bool {
        self.this().as_global_value().is_declaration()
    }
    fn is_ptx_kernel(self) -> bool {
        self.this().get_call_conventions() == PTX_KERNEL_CALL_CONV
    }
    fn set_ptx_kernel(self) {
        self.this().set_call_conventions(PTX_KERNEL_CALL_CONV)
    }
    /// The PTX ISA version the function is compiled for (`+ptxNN` in its target features, which clang sets
    /// from the CUDA tree), as NN; None where it does not say.
    fn ptx_version(self) -> Option<u32> {
        let features = self.this().get_string_attribute(AttributeLoc::Function, "target-features")?;
        let text = features.get_string_value().to_string_lossy();
        text.split(',').filter_map(|f| f.strip_prefix("+ptx")?.parse().ok()).max()
    }
    /// Makes the function a declaration with external linkage: its calls then reach whatever another
    /// object of the link defines under its name.
    fn delete_body(self) {
        // SAFETY: a live function of a module klap may change; the shim drops its body's references.
        unsafe { klap_delete_body(self.this().as_value_ref()) }
    }
    /// The type of a parameter's `byval(T)` attribute (`index` counts parameters from 0).
    fn param_byval_type(self, index: u32) -> Option<BasicTypeEnum<'c>> {
        let a = self.this().get_enum_attribute(AttributeLoc::Param(index), kind_id("byval"))?;
        // SAFETY: a byval attribute is a type attribute whose type belongs to the function's context.
        Some(unsafe { BasicTypeEnum::new(LLVMGetTypeAttributeValue(a.as_mut_ptr())) })
    }
    /// Gives parameter `index` the attributes `from`'s parameter `index` has (byval, align, ...).
    fn copy_param_attributes(self, from: FunctionValue<'c>, index: u32) {
        let at = AttributeLoc::Param(index);
        for attribute in from.attributes(at) {
            self.this().add_attribute(at, attribute);
        }
    }
    /// Whether the function touches no memory (`memory(none)`).
    fn accesses_no_memory(self) -> bool {
        // The `memory` attribute's value is LLVM's MemoryEffects encoding, in which 0 is none.
        self.this().get_enum_attribute(AttributeLoc::Function, kind_id("memory")).is_some_and(|a| a.get_enum_value() == 0)
    }
    /// Whether the function writes no memory (its `memory` attribute has no write).
    fn only_reads_memory(self) -> bool {
        self.this().get_enum_attribute(AttributeLoc::Function, kind_id("memory")).is_some_and(|a| writes_nothing(a.get_enum_value()))
    }
    /// Whether parameter `index` is `noalias` (a `__restrict__` pointer).
    fn param_noalias(self, index: u32) -> bool {
        self.this().get_enum_attribute(AttributeLoc::Param(index), kind_id("noalias")).is_some()
    }
    /// Whether the function never writes through parameter `index` (`readonly` or `readnone`).
    fn param_reads_only(self, index: u32) -> bool {
        ["readonly", "readnone"].iter().any(|k| self.this().get_enum_attribute(AttributeLoc::Param(index), kind_id(k)).is_some())
    }
    /// Whether parameter `index` is `writeonly`.
    fn param_writes_only(self, index: u32) -> bool {
        self.this().get_enum_attribute(AttributeLoc::Param(index), kind_id("writeonly")).is_some()
    }
    /// Marks parameter `index` `readonly`.
    fn set_param_readonly(self, index: u32) {
        let f = self.this();
        let cx = f.get_type().get_context();
        f.add_attribute(AttributeLoc::Param(index), cx.create_enum_attribute(kind_id("readonly"), 0));
    }
    /// The `align` attribute of parameter `index`, if any.
    fn param_align(self, index: u32) -> Option<u64> {
        self.this().get_enum_attribute(AttributeLoc::Param(index), kind_id("align")).map(|a| a.get_enum_value())
    }
    /// Marks parameter `index` `byval(ty) align 4`.
    fn set_param_byval(self, index: u32, ty: StructType<'c>) {
        let f = self.this();
        let cx = ty.get_context();
        f.add_attribute(AttributeLoc::Param(index), cx.create_type_attribute(kind_id("byval"), ty.as_any_type_enum()));
        f.add_attribute(AttributeLoc::Param(index), cx.create_enum_attribute(kind_id("align"), 4));
    }
    /// Every instruction of the function, in block order.
    fn instructions(self) -> Vec<InstructionValue<'c>> {
        self.this().get_basic_block_iter().flat_map(|b| b.get_instructions()).collect()
    }
    fn entry_block(self) -> BasicBlock<'c> {
        self.this().get_first_basic_block().expect("a function with a body")
    }
    /// Clones the body of `self` into `to` (which already has an entry block), mapping `self`'s
    /// parameters to `args`.
    fn clone_body_into(self, to: FunctionValue<'c>, args: &[BasicValueEnum<'c>]) {
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|v| v.as_value_ref()).collect();
        // SAFETY: args has one value per parameter of self, of matching types.
        unsafe { klap_clone_body_into(self.this().as_value_ref(), to.as_value_ref(), raw.as_mut_ptr(), raw.len() as u32) }
    }
    /// A copy of `self` named `name`.
    fn clone_function(self, name: &str) -> FunctionValue<'c> {
        let n = c_string(name);
        // SAFETY: self is a function with a body; the shim returns the new function.
        function(unsafe { klap_clone_function(self.this().as_value_ref(), n.as_ptr()) }).unwrap()
    }
    /// Marks the function `alwaysinline` (the plugin's inliner pass runs after klap's steps), and not
    /// `noinline` nor `optnone`: at -O0 clang gives every function both, and `optnone` without `noinline` is
    /// invalid IR.
    fn add_inline_always(self) {
        let cx = self.this().get_type().get_context();
        self.this().remove_enum_attribute(AttributeLoc::Function, kind_id("optnone"));
        self.this().remove_enum_attribute(AttributeLoc::Function, kind_id("noinline"));
        self.this().add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind_id("alwaysinline"), 0));
    }
    /// Whether the function is `optnone` (at -O0, every function clang made).
    fn is_optnone(self) -> bool {
        self.this().get_enum_attribute(AttributeLoc::Function, kind_id("optnone")).is_some()
    }
    /// Whether the function is `alwaysinline`.
    fn is_always_inline(self) -> bool {
        self.this().get_enum_attribute(AttributeLoc::Function, kind_id("alwaysinline")).is_some()
    }
    /// Marks the function `noinline` (and not `alwaysinline`).
    fn set_noinline(self) {
        let cx = self.this().get_type().get_context();
        self.this().remove_enum_attribute(AttributeLoc::Function, kind_id("alwaysinline"));
        self.this().add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind_id("noinline"), 0));
    }
    /// Marks the function `convergent`: it waits at barriers, so calls of it must not be made to depend
    /// on more or other conditions than they do.
    fn set_convergent(self) {
        let cx = self.this().get_type().get_context();
        self.this().add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind_id("convergent"), 0));
    }
    /// The value of the function's string attribute `key` (`"nvvm.maxnreg"`), if it has one.
    fn string_attribute(self, key: &str) -> Option<String> {
        self.this()
            .get_string_attribute(AttributeLoc::Function, key)
            .map(|a| a.get_string_value().to_string_lossy().into_owned())
    }
    /// Gives the function the string attribute `key`=`value`, replacing any it had.
    fn set_string_attribute(self, key: &str, value: &str) {
        let cx = self.this().get_type().get_context();
        self.this().add_attribute(AttributeLoc::Function, cx.create_string_attribute(key, value));
    }
    /// Removes a function nothing uses.
    fn erase(self) {
        debug_assert!(!self.this().has_users());
        // SAFETY: the function has no uses left, so no handle to it is used again.
        unsafe { self.this().delete() }
    }
}

impl<'c> FunctionExt<'c> for FunctionValue<'c> {
    fn this(self) -> FunctionValue<'c> {
        self
    }
}

/// Whether a `memory` attribute's value (LLVM's MemoryEffects: two bits a location, 1 read, 2 write) has no write.
fn writes_nothing(effects: u64) -> bool {
    effects & 0xAAAA_AAAA_AAAA_AAAA == 0
}

/// The operands of each node of a module's named metadata `name` (a null pointer for a null operand).
fn named_metadata_operands(module: &Module, name: &str) -> Vec<Vec<LLVMValueRef>> {
    let m = module.as_mut_ptr();
    let name = c_string(name);
    // SAFETY: reading named metadata operands into buffers of the reported sizes.
    unsafe {
        let n = LLVMGetNamedMetadataNumOperands(m, name.as_ptr());
        let mut nodes: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n as usize];
        if n > 0 {
            LLVMGetNamedMetadataOperands(m, name.as_ptr(), nodes.as_mut_ptr());
        }
        nodes
            .into_iter()
            .map(|node| {
                let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(node) as usize];
                if !ops.is_empty() {
                    LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                }
                ops
            })
            .collect()
    }
}

/// The text of a metadata string operand, if it is one.
fn md_string(op: LLVMValueRef) -> Option<String> {
    if op.is_null() {
        return None;
    }
    let mut len = 0u32;
    // SAFETY: op is a live metadata operand; LLVMGetMDString returns null for anything but a string.
    unsafe {
        let text = LLVMGetMDString(op, &mut len);
        (!text.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len as usize)).into_owned())
    }
}

/// NVPTX's address spaces that klap tells apart: shared memory (a block's), constant memory and the
/// thread's local memory (its stack).
pub const SHARED_SPACE: u16 = 3;
pub const CONSTANT_SPACE: u16 = 4;
pub const LOCAL_SPACE: u16 = 5;

/// LLVM's `ptx_kernel` calling convention (CallingConv::PTX_Kernel).
const PTX_KERNEL_CALL_CONV: u32 = 71;

/// What klap asks of a module beyond inkwell.
pub trait ModuleExt<'c> {
    fn this(&self) -> &Module<'c>;

    fn triple_string(&self) -> String {
        self.this().get_triple().as_str().to_string_lossy().into_owned()
    }
    fn is_nvptx(&self) -> bool {
        let t = self.triple_string();
        t.starts_with("nvptx64-") || t.starts_with("nvptx-") || t == "nvptx64" || t == "nvptx"
    }
    fn functions(&self) -> Vec<FunctionValue<'c>> {
        self.this().get_functions().collect()
    }
    /// Gives each call of a defined function that has no debug location, in a function with debug info,
    /// the location of line 0 in the caller's own subprogram (code the compiler made, as LLVM marks it).
    /// Without one, an inliner keeps the inlined instructions' locations as they were, in the callee's
    /// subprogram, and the verifier rejects the caller ("!dbg attachment points at wrong subprogram"):
    /// klap's calls of child variants, made where no user code is, have none. Returns how many it located.
    fn locate_calls(&self) -> usize {
        let cx = self.this().get_context();
        let mut located = 0;
        for f in self.this().get_functions() {
            // SAFETY: f is a function of the module; the subprogram, when there is one, is its own.
            let subprogram = unsafe { inkwell::llvm_sys::debuginfo::LLVMGetSubprogram(f.as_value_ref()) };
            if subprogram.is_null() {
                continue;
            }
            let mut location: LLVMMetadataRef = std::ptr::null_mut();
            for call in f.instructions() {
                let defined = call.called_function().is_some_and(|callee| callee.count_basic_blocks() > 0);
                // SAFETY: call is an instruction of f.
                if !defined || !unsafe { inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(call.as_value_ref()) }.is_null() {
                    continue;
                }
                if location.is_null() {
                    // SAFETY: a location of line 0 in f's subprogram, made in the module's context.
                    location = unsafe {
                        inkwell::llvm_sys::debuginfo::LLVMDIBuilderCreateDebugLocation(inkwell::context::AsContextRef::as_ctx_ref(&cx), 0, 0, subprogram, std::ptr::null_mut())
                    };
                }
                // SAFETY: the location belongs to f's subprogram, the function the call is in.
                unsafe { inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(call.as_value_ref(), location) };
                located += 1;
            }
        }
        located
    }
    /// Functions named kernels by `!nvvm.annotations` (`!{ptr @f, !"kernel", i32 1}`). Read directly:
    /// inkwell's metadata operands panic on a null operand, which such nodes may have.
    fn annotated_kernels(&self) -> Vec<FunctionValue<'c>> {
        named_metadata_operands(self.this(), "nvvm.annotations")
            .into_iter()
            .filter(|ops| ops.len() >= 3 && !ops[0].is_null() && !ops[2].is_null())
            .filter(|ops| md_string(ops[1]).as_deref() == Some("kernel") && basic(ops[2]).const_int() == Some(1))
            .filter_map(|ops| basic(ops[0]).strip_casts().as_function())
            .collect()
    }
    /// The strings of the one-string nodes of named metadata `name` (`!name = !{!{!"a"}, !{!"b"}}`).
    fn named_metadata_strings(&self, name: &str) -> Vec<String> {
        named_metadata_operands(self.this(), name).into_iter().filter(|ops| ops.len() == 1).filter_map(|ops| md_string(ops[0])).collect()
    }
    /// Adds `!{!"value"}` to named metadata `name`.
    fn add_named_metadata_string(&self, name: &str, value: &str) {
        let m = self.this().as_mut_ptr();
        let name = c_string(name);
        // SAFETY: metadata created in the module's context and added to one of its named nodes.
        unsafe {
            let cx = LLVMGetModuleContext(m);
            let mut text = LLVMMDStringInContext2(cx, value.as_ptr() as *const c_char, value.len());
            let node = LLVMMDNodeInContext2(cx, &mut text, 1);
            LLVMAddNamedMetadataOperand(m, name.as_ptr(), LLVMMetadataAsValue(cx, node));
        }
    }
    fn store_size(&self, ty: impl AnyType<'c>) -> u64 {
        // SAFETY: ty is a sized type of this module's context; the data layout belongs to the module.
        unsafe { LLVMStoreSizeOfType(LLVMGetModuleDataLayout(self.this().as_mut_ptr()), ty.as_type_ref()) }
    }
    fn alloc_size(&self, ty: impl AnyType<'c>) -> u64 {
        // SAFETY: as above.
        unsafe { LLVMABISizeOfType(LLVMGetModuleDataLayout(self.this().as_mut_ptr()), ty.as_type_ref()) }
    }
    fn abi_align(&self, ty: impl AnyType<'c>) -> u64 {
        // SAFETY: as above.
        unsafe { LLVMABIAlignmentOfType(LLVMGetModuleDataLayout(self.this().as_mut_ptr()), ty.as_type_ref()) as u64 }
    }
    /// `[n x i8]` for any n (inkwell's array types stop at u32 elements).
    fn byte_array_type(&self, n: u64) -> BasicTypeEnum<'c> {
        let i8t = self.this().get_context().i8_type();
        // SAFETY: an array of a sized element type.
        unsafe { BasicTypeEnum::new(LLVMArrayType2(i8t.as_type_ref(), n)) }
    }
    /// The function `name` of type `ty`, declared (convergent nounwind, like clang's declarations of
    /// the device runtime) if the module has none.
    fn get_or_declare(&self, name: &str, ty: FunctionType<'c>) -> FunctionValue<'c> {
        if let Some(f) = self.this().get_function(name) {
            return f;
        }
        let f = self.this().add_function(name, ty, None);
        let cx = self.this().get_context();
        for attr in ["convergent", "nounwind"] {
            f.add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind_id(attr), 0));
        }
        f
    }
    /// Links klap's device runtime into the module (only what it uses).
    fn link_runtime(&self, bitcode: &[u8]) -> Result<(), String> {
        let mut err = std::ptr::null_mut();
        // SAFETY: the bitcode slice lives through the call; the shim copies what it links.
        let ok = unsafe {
            klap_link_runtime(self.this().as_mut_ptr(), bitcode.as_ptr() as *const c_char, bitcode.len(), &mut err)
        };
        if ok {
            Ok(())
        } else {
            Err(take_message(err))
        }
    }
}

impl<'c> ModuleExt<'c> for Module<'c> {
    fn this(&self) -> &Module<'c> {
        self
    }
}

/// What klap builds beyond inkwell's builder: byte offsets, placeholders, calls by function value.
pub trait BuilderExt<'c> {
    fn this(&self) -> &Builder<'c>;

    /// `base + offset` in bytes (inkwell makes GEPs unsafe: an in-bounds i8 GEP of a pointer is not).
    fn byte_gep(&self, base: BasicValueEnum<'c>, offset: u64) -> BasicValueEnum<'c> {
        if offset == 0 {
            return base;
        }
        let cx = self.this().get_insert_block().expect("builder positioned").get_context();
        let index = cx.i64_type().const_int(offset, false);
        // SAFETY: an i8 GEP with a constant index on a pointer value.
        let gep = unsafe { self.this().build_in_bounds_gep(cx.i8_type(), base.into_pointer_value(), &[index], "") };
        gep.expect("builder positioned").as_basic_value_enum()
    }
    /// `base + offset` in bytes, `offset` an i64 value.
    fn byte_gep_at(&self, base: BasicValueEnum<'c>, offset: IntValue<'c>) -> BasicValueEnum<'c> {
        let cx = self.this().get_insert_block().expect("builder positioned").get_context();
        // SAFETY: an i8 GEP with one integer index on a pointer value.
        let gep = unsafe { self.this().build_in_bounds_gep(cx.i8_type(), base.into_pointer_value(), &[offset], "") };
        gep.expect("builder positioned").as_basic_value_enum()
    }
    /// At the end of `head`: a counter from 0 (its phi, named `name`, whose incoming values the caller adds)
    /// and a branch to `body` while it is below `bound`, else to `exit`. Returns the phi and its value.
    fn count_below(&self, head: BasicBlock<'c>, bound: IntValue<'c>, name: &str, body: BasicBlock<'c>, exit: BasicBlock<'c>) -> (PhiValue<'c>, IntValue<'c>) {
        let b = self.this();
        b.position_at_end(head);
        let phi = b.build_phi(bound.get_type(), name).expect("builder positioned");
        let value = phi.as_basic_value().into_int_value();
        let more = b.build_int_compare(IntPredicate::ULT, value, bound, "").expect("builder positioned");
        b.build_conditional_branch(more, body, exit).expect("builder positioned");
        (phi, value)
    }
    /// `a && c` as i1 values, without an `and` where either is the constant true (a check that folded away).
    fn and_known(&self, a: IntValue<'c>, c: IntValue<'c>, name: &str) -> IntValue<'c> {
        match (a.get_zero_extended_constant(), c.get_zero_extended_constant()) {
            (_, Some(1)) => a,
            (Some(1), _) => c,
            _ => self.this().build_and(a, c, name).expect("builder positioned"),
        }
    }
    /// `freeze poison`: a placeholder value of type `ty` that later code replaces.
    fn freeze_poison(&self, ty: BasicTypeEnum<'c>) -> InstructionValue<'c> {
        // SAFETY: a freeze of a poison constant of a first-class type, at the builder's position.
        let raw = unsafe { LLVMBuildFreeze(self.this().as_mut_ptr(), LLVMGetPoison(ty.as_type_ref()), c"".as_ptr()) };
        instruction(raw).unwrap()
    }
    /// `freeze v`: one defined value where `v` may be poison (a computation moved to where it was not
    /// guarded by the conditions it was under).
    fn freeze(&self, v: BasicValueEnum<'c>) -> BasicValueEnum<'c> {
        // SAFETY: a freeze of a first-class value, at the builder's position.
        let raw = unsafe { LLVMBuildFreeze(self.this().as_mut_ptr(), v.as_value_ref(), c"".as_ptr()) };
        instruction(raw).unwrap().result()
    }
    /// A call of `f`; returns the call instruction.
    fn call(&self, f: FunctionValue<'c>, args: &[BasicValueEnum<'c>]) -> InstructionValue<'c> {
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        let call = self.this().build_call(f, &args, "").expect("builder positioned");
        instruction(call.as_value_ref()).unwrap()
    }
    /// A call of `f` that the inliner leaves a call (`noinline` at the call site): a rare path that does
    /// not take a copy of `f`'s code into its function.
    fn call_not_inlined(&self, f: FunctionValue<'c>, args: &[BasicValueEnum<'c>]) -> InstructionValue<'c> {
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        let call = self.this().build_call(f, &args, "").expect("builder positioned");
        let cx = f.get_type().get_context();
        call.add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind_id("noinline"), 0));
        instruction(call.as_value_ref()).unwrap()
    }
    /// A call of `f` for its result.
    fn call_value(&self, f: FunctionValue<'c>, args: &[BasicValueEnum<'c>]) -> BasicValueEnum<'c> {
        self.call(f, args).result()
    }
    fn store_aligned(&self, value: BasicValueEnum<'c>, ptr: BasicValueEnum<'c>, align: u32) -> InstructionValue<'c> {
        let s = self.this().build_store(ptr.into_pointer_value(), value).expect("builder positioned");
        s.set_alignment(align).expect("a store takes an alignment");
        s
    }
    fn load_aligned(&self, ty: BasicTypeEnum<'c>, ptr: BasicValueEnum<'c>, align: u32) -> BasicValueEnum<'c> {
        let l = self.this().build_load(ty, ptr.into_pointer_value(), "").expect("builder positioned");
        l.as_instruction_value().unwrap().set_alignment(align).expect("a load takes an alignment");
        l
    }
    fn alloca_aligned(&self, ty: BasicTypeEnum<'c>, align: u32) -> BasicValueEnum<'c> {
        let a = self.this().build_alloca(ty, "").expect("builder positioned");
        a.as_instruction_value().unwrap().set_alignment(align).expect("an alloca takes an alignment");
        a.as_basic_value_enum()
    }
    fn is_not_null(&self, v: BasicValueEnum<'c>) -> IntValue<'c> {
        self.this().build_is_not_null(v.into_pointer_value(), "").expect("builder positioned")
    }
}

impl<'c> BuilderExt<'c> for Builder<'c> {
    fn this(&self) -> &Builder<'c> {
        self
    }
}
