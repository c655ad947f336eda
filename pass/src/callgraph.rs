//! The module's call graph, built once and asked by every part of klap that follows calls: which kernels
//! reach a device function, whether a function is called in a loop, which functions read an index
//! register through their callees, which functions call each other recursively.
//!
//! Conservative where calls are not direct: a call through a pointer may reach every defined function
//! whose address is taken, and a function whose address is taken may be called from anywhere (its
//! callers are not all known).

use crate::llvm::{Ctx, FunctionExt, FunctionValue, InstructionExt, InstructionOpcode, InstructionValue, Module, ModuleExt, ValueExt};
use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use std::collections::{HashMap, HashSet};

pub struct CallGraph<'c> {
    /// Defined functions, in module order.
    defined: Vec<FunctionValue<'c>>,
    /// For each defined function, the defined functions it may call.
    callees: HashMap<FunctionValue<'c>, Vec<FunctionValue<'c>>>,
    /// For each function, the direct calls of it.
    call_sites: HashMap<FunctionValue<'c>, Vec<InstructionValue<'c>>>,
    /// Defined functions whose address is taken.
    address_taken: HashSet<FunctionValue<'c>>,
    /// Functions that make a call through a pointer.
    indirect_callers: HashSet<FunctionValue<'c>>,
}

impl<'c> CallGraph<'c> {
    pub fn build(module: &Module<'c>) -> CallGraph<'c> {
        let defined: Vec<FunctionValue<'c>> = module.functions().into_iter().filter(|f| !f.is_declaration()).collect();
        let address_taken: HashSet<FunctionValue<'c>> = defined.iter().copied().filter(|f| f.address_taken()).collect();
        let mut callees = HashMap::new();
        let mut call_sites: HashMap<FunctionValue<'c>, Vec<InstructionValue<'c>>> = HashMap::new();
        let mut indirect_callers = HashSet::new();
        for &f in &defined {
            let mut called: Vec<FunctionValue<'c>> = Vec::new();
            for call in f.instructions().into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Call) {
                match call.called_function() {
                    Some(g) => {
                        call_sites.entry(g).or_default().push(call);
                        if !g.is_declaration() && !called.contains(&g) {
                            called.push(g);
                        }
                    }
                    None if call.calls_inline_asm() => {}
                    None => {
                        indirect_callers.insert(f);
                    }
                }
            }
            if indirect_callers.contains(&f) {
                for &g in defined.iter().filter(|g| address_taken.contains(g)) {
                    if !called.contains(&g) {
                        called.push(g);
                    }
                }
            }
            callees.insert(f, called);
        }
        CallGraph { defined, callees, call_sites, address_taken, indirect_callers }
    }

    pub fn callees(&self, f: FunctionValue<'c>) -> &[FunctionValue<'c>] {
        self.callees.get(&f).map_or(&[], Vec::as_slice)
    }

    /// Whether `f` makes a call through a pointer (whose target the graph can only bound).
    pub fn calls_indirectly(&self, f: FunctionValue<'c>) -> bool {
        self.indirect_callers.contains(&f)
    }

