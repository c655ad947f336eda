// Grid reuse (Free Launch's T2, CK*->PB*, and T1, CB*->PB*): a parent block that is done with its own
// work runs child blocks registered in its grid scope, with all its threads (the pass's block-reuse exit
// brings every thread of the block there and runs each child block through the child's block variant):
// a whole child grid at a time (T2), or a few blocks of one (T1: `per_take`). What it takes is the first
// of the chunk, in order: what is left when the grid's last thread exits is launched aggregated from the
// first block not taken on (launch.cu), so a child block is run once, by a parent block or by the launch.
//
// A block takes child blocks only while every block of its grid has started and some block is still
// doing its own work: then the block would otherwise leave its multiprocessor idle (no block of its grid
// is waiting for room), and the grid's end, where the launch runs the rest over the whole GPU, is delayed
// by at most what each taking block took last. Taking whatever was left made sp, join and bfs 15x to 250x
// slower on an H200 (a block runs a grid's blocks one after another, where the launch spreads them over
// the GPU: twenty-sixth session, BENCHMARKS.md). So only grid scopes of the grid table are taken from (a
// kernel launched as written), whose blocks count themselves in at entry (COUNT_ENTERED).
//
// No block waits for a block that may not be resident: a taker waits only for the thread that
// registered the record to finish writing it, and that thread is running (it took the record).
#include "klap_rt.h"

// What a parent block took, for all its threads: the record's arguments, the chunk's first record's (the
// arguments uniform over the scope), its grid and block, and the blocks of its grid taken.
struct TakenRecord {
  char *args, *uniform;
  u32 dims[8]; // grid x y z, block x y z, the first block taken, how many
};
SHARED TakenRecord klap_taken;

INLINE bool record_ready(const Chunk *c, u32 r) {
  const u64 *flag = (const u64 *)(c->args + (u64)r * c->record_size + c->record_size - 8);
  return load_relaxed(flag) == c->epoch;
}

INLINE u32 dynamic_smem_size() {
  u32 v;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(v));
  return v;
}

// By one thread: the next blocks of group `g` this block of `threads` threads can run, taken (their record
// in `*r`, the first block's linear index in its grid in `*first`, how many in `*count`; the chunk
// returned): the rest of the record's grid where `per_take` is 0, else at most `per_take` blocks of it, or
// where it is SELECT_PER_TAKE, as Free Launch's selector chooses.
// Null where none is registered, or where the next needs more threads or dynamic shared memory than the
// block has, or threads in part of a warp (a counted barrier needs whole warps): the launch runs those.
//
// The grid's state is read again before every attempt: where a thousand blocks that are done contend for
// the chunk's `taken` word, each compare-and-swap that one wins the others lose, and a block that went on
// trying once the grid's last block was done would still take, one block after another, and hold back the
// grid's end by a round trip to memory for every block of the grid.
INLINE Chunk *take_blocks(Scope *s, u32 g, u32 threads, u32 per_take, u32 *r, u32 *first, u32 *count) {
  if (!s->in_table)
    return 0;
  u32 blocks = __nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_nctaid_y() * __nvvm_read_ptx_sreg_nctaid_z();
  Chunk *c = load_chunk(&s->head[g]);
  while (c) {
    if (load_relaxed(&s->blocks_entered) < blocks || load_relaxed(&s->threads_at_end) >= (u64)blocks * threads)
      return 0;
    u64 counter = load_relaxed(&c->counter);
    u32 records = (u32)(counter >> 32);
    u32 n = records < c->capacity ? records : c->capacity;
    u64 at = load_relaxed(&c->taken);
    u32 t = (u32)(at >> 32), b = (u32)at;
    if (t >= n) {
      if (records < c->capacity)
        return 0;
      c = load_chunk(&c->next);
      continue;
    }
    // Record t, and record 0 with the uniform arguments, once their registering threads are done.
    while (!record_ready(c, t) || !record_ready(c, 0))
      __nvvm_nanosleep(32);
    fence();
    const u32 *d = c->dims + 8 * t;
    u32 child_threads = d[3] * d[4] * d[5];
    bool fits = child_threads == threads || (child_threads < threads && child_threads % 32 == 0);
    if (!fits || d[6] > dynamic_smem_size())
      return 0;
    u32 left = d[0] * d[1] * d[2] - b;
    // Free Launch's device-side selector (MICRO 2015, Fig. 7b): whole grids (T2) load the block that takes the
    // largest with its blocks beyond a fair share, the chunk's child blocks over the parent blocks (T1's load
    // of each); where this grid has more blocks than that share, take that share of it at a time (T1).
    u32 most = per_take == SELECT_PER_TAKE ? ((u32)counter + blocks - 1) / blocks : per_take;
    u32 k = most && most < left ? most : left;
    u64 next = k < left ? at + k : (u64)(t + 1) << 32;
    if (cas_acquire(&c->taken, at, next) == at) {
      *r = t;
      *first = b;
      *count = k;
      return c;
    }
  }
  return 0;
}

// At a parent block's end, before its first __klap_grid_take, by every thread: the block's `threads` have
// done their own work.
DEVICE void __klap_grid_at_end(Scope *s, u32 threads) {
  if (s && tid_linear() == 0)
    __nvvm_atom_add_gen_ll((long long *)&s->threads_at_end, (long long)threads);
}

// At a parent block's end, by every thread of the block (`threads`: the block's, in an aggregated parent
// those serving its record; the others have returned): the arguments of the record of group `g` of scope
// `s` whose blocks the block runs next (`per_take`: as take_blocks), or null once there is none for it.
// The record's grid and block, and the blocks taken, are __klap_taken_dim's, its uniform arguments
// __klap_taken_uniform_args's. Every thread must have read them before the next call (the block's barrier
// after each child block it runs).
DEVICE char *__klap_grid_take(Scope *s, u32 g, u32 threads, u32 per_take) {
  if (tid_linear() == 0) {
    u32 r = 0, first = 0, count = 0;
    Chunk *c = s ? take_blocks(s, g, threads, per_take, &r, &first, &count) : 0;
    if (c) {
      const u32 *d = c->dims + 8 * r;
      for (u32 i = 0; i < 6; ++i)
        klap_taken.dims[i] = d[i];
      klap_taken.dims[6] = first;
      klap_taken.dims[7] = count;
      klap_taken.args = c->args + (u64)r * c->record_size;
      klap_taken.uniform = c->args;
    } else {
      klap_taken.args = 0;
      // The blocks this block ran, before its threads count themselves out of the scope: the thread
      // completing the count launches from the first block not taken.
      fence();
    }
  }
  __syncthreads();
  return klap_taken.args;
}

// The taken record's grid x y z (0 to 2), block x y z (3 to 5), the first block taken, as its linear
// index in the grid (6), and how many (7).
ACCESSOR u32 __klap_taken_dim(u32 i) { return klap_taken.dims[i]; }
ACCESSOR char *__klap_taken_uniform_args() { return klap_taken.uniform; }
