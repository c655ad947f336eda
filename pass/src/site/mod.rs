//! The launch-site model: every device launch of a module, recognized or not, with what each klap
//! transformation needs to know about it, and the operations on a site that transformations share.
//! Built once per module by the launch analysis.

pub mod abi;
pub mod alloc;
pub mod graph;
pub mod ops;
mod recognize;
pub mod uniform;

use crate::callgraph::CallGraph;
use crate::llvm::{
    count, BasicTypeEnum, BasicValueEnum, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode,
    InstructionValue, Module, ModuleExt, Statistic, ValueExt,
};
use crate::remarks::Remark;
use crate::runtime::is_runtime_function;
use abi::{classify_entry, Abi, EntryKind, Stream};
use std::collections::HashSet;

/// One parameter of a child kernel as it lies in the parameter buffer.
#[derive(Clone, Debug)]
pub struct Param<'c> {
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// The parameter's type; for a `byval(T)` parameter, T.
    pub ty: BasicTypeEnum<'c>,
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
pub struct Dim3<'c> {
    pub operand: BasicValueEnum<'c>,
    pub form: DimForm,
    /// x, y, z where the analysis could see them (a constant or an SSA value available at the launch).
    pub fields: [Option<BasicValueEnum<'c>>; 3],
    /// Where the launch protocol reads a dim3 in memory when that is before the launch: V2's
    /// parameter-buffer call. None for V1, which reads it at the launch, where klap re-emits (or
    /// registers) the launch: a store to the dim3 after the read must not change the launch.
    pub read_before_launch: Option<InstructionValue<'c>>,
}

/// One write of argument bytes into the parameter buffer.
#[derive(Clone, Copy, Debug)]
pub enum WriteKind<'c> {
    Store { value: BasicValueEnum<'c> },
    /// Element `index` of a vector store that spans several parameters (the vectorizer merges the stores
    /// of adjacent small arguments, two `short`s into one `<2 x i16>`, say).
    Element { vector: BasicValueEnum<'c>, index: u32 },
    /// `memcpy(buf + offset, src, len)`.
    Copy { src: BasicValueEnum<'c>, len: u64 },
}

#[derive(Clone, Copy, Debug)]
pub struct ArgWrite<'c> {
    pub inst: InstructionValue<'c>,
    pub offset: u64,
    pub size: u64,
    pub kind: WriteKind<'c>,
    /// Index into `LaunchSite::params` of the parameter written.
    pub param: usize,
}

/// A recognized device launch.
#[derive(Clone, Debug)]
pub struct LaunchSite<'c> {
    pub caller: FunctionValue<'c>,
    pub caller_is_kernel: bool,
    /// Kernels whose calls reach `caller` when it is a device function.
    pub reached_from: Vec<FunctionValue<'c>>,
    pub child: FunctionValue<'c>,
    /// The child as written at the launch (the function, a cast of it, or a load of a constant).
    pub child_operand: BasicValueEnum<'c>,
    pub abi: Abi,
    pub ptsz: bool,
    pub launch: InstructionValue<'c>,
    pub buffer_call: InstructionValue<'c>,
    pub grid: Dim3<'c>,
    pub block: Dim3<'c>,
    pub smem: BasicValueEnum<'c>,
    pub stream: Stream,
    pub stream_operand: BasicValueEnum<'c>,
    pub params: Vec<Param<'c>>,
    pub writes: Vec<ArgWrite<'c>>,
    /// `icmp eq/ne buf, null` instructions guarding the launch.
    pub null_checks: Vec<InstructionValue<'c>>,
    pub loop_depth: u32,
    pub divergent: bool,
    /// Only threads whose threadIdx.x equals one uniform value reach it (one per block with
    /// one-dimensional blocks).
    pub lone: bool,
    /// In a device function some chain of calls to which is made in a loop.
    pub called_in_loop: bool,
}

#[derive(Clone, Debug)]
pub struct Unrecognized<'c> {
    pub caller: FunctionValue<'c>,
    pub launch: InstructionValue<'c>,
    pub abi: Abi,
    /// Why it is left exactly as it is: one of the missed-launch remarks.
    pub reason: Remark,
    pub detail: String,
}

/// Every launch of one module.
#[derive(Default)]
pub struct LaunchModel<'c> {
    pub nvptx: bool,
    pub triple: String,
    /// Kernels in module order.
    pub kernels: Vec<FunctionValue<'c>>,
    pub sites: Vec<LaunchSite<'c>>,
    pub unrecognized: Vec<Unrecognized<'c>>,
}

/// Builds the model of `module`; emits an analysis remark for every recognized launch and a missed
/// remark for every other one.
pub fn analyze<'c>(module: &Module<'c>, ctx: Ctx) -> LaunchModel<'c> {
    analyze_with(module, ctx, true)
}

/// The model of a module a klap pass has just changed: without remarks or statistics, which the first
/// analysis gave already.
pub fn analyze_quietly<'c>(module: &Module<'c>, ctx: Ctx) -> LaunchModel<'c> {
    analyze_with(module, ctx, false)
}

/// Whether a function is a kernel: by calling convention, or named so by `!nvvm.annotations`.
pub fn kernels<'c>(module: &Module<'c>) -> Vec<FunctionValue<'c>> {
    let annotated: HashSet<FunctionValue<'c>> = module.annotated_kernels().into_iter().collect();
    module.functions().into_iter().filter(|f| f.is_ptx_kernel() || annotated.contains(f)).collect()
}

