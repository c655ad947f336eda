//! `klap-normalize`: rewrites every recognized launch that is not already in the canonical form
//! (site/ops.rs) into it, re-emitting the launch from the launch-site model at the launch point.
//!
//! clang 22's V1 lowering silently loses launches into the tail and fire-and-forget streams on CUDA 13
//! (measured: 0 of 64 ran); the V2 entry points run them.
//!
//! A kernel launched here but defined in another translation unit is only declared here, and clang
//! declares it as a plain device function: its PTX says `.extern .func` where the defining unit says
//! `.entry`, and nvlink refuses the program. Launching it says it is a kernel, so it is declared one.

use crate::llvm::{count, Ctx, FunctionExt, Module, Statistic};
use crate::remarks::Remark;
use crate::site::abi::Abi;
use crate::site::ops::{rewrite_canonical, CanonicalEntries};
use crate::site::LaunchModel;
use std::collections::HashSet;

pub fn run<'c>(module: &Module<'c>, model: &LaunchModel<'c>, ctx: Ctx) -> bool {
    if !model.nvptx {
        return false;
    }
    for u in model.unrecognized.iter().filter(|u| u.abi == Abi::V1) {
        Remark::NotNormalized.emit(ctx, u.launch, &format!("it is not recognized ({})", u.reason.reason()));
    }
    let mut changed = false;
    let mut declared = HashSet::new();
    for site in model.sites.iter().filter(|s| s.child.is_declaration() && !s.child.is_ptx_kernel() && !model.kernels.contains(&s.child)) {
        if declared.insert(site.child) {
            site.child.set_ptx_kernel();
            changed = true;
        }
        Remark::DeclaredKernel.emit(
            ctx,
            site.launch,
            &format!("@{}, launched here and defined in another translation unit, is declared as a kernel", site.child.name()),
        );
    }
    let entries = CanonicalEntries::get(module);
    for site in model.sites.iter().filter(|s| !entries.is_canonical(s)) {
        if site.abi == Abi::V1 {
            Remark::Normalized.emit(ctx, site.launch, &format!("V1 launch of @{} rewritten into the V2 form", site.child.name()));
            count(Statistic::NormalizedLaunch, 1);
        }
        rewrite_canonical(module, &entries, site);
        changed = true;
    }
    entries.retire_replaced(module);
    changed
}
