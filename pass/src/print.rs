//! The printers: `print<klap-launches>` and `print<klap-graph>`. One line per fact, `key=value`
//! fields, so that FileCheck tests and `klap report` can read them.

use crate::llvm::{write_errs, FunctionExt, InstructionExt};
use crate::site::graph::LaunchGraph;
use crate::site::{short_operand, DimForm, LaunchModel, LaunchSite};

pub fn launch_line(site: &LaunchSite) -> String {
    let mut line = format!(
        "klap-launch: caller={} child={} abi={}{} grid={} block={} dims={} smem={} stream={} args={} {} loop={} divergent={}",
        site.caller.name(),
        site.child.name(),
        site.abi.as_str(),
        if site.ptsz { " ptsz" } else { "" },
        site.grid.describe(),
        site.block.describe(),
        match site.grid.form {
            DimForm::Byval => "byval",
            DimForm::Value => "value",
        },
        short_operand(site.smem),
        site.stream.as_str(),
        site.params.len(),
        site.describe_args(),
        site.loop_depth,
        if site.divergent { "yes" } else { "no" },
    );
    if !site.caller_is_kernel {
        let kernels: Vec<String> = site.reached_from.iter().map(|k| k.name()).collect();
        line.push_str(&format!(" device-function reached-from={}", if kernels.is_empty() { "none".into() } else { kernels.join(",") }));
    }
    if let Some((file, line_no, col)) = site.launch.debug_location() {
        line.push_str(&format!(" loc={file}:{line_no}:{col}"));
    }
    line
}

pub fn print_launches(model: &LaunchModel) {
    let mut out = String::new();
    if !model.nvptx {
        out.push_str(&format!("klap-launches: not an NVPTX module (triple '{}'): nothing to do\n", model.triple));
    }
    for site in &model.sites {
        out.push_str(&launch_line(site));
        out.push('\n');
    }
    for u in &model.unrecognized {
        let mut line = format!(
            "klap-launch-unrecognized: caller={} abi={} reason={} detail=\"{}\"",
            u.caller.name(),
            u.abi.as_str(),
            u.reason.reason(),
            u.detail
        );
        if let Some((file, line_no, col)) = u.launch.debug_location() {
            line.push_str(&format!(" loc={file}:{line_no}:{col}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    write_errs(&out);
}

pub fn print_graph(model: &LaunchModel) {
    let graph = LaunchGraph::build(model);
    let mut out = String::new();
    for (kernel, children) in graph.launches() {
        let mut children: Vec<String> = children.into_iter().map(|c| c.name()).collect();
        children.sort();
        out.push_str(&format!(
            "klap-graph: kernel={} launches=[{}]{}\n",
            kernel.name(),
            children.join(","),
            if graph.is_recursive(kernel) { " recursive" } else { "" }
        ));
    }
    let mut sets: Vec<Vec<String>> = graph
        .recursive_sets()
        .into_iter()
        .map(|set| {
            let mut names: Vec<String> = set.into_iter().map(|k| k.name()).collect();
            names.sort();
            names
        })
        .collect();
    sets.sort();
    for set in sets {
        out.push_str(&format!("klap-graph-recursion: [{}]\n", set.join(",")));
    }
    write_errs(&out);
}
