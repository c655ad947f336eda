// klap's device runtime, the definitions its parts share: what a chunk of aggregation records and a
// scope are, the special registers and memory orderings every part uses, and what each part provides
// to the others.
//
// The parts, one concern each:
//   pool.cu      the record pool: slabs, their bitmaps, chunks taken and given back
//   register.cu  registration of launches into records (warp, block and grid scopes)
//   scope.cu     the scopes: a warp's chunk, warp, block and grid scopes, the grid table, exit counting,
//                the scope a kernel shares with the device functions it runs
//   lookup.cu    the aggregated child: its record lookup and remapped indices, its exit count
//   promote.cu   kernel launch promotion: slots, release at the parent's end, acquire in the child
//   reuse.cu     grid reuse: parent blocks that are done run whole child grids from their grid scope's
//                chunks (Free Launch's T2)
//   launch.cu    the aggregated launch, the one-by-one fallback, the reclaim beside a launch, a grid's
//                waiter for the launches the device runtime refuses for want of room
//   trace.cu     the reports of fallbacks (-klap-trace) and of lost launches
//   malloc.cu    device-side cudaMalloc and cudaFree aggregated per warp (transform/malloc.rs)
//   spawn.cu     SPAWN's controller: launch or run in the parent, from the child work in flight
//
// pass/build.rs compiles each part with clang-22 to NVPTX bitcode (no CUDA headers: clang builtins
// only), links them into one module, and optimizes that as one unit, so that a helper one part
// defines is inlined into the entry points of another as if they shared a file. The result is
// embedded in the plugin and linked into a module by the aggregation pass (only what it uses).
// klap_rt.cu includes every part, for a program that compiles the runtime into itself.
//
// Why no barriers at a parent's exit: a thread that returns early from a kernel counts as arrived at
// the kernel's __syncthreads(); a thread held at an exit barrier of ours would not, and the kernel's
// own barriers would deadlock or release early. Exits are therefore counted per thread (one atomic per
// warp; in a grid scope whose launches one thread of a block makes, per block first in shared memory),
// and the thread completing the count does the scope's work.
#pragma once

#define DEVICE extern "C" __attribute__((device, always_inline))
// Entry points small enough to belong inline where the pass calls them.
#define ACCESSOR extern "C" __attribute__((device, always_inline))
#define INLINE __attribute__((device, always_inline)) static inline
// Defined by one part, called by others. pass/build.rs makes these internal once the parts are linked,
// as a static function is in a single file: the optimizer then treats them alike. In klap_rt.cu, the
// parts in one file, they are static.
#ifdef KLAP_RT_ONE_FILE
#define HELPER INLINE
#else
#define HELPER __attribute__((device, always_inline))
#endif
#define SHARED __attribute__((shared))
#define GLOBAL_VAR __attribute__((device))

typedef unsigned int u32;
typedef unsigned long long u64;

// ---- aggregation records -----------------------------------------------------------------------
//
// A chunk holds the records of one aggregated launch. Records are handed out by one 64-bit atomic
// (record index << 32 | first child block), so record order and block order agree and the
// inclusive ends of the records' block ranges are sorted: the child finds its record by searching them.

// The pool's two slab sizes: SMALL for warp and block scopes, LARGE for grid scopes (pool.cu).
enum { SMALL_SLAB = 4 << 10, LARGE_SLAB = 1 << 20 };

// A chunk its children free counts their finished blocks in at most DONE_COUNTERS counters, each
// in the unused last word of the dims of the first record of a group of adjacent records. One
// counter for every block of a chunk was a queue (measured on the nested benchmark at block
// granularity: 0.49 ms against 0.32 ms with no counting; 0.34 ms with a counter per record, 0.43 ms
// with 16 counters 128 bytes apart); a counter per record would make checking a chunk of 100,000
// records slow.
enum { DONE_COUNTERS = 32, NOT_LAUNCHED = 0xffffffffu };

