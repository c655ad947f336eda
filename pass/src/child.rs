//! Variants of a child kernel: forms of its code that run somewhere other than in a grid of its own,
//! built once per (kernel, kind) and shared by every transformation that needs them.
//!
//! What every variant does: the child's index registers (threadIdx, blockIdx, blockDim, gridDim in x,
//! y, z; the table in runtime/index_registers.def) are read through the runtime's accessors, which give
//! the child's view of them, in the kernel and in copies of the device functions it calls that read
//! them (the originals keep serving their other callers).
//!
//! - [`VariantKind::Aggregated`]: `K__klap(ptr chunk)`, a kernel whose blocks serve many launches'
//!   worth of blocks: each finds its launch record (the runtime's search over the records' block
//!   ranges), loads that record's arguments, and returns at once where the thread is beyond the
//!   record's block size. Each thread that ran counts itself out of its record at its exit, so that
//!   the chunk is freed once all of its blocks are done.

use crate::callgraph::CallGraph;
use crate::llvm::{
    AddressSpace, BasicValueEnum, BuilderExt, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue,
    Module, ValueExt,
};
use crate::runtime::{IndexRegister, Runtime, RuntimeFn};
use crate::site::ops::entry_alloca;
use crate::site::{param_layout, uniform};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VariantKind {
    Aggregated,
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
}

pub struct ChildVariants<'a, 'c> {
    module: &'a Module<'c>,
    runtime: &'a Runtime<'c>,
    /// Functions whose code (or whose callees' code) reads an index register.
    readers: HashSet<FunctionValue<'c>>,
    /// Copies of device functions with their index registers remapped.
    remapped: HashMap<FunctionValue<'c>, FunctionValue<'c>>,
    variants: HashMap<(FunctionValue<'c>, VariantKind), Variant<'c>>,
}

impl<'a, 'c> ChildVariants<'a, 'c> {
    pub fn new(module: &'a Module<'c>, runtime: &'a Runtime<'c>) -> Self {
        let calls = CallGraph::build(module);
        let mut readers = calls.functions_calling(|g| IndexRegister::read_by(&g.name()).is_some());
        // The runtime reads the physical registers on purpose.
        readers.retain(|f| !f.name().starts_with("__klap_"));
        ChildVariants { module, runtime, readers, remapped: HashMap::new(), variants: HashMap::new() }
    }

    pub fn get(&self, kernel: FunctionValue<'c>, kind: VariantKind) -> Option<&Variant<'c>> {
        self.variants.get(&(kernel, kind))
    }

    /// The variant that owns `function`, if it is one.
    pub fn owning(&self, function: FunctionValue<'c>) -> Option<&Variant<'c>> {
        self.variants.values().find(|v| v.function == function)
    }

    /// The aggregated variant of `kernel`, with `uniform` saying which parameters come once per chunk.
    pub fn aggregated(&mut self, kernel: FunctionValue<'c>, uniform: &[bool]) -> &Variant<'c> {
        let key = (kernel, VariantKind::Aggregated);
        if !self.variants.contains_key(&key) {
            let v = self.build_aggregated(kernel, uniform);
            self.variants.insert(key, v);
        }
        &self.variants[&key]
    }

    fn build_aggregated(&mut self, kernel: FunctionValue<'c>, uniform: &[bool]) -> Variant<'c> {
        let (module, runtime) = (self.module, self.runtime);
        let cx = module.get_context();
        let ptr = cx.ptr_type(AddressSpace::default());
        let (params, param_size) = param_layout(module, kernel);
        let uniform = uniform.to_vec();
        let uniform_words = uniform::uniform_words(&params, &uniform, param_size);
        let f = module.add_function(&format!("{}__klap", kernel.name()), cx.void_type().fn_type(&[ptr.into()], false), None);
        f.set_ptx_kernel();
        f.set_linkage(kernel.get_linkage());
        let chunk = f.get_nth_param(0).unwrap();
        chunk.set_value_name("klap.chunk");
        let entry = cx.append_basic_block(f, "klap.entry");
        let b = cx.create_builder();
        b.position_at_end(entry);
        let placeholders: Vec<InstructionValue<'c>> = kernel.get_params().iter().map(|p| b.freeze_poison(p.get_type())).collect();
        let placeholder_values: Vec<BasicValueEnum<'c>> = placeholders.iter().map(|p| p.result()).collect();
        kernel.clone_body_into(f, &placeholder_values);
        let body = f.get_basic_blocks()[1];

        // The kernel's stack objects stay in the entry block, so they remain static allocas.
        let allocas: Vec<InstructionValue<'c>> =
            body.get_instructions().take_while(|i| i.get_opcode() == InstructionOpcode::Alloca).collect();
        for inst in allocas {
            match placeholders.first() {
                Some(p) => b.position_before(p),
                None => b.position_at_end(entry),
            }
            inst.move_to(&b);
        }
        b.position_at_end(entry);
        let args = b.call_value(runtime.get(RuntimeFn::ChildEnter), &[chunk]);
        let active = b.is_not_null(args);
        let masked = cx.append_basic_block(f, "klap.masked");
        b.build_conditional_branch(active, body, masked).expect("builder positioned");
        b.position_at_end(masked);
        let masked_return = b.build_return(None).expect("builder positioned");

        let body_start = body.get_first_instruction().unwrap();
        b.position_before(&body_start);
        let uniform_args = uniform.contains(&true).then(|| b.call_value(runtime.get(RuntimeFn::ChildUniformArgs), &[]));
        for (i, (placeholder, param)) in placeholders.iter().zip(&params).enumerate() {
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
        }
        self.remap_index_registers(f);
        Variant { function: f, body_start, exits, param_size, uniform, uniform_words }
    }

    /// Points the index-register reads of `f` at the runtime's accessors, through copies of the device
    /// functions that read them.
    fn remap_index_registers(&mut self, f: FunctionValue<'c>) {
        for inst in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Call) {
            let Some(callee) = inst.called_function() else { continue };
            if let Some(register) = IndexRegister::read_by(&callee.name()) {
                inst.set_called_function(self.runtime.get(RuntimeFn::IndexRegister(register)));
            } else if self.readers.contains(&callee) && !callee.is_ptx_kernel() {
                let copy = match self.remapped.get(&callee) {
                    Some(&c) => c,
                    None => {
                        // PTX names take no dots; the copy is this module's own.
                        let c = callee.clone_function(&format!("{}__klap", callee.name()));
                        c.set_linkage(crate::llvm::Linkage::Internal);
                        self.remapped.insert(callee, c);
                        self.remap_index_registers(c);
                        c
                    }
                };
                inst.set_called_function(copy);
            }
        }
    }
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
