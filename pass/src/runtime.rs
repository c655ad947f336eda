//! The device runtime (runtime/, CUDA C++ compiled to NVPTX bitcode and embedded in the plugin): one
//! table of its entry points and their signatures, as LLVM's OpenMPOpt keeps its runtime functions. A
//! transformation declares what it may call, the runtime is linked in (only what is used), and the
//! table hands out the linked functions. A unit test checks the table against the compiled bitcode.

use crate::llvm::{
    AddressSpace, BasicMetadataTypeEnum, BasicType, BasicTypeEnum, Context, ContextRef, FunctionExt, FunctionType, FunctionValue, Linkage,
    MemoryBuffer, Module, ModuleExt, ValueExt,
};
use std::borrow::Cow;
use std::collections::HashMap;

pub static RUNTIME_BITCODE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/klap_rt.bc"));

/// runtime/index_registers.def, the table of index registers the plugin, the shim and the runtime share.
const INDEX_REGISTER_TABLE: &str = include_str!("../../runtime/index_registers.def");

/// Over which threads an index register's value is the same.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RegisterScope {
    Thread,
    Block,
    Grid,
}

/// One index register (`%tid.x`, `%ctaid.y`, ...), from the shared table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IndexRegister {
    pub register: &'static str,
    pub dimension: &'static str,
}

impl IndexRegister {
    /// Every index register, in the table's order.
    pub fn all() -> Vec<(IndexRegister, RegisterScope)> {
        INDEX_REGISTER_TABLE
            .lines()
            .filter_map(|l| l.trim().strip_prefix("KLAP_INDEX_REGISTER(")?.strip_suffix(')'))
            .map(|fields| {
                let f: Vec<&'static str> = fields.split(',').map(str::trim).collect();
                let scope = match f[2] {
                    "thread" => RegisterScope::Thread,
                    "block" => RegisterScope::Block,
                    _ => RegisterScope::Grid,
                };
                (IndexRegister { register: f[0], dimension: f[1] }, scope)
            })
            .collect()
    }
    /// The register read by an NVVM intrinsic such as `llvm.nvvm.read.ptx.sreg.ctaid.x`.
    pub fn read_by(intrinsic: &str) -> Option<IndexRegister> {
        let rest = intrinsic.strip_prefix("llvm.nvvm.read.ptx.sreg.")?;
        Self::all().into_iter().map(|(r, _)| r).find(|r| rest == format!("{}.{}", r.register, r.dimension))
    }
    /// The index register (`tid`, `ntid`, `ctaid`, `nctaid`) that PTX assembly text names, if any:
    /// `%ctaid.x`, or the vector `%tid`.
    pub fn named_in_asm(text: &str) -> Option<&'static str> {
        let mut names: Vec<&'static str> = Self::all().into_iter().map(|(r, _)| r.register).collect();
        names.dedup();
        names.into_iter().find(|name| {
            let pattern = format!("%{name}");
            text.match_indices(&pattern).any(|(at, _)| {
                let next = text[at + pattern.len()..].chars().next();
                !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            })
        })
    }
    pub fn intrinsic(self) -> String {
        format!("llvm.nvvm.read.ptx.sreg.{}.{}", self.register, self.dimension)
    }
    /// The runtime's accessor that gives a remapped child its view of the register.
    pub fn accessor(self) -> String {
        format!("__klap_{}_{}", self.register, self.dimension)
    }
}

/// The runtime's entry points.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RuntimeFn {
    Register,
    LaunchChunk,
    RecordArgs,
    RecordFirst,
    WarpChunk,
    WarpArrive,
    BlockEnter,
    WarpEnter,
    WarpScopeThreads,
    GridEnter,
    GridEnterPerBlock,
    ChildGridScope,
    ScopeRegister,
    ScopeRegisterFlagged,
    ScopeLaunch,
    RecordWritten,
    RecordWrittenInBlock,
    RecordReady,
    GridAtEnd,
    GridTake,
    TakenDim,
    TakenUniformArgs,
    AsWrittenResult,
    ScopeExit,
    GridScopeExit,
    GridExitsReset,
    GridRelease,
    ShareScope,
    CalleeScope,
    ChildEnter,
    ChildEnterAfterTaken,
    ChildEnterFirst,
    ChildNext,
    ChildCoarseRange,
    ChildUniformArgs,
    ChildExit,
    ChildBlockThreads,
    ChildGridThreads,
    Malloc,
    Free,
    PromoteLeader,
    PromoteSlot,
    PromoteCancel,
    PromoteShare,
    PromoteTake,
    PromoteExit,
    PromoteEnter,
    PoolAlloc,
    PoolEnter,
    PoolLast,
    PoolShare,
    PoolTake,
    PoolExit,
    PoolEnterEarly,
    PoolEarlyArgs,
    PoolPublish,
    PoolWait,
    PoolRelease,
    PoolTakeLone,
    PoolWaitWord,
    PoolReleaseWord,
    SpawnSerial,
    SpawnRunStart,
    SpawnRunEnd,
    IndexRegister(IndexRegister),
}

