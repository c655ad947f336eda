//! Every unsafe call klap makes: LLVM's C API (llvm-sys) and the C++ shim (shim/klap_shim.cpp).
//!
//! The handles here are plain copies of LLVM pointers. They are valid while the module that owns them
//! is alive and unchanged in the parts they name; klap's passes never keep one past the pass that made
//! it, and the module itself belongs to the pass manager (klap never disposes of it).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMCallConv, LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use std::ffi::{c_char, c_void, CStr, CString};

/// The shim's view of one module and its function analysis manager.
#[repr(C)]
pub struct RawCtx {
    _private: [u8; 0],
}

extern "C" {
    fn klap_loop_depth(ctx: *mut RawCtx, inst: LLVMValueRef) -> u32;
    fn klap_dominates(ctx: *mut RawCtx, a: LLVMValueRef, b: LLVMValueRef) -> bool;
    fn klap_control_divergent(ctx: *mut RawCtx, inst: LLVMValueRef, ignored: *const LLVMValueRef, n: u32) -> bool;
    fn klap_lone_launcher(ctx: *mut RawCtx, inst: LLVMValueRef) -> bool;
    fn klap_remark(ctx: *mut RawCtx, kind: u32, inst: LLVMValueRef, id: *const c_char, msg: *const c_char);
    fn klap_count(which: u32, n: u32);
    fn klap_strip_constant_offsets(ptr: LLVMValueRef, offset: *mut i64) -> LLVMValueRef;
    fn klap_operand_string(v: LLVMValueRef) -> *mut c_char;
    fn klap_split_if_then(cond: LLVMValueRef, before: LLVMValueRef) -> LLVMValueRef;
    fn klap_errs(s: *const c_char, n: usize);
    fn klap_user_location(inst: LLVMValueRef, file: *mut *mut c_char, line: *mut u32, col: *mut u32) -> bool;
    fn klap_ctx_module(ctx: *mut RawCtx) -> LLVMModuleRef;
    pub fn klap_register_pass_builder_callbacks(pass_builder: *mut c_void);
    fn klap_link_runtime(dest: LLVMModuleRef, data: *const c_char, size: usize, error: *mut *mut c_char) -> bool;
    fn klap_clone_body_into(from: LLVMValueRef, to: LLVMValueRef, args: *mut LLVMValueRef, n: u32);
    fn klap_clone_function(f: LLVMValueRef, name: *const c_char) -> LLVMValueRef;
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

/// Which statistic (shim's STATISTIC counters) to add to.
#[derive(Clone, Copy)]
pub enum Statistic {
    RecognizedLaunch = 0,
    UnrecognizedLaunch = 1,
    NormalizedLaunch = 2,
}

pub fn count(which: Statistic, n: usize) {
    // SAFETY: plain counter update in the shim.
    unsafe { klap_count(which as u32, n as u32) }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RemarkKind {
    Passed = 0,
    Missed = 1,
    Analysis = 2,
}

/// Access to the analyses and remark emitter of the module a pass is working on.
#[derive(Clone, Copy)]
pub struct Ctx(*mut RawCtx);

impl Ctx {
    pub fn from_raw(raw: *mut RawCtx) -> Self {
        Ctx(raw)
    }
    pub fn loop_depth(self, inst: Value) -> u32 {
        // SAFETY: inst is an instruction of the module this context belongs to.
        unsafe { klap_loop_depth(self.0, inst.0) }
    }
    pub fn dominates(self, a: Value, b: Value) -> bool {
        // SAFETY: both are instructions of one function of this module.
        unsafe { klap_dominates(self.0, a.0, b.0) }
    }
    /// Whether threads can disagree on reaching `inst`, not counting branches on `ignored` conditions.
    pub fn control_divergent(self, inst: Value, ignored: &[Value]) -> bool {
        let raw: Vec<LLVMValueRef> = ignored.iter().map(|v| v.0).collect();
        // SAFETY: inst is an instruction of this module; raw lives through the call.
        unsafe { klap_control_divergent(self.0, inst.0, raw.as_ptr(), raw.len() as u32) }
    }
    /// Whether only threads whose threadIdx.x equals one uniform value reach `inst`.
    pub fn lone_launcher(self, inst: Value) -> bool {
        // SAFETY: inst is an instruction of this module.
        unsafe { klap_lone_launcher(self.0, inst.0) }
    }
    pub fn remark(self, kind: RemarkKind, inst: Value, id: &str, msg: &str) {
        let (id, msg) = (c_string(id), c_string(msg));
        // SAFETY: inst is an instruction of this module; the strings outlive the call, which emits at once.
        unsafe { klap_remark(self.0, kind as u32, inst.0, id.as_ptr(), msg.as_ptr()) }
    }
}

/// An LLVM module owned by someone else (opt, clang, or a test's context).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Module(LLVMModuleRef);

impl Module {
    pub fn from_raw(raw: LLVMModuleRef) -> Self {
        Module(raw)
    }
    pub fn triple(self) -> String {
        // SAFETY: the returned string belongs to the module.
        unsafe { CStr::from_ptr(LLVMGetTarget(self.0)).to_string_lossy().into_owned() }
    }
    pub fn is_nvptx(self) -> bool {
        let t = self.triple();
        t.starts_with("nvptx64-") || t.starts_with("nvptx-") || t == "nvptx64" || t == "nvptx"
    }
    pub fn functions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the module's function list.
        unsafe {
            let mut f = LLVMGetFirstFunction(self.0);
            while !f.is_null() {
                out.push(Value(f));
                f = LLVMGetNextFunction(f);
            }
        }
        out
    }
    pub fn function(self, name: &str) -> Option<Value> {
        let n = c_string(name);
        // SAFETY: lookup by name.
        let f = unsafe { LLVMGetNamedFunction(self.0, n.as_ptr()) };
        (!f.is_null()).then_some(Value(f))
    }
    /// Functions named kernels by `!nvvm.annotations` (`!{ptr @f, !"kernel", i32 1}`).
    pub fn annotated_kernels(self) -> Vec<Value> {
        let name = c_string("nvvm.annotations");
        let mut out = Vec::new();
        // SAFETY: reading named metadata operands into buffers of the reported sizes.
        unsafe {
            let n = LLVMGetNamedMetadataNumOperands(self.0, name.as_ptr());
            if n == 0 {
                return out;
            }
            let mut nodes: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n as usize];
            LLVMGetNamedMetadataOperands(self.0, name.as_ptr(), nodes.as_mut_ptr());
            for node in nodes {
                let k = LLVMGetMDNodeNumOperands(node);
                if k < 3 {
                    continue;
                }
                let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); k as usize];
                LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                let mut len = 0u32;
                let tag = if ops[1].is_null() { std::ptr::null() } else { LLVMGetMDString(ops[1], &mut len) };
                if tag.is_null() {
                    continue;
                }
                let tag = std::slice::from_raw_parts(tag as *const u8, len as usize);
                let value = Value(ops[2]);
                if tag == b"kernel" && value.const_int() == Some(1) && !ops[0].is_null() {
                    if let Some(f) = Value(ops[0]).strip_casts().as_function() {
                        out.push(f);
                    }
                }
            }
        }
        out
    }
    fn data_layout(self) -> LLVMTargetDataRef {
        // SAFETY: the data layout belongs to the module.
        unsafe { LLVMGetModuleDataLayout(self.0) }
    }
    pub fn store_size(self, ty: Type) -> u64 {
        // SAFETY: ty is a sized type of this module's context.
        unsafe { LLVMStoreSizeOfType(self.data_layout(), ty.0) }
    }
    pub fn alloc_size(self, ty: Type) -> u64 {
        // SAFETY: as above.
        unsafe { LLVMABISizeOfType(self.data_layout(), ty.0) }
    }
    pub fn abi_align(self, ty: Type) -> u64 {
        // SAFETY: as above.
        unsafe { LLVMABIAlignmentOfType(self.data_layout(), ty.0) as u64 }
    }
    pub fn context(self) -> LLVMContextRef {
        // SAFETY: the module's context.
        unsafe { LLVMGetModuleContext(self.0) }
    }
    pub fn struct_type(self, name: &str) -> Option<Type> {
        let n = c_string(name);
        // SAFETY: lookup by name in the module's context.
        let t = unsafe { LLVMGetTypeByName2(self.context(), n.as_ptr()) };
        (!t.is_null()).then_some(Type(t))
    }
    pub fn new_struct_type(self, name: &str, fields: &[Type]) -> Type {
        let n = c_string(name);
        let mut raw: Vec<LLVMTypeRef> = fields.iter().map(|t| t.0).collect();
        // SAFETY: creating a named struct and setting its body from live types.
        unsafe {
            let t = LLVMStructCreateNamed(self.context(), n.as_ptr());
            LLVMStructSetBody(t, raw.as_mut_ptr(), raw.len() as u32, 0);
            Type(t)
        }
    }
    pub fn i32_type(self) -> Type {
        // SAFETY: type constructor.
        Type(unsafe { LLVMInt32TypeInContext(self.context()) })
    }
    pub fn i64_type(self) -> Type {
        // SAFETY: type constructor.
        Type(unsafe { LLVMInt64TypeInContext(self.context()) })
    }
    pub fn i8_type(self) -> Type {
        // SAFETY: type constructor.
        Type(unsafe { LLVMInt8TypeInContext(self.context()) })
    }
    pub fn ptr_type(self) -> Type {
        // SAFETY: type constructor (generic address space).
        Type(unsafe { LLVMPointerTypeInContext(self.context(), 0) })
    }
    pub fn array_type(self, elem: Type, n: u64) -> Type {
        // SAFETY: type constructor.
        Type(unsafe { LLVMArrayType2(elem.0, n) })
    }
    pub fn function_type(self, ret: Type, params: &[Type]) -> Type {
        let mut raw: Vec<LLVMTypeRef> = params.iter().map(|t| t.0).collect();
        // SAFETY: type constructor over live types.
        Type(unsafe { LLVMFunctionType(ret.0, raw.as_mut_ptr(), raw.len() as u32, 0) })
    }
    /// The function `name` of type `ty`, declared (convergent nounwind, like clang's declarations of
    /// the device runtime) if the module has none.
    pub fn get_or_declare(self, name: &str, ty: Type) -> Value {
        if let Some(f) = self.function(name) {
            return f;
        }
        let n = c_string(name);
        // SAFETY: adding a declaration to the module and attributes to it.
        unsafe {
            let f = LLVMAddFunction(self.0, n.as_ptr(), ty.0);
            for attr in ["convergent", "nounwind"] {
                let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr() as *const c_char, attr.len());
                let a = LLVMCreateEnumAttribute(self.context(), kind, 0);
                LLVMAddAttributeAtIndex(f, u32::MAX, a);
            }
            Value(f)
        }
    }
    pub fn const_int(self, ty: Type, v: u64) -> Value {
        // SAFETY: constant constructor.
        Value(unsafe { LLVMConstInt(ty.0, v, 0) })
    }
    /// A new function definition-to-be (no blocks yet).
    pub fn add_function(self, name: &str, ty: Type) -> Value {
        let n = c_string(name);
        // SAFETY: adding a function to the module.
        Value(unsafe { LLVMAddFunction(self.0, n.as_ptr(), ty.0) })
    }
    /// A global in `addrspace` with an initializer.
    pub fn add_global(self, name: &str, init: Value, addrspace: u32, constant: bool) -> Value {
        let n = c_string(name);
        // SAFETY: adding a global with a constant initializer of its type.
        unsafe {
            let g = LLVMAddGlobalInAddressSpace(self.0, LLVMTypeOf(init.0), n.as_ptr(), addrspace);
            LLVMSetInitializer(g, init.0);
            LLVMSetGlobalConstant(g, constant as i32);
            LLVMSetAlignment(g, 16);
            Value(g)
        }
    }
    /// An intrinsic's declaration (LLVM gives it the intrinsic's own attributes).
    pub fn get_or_declare_intrinsic(self, name: &str, ty: Type) -> Value {
        if let Some(f) = self.function(name) {
            return f;
        }
        self.add_function(name, ty)
    }
    pub fn void_type(self) -> Type {
        // SAFETY: type constructor.
        Type(unsafe { LLVMVoidTypeInContext(self.context()) })
    }
    pub fn i1_type(self) -> Type {
        // SAFETY: type constructor.
        Type(unsafe { LLVMInt1TypeInContext(self.context()) })
    }
    /// Links klap's device runtime into the module (only what it uses).
    pub fn link_runtime(self, bitcode: &[u8]) -> Result<(), String> {
        let mut err = std::ptr::null_mut();
        // SAFETY: the bitcode slice lives through the call; the shim copies what it links.
        let ok = unsafe { klap_link_runtime(self.0, bitcode.as_ptr() as *const c_char, bitcode.len(), &mut err) };
        if ok {
            Ok(())
        } else {
            Err(take_message(err))
        }
    }
    pub fn const_null(self, ty: Type) -> Value {
        // SAFETY: constant constructor.
        Value(unsafe { LLVMConstNull(ty.0) })
    }
    pub fn poison(self, ty: Type) -> Value {
        // SAFETY: constant constructor.
        Value(unsafe { LLVMGetPoison(ty.0) })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Type(LLVMTypeRef);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TypeKind {
    Integer(u32),
    Pointer,
    Struct,
    Array,
    Float,
    Other,
}

impl Type {
    pub fn kind(self) -> TypeKind {
        // SAFETY: reading properties of a live type.
        unsafe {
            match LLVMGetTypeKind(self.0) {
                LLVMTypeKind::LLVMIntegerTypeKind => TypeKind::Integer(LLVMGetIntTypeWidth(self.0)),
                LLVMTypeKind::LLVMPointerTypeKind => TypeKind::Pointer,
                LLVMTypeKind::LLVMStructTypeKind => TypeKind::Struct,
                LLVMTypeKind::LLVMArrayTypeKind => TypeKind::Array,
                LLVMTypeKind::LLVMHalfTypeKind
                | LLVMTypeKind::LLVMBFloatTypeKind
                | LLVMTypeKind::LLVMFloatTypeKind
                | LLVMTypeKind::LLVMDoubleTypeKind => TypeKind::Float,
                _ => TypeKind::Other,
            }
        }
    }
    pub fn struct_fields(self) -> Vec<Type> {
        if self.kind() != TypeKind::Struct {
            return Vec::new();
        }
        // SAFETY: reading element types of a struct type into a buffer of its element count.
        unsafe {
            let n = LLVMCountStructElementTypes(self.0);
            let mut v: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); n as usize];
            LLVMGetStructElementTypes(self.0, v.as_mut_ptr());
            v.into_iter().map(Type).collect()
        }
    }
    /// The type as written in an IR operand: named structs by name.
    pub fn to_ir(self) -> String {
        // SAFETY: reading a struct's name, or printing a live type.
        unsafe {
            if LLVMGetTypeKind(self.0) == LLVMTypeKind::LLVMStructTypeKind {
                let name = LLVMGetStructName(self.0);
                if !name.is_null() {
                    return format!("%{}", CStr::from_ptr(name).to_string_lossy());
                }
            }
            take_message(LLVMPrintTypeToString(self.0))
        }
    }
}

