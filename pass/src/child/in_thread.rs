//! A child grid run by the launching thread itself, at the launch: which variant can run it, and the call.
//! Serialization runs small children so (transform/serialize.rs); aggregation runs so a launch that finds
//! no record in a kernel whose lanes run children on their own, where the launch as written hung
//! (transform/aggregate.rs).

use super::ChildVariants;
use crate::llvm::{BasicValueEnum, Builder, BuilderExt, FunctionExt, FunctionValue, Module, ModuleExt, ValueExt};
use crate::site::abi::Stream;
use crate::site::ops::{entry_alloca, ArgValues};
use crate::site::LaunchSite;

/// Whether a launch into `stream` may run at its launch point: it is unordered with the launching thread's
/// later work and with other launches (fire-and-forget, a stream created for this launch alone, or the NULL
/// stream under aggregation's assumption that a block's NULL-stream launches need no order among themselves,
/// `merge_null_stream`). A tail launch waits for the whole launching grid, and any other stream orders the
/// launch after other work. Else why not.
pub fn unordered_stream(stream: Stream, merge_null_stream: bool) -> Result<(), String> {
    match stream {
        Stream::FireAndForget | Stream::SingleLaunch => Ok(()),
        Stream::Null if merge_null_stream => Ok(()),
        other => Err(format!("a launch into a {} stream is ordered after other work", other.as_str())),
    }
}

/// Whether the child's warps can be run by one thread with their reductions folded (`ChildVariants::runs_reduced`)
/// at this launch: its lane-0 test reads threadIdx.x % 32, which is the lane where the child's blocks are
/// one-dimensional or a whole number of warps wide (constants at the launch).
pub fn reduces<'c>(site: &LaunchSite<'c>, variants: &ChildVariants<'_, 'c>) -> Result<(), String> {
    variants.runs_reduced(site.child)?;
    let field = |d: usize| site.block.fields[d].and_then(|v| v.const_int());
    match (field(0), field(1), field(2)) {
        (_, Some(1), Some(1)) => Ok(()),
        (Some(x), _, _) if x % 32 == 0 => Ok(()),
        _ => Err("its blocks may not make threadIdx.x % 32 the lane (not constant one-dimensional blocks, nor a constant multiple of 32 wide)".to_string()),
    }
}

/// How the launching thread alone runs every thread of a child grid ([`runs_in_thread`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ThreadRun {
    /// One thread after another: the serial variant.
    Serial,
    /// A child warp at a time, its reductions folded: the reduced-serial variant.
    Reduced,
}

/// Whether the launching thread alone can run every thread of the child grid launched at `site`, whatever its
/// size, where that is one of the schedules the launch allows: one by one, or a warp at a time with its
/// reductions folded where the child's threads talk within their warp only to reduce. Else why not.
pub fn runs_in_thread<'c>(variants: &ChildVariants<'_, 'c>, site: &LaunchSite<'c>, merge_null_stream: bool) -> Result<ThreadRun, String> {
    if site.child.is_declaration() {
        return Err(format!("@{} is defined in another translation unit", site.child.name()));
    }
    unordered_stream(site.stream, merge_null_stream)?;
    match variants.runs_alone(site.child) {
        Ok(()) => Ok(ThreadRun::Serial),
        Err(alone) => match reduces(site, variants) {
            Ok(()) => Ok(ThreadRun::Reduced),
            Err(folded) => Err(format!("the threads of @{} cannot run one by one ({alone}), nor with their warp reductions folded ({folded})", site.child.name())),
        },
    }
}

/// The variant with which the launching thread runs the child grid launched at `site` ([`runs_in_thread`]).
pub fn thread_runner<'c>(variants: &mut ChildVariants<'_, 'c>, site: &LaunchSite<'c>, merge_null_stream: bool) -> Result<FunctionValue<'c>, String> {
    Ok(match runs_in_thread(variants, site, merge_null_stream)? {
        ThreadRun::Serial => variants.serial(site.child),
        ThreadRun::Reduced => variants.reduced_serial(site.child),
    })
}

/// The child's parameters as values at the builder: a parameter the launch writes whole with one store is
/// that value; any other (written in parts, copied in, by value) is read from a copy of the argument bytes.
fn child_arguments<'c>(module: &Module<'c>, site: &LaunchSite<'c>, args: &ArgValues<'c>, b: &Builder<'c>) -> Vec<BasicValueEnum<'c>> {
    let mut buffer: Option<BasicValueEnum<'c>> = None;
    let mut bytes = || {
        *buffer.get_or_insert_with(|| {
            let size = site.params.last().map_or(0, |p| p.offset + p.size).max(1);
            let slot = entry_alloca(module, site.caller, module.byte_array_type(size), 16);
            args.store_into(b, slot);
            slot
        })
    };
    site.params
        .iter()
        .map(|p| {
            let whole = args.writes.iter().find(|&&(offset, value, _)| {
                offset == p.offset && !p.byval && module.store_size(value.get_type()) == p.size && value.get_type() == p.ty
            });
            match whole {
                Some(&(_, value, _)) => value,
                None => {
                    let at = b.byte_gep(bytes(), p.offset);
                    if p.byval {
                        at
                    } else {
                        b.load_aligned(p.ty, at, p.align.min(16) as u32)
                    }
                }
            }
        })
        .collect()
}

/// The arguments of a call of a variant that runs a whole child grid, at the builder: the child's parameters,
/// the launch's six dimensions (`dims`), then `last` (a serial variant's limit, the threads run, linear; the
/// warp run's `mine`).
pub fn grid_run_arguments<'c>(module: &Module<'c>, b: &Builder<'c>, site: &LaunchSite<'c>, args: &ArgValues<'c>, dims: &[BasicValueEnum<'c>], last: BasicValueEnum<'c>) -> Vec<BasicValueEnum<'c>> {
    let mut call_args = child_arguments(module, site, args, b);
    call_args.extend(dims.iter().copied());
    call_args.push(last);
    call_args
}