/// A parameter or return type of an entry point.
#[derive(Clone, Copy)]
enum Ty {
    Void,
    I1,
    I32,
    I64,
    Ptr,
}

/// The most threads of a small grid: where one launches, serialization takes children of up to
/// `Options::serialize_small_grid_threshold` working threads, and a kernel whose launches are all
/// serialization's fallbacks gathers them per block (runtime/klap_rt.h's SMALL_GRID_THREADS, the same).
pub const SMALL_GRID_THREADS: u64 = 16_384;

/// The fewest threads of a block whose grid scope the runtime may make the block's own (its
/// LARGE_BLOCK_THREADS, the same).
pub const LARGE_BLOCK_THREADS: u64 = 1024;

/// When `__klap_grid_enter_per_block` makes a grid scope each block's own (its PER_BLOCK_* flags, the
/// same): where the grid has at most [`SMALL_GRID_THREADS`] threads, and where its blocks have at least
/// [`LARGE_BLOCK_THREADS`].
pub const PER_BLOCK_IF_SMALL_GRID: u32 = 1;
pub const PER_BLOCK_IF_LARGE_BLOCKS: u32 = 2;
/// In the same flags: each block counts itself into its grid scope at entry, for grid reuse (its
/// COUNT_ENTERED, the same).
pub const COUNT_ENTERED: u32 = 4;

/// What an aggregated child's entry is given where every record of a chunk has the first's configuration
/// (its UNIFORM_RECORDS, the same): a block finds its record by a division by the first record's blocks.
pub const UNIFORM_RECORDS: u32 = u32::MAX;

/// The blocks per take that grid reuse gives `__klap_grid_take` where the runtime chooses them as each grid
/// is taken, between the whole grid (Free Launch's T2) and a parent block's share (T1): its
/// SELECT_PER_TAKE, the same (`-klap-grid-reuse-select`, whose shim option sets it).
pub const SELECT_PER_TAKE: u32 = u32::MAX;

/// Set in a group's record size where parent blocks may take its records (its READY_FLAGS, the same): the
/// group's chunks give each record a ready flag in its last 8 bytes.
pub const READY_FLAGS: u64 = 1 << 30;

/// Whether `f` is a function of the device runtime, which klap links into the module (runtime/).
pub fn is_runtime_function(f: FunctionValue) -> bool {
    f.name().starts_with("__klap_")
}

use Ty::*;