fn analyze_with<'c>(module: &Module<'c>, ctx: Ctx, report: bool) -> LaunchModel<'c> {
    let mut model = LaunchModel { nvptx: module.is_nvptx(), triple: module.triple_string(), ..Default::default() };
    if !model.nvptx {
        return model;
    }
    model.kernels = kernels(module);
    let kernel_set: HashSet<FunctionValue<'c>> = model.kernels.iter().copied().collect();
    let calls = CallGraph::build(module);
    let reach = calls.kernels_reaching(&model.kernels);

    // A definition with an entry point's name is a header wrapper: its calls are the launches. klap's
    // device runtime, once an earlier step linked it, makes launches of its own (of aggregated children,
    // through pointers): they are not the program's, and recognizing them again after every step, with
    // a rejection printed for each, was a fifth of klap's compile time.
    let wrapper = |f: &FunctionValue<'c>| classify_entry(&f.name()).is_some();
    for f in module.functions().into_iter().filter(|f| !f.is_declaration() && !wrapper(f) && !is_runtime_function(*f)) {
        // Walked up the callers once per function, at its first launch.
        let mut f_called_in_loop: Option<bool> = None;
        for inst in f.instructions() {
            if inst.get_opcode() != InstructionOpcode::Call {
                continue;
            }
            let Some(entry) = inst.called_function().and_then(|c| classify_entry(&c.name())) else { continue };
            if entry.kind != EntryKind::Launch {
                continue;
            }
            let recognizer = recognize::Recognizer { module, ctx, kernels: &kernel_set };
            match recognizer.site(f, inst, entry.abi, entry.ptsz) {
                Ok(mut site) => {
                    site.caller_is_kernel = kernel_set.contains(&f);
                    site.called_in_loop =
                        !site.caller_is_kernel && *f_called_in_loop.get_or_insert_with(|| calls.called_in_loop(ctx, f));
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
                Err(recognize::Rejection(reason, detail)) => {
                    if report {
                        reason.emit(ctx, inst, &detail);
                    }
                    model.unrecognized.push(Unrecognized { caller: f, launch: inst, abi: entry.abi, reason, detail });
                }
            }
        }
    }
    if report {
        count(Statistic::RecognizedLaunch, model.sites.len());
        count(Statistic::UnrecognizedLaunch, model.unrecognized.len());
    }
    model
}

/// `size` of every launch of `child` among `sites` (a product of its grid's or its block's dimensions), where
/// it is one constant for all of them.
pub fn constant_over_launches<'c>(sites: &[LaunchSite<'c>], child: FunctionValue<'c>, size: impl Fn(&LaunchSite<'c>) -> Option<u64>) -> Option<u64> {
    let mut launches = sites.iter().filter(|s| s.child == child).map(size);
    let first = launches.next()??;
    launches.all(|n| n == Some(first)).then_some(first)
}

/// The layout of a kernel's parameters in its parameter buffer: each at its natural alignment, in order.
pub fn param_layout<'c>(module: &Module<'c>, kernel: FunctionValue<'c>) -> (Vec<Param<'c>>, u64) {
    let mut end = 0u64;
    let params = kernel
        .get_params()
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let byval = kernel.param_byval_type(i as u32);
            let ty = byval.unwrap_or(p.get_type());
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

/// The function a launch names: directly, through casts, or through a load of a constant global.
pub fn resolve_function<'c>(v: BasicValueEnum<'c>) -> Option<FunctionValue<'c>> {
    let v = v.strip_casts();
    if let Some(f) = v.as_function() {
        return Some(f);
    }
    let load = v.instruction_of(InstructionOpcode::Load)?;
    load.operand(0).strip_casts().constant_global_initializer().and_then(|init| init.strip_casts().as_function())
}

impl Dim3<'_> {
    /// x * y * z where all three are constants (saturating).
    pub fn constant_product(&self) -> Option<u64> {
        self.fields.iter().try_fold(1u64, |n, f| Some(n.saturating_mul(f.as_ref()?.const_int()?)))
    }

    pub fn describe(&self) -> String {
        let f = |v: Option<BasicValueEnum>| v.map(short_operand).unwrap_or_else(|| "?".into());
        format!("({},{},{})", f(self.fields[0]), f(self.fields[1]), f(self.fields[2]))
    }
}

/// Constants as numbers, everything else as its IR operand.
pub fn short_operand(v: BasicValueEnum) -> String {
    match v.const_int() {
        Some(c) => (c as i64).to_string(),
        None => v.operand_string(),
    }
}

/// A type as written in an IR operand: named structs by name.
pub fn type_ir(ty: BasicTypeEnum) -> String {
    if let BasicTypeEnum::StructType(s) = ty {
        if let Some(name) = s.get_name() {
            return format!("%{}", name.to_string_lossy());
        }
    }
    ty.print_to_string().to_string()
}

/// The metadata kind serialization marks the launch it leaves for children above its run-time threshold
/// with (transform/serialize.rs), read by aggregation (a small grid of such launches gathers per block).
pub const SERIAL_FALLBACK: &str = "klap.serial.fallback";

impl LaunchSite<'_> {
    /// Whether the launch is what serialization left for children above its threshold, checked at run
    /// time ([`SERIAL_FALLBACK`]).
    pub fn is_serial_fallback(&self) -> bool {
        self.launch.marked(SERIAL_FALLBACK)
    }

    /// The parameters with how their bytes are written, e.g. `8:i32=%21`.
    pub fn describe_args(&self) -> String {
        let mut parts = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            let writes: Vec<&ArgWrite> = self.writes.iter().filter(|w| w.param == i).collect();
            let ty = if p.byval { format!("byval({})", type_ir(p.ty)) } else { type_ir(p.ty) };
            let value = match writes.as_slice() {
                [] => "unset".to_string(),
                [w] if w.offset == p.offset && w.size == p.size => match w.kind {
                    WriteKind::Store { value } => short_operand(value),
                    WriteKind::Element { vector, index } => format!("{}[{index}]", vector.operand_string()),
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
