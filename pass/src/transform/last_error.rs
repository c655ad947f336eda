//! A thread's last device-runtime error, where klap removed the launches that could set it: the error
//! queries that only cudaSuccess can reach are folded away (serialization, promotion into a loop).

use crate::callgraph::CallGraph;
use crate::llvm::{BasicBlock, Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, IntValue, Module, Operand, PointerValue, ValueExt};
use crate::remarks::Remark;
use crate::site::ops::{builder_before, entry_alloca, skip_allocas};
use std::collections::{HashMap, HashSet};

/// The device runtime's error queries: they read (and the first resets) the thread's last error.
const LAST_ERROR_QUERIES: [&str; 4] = ["__cudaCDP2GetLastError", "__cudaCDP2PeekAtLastError", "cudaGetLastError", "cudaPeekAtLastError"];

fn is_last_error_query(f: FunctionValue) -> bool {
    LAST_ERROR_QUERIES.contains(&f.name().as_str())
}

/// A call that enters the device runtime itself, or may: a declared function other than an intrinsic or
/// an error query, a call through a pointer, or inline assembly with a PTX `call` (CUDA's math headers
/// use assembly for arithmetic).
pub fn enters_runtime(i: InstructionValue) -> bool {
    if i.get_opcode() != InstructionOpcode::Call {
        return false;
    }
    if let Some(text) = i.inline_asm_text() {
        return text.contains("call");
    }
    // SPAWN's controller, declared until aggregation links it, only reads and counts (runtime/spawn.cu).
    i.called_function()
        .is_none_or(|f| f.is_declaration() && !f.name().starts_with("llvm.") && !f.name().starts_with("__klap_spawn_") && !is_last_error_query(f))
}

