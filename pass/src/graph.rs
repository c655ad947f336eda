//! The launch graph: kernels and the kernels they launch (directly or from device functions they
//! call), with recursion identified as the cycles of the graph.

use crate::launch::LaunchModel;
use crate::ffi::Value;
use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;

pub struct LaunchGraph {
    names: Vec<String>,
    graph: DiGraphMap<usize, ()>,
}

impl LaunchGraph {
    pub fn build(model: &LaunchModel) -> LaunchGraph {
        let mut names: Vec<String> = model.kernels.iter().map(|k| k.name()).collect();
        let mut graph = DiGraphMap::new();
        let node = |f: Value, names: &mut Vec<String>| {
            let name = f.name();
            match names.iter().position(|n| *n == name) {
                Some(i) => i,
                None => {
                    names.push(name);
                    names.len() - 1
                }
            }
        };
        for i in 0..names.len() {
            graph.add_node(i);
        }
        for site in &model.sites {
            let child = node(site.child, &mut names);
            for &parent in &site.reached_from {
                let parent = node(parent, &mut names);
                graph.add_edge(parent, child, ());
            }
        }
        LaunchGraph { names, graph }
    }

    /// Kernels in module order, each with the kernels it launches.
    pub fn launches(&self) -> Vec<(&str, Vec<&str>)> {
        (0..self.names.len())
            .map(|i| {
                let mut children: Vec<&str> = self.graph.neighbors(i).map(|c| self.names[c].as_str()).collect();
                children.sort();
                (self.names[i].as_str(), children)
            })
            .collect()
    }

    /// Sets of kernels that launch each other (or themselves), each sorted by name.
    pub fn recursive_sets(&self) -> Vec<Vec<&str>> {
        let mut sets: Vec<Vec<&str>> = tarjan_scc(&self.graph)
            .into_iter()
            .filter(|scc| scc.len() > 1 || self.graph.contains_edge(scc[0], scc[0]))
            .map(|scc| {
                let mut names: Vec<&str> = scc.into_iter().map(|i| self.names[i].as_str()).collect();
                names.sort();
                names
            })
            .collect();
        sets.sort();
        sets
    }

    pub fn is_recursive(&self, kernel: &str) -> bool {
        self.recursive_sets().iter().any(|s| s.contains(&kernel))
    }
}
