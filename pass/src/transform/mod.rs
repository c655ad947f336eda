//! The transformations, one module each, over the launch-site model. Each takes the module, the model
//! and the options, and says whether it changed the module; the pipeline (plugin.rs) runs them in order.

pub mod aggregate;
pub mod block_reuse;
pub mod devrt_stubs;
pub mod grid_reuse;
pub mod last_error;
pub mod malloc;
pub mod normalize;
pub mod promote;
pub mod read_only;
pub mod registers;
pub mod serialize;

/// The scope over which launches are aggregated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Granularity {
    None,
    Warp,
    Block,
    Grid,
}

impl Granularity {
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::None => "none",
            Granularity::Warp => "warp",
            Granularity::Block => "block",
            Granularity::Grid => "grid",
        }
    }
}

/// SPAWN's controller (`-klap-spawn-launch-cycles`, `-klap-spawn-max-threads`).
#[derive(Clone, Copy, Debug)]
pub struct Spawn {
    /// The launch overhead it counts for a launched child, in clock cycles.
    pub launch_cycles: u64,
    /// The most working threads of a child it may run in the launching thread.
    pub max_threads: u64,
}

/// Every option of klap's transformations, as the command line or the pass's parameters set them.
#[derive(Clone, Debug)]
pub struct Options {
    pub granularity: Granularity,
    pub merge_null_stream: bool,
    /// At warp and block granularity, leave launches that only one threadIdx.x reaches as written.
    pub skip_lone: bool,
    pub pool_bytes: u64,
    /// Report every fallback to an unaggregated launch at run time (device printf).
    pub trace: bool,
    /// Run a small child in the launching thread instead of launching it (transform/serialize.rs).
    pub serialize: bool,
    /// The most threads a child grid may have to be serialized.
    pub serialize_threshold: u64,
    /// SPAWN's controller decides at run time whether a child is serialized (`-klap-spawn`; runtime/spawn.cu).
    pub spawn: Option<Spawn>,
    /// Serialized children run by the launching warp together (child/, `warp_serial`).
    pub serialize_warp: bool,
    /// The most working threads a child grid may have to be serialized where the launching grid has at
    /// most `serialize::SMALL_GRID` threads (checked at run time; 0: `serialize_threshold` there too).
    pub serialize_small_grid_threshold: u64,
    /// The most threads a child grid whose threads talk within their warp may have to be run by the
    /// launching warp (child/, `warp_run`; 0: never).
    pub warp_run_threshold: u64,
    /// The most threads a child grid whose threads reduce within their warp may have to be run by the
    /// launching thread with its reductions folded (child/reduced.rs, `reduced_serial`; 0: never).
    pub reduce_threshold: u64,
    /// The fewest threads a launching grid has where its warps run their children (checked at run time).
    pub warp_run_grid_threads: u64,
    /// Whether a parent block runs the launches it can itself, at its end (transform/block_reuse.rs).
    pub block_reuse: bool,
    /// Launch records a parent block's queue holds.
    pub block_reuse_queue: u64,
    /// Whether parent blocks that are done run child grids registered in their grid scope
    /// (transform/grid_reuse.rs; at grid granularity and `auto` only).
    pub grid_reuse: bool,
    /// Child blocks a parent block takes at a time under grid reuse (Free Launch's T1); 0: whole child
    /// grids (T2); runtime::SELECT_PER_TAKE: chosen as each grid is taken.
    pub grid_reuse_blocks: u32,
    /// Kernel launch promotion of one-block kernels that launch themselves (transform/promote/).
    pub promote: promote::Promotion,
    /// Links per pool at `promote=aggregate` (`-klap-promote-pool`).
    pub promote_pool: u64,
    /// When a chain's loop hands over to a pool at `auto` (`-klap-promote-hand-over`): after that many links
    /// that took more than that many nanoseconds each on average, by any of these rules (promote/looped.rs).
    pub hand_over: Vec<(u64, u64)>,
    /// The most registers per thread of a kernel with the runtime's code in it (transform/registers.rs;
    /// 0: no cap).
    pub max_registers: u64,
    /// A kernel's grid scope is each block's own where its blocks are large (at `auto`; transform/aggregate.rs).
    pub large_blocks_per_block: bool,
    /// Whether the runtime's functions are inlined after klap's steps (`-klap-inline-runtime`).
    pub inline_runtime: bool,
    /// Aggregated blocks each block of an aggregated child runs at most, where its threads need nothing
    /// of each other (`-klap-coarsen`, `-klap-coarsen-sm-threads`; child/).
    pub coarsen: crate::child::Coarsening,
}