/// The entry points with their C names and signatures (return type, then parameters): one list.
const ENTRIES: &[(RuntimeFn, &str, Ty, &[Ty])] = &[
    (RuntimeFn::Register, "__klap_register", Ptr, &[Ptr, I32, I32, I32, I32, I32, I32, I32]),
    (RuntimeFn::LaunchChunk, "__klap_launch_chunk", Void, &[Ptr, Ptr, Ptr, I32, I64, Ptr, Ptr]),
    (RuntimeFn::RecordArgs, "__klap_record_args", Ptr, &[Ptr]),
    (RuntimeFn::RecordFirst, "__klap_record_first", I1, &[Ptr]),
    (RuntimeFn::WarpChunk, "__klap_warp_chunk", Ptr, &[I32]),
    (RuntimeFn::WarpArrive, "__klap_warp_arrive", I1, &[Ptr]),
    (RuntimeFn::BlockEnter, "__klap_block_enter", Ptr, &[I32; 9]),
    (RuntimeFn::WarpEnter, "__klap_warp_enter", Ptr, &[I32; 10]),
    (RuntimeFn::WarpScopeThreads, "__klap_warp_scope_threads", I64, &[Ptr]),
    (RuntimeFn::GridEnter, "__klap_grid_enter", Ptr, &[I32; 9]),
    (RuntimeFn::GridEnterPerBlock, "__klap_grid_enter_per_block", Ptr, &[I32; 10]),
    (RuntimeFn::ChildGridScope, "__klap_child_grid_scope", Ptr, &[]),
    (RuntimeFn::ScopeRegister, "__klap_scope_register", Ptr, &[Ptr, I32, I32, I32, I32, I32, I32, I32, I32]),
    (RuntimeFn::ScopeRegisterFlagged, "__klap_scope_register_flagged", Ptr, &[Ptr, I32, I32, I32, I32, I32, I32, I32, I32]),
    (RuntimeFn::ScopeLaunch, "__klap_scope_launch", Void, &[Ptr, I32, Ptr, Ptr, I32, I64, Ptr, Ptr]),
    (RuntimeFn::RecordWritten, "__klap_record_written", Void, &[]),
    (RuntimeFn::AsWrittenResult, "__klap_as_written_result", Void, &[I32]),
    (RuntimeFn::RecordWrittenInBlock, "__klap_record_written_in_block", Void, &[]),
    // Grid reuse (runtime/reuse.cu): records' ready flags, parent blocks taking child grids.
    (RuntimeFn::RecordReady, "__klap_record_ready", Void, &[Ptr, I32]),
    (RuntimeFn::GridAtEnd, "__klap_grid_at_end", Void, &[Ptr, I32]),
    (RuntimeFn::GridTake, "__klap_grid_take", Ptr, &[Ptr, I32, I32, I32]),
    (RuntimeFn::TakenDim, "__klap_taken_dim", I32, &[I32]),
    (RuntimeFn::TakenUniformArgs, "__klap_taken_uniform_args", Ptr, &[]),
    (RuntimeFn::ScopeExit, "__klap_scope_exit", I1, &[Ptr, I64]),
    (RuntimeFn::GridScopeExit, "__klap_grid_scope_exit", I1, &[Ptr, I64, I64]),
    (RuntimeFn::GridExitsReset, "__klap_grid_exits_reset", Void, &[]),
    (RuntimeFn::GridRelease, "__klap_grid_release", Void, &[Ptr]),
    (RuntimeFn::ShareScope, "__klap_share_scope", Void, &[Ptr]),
    (RuntimeFn::CalleeScope, "__klap_callee_scope", Ptr, &[]),
    (RuntimeFn::ChildEnter, "__klap_child_enter", Ptr, &[Ptr, I32]),
    (RuntimeFn::ChildEnterAfterTaken, "__klap_child_enter_after_taken", Ptr, &[Ptr, I32]),
    (RuntimeFn::ChildEnterFirst, "__klap_child_enter_first", Ptr, &[Ptr, I32, I32]),
    (RuntimeFn::ChildNext, "__klap_child_next", Ptr, &[Ptr, I32, I32]),
    (RuntimeFn::ChildCoarseRange, "__klap_child_coarse_range", I64, &[Ptr]),
    (RuntimeFn::ChildUniformArgs, "__klap_child_uniform_args", Ptr, &[]),
    (RuntimeFn::ChildExit, "__klap_child_exit", Void, &[]),
    (RuntimeFn::ChildBlockThreads, "__klap_child_block_threads", I64, &[]),
    (RuntimeFn::ChildGridThreads, "__klap_child_grid_threads", I64, &[]),
    // runtime/malloc.cu: device-side cudaMalloc and cudaFree with the signatures of the device runtime's.
    (RuntimeFn::Malloc, "__klap_malloc", I32, &[Ptr, I64]),
    (RuntimeFn::Free, "__klap_free", I32, &[Ptr]),
    (RuntimeFn::PromoteLeader, "__klap_promote_leader", I1, &[]),
    (RuntimeFn::PromoteSlot, "__klap_promote_slot", Ptr, &[I32]),
    (RuntimeFn::PromoteCancel, "__klap_promote_cancel", Void, &[Ptr]),
    (RuntimeFn::PromoteShare, "__klap_promote_share", Ptr, &[Ptr]),
    (RuntimeFn::PromoteTake, "__klap_promote_take", Ptr, &[Ptr]),
    (RuntimeFn::PromoteExit, "__klap_promote_exit", Void, &[Ptr]),
    (RuntimeFn::PromoteEnter, "__klap_promote_enter", Ptr, &[Ptr, I32]),
    // Promotion with aggregation (runtime/promote.cu): a pool of links launched as one grid.
    (RuntimeFn::PoolAlloc, "__klap_pool_alloc", Ptr, &[I32, I32]),
    (RuntimeFn::PoolEnter, "__klap_pool_enter", Ptr, &[Ptr, I32]),
    (RuntimeFn::PoolLast, "__klap_pool_last", I1, &[]),
    (RuntimeFn::PoolShare, "__klap_pool_share", Ptr, &[Ptr, Ptr]),
    (RuntimeFn::PoolTake, "__klap_pool_take", Ptr, &[Ptr]),
    (RuntimeFn::PoolExit, "__klap_pool_exit", Void, &[Ptr]),
    // With overlap: the arguments known at a link's start published early, the rest taken after the prologue.
    (RuntimeFn::PoolEnterEarly, "__klap_pool_enter_early", Ptr, &[Ptr, I32]),
    (RuntimeFn::PoolEarlyArgs, "__klap_pool_early_args", Ptr, &[Ptr]),
    (RuntimeFn::PoolPublish, "__klap_pool_publish", Void, &[Ptr]),
    (RuntimeFn::PoolWait, "__klap_pool_wait", Ptr, &[I32]),
    (RuntimeFn::PoolRelease, "__klap_pool_release", Void, &[Ptr]),
    (RuntimeFn::PoolTakeLone, "__klap_pool_take_lone", Ptr, &[Ptr]),
    (RuntimeFn::PoolWaitWord, "__klap_pool_wait_word", Ptr, &[I32]),
    (RuntimeFn::PoolReleaseWord, "__klap_pool_release_word", Void, &[Ptr, I32]),
    // SPAWN's controller (runtime/spawn.cu): run a child in the launching thread or launch it.
    (RuntimeFn::SpawnSerial, "__klap_spawn_serial", I1, &[I64, I64, I32, I1, I64]),
    (RuntimeFn::SpawnRunStart, "__klap_spawn_run_start", I64, &[]),
    (RuntimeFn::SpawnRunEnd, "__klap_spawn_run_end", Void, &[I64, I64]),
];

