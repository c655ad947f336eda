//! The launch graph: kernels and the kernels they launch (directly or from device functions they call,
//! as the call graph says), with recursion identified as the cycles of the graph.

use super::LaunchModel;
use crate::callgraph::recursive_sets;
use crate::llvm::FunctionValue;

pub struct LaunchGraph<'c> {
    /// The module's kernels in order, then children only declared here (kernels of other units).
    kernels: Vec<FunctionValue<'c>>,
    edges: Vec<(FunctionValue<'c>, FunctionValue<'c>)>,
}

impl<'c> LaunchGraph<'c> {
    pub fn build(model: &LaunchModel<'c>) -> LaunchGraph<'c> {
        let mut kernels = model.kernels.clone();
        let mut edges = Vec::new();
        for site in &model.sites {
            if !kernels.contains(&site.child) {
                kernels.push(site.child);
            }
            for &parent in &site.reached_from {
                if !edges.contains(&(parent, site.child)) {
                    edges.push((parent, site.child));
                }
            }
        }
        LaunchGraph { kernels, edges }
    }

    /// Kernels in module order, each with the kernels it launches.
    pub fn launches(&self) -> Vec<(FunctionValue<'c>, Vec<FunctionValue<'c>>)> {
        self.kernels
            .iter()
            .map(|&k| (k, self.edges.iter().filter(|(p, _)| *p == k).map(|&(_, c)| c).collect()))
            .collect()
    }

    /// Sets of kernels that launch each other (or themselves).
    pub fn recursive_sets(&self) -> Vec<Vec<FunctionValue<'c>>> {
        recursive_sets(&self.kernels, self.edges.iter().copied())
    }

    pub fn is_recursive(&self, kernel: FunctionValue<'c>) -> bool {
        self.recursive_sets().iter().any(|s| s.contains(&kernel))
    }
}