// A block or grid scope: a chain of chunks per group of launch sites (same child, same stream class).
enum { MAX_GROUPS = 8 };
// Set by the pass in a group's record size where the child has a grid scope of its own, which waits
// for the child threads the chunk counts (Chunk::threads_total).
enum : u32 { COUNT_THREADS = 0x80000000u };
// Set by the pass in a group's record size where parent blocks may take the group's records (grid reuse,
// reuse.cu): its chunks get an epoch, and each record a ready flag in its last 8 bytes.
enum : u32 { READY_FLAGS = 0x40000000u };
// A ready flag holds its chunk's epoch once the record is written; PENDING while it is being written.
enum : u64 { PENDING = 1ull << 63 };
// Set in the parameter size the pass gives with an aggregated child that takes the child's parameters
// before the chunk: its launch copies the chunk's first record into them.
enum : u32 { ARGS_IN_PARAMS = 0x40000000u };
// In the same parameter size, bits 16 to 23: the coarsening factor of an aggregated child whose blocks each
// run several aggregated blocks (pass/src/child.rs), 0 where it runs one; bits 24 to 29: the threads for
// each multiprocessor, in 64s, that its launch keeps at least (-klap-coarsen-sm-threads); bits 0 to 15:
// the size.
enum : u32 {
  COARSEN_SHIFT = 16,
  COARSEN_MASK = 0xffu,
  COARSEN_SM_THREADS_SHIFT = 24,
  COARSEN_SM_THREADS_MASK = 0x3fu,
  COARSEN_SM_THREADS_UNIT = 64,
  PARAM_SIZE_MASK = 0xffffu
};
// What the pass gives a launch of an aggregated child that has a grid scope of its own: that scope's
// groups and their record sizes (as the enter functions take them).
struct ChildScope {
  u32 groups;
  u32 sizes[MAX_GROUPS];
};
struct Chunk;
struct Scope {
  Chunk *head[MAX_GROUPS];
  Chunk *current[MAX_GROUPS]; // null until claimed, CLAIMING, NO_CHUNK, or where registrations go
  u32 record_size[MAX_GROUPS]; // and COUNT_THREADS
  u32 large;
  u32 in_table; // a grid scope in klap_grid_table, else in the chunk its grid was launched for
  u64 warps;
  u64 threads_done;
  u64 threads; // a warp scope's threads (its exit count waits for them)
  // The grid is one warp: each thread's first launch is made as written (klap_first_launched).
  u32 first_launches_as_written;
  // A small grid's scope is each block's own: its exit count waits for the block's threads alone.
  u32 block_only;
  // Grid reuse (reuse.cu): the grid's blocks that have entered (counted where the pass asks,
  // COUNT_ENTERED), and its threads that have done their own work.
  u32 blocks_entered;
  u64 threads_at_end;
};

// The most threads of a grid whose grid scope may be each block's own (__klap_grid_enter_per_block,
// PER_BLOCK_IF_SMALL_GRID), as the most threads of a launching grid where the pass serializes larger
// children (pass/src/runtime.rs).
enum { SMALL_GRID_THREADS = 16384 };
// The fewest threads of a block whose grid scope may be the block's own (PER_BLOCK_IF_LARGE_BLOCKS).
enum { LARGE_BLOCK_THREADS = 1024 };
// When __klap_grid_enter_per_block makes a grid scope each block's own (the pass's flags, aggregate.rs).
enum { PER_BLOCK_IF_SMALL_GRID = 1, PER_BLOCK_IF_LARGE_BLOCKS = 2 };
// In the same flags: each block counts itself into its grid scope at entry (a grid whose blocks take child
// grids, reuse.cu, takes them only once every block has started).
enum { COUNT_ENTERED = 4 };

// A scope's current chunk while one lane takes the next, and where a group has none.
#define CLAIMING ((Chunk *)1)
#define NO_CHUNK ((Chunk *)2)