/// In a kernel with a serialized launch, a `cudaGetLastError` (or `cudaPeekAtLastError`) that no call
/// which may reach the device runtime precedes, on any path from the kernel's entry, returns cudaSuccess:
/// a thread's last error is its own, and starts as cudaSuccess. The check after the launch (`if
/// (cudaGetLastError() != cudaSuccess) ...`) is then folded away rather than made as a call into the
/// device runtime (with its stack frame) in every thread: bt, whose children are all serialized, 1.2x to
/// 1.4x faster without it on an H200 (BENCHMARKS.md, fourteenth session). Where the calls before it are
/// only launches that serializations with a run-time check made for larger children (`fallbacks`), it
/// is made only once one of them ran (a flag they set), and is cudaSuccess before (mstf 1.02x to 1.08x
/// faster with the check on the launch's path alone).
/// `reaching_runtime`: the defined functions with a call that [`enters_runtime`], or whose calls may reach one.
pub fn fold<'c>(
    module: &Module<'c>,
    ctx: Ctx,
    reaching_runtime: &HashSet<FunctionValue<'c>>,
    kernel: FunctionValue<'c>,
    fallbacks: &[InstructionValue<'c>],
) {
    let may_reach_runtime =
        |i: InstructionValue<'c>| enters_runtime(i) || i.called_function().is_some_and(|f| reaching_runtime.contains(&f));
    let queries: Vec<InstructionValue<'c>> =
        kernel.instructions().into_iter().filter(|i| i.called_function().is_some_and(is_last_error_query)).collect();
    if queries.is_empty() {
        return;
    }
    let mut predecessors: HashMap<BasicBlock<'c>, Vec<BasicBlock<'c>>> = HashMap::new();
    for block in kernel.get_basic_block_iter() {
        let Some(end) = block.get_terminator() else { continue };
        for k in 0..end.get_num_operands() {
            if let Some(Operand::Block(next)) = end.get_operand(k) {
                predecessors.entry(next).or_default().push(block);
            }
        }
    }
    let i32t = module.get_context().i32_type();
    // Whether a fallback launch ran in this thread, and the fallbacks that set it.
    let mut launched: Option<PointerValue<'c>> = None;
    let mut flagged: Vec<InstructionValue<'c>> = Vec::new();
    for query in queries {
        // The instructions before the query in its block, then every block that can reach it.
        let mut before = Vec::new();
        let mut at = query.get_previous_instruction();
        while let Some(i) = at {
            before.push(i);
            at = i.get_previous_instruction();
        }
        // (The query's own block, reached again around a loop, counts whole: what follows the query
        // comes before it in the next iteration.)
        let mut seen = Vec::new();
        let mut work = predecessors.get(&query.block()).cloned().unwrap_or_default();
        while let Some(block) = work.pop() {
            if seen.contains(&block) {
                continue;
            }
            seen.push(block);
            before.extend(block.get_instructions());
            work.extend(predecessors.get(&block).cloned().unwrap_or_default());
        }
        let reaching: Vec<InstructionValue<'c>> = before.into_iter().filter(|&i| may_reach_runtime(i)).collect();
        let name = query.called_function().unwrap().name();
        if reaching.is_empty() {
            Remark::LastErrorFolded.emit(ctx, query, &format!("@{name} returns cudaSuccess here: no call that may reach the device runtime comes before it in its thread"));
            query.result().into_int_value().replace_all_uses_with(i32t.const_zero());
            query.erase();
            continue;
        }
        // Each call before it a fallback launch or its parameter buffer's call: the fallbacks it follows.
        let buffer = |f: InstructionValue<'c>| f.operand(0).instruction_of(InstructionOpcode::Call);
        let sources: Option<Vec<InstructionValue<'c>>> =
            reaching.iter().map(|&i| fallbacks.iter().copied().find(|&f| i == f || Some(i) == buffer(f))).collect();
        let Some(sources) = sources else { continue };
        let flag = *launched.get_or_insert_with(|| {
            let slot = entry_alloca(module, kernel, module.get_context().bool_type().into(), 1).into_pointer_value();
            let first = skip_allocas(kernel.entry_block().get_first_instruction().expect("an entry block with a terminator"));
            builder_before(module, first).build_store(slot, module.get_context().bool_type().const_zero()).unwrap();
            slot
        });
        for f in sources {
            if !flagged.contains(&f) {
                builder_before(module, buffer(f).unwrap_or(f)).build_store(flag, module.get_context().bool_type().const_all_ones()).unwrap();
                flagged.push(f);
            }
        }
        Remark::LastErrorFolded.emit(
            ctx,
            query,
            &format!(
                "@{name} is called only once a launch made as written where the transformation did not take it (a child too large to serialize, a chain that left its loop) ran: before, it returns cudaSuccess \
                 (no other call that may reach the device runtime comes before it)"
            ),
        );
        let b = builder_before(module, query);
        let ran = b.build_load(module.get_context().bool_type(), flag, "launched").unwrap().into_int_value();
        made_only_if(module, query, ran);
    }
}

/// Makes `query` only where `launched` holds; elsewhere its result is cudaSuccess.
fn made_only_if<'c>(module: &Module<'c>, query: InstructionValue<'c>, launched: IntValue<'c>) {
    let b = builder_before(module, query);
    let head = query.block();
    let then_end = query.split_if_then(launched);
    let tail = query.block();
    b.position_before(&then_end);
    query.move_to(&b);
    b.position_before(&tail.get_first_instruction().expect("the tail holds what followed the query"));
    let ty = query.result().get_type();
    let error = b.build_phi(ty, "last.error").unwrap();
    query.result().replace_uses_with(error.as_basic_value());
    error.add_incoming(&[(&ty.const_zero(), head), (&query.result(), then_end.block())]);
}


/// Folds the error queries of `kernel` that no call which may reach the device runtime precedes but the
/// `fallbacks` (launches made as written where a transformation could not take them): the kernel had its
/// launches removed.
pub fn fold_unreached<'c>(module: &Module<'c>, ctx: Ctx, kernel: FunctionValue<'c>, fallbacks: &[InstructionValue<'c>]) {
    let reaching_runtime = CallGraph::build(module).functions_reaching(enters_runtime);
    fold(module, ctx, &reaching_runtime, kernel, fallbacks);
}