    /// For each function, the kernels whose calls reach it (kernels reach themselves), in `kernels` order.
    pub fn kernels_reaching(&self, kernels: &[FunctionValue<'c>]) -> HashMap<FunctionValue<'c>, Vec<FunctionValue<'c>>> {
        let mut reach: HashMap<FunctionValue<'c>, Vec<FunctionValue<'c>>> = HashMap::new();
        for &k in kernels {
            for f in self.reachable_from(k) {
                reach.entry(f).or_default().push(k);
            }
        }
        reach
    }

    /// For each of `functions`, the first of `kernels` whose calls reach it and whose code, or a function its
    /// calls may reach, has an instruction `found` accepts; a function no such kernel runs is left out.
    pub fn kernel_with(
        &self,
        kernels: &[FunctionValue<'c>],
        functions: impl IntoIterator<Item = FunctionValue<'c>>,
        found: impl Fn(InstructionValue<'c>) -> bool,
    ) -> HashMap<FunctionValue<'c>, FunctionValue<'c>> {
        let having = self.functions_reaching(found);
        let reaching = self.kernels_reaching(kernels);
        functions
            .into_iter()
            .filter_map(|f| Some((f, *reaching.get(&f)?.iter().find(|k| having.contains(k))?)))
            .collect()
    }

    /// `from` and every defined function its calls may reach.
    pub fn reachable_from(&self, from: FunctionValue<'c>) -> Vec<FunctionValue<'c>> {
        let mut seen = vec![from];
        let mut work = vec![from];
        while let Some(f) = work.pop() {
            for &g in self.callees(f) {
                if !seen.contains(&g) {
                    seen.push(g);
                    work.push(g);
                }
            }
        }
        seen
    }

    /// Whether a call to `f`, or to a function whose calls reach `f`, is made in a loop, or may be
    /// (a function whose address is taken on the way may be called from anywhere).
    pub fn called_in_loop(&self, ctx: Ctx, f: FunctionValue<'c>) -> bool {
        let mut seen = HashSet::from([f]);
        let mut work = vec![f];
        while let Some(g) = work.pop() {
            if self.address_taken.contains(&g) {
                return true;
            }
            for &call in self.call_sites.get(&g).into_iter().flatten() {
                if ctx.loop_depth(call) > 0 {
                    return true;
                }
                let caller = call.function();
                if seen.insert(caller) {
                    work.push(caller);
                }
            }
        }
        false
    }

    /// The defined functions that call a function `direct` accepts, directly or through their callees.
    pub fn functions_calling(&self, direct: impl Fn(FunctionValue<'c>) -> bool) -> HashSet<FunctionValue<'c>> {
        self.functions_reaching(|i| i.called_function().is_some_and(&direct))
    }

    /// The defined functions with an instruction `direct` accepts, or whose calls may reach one.
    pub fn functions_reaching(&self, direct: impl Fn(InstructionValue<'c>) -> bool) -> HashSet<FunctionValue<'c>> {
        let mut found: HashSet<FunctionValue<'c>> =
            self.defined.iter().copied().filter(|f| f.instructions().into_iter().any(&direct)).collect();
        loop {
            let before = found.len();
            for &f in &self.defined {
                if !found.contains(&f) && self.callees(f).iter().any(|g| found.contains(g)) {
                    found.insert(f);
                }
            }
            if found.len() == before {
                return found;
            }
        }
    }

    /// Whether a call through a pointer may reach one of `functions` (a defined function whose address
    /// is taken).
    pub fn pointer_may_call_any(&self, functions: &HashSet<FunctionValue<'c>>) -> bool {
        self.address_taken.iter().any(|f| functions.contains(f))
    }

    /// The first instruction that `found` accepts in `from` or in a function its calls may reach.
    pub fn find_reached(&self, from: FunctionValue<'c>, found: impl Fn(InstructionValue<'c>) -> bool) -> Option<InstructionValue<'c>> {
        self.reachable_from(from).into_iter().filter(|f| !f.is_declaration()).flat_map(|f| f.instructions()).find(|&i| found(i))
    }

    /// A way a thread running `from` can end other than by returning from it, if there is one: in it or
    /// in a function its calls may reach, a call that does not return and does not abort the grid
    /// (see [`ends_thread`]).
    pub fn thread_end_without_return(&self, from: FunctionValue<'c>) -> Option<InstructionValue<'c>> {
        self.find_reached(from, ends_thread)
    }

    /// Sets of defined functions that call each other (or themselves), each in module order.
    pub fn recursive_sets(&self) -> Vec<Vec<FunctionValue<'c>>> {
        let edges = self.defined.iter().flat_map(|&f| self.callees(f).iter().map(move |&g| (f, g)));
        recursive_sets(&self.defined, edges)
    }
}

/// The strongly connected sets of a graph that are cycles (more than one node, or a node with an edge to
/// itself), each ordered as `nodes` lists them, the sets in the order of their first node.
pub fn recursive_sets<'c>(
    nodes: &[FunctionValue<'c>],
    edges: impl Iterator<Item = (FunctionValue<'c>, FunctionValue<'c>)>,
) -> Vec<Vec<FunctionValue<'c>>> {
    let index = |f: &FunctionValue<'c>| nodes.iter().position(|n| n == f);
    let mut graph: DiGraphMap<usize, ()> = DiGraphMap::new();
    for i in 0..nodes.len() {
        graph.add_node(i);
    }
    for (a, b) in edges {
        if let (Some(a), Some(b)) = (index(&a), index(&b)) {
            graph.add_edge(a, b, ());
        }
    }
    let mut sets: Vec<Vec<usize>> = tarjan_scc(&graph)
        .into_iter()
        .filter(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
        .map(|mut scc| {
            scc.sort();
            scc
        })
        .collect();
    sets.sort();
    sets.into_iter().map(|s| s.into_iter().map(|i| nodes[i]).collect()).collect()
}

/// Calls after which the grid does not go on: LLVM's trap intrinsics, CUDA's failed assertion, and
/// PTX's `trap` in assembly abort the grid with an error, and no launch of it runs, transformed or not.
fn aborts_grid(call: InstructionValue) -> bool {
    if let Some(text) = call.inline_asm_text() {
        return ptx_words(&text).any(|w| w == "trap") && !ptx_words(&text).any(|w| w == "exit");
    }
    call.called_function().is_some_and(|f| matches!(f.name().as_str(), "llvm.trap" | "llvm.ubsantrap" | "__assertfail"))
}

/// The words of PTX assembly text (instruction names, operands, labels), without punctuation.
fn ptx_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$' || c == '%'))
}

/// Whether `inst` can end the thread without returning, where the grid goes on: PTX's `exit` (in
/// assembly, or `llvm.nvvm.exit`); a call of a function marked `noreturn` (what it runs is not known to
/// end in a trap); a call of a function followed by `unreachable` (it does not return in any valid
/// execution). An `unreachable` after anything else is never reached by a valid execution, and a call
/// that aborts the grid ([`aborts_grid`]) leaves nothing to complete.
pub fn ends_thread(inst: InstructionValue) -> bool {
    if inst.get_opcode() != InstructionOpcode::Call || aborts_grid(inst) {
        return false;
    }
    if let Some(text) = inst.inline_asm_text() {
        return ptx_words(&text).any(|w| w == "exit");
    }
    if let Some(intrinsic) = inst.called_function().map(|f| f.name()).filter(|n| n.starts_with("llvm.")) {
        return intrinsic == "llvm.nvvm.exit";
    }
    inst.is_noreturn_call() || inst.get_next_instruction().is_some_and(|next| next.get_opcode() == InstructionOpcode::Unreachable)
}
