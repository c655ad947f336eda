//! Device-side `cudaMalloc` aggregation (KLAP, MICRO 2016, section II): the allocations that the lanes
//! of a warp make together become one device-heap allocation, and each lane takes its part
//! (runtime/malloc.cu). The device heap serializes its allocations, so a warp's thirty-two calls cost
//! about what one does.
//!
//! Per warp at every granularity: `cudaMalloc` returns its memory at once, and a lane cannot wait for
//! the lanes of other warps of its block or grid, which may not be coming (KLAP aggregates at block
//! granularity with a barrier where its grid granularity cannot wait; klap inserts no barrier).
//!
//! The calls are pointed at the runtime's `__klap_malloc` and `__klap_free`, which take the device
//! runtime's arguments; an allocation whose pointer klap cannot follow to every `cudaFree` it reaches
//! stays as written (site/alloc.rs says when).

use super::{Granularity, Options};
use crate::llvm::{count, Ctx, FunctionExt, InstructionExt, Linkage, Module, ModuleExt, Statistic, ValueExt};
use crate::remarks::Remark;
use crate::runtime::{Runtime, RuntimeFn};
use crate::site::alloc::{self, classify_alloc_entry};

pub fn run<'c>(module: &Module<'c>, ctx: Ctx, options: &Options) -> Result<bool, String> {
    if options.granularity == Granularity::None {
        return Ok(false);
    }
    let model = alloc::analyze(module);
    for (site, remark, why) in &model.kept {
        remark.emit(ctx, site.call, why);
    }
    if model.aggregable.is_empty() {
        return Ok(false);
    }
    let runtime = Runtime::link_without_settings(module, &[RuntimeFn::Malloc, RuntimeFn::Free])?;
    let per_warp = match options.granularity {
        Granularity::Warp => String::new(),
        g => format!(" (asked for {}: an allocation returns at once and cannot wait for other warps)", g.as_str()),
    };
    for (site, frees) in &model.aggregable {
        let frees = match frees {
            0 => "no cudaFree of it in the function".to_string(),
            1 => "its cudaFree gives the part back".to_string(),
            n => format!("its {n} cudaFree calls give the part back"),
        };
        Remark::MallocAggregated.emit(
            ctx,
            site.call,
            &format!("cudaMalloc aggregated per warp{per_warp}: the lanes that reach it together share one allocation; {frees}"),
        );
        site.call.set_called_function(runtime.get(RuntimeFn::Malloc));
    }
    count(Statistic::AggregatedMalloc, model.aggregable.len());
    for free in &model.frees {
        free.set_called_function(runtime.get(RuntimeFn::Free));
    }
    // The headers' -O0 wrappers that nothing calls any more.
    for f in module.functions() {
        if classify_alloc_entry(f).is_some() && !f.is_declaration() && !f.has_users() && f.as_global_value().get_linkage() == Linkage::Internal {
            f.erase();
        }
    }
    runtime.retire_unused(module);
    Ok(true)
}