// What a chunk's aggregated child is, and what its records are launched as when they are launched one
// by one: `original` with `param_size` bytes of arguments, of which `uniform_words` are in record 0 only.
// `args_in_params`: the aggregated child takes `original`'s parameters before the chunk. `scope`: the
// aggregated child's own grid scope, where it has one.
struct ChildKernel {
  void *aggregated, *original;
  u32 param_size;
  u64 uniform_words;
  bool args_in_params;
  const ChildScope *scope;
  u32 coarsen; // aggregated blocks per block of a coarsened aggregated child, else 0
  // Threads per multiprocessor below which a coarsened child's launch does not go: with fewer blocks than
  // the GPU holds at once, a block that runs several would leave multiprocessors idle.
  u32 coarsen_sm_threads;
};

struct Chunk {
  u64 counter;       // records << 32 | child blocks handed out
  u32 capacity;      // records that fit
  u32 record_size;   // bytes of one argument record (the child's parameter layout)
  u32 max_threads;   // threads per block of the aggregated launch
  u32 max_smem;      // dynamic shared memory of the aggregated launch
  u64 threads_total; // child threads that run (sum of blocks * threads over the records)
  u32 blocks;        // blocks of the aggregated launch once made
  u32 group;         // records per finished-block counter
  u32 count_threads; // threads_total is kept: the child waits for it (a grid scope of its own)
  u32 slab;          // first slab, and the slab class in the top bit
  u32 slab_count;
  Chunk *next;       // the scope's next chunk, taken when this one was full; once launched, refused
                     // and left to its grid's waiter (launch.cu), the next chunk left to it
  u32 *end;          // inclusive end of each record's block range
  u32 *dims;         // 8 per record: grid x y z, block x y z, dynamic shared memory, a counter
  char *args;        // record_size bytes per record
  // The grid scope of the aggregated child's own launches (a grid-granularity variant that launches):
  // set up by the launch, before the child's blocks run, which find it here.
  Scope scope;
  u32 arrivals;      // a warp chunk's lanes that have not yet written their record or launched
  ChildKernel deferred; // what a chunk left to its grid's waiter is launched as
  // Grid reuse (reuse.cu): what parent blocks ran, as the next record to take << 32 | its next block:
  // the records before it whole, and its blocks before that one. The aggregated launch serves the rest,
  // from aggregated block first_block on. `epoch`: what a record's ready flag holds once written, unique
  // to this use of the chunk's memory (0: the records have no flags).
  u64 taken;
  u32 first_block;
  u64 epoch;
};

// What an aggregated child's entry is given, for its record lookup, where no constant number of blocks
// is every record's: every record of a chunk has the first record's dims (the pass found the launch
// configuration uniform over the scope), so a block finds its record by dividing by the first record's
// blocks. 0: a search.
enum : u32 { UNIFORM_RECORDS = 0xffffffffu };

// Grid reuse's blocks per take where the runtime chooses them, as each grid is taken (reuse.cu).
enum : u32 { SELECT_PER_TAKE = 0xffffffffu };

// A chunk's header, then its records' dims at a fixed offset: an aggregated block that knows its record
// (a division) reads the record's dims without waiting for the header first. Then the blocks' ends and
// the arguments, where the capacity puts them.
enum { CHUNK_HEADER = (sizeof(Chunk) + 15) & ~15ul };

// ---- what the parts provide to each other --------------------------------------------------------
//
// Every function is defined once, in one part, so that the optimizer sees each with all its callers,
// as in a single file: a copy per part, of a helper in this header, was simplified for its part's
// callers alone and gave other code.