/// Any LLVM value: instruction, argument, constant, function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Value(LLVMValueRef);

/// The instruction kinds klap looks at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Call,
    Store,
    Load,
    Gep,
    Cast,
    ICmp,
    InsertValue,
    Alloca,
    Phi,
    Other,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NullTest {
    /// `icmp eq p, null`
    IsNull,
    /// `icmp ne p, null`
    IsNotNull,
}

impl Value {
    pub fn is_null(self) -> bool {
        self.0.is_null()
    }
    pub fn name(self) -> String {
        let mut len = 0usize;
        // SAFETY: the name's bytes belong to the value.
        unsafe {
            let p = LLVMGetValueName2(self.0, &mut len);
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        }
    }
    /// How the value is written as an operand in IR (`%7`, `@k`, `32`, `null`).
    pub fn operand_string(self) -> String {
        // SAFETY: printing a live value.
        take_message(unsafe { klap_operand_string(self.0) })
    }
    /// The instruction as it reads in IR, without its leading spaces.
    pub fn to_ir(self) -> String {
        // SAFETY: printing a live value.
        take_message(unsafe { LLVMPrintValueToString(self.0) }).trim().to_string()
    }
    pub fn ty(self) -> Type {
        // SAFETY: every value has a type.
        Type(unsafe { LLVMTypeOf(self.0) })
    }
    pub fn as_function(self) -> Option<Value> {
        // SAFETY: dynamic type test.
        (!unsafe { LLVMIsAFunction(self.0) }.is_null()).then_some(self)
    }
    /// For a function parameter: its function and index.
    pub fn as_param(self) -> Option<(Value, u32)> {
        // SAFETY: dynamic type test, then the parameter's parent and its siblings.
        unsafe {
            if LLVMIsAArgument(self.0).is_null() {
                return None;
            }
            let f = Value(LLVMGetParamParent(self.0));
            f.params().iter().position(|p| *p == self).map(|i| (f, i as u32))
        }
    }
    /// A constant: a literal, a global's or function's address, or a constant expression of them.
    pub fn is_constant(self) -> bool {
        // SAFETY: dynamic type test.
        !unsafe { LLVMIsAConstant(self.0) }.is_null()
    }
    pub fn num_operands(self) -> u32 {
        // SAFETY: self is a user (an instruction or constant expression).
        unsafe { LLVMGetNumOperands(self.0) as u32 }
    }
    /// An instruction whose result depends only on its operands' values: arithmetic, comparisons,
    /// casts, address arithmetic, selects, aggregate element reads and writes.
    pub fn is_pure_computation(self) -> bool {
        use LLVMOpcode::*;
        // SAFETY: self is an instruction.
        matches!(
            unsafe { LLVMGetInstructionOpcode(self.0) },
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr
                | LLVMAnd | LLVMOr | LLVMXor | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg
                | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPTrunc | LLVMFPExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP
                | LLVMSIToFP | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMICmp | LLVMFCmp
                | LLVMSelect | LLVMGetElementPtr | LLVMExtractValue | LLVMInsertValue | LLVMFreeze
        )
    }
    pub fn is_instruction(self) -> bool {
        // SAFETY: dynamic type test.
        !unsafe { LLVMIsAInstruction(self.0) }.is_null()
    }
    pub fn const_int(self) -> Option<u64> {
        // SAFETY: dynamic type test, then reading a ConstantInt of at most 64 bits.
        unsafe {
            if LLVMIsAConstantInt(self.0).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(self.0)) > 64 {
                return None;
            }
            Some(LLVMConstIntGetZExtValue(self.0))
        }
    }
    /// A constant pointer's integer value: null is 0, `inttoptr (i64 4 to ptr)` is 4.
    pub fn const_pointer_int(self) -> Option<u64> {
        // SAFETY: dynamic type tests and constant-expression operands.
        unsafe {
            if !LLVMIsAConstantPointerNull(self.0).is_null() {
                return Some(0);
            }
            if !LLVMIsAConstantExpr(self.0).is_null() {
                let op = LLVMGetConstOpcode(self.0);
                if op == LLVMOpcode::LLVMIntToPtr
                    || op == LLVMOpcode::LLVMBitCast
                    || op == LLVMOpcode::LLVMAddrSpaceCast
                {
                    let inner = Value(LLVMGetOperand(self.0, 0));
                    return inner.const_int().or_else(|| inner.const_pointer_int());
                }
            }
            None
        }
    }
    /// The value with pointer casts (bitcast, addrspacecast, constant or not) removed.
    pub fn strip_casts(self) -> Value {
        let mut v = self;
        // SAFETY: dynamic type tests and operand reads.
        unsafe {
            loop {
                let is_cast_inst = !LLVMIsABitCastInst(v.0).is_null() || !LLVMIsAAddrSpaceCastInst(v.0).is_null();
                let is_cast_expr = !LLVMIsAConstantExpr(v.0).is_null()
                    && matches!(LLVMGetConstOpcode(v.0), LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast);
                if !(is_cast_inst || is_cast_expr) {
                    return v;
                }
                v = Value(LLVMGetOperand(v.0, 0));
            }
        }
    }
    /// The base pointer and constant byte offset of a pointer value (through GEPs and casts).
    pub fn base_and_offset(self) -> (Value, i64) {
        let mut off = 0i64;
        // SAFETY: the shim only reads the value.
        let base = Value(unsafe { klap_strip_constant_offsets(self.0, &mut off) });
        (base, off)
    }
    /// The initializer of a constant global variable.
    pub fn constant_global_initializer(self) -> Option<Value> {
        // SAFETY: dynamic type test and global-variable queries.
        unsafe {
            if LLVMIsAGlobalVariable(self.0).is_null() || LLVMIsGlobalConstant(self.0) == 0 {
                return None;
            }
            let init = LLVMGetInitializer(self.0);
            (!init.is_null()).then_some(Value(init))
        }
    }

    // ---- functions ----
    pub fn is_declaration(self) -> bool {
        // SAFETY: self is a global value.
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }
    pub fn is_ptx_kernel_cc(self) -> bool {
        // SAFETY: self is a function.
        unsafe { LLVMGetFunctionCallConv(self.0) == LLVMCallConv::LLVMPTXKernelCallConv as u32 }
    }
    pub fn params(self) -> Vec<Value> {
        // SAFETY: self is a function; walking its parameters.
        unsafe { (0..LLVMCountParams(self.0)).map(|i| Value(LLVMGetParam(self.0, i))).collect() }
    }
    /// The function type of a function.
    pub fn function_type(self) -> Type {
        // SAFETY: self is a function.
        Type(unsafe { LLVMGlobalGetValueType(self.0) })
    }
    /// The type of a parameter's `byval(T)` attribute (`index` counts parameters from 0).
    pub fn param_byval_type(self, index: u32) -> Option<Type> {
        self.type_attribute(index + 1, "byval")
    }
    /// The `align` attribute of parameter `index`, if any.
    pub fn param_align(self, index: u32) -> Option<u64> {
        const ALIGN: &str = "align";
        // SAFETY: attribute lookup on a function.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(ALIGN.as_ptr() as *const c_char, ALIGN.len());
            let a = LLVMGetEnumAttributeAtIndex(self.0, index + 1, kind);
            (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
        }
    }
    fn type_attribute(self, index: u32, name: &str) -> Option<Type> {
        // SAFETY: attribute lookup on a function.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const c_char, name.len());
            let a = LLVMGetEnumAttributeAtIndex(self.0, index, kind);
            (!a.is_null()).then(|| Type(LLVMGetTypeAttributeValue(a)))
        }
    }
    pub fn blocks(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking a function's blocks (as values, so one handle type serves).
        unsafe {
            let mut b = LLVMGetFirstBasicBlock(self.0);
            while !b.is_null() {
                out.push(Value(LLVMBasicBlockAsValue(b)));
                b = LLVMGetNextBasicBlock(b);
            }
        }
        out
    }
    /// Instructions of a block value, in order.
    pub fn instructions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: self is a basic block value.
        unsafe {
            let mut i = LLVMGetFirstInstruction(LLVMValueAsBasicBlock(self.0));
            while !i.is_null() {
                out.push(Value(i));
                i = LLVMGetNextInstruction(i);
            }
        }
        out
    }
    /// Every instruction of a function.
    pub fn all_instructions(self) -> Vec<Value> {
        self.blocks().into_iter().flat_map(|b| b.instructions()).collect()
    }

    // ---- instructions ----
    pub fn op(self) -> Op {
        // SAFETY: self is an instruction.
        match unsafe { LLVMGetInstructionOpcode(self.0) } {
            LLVMOpcode::LLVMCall => Op::Call,
            LLVMOpcode::LLVMStore => Op::Store,
            LLVMOpcode::LLVMLoad => Op::Load,
            LLVMOpcode::LLVMGetElementPtr => Op::Gep,
            LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => Op::Cast,
            LLVMOpcode::LLVMICmp => Op::ICmp,
            LLVMOpcode::LLVMInsertValue => Op::InsertValue,
            LLVMOpcode::LLVMAlloca => Op::Alloca,
            LLVMOpcode::LLVMPHI => Op::Phi,
            _ => Op::Other,
        }
    }
    pub fn parent_function(self) -> Value {
        // SAFETY: self is an instruction in a block of a function.
        Value(unsafe { LLVMGetBasicBlockParent(LLVMGetInstructionParent(self.0)) })
    }
    pub fn parent_block(self) -> Value {
        // SAFETY: self is an instruction.
        Value(unsafe { LLVMBasicBlockAsValue(LLVMGetInstructionParent(self.0)) })
    }
    pub fn operand(self, i: u32) -> Value {
        // SAFETY: callers check the operand count through the instruction kind.
        Value(unsafe { LLVMGetOperand(self.0, i) })
    }
    /// The directly called function of a call (through pointer casts).
    pub fn called_function(self) -> Option<Value> {
        // SAFETY: self is a call instruction.
        Value(unsafe { LLVMGetCalledValue(self.0) }).strip_casts().as_function()
    }
    pub fn call_args(self) -> Vec<Value> {
        // SAFETY: self is a call; its argument operands come first.
        unsafe { (0..LLVMGetNumArgOperands(self.0)).map(|i| Value(LLVMGetOperand(self.0, i))).collect() }
    }
    /// Whether call argument `index` carries `byval`.
    pub fn call_arg_is_byval(self, index: u32) -> bool {
        const BYVAL: &str = "byval";
        // SAFETY: attribute lookup on a call site.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(BYVAL.as_ptr() as *const c_char, BYVAL.len());
            !LLVMGetCallSiteEnumAttribute(self.0, index + 1, kind).is_null()
        }
    }
    /// The `align` attribute of call argument `index`, if any.
    pub fn call_arg_align(self, index: u32) -> Option<u64> {
        const ALIGN: &str = "align";
        // SAFETY: attribute lookup on a call site.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(ALIGN.as_ptr() as *const c_char, ALIGN.len());
            let a = LLVMGetCallSiteEnumAttribute(self.0, index + 1, kind);
            (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
        }
    }
    pub fn users(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the use list.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(Value(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|v| seen.insert(*v));
        out
    }
    /// For `icmp eq/ne v, null` (either order): which test it is.
    pub fn null_test(self) -> Option<NullTest> {
        if self.op() != Op::ICmp {
            return None;
        }
        let (a, b) = (self.operand(0), self.operand(1));
        if a.const_pointer_int() != Some(0) && b.const_pointer_int() != Some(0) {
            return None;
        }
        // SAFETY: self is an icmp.
        match unsafe { LLVMGetICmpPredicate(self.0) } {
            LLVMIntPredicate::LLVMIntEQ => Some(NullTest::IsNull),
            LLVMIntPredicate::LLVMIntNE => Some(NullTest::IsNotNull),
            _ => None,
        }
    }
    /// The constant length of an `llvm.memcpy`/`llvm.memmove` call: (dest, src, len).
    pub fn as_mem_transfer(self) -> Option<(Value, Value, u64)> {
        // SAFETY: dynamic type tests.
        unsafe {
            if LLVMIsAMemCpyInst(self.0).is_null() && LLVMIsAMemMoveInst(self.0).is_null() {
                return None;
            }
        }
        let len = self.operand(2).const_int()?;
        Some((self.operand(0), self.operand(1), len))
    }
    /// Whether this is a call to an `llvm.lifetime.*` intrinsic.
    pub fn is_lifetime_marker(self) -> bool {
        self.op() == Op::Call
            && self.called_function().is_some_and(|f| f.name().starts_with("llvm.lifetime."))
    }
    /// For `insertvalue agg, v, i`: (agg, v, i) for single-index inserts.
    pub fn as_insert_value(self) -> Option<(Value, Value, u32)> {
        if self.op() != Op::InsertValue {
            return None;
        }
        // SAFETY: self is an insertvalue; reading its index list of the reported length.
        unsafe {
            if LLVMGetNumIndices(self.0) != 1 {
                return None;
            }
            Some((self.operand(0), self.operand(1), *LLVMGetIndices(self.0)))
        }
    }
    /// Field `i` of a constant struct.
    pub fn const_aggregate_element(self, i: u32) -> Option<Value> {
        // SAFETY: dynamic type test, then element access.
        unsafe {
            if LLVMIsAConstant(self.0).is_null() {
                return None;
            }
            let e = LLVMGetAggregateElement(self.0, i);
            (!e.is_null()).then_some(Value(e))
        }
    }
    /// Where the user wrote an instruction (through inlined header wrappers): (file, line, column).
    pub fn debug_location(self) -> Option<(String, u32, u32)> {
        let (mut file, mut line, mut col) = (std::ptr::null_mut(), 0u32, 0u32);
        // SAFETY: self is an instruction; the shim allocates the file name with LLVMCreateMessage.
        let found = unsafe { klap_user_location(self.0, &mut file, &mut line, &mut col) };
        found.then(|| (take_message(file), line, col))
    }
    pub fn replace_all_uses_with(self, new: Value) {
        // SAFETY: both values have the same type (callers guarantee it).
        unsafe { LLVMReplaceAllUsesWith(self.0, new.0) }
    }
    pub fn erase(self) {
        // SAFETY: self is an instruction whose uses are gone.
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }
    pub fn alignment(self) -> u32 {
        // SAFETY: self is a load, store or alloca.
        unsafe { LLVMGetAlignment(self.0) }
    }
    pub fn set_name(self, name: &str) {
        // SAFETY: naming a live value.
        unsafe { LLVMSetValueName2(self.0, name.as_ptr() as *const c_char, name.len()) }
    }
    /// Splits the block before `self` so that `self` and what follows run only when `cond` is true;
    /// returns the branch that ends the conditional block.
    pub fn split_if_then(self, cond: Value) -> Value {
        // SAFETY: cond is an i1 that dominates self.
        Value(unsafe { klap_split_if_then(cond.0, self.0) })
    }
    pub fn copy_linkage_from(self, other: Value) {
        // SAFETY: both are global values.
        unsafe { LLVMSetLinkage(self.0, LLVMGetLinkage(other.0)) }
    }
    pub fn set_internal(self) {
        // SAFETY: self is a global value.
        unsafe { LLVMSetLinkage(self.0, llvm_sys::LLVMLinkage::LLVMInternalLinkage) }
    }
    /// The module of a function or global.
    pub fn module(self) -> Module {
        // SAFETY: self is a global value.
        Module(unsafe { LLVMGetGlobalParent(self.0) })
    }
    pub fn set_ptx_kernel(self) {
        // SAFETY: self is a function.
        unsafe { LLVMSetFunctionCallConv(self.0, LLVMCallConv::LLVMPTXKernelCallConv as u32) }
    }
    pub fn param(self, i: u32) -> Value {
        // SAFETY: self is a function with more than i parameters.
        Value(unsafe { LLVMGetParam(self.0, i) })
    }
    /// Clones the body of function `self` into `to` (which already has an entry block), mapping
    /// `self`'s parameters to `args`.
    pub fn clone_body_into(self, to: Value, args: &[Value]) {
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|v| v.0).collect();
        // SAFETY: args has one value per parameter of self, of matching types.
        unsafe { klap_clone_body_into(self.0, to.0, raw.as_mut_ptr(), raw.len() as u32) }
    }
    /// A copy of function `self` named `name`.
    pub fn clone_function(self, name: &str) -> Value {
        let n = c_string(name);
        // SAFETY: self is a function with a body.
        Value(unsafe { klap_clone_function(self.0, n.as_ptr()) })
    }
    pub fn is_return(self) -> bool {
        // SAFETY: self is an instruction.
        unsafe { LLVMGetInstructionOpcode(self.0) == LLVMOpcode::LLVMRet }
    }
    /// Moves an instruction to the builder's position.
    pub fn move_to(self, b: &mut Builder) {
        // SAFETY: self is an instruction; it is reinserted at once.
        unsafe {
            LLVMInstructionRemoveFromParent(self.0);
            LLVMInsertIntoBuilder(b.raw, self.0);
        }
    }
    /// Points a call at another function of the same type.
    pub fn set_called_function(self, f: Value) {
        // SAFETY: operand count - 1 is the callee of a call.
        unsafe { LLVMSetOperand(self.0, (LLVMGetNumOperands(self.0) - 1) as u32, f.0) }
    }
    /// Marks call argument `index` `byval(ty) align 4`.
    pub fn set_call_arg_byval(self, index: u32, ty: Type, module: Module) {
        // SAFETY: attribute creation in the module's context, added to a call site.
        unsafe {
            let byval = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);
            LLVMAddCallSiteAttribute(self.0, index + 1, LLVMCreateTypeAttribute(module.context(), byval, ty.0));
            let align = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
            LLVMAddCallSiteAttribute(self.0, index + 1, LLVMCreateEnumAttribute(module.context(), align, 4));
        }
    }
    /// Marks parameter `index` of a function `byval(ty) align 4`.
    pub fn set_param_byval(self, index: u32, ty: Type, module: Module) {
        // SAFETY: attribute creation in the module's context, added to a function.
        unsafe {
            let byval = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);
            LLVMAddAttributeAtIndex(self.0, index + 1, LLVMCreateTypeAttribute(module.context(), byval, ty.0));
            let align = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
            LLVMAddAttributeAtIndex(self.0, index + 1, LLVMCreateEnumAttribute(module.context(), align, 4));
        }
    }
    pub fn erase_function(self) {
        // SAFETY: self is a function without uses.
        unsafe { LLVMDeleteFunction(self.0) }
    }
    pub fn entry_block(self) -> Value {
        // SAFETY: self is a function with a body.
        Value(unsafe { LLVMBasicBlockAsValue(LLVMGetEntryBasicBlock(self.0)) })
    }
    pub fn next_instruction(self) -> Option<Value> {
        // SAFETY: walking the instruction list.
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }
}