impl RuntimeFn {
    /// Every entry point: the table's, then one accessor per index register.
    pub fn all() -> Vec<RuntimeFn> {
        let mut all: Vec<RuntimeFn> = ENTRIES.iter().map(|e| e.0).collect();
        all.extend(IndexRegister::all().into_iter().map(|(r, _)| RuntimeFn::IndexRegister(r)));
        all
    }

    pub fn name(self) -> String {
        match self {
            RuntimeFn::IndexRegister(r) => r.accessor(),
            f => ENTRIES.iter().find(|e| e.0 == f).unwrap().1.to_string(),
        }
    }

    pub fn signature<'c>(self, cx: ContextRef<'c>) -> FunctionType<'c> {
        let (ret, params) = match self {
            RuntimeFn::IndexRegister(_) => (I32, &[][..]),
            f => ENTRIES.iter().find(|e| e.0 == f).map(|e| (e.2, e.3)).unwrap(),
        };
        let basic = |t: Ty| -> Option<BasicTypeEnum<'c>> {
            match t {
                Void => None,
                I1 => Some(cx.bool_type().into()),
                I32 => Some(cx.i32_type().into()),
                I64 => Some(cx.i64_type().into()),
                Ptr => Some(cx.ptr_type(AddressSpace::default()).into()),
            }
        };
        let params: Vec<BasicMetadataTypeEnum<'c>> = params.iter().map(|&t| basic(t).unwrap().into()).collect();
        match basic(ret) {
            Some(r) => r.fn_type(&params, false),
            None => cx.void_type().fn_type(&params, false),
        }
    }
}

/// The PTX ISA version the runtime's code needs, as NN: 8.6, for its one-way fences (`fence.release`,
/// `fence.acquire`).
const PTX_VERSION_NEEDED: u32 = 86;

/// An error where the module's code is compiled for a PTX ISA version older than the runtime needs. clang
/// writes such a version only for a CUDA tree older than those instructions, whose ptxas refuses them (CUDA
/// 13.0's takes them at any `.version`) and would say so about code the user never wrote.
fn check_ptx_version(module: &Module) -> Result<(), String> {
    let dotted = |v: u32| format!("{}.{}", v / 10, v % 10);
    let version = module.get_functions().filter(|f| !f.is_declaration()).filter_map(|f| f.ptx_version()).max();
    match version {
        Some(v) if v < PTX_VERSION_NEEDED => Err(format!(
            "klap's device runtime needs PTX ISA {needed} or later, and this module is compiled for PTX {have} (clang sets it from \
             the CUDA tree): use a CUDA tree for which clang writes {needed} or later (with CUDA 13.0 clang 22 writes 8.8), or \
             compile without klap's transformations (-klap-granularity=none)",
            needed = dotted(PTX_VERSION_NEEDED),
            have = dotted(v)
        )),
        _ => Ok(()),
    }
}