// primitives.cu: special registers (the thread's index in its block, its lane, the lanes below it,
// the active lanes, the grid's %gridid: unique per launch).
HELPER u32 tid_linear();
HELPER u64 grid_id();
HELPER u32 lane_id();
HELPER u32 lanemask_lt();
HELPER u32 active_mask();
// primitives.cu: memory accesses and fences at GPU scope.
HELPER void fence();
HELPER void fence_release();
HELPER void fence_acquire();
HELPER u64 load_relaxed(const u64 *p);
HELPER u32 load_relaxed(const u32 *p);
HELPER void store_relaxed(u64 *p, u64 v);
HELPER void store_relaxed(u32 *p, u32 v);
// primitives.cu: compare-and-swap, returning the old value; acquire, so that what the slot's previous
// holder released is seen.
HELPER u64 cas_acquire(u64 *p, u64 expected, u64 desired);
HELPER u32 cas_acquire(u32 *p, u32 expected, u32 desired);
// primitives.cu: lane `src`'s value of `v`, among the lanes of `mask`.
HELPER u32 shfl_idx(u32 mask, u32 v, u32 src);
HELPER u64 shfl_u64(u32 mask, u64 v, u32 src);

// pool.cu: slabs of `slab_bytes` for a chunk of `records` records, at most `max_slabs`.
HELPER u32 slabs_for(u64 records, u32 record_size, u64 slab_bytes, u32 max_slabs);
// pool.cu: the pool's small slabs (SMALL_SLAB bytes each), in all.
HELPER u32 pool_small_slabs();
// pool.cu: the records a chunk holds (those registered, up to its capacity).
HELPER u32 chunk_records(const Chunk *c);

// pool.cu: gives chunk `c` an epoch of its own: its records get ready flags (grid reuse).
HELPER void chunk_flag_records(Chunk *c);

// pool.cu: a chunk of `slab_count` slabs of the class (`large`: LARGE_SLAB), set up for records of
// `record_size` bytes; null when the pool has no room.
HELPER Chunk *chunk_alloc(u32 large, u32 slab_count, u32 record_size, u32 count_threads);
// pool.cu: chunk_alloc of a small chunk by the lanes of `mask` together (all of them call it, with
// the same arguments); the chunk in the lowest lane, null in the others.
HELPER Chunk *chunk_alloc_together(u32 mask, u32 slab_count, u32 record_size, u32 count_threads);
// pool.cu: gives a chunk's slabs back at once.
HELPER void chunk_free(Chunk *c);
// pool.cu: a chunk whose aggregated child is launched goes back once every block of it is counted.
HELPER void chunk_free_when_done(Chunk *c);
// pool.cu: frees the finished chunks among the slabs of the bitmap word of a chunk's first slab, `slab`
// (Chunk::slab: the class in the top bit).
HELPER void reclaim_near(u32 slab);
// pool.cu: frees every finished chunk, where a claim found no room since the last time.
HELPER void reclaim_if_wanted();
// pool.cu: frees every finished chunk of large slabs (grid scopes') where fewer than half are free.
HELPER void reclaim_large_if_short();

// trace.cu: reports a fallback to an unaggregated launch (with -klap-trace), the first hundred.
HELPER void trace(const char *format, u32 a, u32 b);
// trace.cu: a launch the device runtime refused even after waiting: what the program would have seen
// as the error of its own launch. Always reported (the first hundred messages).
HELPER void error(const char *format, u32 a, u32 b);

// scope.cu: a block or grid scope with `groups` groups of records of `sizes`, waited for by `warps` warps.
HELPER void setup_scope(Scope *s, u32 groups, const u32 *sizes, u32 large, u64 warps, u32 in_table);
// scope.cu: in a grid of one warp, whether this is the calling thread's first launch.
HELPER bool first_launch();

// register.cu: a scope's chunk pointer, read with a relaxed atomic load.
HELPER Chunk *load_chunk(Chunk **p);

// lookup.cu: the chunk the calling aggregated block serves (after __klap_child_enter).
HELPER Chunk *child_chunk();

// spawn.cu (with -klap-spawn, else nothing): a registration's child blocks counted as queued; an aggregated
// block's start (by thread 0 at aggregated block b's entry) and its end (by the thread completing it), timed
// for a sample of the blocks.
HELPER void spawn_queued(u32 blocks);
HELPER void spawn_block_start(u32 b);
HELPER void spawn_block_end();
