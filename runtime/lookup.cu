// The aggregated child. Every aggregated block serves one record: thread 0 finds it, the block reads
// it from shared memory, and the sreg reads of the child's code are remapped onto it. At exit the
// block is counted into its chunk, which goes back to the pool once every block is.
#include "klap_rt.h"

INLINE u32 tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }

// Where an aggregated child's blocks find their record; a grid scope in the child lives in its chunk.
struct ChildContext {
  Chunk *chunk;
  char *args;
  char *uniform_args; // the chunk's first record: the arguments uniform over the scope
  u32 grid[3], block[3], index[3];
  u32 threads;
  u32 record_first, record_end; // the record's aggregated blocks (a coarsened child's next block may be in it)
  u32 exited; // threads of this block past their exit
  u32 *done; // the counter of the block's group of records
  u64 grid_threads; // the aggregated launch's threads that serve records
};
SHARED ChildContext klap_child;

HELPER Chunk *child_chunk() { return klap_child.chunk; }

// The record serving aggregated block b: the first whose block range ends past b. Where the pass knows
// every record to have `blocks_per_record` blocks (every launch of the child is of one constant grid, as
// qt's four), a division. Else, with a full first warp, a 32-ary search (one probe per lane and a ballot
// a step: four steps for 100,000 records where a binary search takes seventeen dependent loads); with
// fewer threads, a binary search by thread 0. (A guess checked by loads before the search, for every
// chunk, made bfs 13% and sp 5% slower: the launch of each chunk and each block's lookup waited longer.)
INLINE u32 find_record(Chunk *c, u32 b, u32 blocks_per_record) {
  if (blocks_per_record)
    return b / blocks_per_record;
  u32 lo = 0, hi = chunk_records(c);
  u32 mask = active_mask();
  if (mask != 0xffffffffu) {
    while (lo < hi) {
      u32 mid = (lo + hi) / 2;
      if (c->end[mid] > b)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
  u32 me = lane_id();
  // Invariant: the record is in [lo, hi), and end[hi - 1] > b. Each step keeps one of 32 slices.
  while (hi - lo > 1) {
    u32 stride = (hi - lo + 31) / 32;
    u32 probe = lo + (me + 1) * stride - 1;
    if (probe > hi - 1)
      probe = hi - 1;
    u32 hits = __nvvm_vote_ballot_sync(mask, c->end[probe] > b);
    u32 j = __builtin_ctz(hits);
    u32 last = shfl_idx(mask, probe, j);
    lo = j ? shfl_idx(mask, probe, j - 1) + 1 : lo;
    hi = last + 1;
  }
  return lo;
}

// The record's block `local` as an index within its grid: a one-dimensional grid (most) needs no division
// (the divisions by run-time values were 37 instructions a block of qt's aggregated child: ncu source
// counters, eighteenth session). By thread 0.
INLINE void set_child_index(u32 local, u32 gx, u32 gy, u32 gz) {
  u32 ix = local, iy = 0, iz = 0;
  if (gy != 1 || gz != 1)
    ix = local % gx, iy = (local / gx) % gy, iz = local / (gx * gy);
  klap_child.index[0] = ix;
  klap_child.index[1] = iy;
  klap_child.index[2] = iz;
}

// Once thread 0 has written the block's record (a barrier): its arguments, or null for a thread beyond the
// record's block size (it runs nothing of it).
INLINE char *record_args() {
  __syncthreads();
  return tid_x() < klap_child.threads ? klap_child.args : 0;
}

// An aggregated block's entry to aggregated block b, by every thread: the record's arguments, or null for a
// thread beyond the record's block size (it runs nothing of it). `coarse`: the block goes on to the next
// aggregated block after this one (it keeps the record's range). `blocks_per_record`: as find_record, or
// UNIFORM_RECORDS: every record has the first's dims, read with the header, and the record is a division by
// its blocks (no search: three dependent rounds of loads and ballots for mm's 2,003 records a chunk).
INLINE char *enter_block(Chunk *c, u32 b, u32 blocks_per_record, bool coarse) {
  u32 threads = __nvvm_read_ptx_sreg_ntid_x();
  bool uniform = blocks_per_record == UNIFORM_RECORDS;
  if (tid_x() < 32 && (threads >= 32 || tid_x() == 0)) {
    u32 r = uniform ? 0 : find_record(c, b, blocks_per_record);
    if (tid_x() == 0) {
      // Every load first, then the stores to shared memory (which a generic load could alias): the
      // loads go out together, the header's and the record's dims, one round trip.
      const u32 *d = (const u32 *)((const char *)c + CHUNK_HEADER) + 8 * r;
      u32 gx = d[0], gy = d[1], gz = d[2], bx = d[3], by = d[4], bz = d[5];
      char *args = c->args;
      u32 record_size = c->record_size, group = c->group;
      u64 grid_threads = c->threads_total;
      if (uniform) {
        u32 n = gx * gy * gz;
        r = b / n;
        d += 8 * r;
        blocks_per_record = n;
      }
      u32 first = blocks_per_record ? b - b % blocks_per_record : (r ? c->end[r - 1] : 0);
      klap_child.chunk = c;
      klap_child.args = args + (u64)r * record_size;
      klap_child.uniform_args = args;
      klap_child.grid[0] = gx, klap_child.grid[1] = gy, klap_child.grid[2] = gz;
      klap_child.block[0] = bx, klap_child.block[1] = by, klap_child.block[2] = bz;
      set_child_index(b - first, gx, gy, gz);
      if (coarse) {
        klap_child.record_first = first;
        klap_child.record_end = first + gx * gy * gz;
      }
      klap_child.threads = bx * by * bz;
      klap_child.exited = 0;
      klap_child.done = (u32 *)d - 8 * (r % group) + 7;
      spawn_block_start(b);
      klap_child.grid_threads = grid_threads;
    }
  }
  return record_args();
}

// At the aggregated child's entry, by every thread: its block's record, as enter_block.
DEVICE char *__klap_child_enter(Chunk *c, u32 blocks_per_record) {
  return enter_block(c, __nvvm_read_ptx_sreg_ctaid_x(), blocks_per_record, false);
}

// As __klap_child_enter, for a child whose records parent blocks may have run first (grid reuse,
// reuse.cu): the launch's blocks serve the aggregated blocks from the chunk's first_block on.
DEVICE char *__klap_child_enter_after_taken(Chunk *c, u32 blocks_per_record) {
  return enter_block(c, __nvvm_read_ptx_sreg_ctaid_x() + c->first_block, blocks_per_record, false);
}

// A coarsened aggregated child (pass/src/child.rs): each of its blocks runs the aggregated blocks [first,
// end), returned as first | end << 32, consecutive so that most follow one another in one record. The
// launch made at most as many blocks as the chunk has (launch.cu), and every block gets one at least: a
// block with none could read `c->blocks` (written before the launch) after every other block counted
// itself out and the chunk went back to the pool.
ACCESSOR u64 __klap_child_coarse_range(Chunk *c) {
  u64 total = c->blocks, blocks = __nvvm_read_ptx_sreg_nctaid_x(), b = __nvvm_read_ptx_sreg_ctaid_x();
  u64 first = b * total / blocks, end = (b + 1) * total / blocks;
  return first | end << 32;
}

// A coarsened block's entry to its first aggregated block, b.
DEVICE char *__klap_child_enter_first(Chunk *c, u32 b, u32 blocks_per_record) {
  return enter_block(c, b, blocks_per_record, true);
}

// A coarsened block's entry to its next aggregated block b, by every thread, which all come from the block
// before (each warp's lanes together): a barrier, so that no thread still reads what thread 0 now writes,
// then, where b is in the same record, its index alone (no lookup, no load), else enter_block.
DEVICE char *__klap_child_next(Chunk *c, u32 b, u32 blocks_per_record) {
  // Read before the barrier: thread 0 writes it after.
  bool same = b < klap_child.record_end;
  __syncthreads();
  if (!same)
    return enter_block(c, b, blocks_per_record, true);
  if (tid_x() == 0) {
    set_child_index(b - klap_child.record_first, klap_child.grid[0], klap_child.grid[1], klap_child.grid[2]);
    klap_child.exited = 0;
    spawn_block_start(b);
  }
  return record_args();
}

// At the aggregated child's exit, by every thread that ran: the thread completing its block counts
// the block into the chunk (one reduction a block, no return value waited for); whoever next needs
// the chunk's slabs frees it once every block is counted. Every chunk goes back this way, top-level
// grid chunks included: freeing those from a kernel in the parent grid's tail stream kept that grid
// from completing until one more kernel had run (measured, nested benchmark at grid granularity
// with 10,000 parents: 0.062 to 0.064 ms against 0.054 to 0.056; suite: as fast or faster).
// No fence first: the chunk's record and arguments were read at entry, and those reads have
// returned their values; a grid scope in the chunk was launched from before this thread's count.
DEVICE void __klap_child_exit() {
  u32 mask = active_mask();
  u32 leader = __builtin_ctz(mask);
  if (lane_id() != leader)
    return;
  u32 n = __builtin_popcount(mask);
  if (n != klap_child.threads && (u32)__nvvm_atom_add_gen_i((int *)&klap_child.exited, (int)n) + n != klap_child.threads)
    return;
  spawn_block_end();
  asm volatile("red.relaxed.gpu.add.u32 [%0], 1;" ::"l"(klap_child.done) : "memory");
}

ACCESSOR char *__klap_child_uniform_args() { return klap_child.uniform_args; }

// The grid scope of the child's own launches: in its chunk, set up by the launch (launch.cu). Found
// without a load or a barrier of its own: a block that set it up on arrival held every other block at
// a barrier, and its fence, on the way of qt's each node.
ACCESSOR Scope *__klap_child_grid_scope() { return &klap_child.chunk->scope; }

// The child's view of its indices. A thread that runs has tid.x below the record's block's threads,
// so in a one-dimensional block (most) tid.x is its x, with no division (the remainder was 15
// instructions a warp of qt's aggregated child: ncu source counters, eighteenth session).
INLINE u32 child_tid(u32 d) {
  u32 t = tid_x();
  if (klap_child.threads == klap_child.block[0])
    return d == 0 ? t : 0;
  return d == 0 ? t % klap_child.block[0]
         : d == 1 ? (t / klap_child.block[0]) % klap_child.block[1]
                  : t / (klap_child.block[0] * klap_child.block[1]);
}
INLINE u32 child_ntid(u32 d) { return klap_child.block[d]; }
INLINE u32 child_ctaid(u32 d) { return klap_child.index[d]; }
INLINE u32 child_nctaid(u32 d) { return klap_child.grid[d]; }
enum { KLAP_DIM_x = 0, KLAP_DIM_y = 1, KLAP_DIM_z = 2 };
// One accessor per index register of the table the pass and its shim share.
#define KLAP_INDEX_REGISTER(Register, Dimension, Scope)                                                           \
  ACCESSOR u32 __klap_##Register##_##Dimension() { return child_##Register(KLAP_DIM_##Dimension); }
#include "index_registers.def"
#undef KLAP_INDEX_REGISTER
// Threads of the record's block and of its whole grid: what a scope inside the child waits for.
ACCESSOR u64 __klap_child_block_threads() { return klap_child.threads; }
// Copied at entry: by the time a thread reaches its exit, the chunk may be back in the pool.
ACCESSOR u64 __klap_child_grid_threads() { return klap_child.grid_threads; }