/// Emits instructions before a given instruction.
pub struct Builder {
    raw: LLVMBuilderRef,
    module: Module,
}

impl Builder {
    pub fn before(module: Module, inst: Value) -> Builder {
        // SAFETY: a builder in the module's context, positioned before a live instruction.
        unsafe {
            let raw = LLVMCreateBuilderInContext(module.context());
            LLVMPositionBuilderBefore(raw, inst.0);
            Builder { raw, module }
        }
    }
    pub fn at_end(module: Module, block: Value) -> Builder {
        // SAFETY: a builder in the module's context at the end of a live block.
        unsafe {
            let raw = LLVMCreateBuilderInContext(module.context());
            LLVMPositionBuilderAtEnd(raw, LLVMValueAsBasicBlock(block.0));
            Builder { raw, module }
        }
    }
    pub fn position_at_end(&mut self, block: Value) {
        // SAFETY: block is a live block of the module.
        unsafe { LLVMPositionBuilderAtEnd(self.raw, LLVMValueAsBasicBlock(block.0)) }
    }
    pub fn call_not(&mut self, v: Value) -> Value {
        // SAFETY: v is an integer.
        Value(unsafe { LLVMBuildNot(self.raw, v.0, c"".as_ptr()) })
    }
    pub fn cond_br(&mut self, cond: Value, then: Value, otherwise: Value) -> Value {
        // SAFETY: cond is an i1; the destinations are block values.
        unsafe {
            Value(LLVMBuildCondBr(self.raw, cond.0, LLVMValueAsBasicBlock(then.0), LLVMValueAsBasicBlock(otherwise.0)))
        }
    }
    pub fn ret_void(&mut self) -> Value {
        // SAFETY: the builder is at the end of a block of a void function.
        Value(unsafe { LLVMBuildRetVoid(self.raw) })
    }
    pub fn freeze_poison(&mut self, ty: Type) -> Value {
        // SAFETY: a freeze of a poison constant of a first-class type.
        Value(unsafe { LLVMBuildFreeze(self.raw, LLVMGetPoison(ty.0), c"".as_ptr()) })
    }
    pub fn alloca(&mut self, ty: Type, align: u32) -> Value {
        // SAFETY: an alloca of a sized type.
        unsafe {
            let a = LLVMBuildAlloca(self.raw, ty.0, c"".as_ptr());
            LLVMSetAlignment(a, align);
            Value(a)
        }
    }
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        // SAFETY: integer operands of one type.
        Value(unsafe { LLVMBuildMul(self.raw, a.0, b.0, c"".as_ptr()) })
    }
    pub fn zext(&mut self, v: Value, ty: Type) -> Value {
        // SAFETY: v is a narrower integer than ty.
        Value(unsafe { LLVMBuildZExt(self.raw, v.0, ty.0, c"".as_ptr()) })
    }
    pub fn extract_value(&mut self, agg: Value, index: u32) -> Value {
        // SAFETY: index is a field of agg's struct type.
        Value(unsafe { LLVMBuildExtractValue(self.raw, agg.0, index, c"".as_ptr()) })
    }
    pub fn position_before(&mut self, inst: Value) {
        // SAFETY: inst is a live instruction of the same module.
        unsafe { LLVMPositionBuilderBefore(self.raw, inst.0) }
    }
    pub fn call(&mut self, callee: Value, args: &[Value]) -> Value {
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|v| v.0).collect();
        let ty = callee.function_type();
        // SAFETY: argument count and types match the callee's type (callers build them so).
        unsafe {
            Value(LLVMBuildCall2(self.raw, ty.0, callee.0, raw.as_mut_ptr(), raw.len() as u32, c"".as_ptr()))
        }
    }
    pub fn byte_gep(&mut self, base: Value, offset: u64) -> Value {
        if offset == 0 {
            return base;
        }
        let mut idx = [self.module.const_int(self.module.i64_type(), offset).0];
        // SAFETY: an i8 GEP with a constant index.
        unsafe {
            Value(LLVMBuildInBoundsGEP2(self.raw, self.module.i8_type().0, base.0, idx.as_mut_ptr(), 1, c"".as_ptr()))
        }
    }
    pub fn store(&mut self, value: Value, ptr: Value, align: u32) -> Value {
        // SAFETY: ptr is a pointer; value is first-class.
        unsafe {
            let s = LLVMBuildStore(self.raw, value.0, ptr.0);
            LLVMSetAlignment(s, align);
            Value(s)
        }
    }
    pub fn load(&mut self, ty: Type, ptr: Value, align: u32) -> Value {
        // SAFETY: ptr is a pointer.
        unsafe {
            let l = LLVMBuildLoad2(self.raw, ty.0, ptr.0, c"".as_ptr());
            LLVMSetAlignment(l, align);
            Value(l)
        }
    }
    pub fn insert_value(&mut self, agg: Value, v: Value, index: u32) -> Value {
        // SAFETY: index is a valid field of agg's struct type.
        Value(unsafe { LLVMBuildInsertValue(self.raw, agg.0, v.0, index, c"".as_ptr()) })
    }
    pub fn is_not_null(&mut self, v: Value) -> Value {
        // SAFETY: v is a pointer.
        Value(unsafe { LLVMBuildIsNotNull(self.raw, v.0, c"".as_ptr()) })
    }
    /// A phi in the block of the builder's position (which must be the block's start).
    pub fn phi(&mut self, ty: Type, incoming: &[(Value, Value)]) -> Value {
        // SAFETY: incoming pairs are (value, block value) of the phi's predecessors.
        unsafe {
            let p = LLVMBuildPhi(self.raw, ty.0, c"".as_ptr());
            for &(v, b) in incoming {
                let mut vals = [v.0];
                let mut blocks = [LLVMValueAsBasicBlock(b.0)];
                LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
            Value(p)
        }
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        // SAFETY: the builder was created by this struct.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

/// A new block at the end of function `f`.
pub fn append_block(module: Module, f: Value, name: &str) -> Value {
    let n = c_string(name);
    // SAFETY: appending a block to a function.
    unsafe { Value(LLVMBasicBlockAsValue(LLVMAppendBasicBlockInContext(module.context(), f.0, n.as_ptr()))) }
}

/// The first instruction of a block value.
pub fn first_instruction(block: Value) -> Value {
    // SAFETY: block is a basic-block value with at least a terminator.
    Value(unsafe { LLVMGetFirstInstruction(LLVMValueAsBasicBlock(block.0)) })
}

// ---- Entry points: LLVM's plugin loader and the shim call these. ----

#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: *const c_void,
}

/// LLVM_PLUGIN_API_VERSION of LLVM 22.
const PLUGIN_API_VERSION: u32 = 2;

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    let foreign = crate::foreign_llvm_in_process();
    if let Some(lib) = &foreign {
        eprintln!(
            "error: klap was built for LLVM {} but is being loaded into a program that uses {lib}; \
             use opt-{} / clang-{} or rebuild klap against that LLVM",
            crate::LLVM_VERSION,
            crate::LLVM_MAJOR,
            crate::LLVM_MAJOR
        );
    }
    PassPluginLibraryInfo {
        // A version no LLVM accepts makes the loader refuse the plugin after our message.
        api_version: if foreign.is_some() { u32::MAX } else { PLUGIN_API_VERSION },
        plugin_name: c"klap".as_ptr(),
        plugin_version: c"0.1.0".as_ptr(),
        register_pass_builder_callbacks: Some(klap_register_pass_builder_callbacks),
        pre_codegen_callback: std::ptr::null(),
    }
}