/// The runtime's settings that a transformation chooses, defined in the module before the runtime is
/// linked against them.
pub struct Settings {
    pub pool_bytes: u64,
    pub trace: bool,
    /// SPAWN's controller is on (`-klap-spawn`): registrations and aggregated blocks feed it.
    pub spawn: bool,
}

/// The runtime as linked into one module.
pub struct Runtime<'c> {
    functions: HashMap<RuntimeFn, FunctionValue<'c>>,
}

impl<'c> Runtime<'c> {
    /// Declares the entry points a transformation may call, defines the runtime's settings, links the
    /// runtime (only what the module uses) and returns the table of linked functions.
    /// The runtime is checked first: a runtime that cannot be used leaves the module unchanged.
    pub fn link(module: &Module<'c>, settings: &Settings) -> Result<Runtime<'c>, String> {
        // Linked by an earlier step of this pipeline (promotion before aggregation): one runtime, one pool.
        if let Some(linked) = Self::linked(module) {
            return Ok(linked);
        }
        check_ptx_version(module)?;
        let bitcode = runtime_bitcode()?;
        let cx = module.get_context();
        for f in RuntimeFn::all() {
            module.get_or_declare(&f.name(), f.signature(cx));
        }
        let globals = define_settings(module, settings);
        module.link_runtime(&bitcode)?;
        // Each translation unit keeps its own pool, like the runtime it linked.
        for g in globals {
            g.set_linkage(Linkage::Internal);
        }
        let functions = RuntimeFn::all()
            .into_iter()
            .map(|f| module.get_function(&f.name()).map(|v| (f, v)).ok_or_else(|| format!("the device runtime lacks {}", f.name())))
            .collect::<Result<_, _>>()?;
        Ok(Runtime { functions })
    }

    /// Links the entry points `wanted` alone, for a transformation that needs none of the runtime's
    /// settings (no record pool comes with them).
    pub fn link_without_settings(module: &Module<'c>, wanted: &[RuntimeFn]) -> Result<Runtime<'c>, String> {
        let bitcode = runtime_bitcode()?;
        let cx = module.get_context();
        for f in wanted {
            module.get_or_declare(&f.name(), f.signature(cx));
        }
        module.link_runtime(&bitcode)?;
        let functions = wanted
            .iter()
            .map(|&f| module.get_function(&f.name()).map(|v| (f, v)).ok_or_else(|| format!("the device runtime lacks {}", f.name())))
            .collect::<Result<_, _>>()?;
        Ok(Runtime { functions })
    }

    /// The runtime an earlier step linked into the module, where every entry point is still there.
    pub fn linked(module: &Module<'c>) -> Option<Runtime<'c>> {
        let functions = RuntimeFn::all()
            .into_iter()
            .map(|f| module.get_function(&f.name()).filter(|v| !v.is_declaration()).map(|v| (f, v)))
            .collect::<Option<HashMap<_, _>>>()?;
        Some(Runtime { functions })
    }

    pub fn get(&self, f: RuntimeFn) -> FunctionValue<'c> {
        self.functions[&f]
    }

    /// Removes the runtime functions nothing ended up calling.
    pub fn retire_unused(&self, module: &Module<'c>) {
        loop {
            let dead: Vec<FunctionValue<'c>> =
                module.functions().into_iter().filter(|&f| is_runtime_function(f) && !f.has_users()).collect();
            if dead.is_empty() {
                break;
            }
            for f in dead {
                f.erase();
            }
        }
    }
}

/// The device runtime to link: the one built into the plugin, or the file `KLAP_RUNTIME_BITCODE` names
/// (a developer's hook for trying runtime changes without rebuilding the plugin), once it is checked.
/// The built-in one is checked against the table when the plugin is tested
/// (`table_matches_runtime_bitcode`), not at each compile: the check parses the runtime a second time,
/// about a third of klap's time on a small program.
fn runtime_bitcode() -> Result<Cow<'static, [u8]>, String> {
    let Some(path) = std::env::var_os("KLAP_RUNTIME_BITCODE") else {
        return Ok(Cow::Borrowed(RUNTIME_BITCODE));
    };
    let source = format!("KLAP_RUNTIME_BITCODE={}", path.to_string_lossy());
    let bitcode = std::fs::read(&path).map_err(|e| format!("{source}: {e}"))?;
    check_runtime(&bitcode).map_err(|e| format!("{source}: {e}"))?;
    Ok(Cow::Owned(bitcode))
}

/// Whether `bitcode` is a device runtime klap can link: it parses, and it defines every entry point of
/// the table with the table's signature.
pub fn check_runtime(bitcode: &[u8]) -> Result<(), String> {
    let context = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range(bitcode, "klap_rt.bc");
    let module = Module::parse_bitcode_from_buffer(&buffer, &context).map_err(|e| format!("not LLVM bitcode klap can read: {}", e.to_string_lossy()))?;
    for f in RuntimeFn::all() {
        let Some(defined) = module.get_function(&f.name()).filter(|d| !d.is_declaration()) else {
            return Err(format!("the runtime does not define {}", f.name()));
        };
        let want = f.signature(module.get_context()).print_to_string().to_string();
        let have = defined.get_type().print_to_string().to_string();
        if have != want {
            return Err(format!("the runtime defines {} as {have}, klap calls it as {want}", f.name()));
        }
    }
    Ok(())
}

/// The runtime's settings as globals: the pool it hands records out of, `klap_pool`, its size
/// `klap_pool_bytes`, `klap_trace` and `klap_spawn`. External until the runtime is linked against them.
fn define_settings<'c>(module: &Module<'c>, settings: &Settings) -> Vec<crate::llvm::GlobalValue<'c>> {
    const GLOBAL_ADDRSPACE: u16 = 1;
    let cx = module.get_context();
    let space = AddressSpace::from(GLOBAL_ADDRSPACE);
    let pool_ty = module.byte_array_type(settings.pool_bytes);
    let pool = module.add_global(pool_ty, Some(space), "klap_pool");
    pool.set_initializer(&pool_ty.const_zero());
    let bytes = module.add_global(cx.i64_type(), Some(space), "klap_pool_bytes");
    bytes.set_initializer(&cx.i64_type().const_int(settings.pool_bytes, false));
    bytes.set_constant(true);
    let flag = |name: &str, on: bool| {
        let g = module.add_global(cx.i32_type(), Some(space), name);
        g.set_initializer(&cx.i32_type().const_int(on as u64, false));
        g.set_constant(true);
        g
    };
    let trace = flag("klap_trace", settings.trace);
    let spawn = flag("klap_spawn", settings.spawn);
    for g in [pool, bytes, trace, spawn] {
        g.set_alignment(16);
    }
    vec![pool, bytes, trace, spawn]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry point of the table is defined by the compiled runtime with the table's signature.
    #[test]
    fn table_matches_runtime_bitcode() {
        check_runtime(RUNTIME_BITCODE).unwrap();
    }

    #[test]
    fn corrupt_runtime_is_refused() {
        let mut cut = RUNTIME_BITCODE.to_vec();
        cut.truncate(cut.len() / 2);
        assert!(check_runtime(&cut).unwrap_err().contains("not LLVM bitcode"));
    }

    #[test]
    fn index_registers_from_the_shared_table() {
        let all = IndexRegister::all();
        assert_eq!(all.len(), 12);
        let ctaid_y = IndexRegister::read_by("llvm.nvvm.read.ptx.sreg.ctaid.y").unwrap();
        assert_eq!(ctaid_y.accessor(), "__klap_ctaid_y");
        assert_eq!(all.iter().find(|(r, _)| *r == ctaid_y).unwrap().1, RegisterScope::Block);
        assert!(IndexRegister::read_by("llvm.nvvm.read.ptx.sreg.laneid").is_none());
    }

    #[test]
    fn index_registers_in_assembly() {
        assert_eq!(IndexRegister::named_in_asm("mov.u32 $0, %ctaid.x;"), Some("ctaid"));
        assert_eq!(IndexRegister::named_in_asm("mov.v4.u32 {$0, $1, $2, $3}, %ntid;"), Some("ntid"));
        assert_eq!(IndexRegister::named_in_asm("mov.u32 $0, %laneid;"), None);
        assert_eq!(IndexRegister::named_in_asm("mov.u32 $0, %tidy;"), None);
    }
}