/// The model's box, as the shim holds it.
fn model_ref<'a>(model: *mut c_void) -> &'a crate::launch::LaunchModel {
    // SAFETY: the shim passes back a pointer klap_rust_analyze returned, alive until klap_rust_model_free.
    unsafe { &*(model as *const crate::launch::LaunchModel) }
}

#[no_mangle]
pub extern "C" fn klap_rust_analyze(module: LLVMModuleRef, ctx: *mut RawCtx) -> *mut c_void {
    let model = crate::analyze(Module(module), Ctx(ctx));
    Box::into_raw(Box::new(model)) as *mut c_void
}

#[no_mangle]
pub extern "C" fn klap_rust_model_free(model: *mut c_void) {
    if !model.is_null() {
        // SAFETY: model came from Box::into_raw in klap_rust_analyze and is freed once.
        drop(unsafe { Box::from_raw(model as *mut crate::launch::LaunchModel) });
    }
}

#[no_mangle]
pub extern "C" fn klap_rust_print_launches(model: *mut c_void, _ctx: *mut RawCtx) {
    crate::print::print_launches(model_ref(model));
}

#[no_mangle]
pub extern "C" fn klap_rust_print_graph(model: *mut c_void, _ctx: *mut RawCtx) {
    crate::print::print_graph(model_ref(model));
}

#[no_mangle]
pub extern "C" fn klap_rust_normalize(model: *mut c_void, ctx: *mut RawCtx) -> bool {
    let model = model_ref(model);
    // SAFETY: ctx is the live context the shim passed in.
    let module = Module(unsafe { klap_ctx_module(ctx) });
    crate::normalize::run(module, model, Ctx(ctx))
}

#[no_mangle]
pub extern "C" fn klap_rust_aggregate(model: *mut c_void, ctx: *mut RawCtx, granularity: u32, merge_null_stream: bool, skip_lone: bool, pool_bytes: u64, trace: bool) -> bool {
    let model = model_ref(model);
    // SAFETY: ctx is the live context the shim passed in.
    let module = Module(unsafe { klap_ctx_module(ctx) });
    let granularity = match granularity {
        1 => crate::aggregate::Granularity::Warp,
        2 => crate::aggregate::Granularity::Block,
        _ => crate::aggregate::Granularity::Grid,
    };
    let options = crate::aggregate::Options { granularity, merge_null_stream, skip_lone, pool_bytes, trace };
    crate::aggregate::run(module, model, Ctx(ctx), &options)
}
