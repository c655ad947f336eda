// Kernel launch promotion (pass/src/transform/promote/): a one-block kernel that launches itself at the
// end of its work launches its next instance at its start instead; the instance waits until this one is
// done, then takes the arguments that were known only at the end from a slot of the pool.
//
// A slot is a chunk of one small slab (pool.cu), so promotion takes its memory from the same bounded pool
// as aggregation; where the pool has no room the launch is made as written. Its record holds a state word
// and, from byte 16, the postponed arguments at their offsets in the child's parameter layout.
//
// Release and acquire: the launching block's threads count themselves out at their returns (in shared
// memory, one atomic per warp); the last one sets DONE. The child's thread 0 polls for DONE, then the
// child reads the arguments if the launch site was reached (TAKEN), or ends at once if it was not (a
// speculative launch whose condition turned out false). The child so starts its work only after every
// thread of its parent has ended: what a tail launch gives, and more than a fire-and-forget launch
// promises, so the promoted chain allows no schedule the original did not. With aggregation, a chain written
// with NULL or fire-and-forget launches is released at the launch site instead (__klap_pool_release), as the
// launch let its child start there; a tail-launched chain still at the block's end.
#include "klap_rt.h"

enum : u32 { PROMOTE_TAKEN = 1u, PROMOTE_DONE = 2u, PROMOTE_EARLY = 4u };
// The most bytes of postponed arguments: the child copies them into shared memory (the pass checks it).
enum { PROMOTE_ARGS_MAX = 256 };

struct PromoteSlot {
  u32 state;
  u32 reserved[3];
  char args[];
};

// The promotion state of the running block: the slot of the child it launched, if any, and its count of
// threads that have returned.
struct PromoteBlock {
  Chunk *next;
  u32 exited;
  u32 threads;
};
SHARED PromoteBlock klap_promote;
// What a promoted child took from its parent's slot: whether to run, and the postponed arguments.
SHARED u32 klap_promote_go;
SHARED __attribute__((aligned(16))) char klap_promote_args[PROMOTE_ARGS_MAX];

INLINE PromoteSlot *promote_slot(Chunk *c) { return (PromoteSlot *)c->args; }
INLINE u32 block_thread_count() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_ntid_z();
}
// Counts the calling thread (with the converged lanes of its warp, one atomic per warp) out of a block of
// `threads`: true in the one thread whose warp completed the count, after a fence that orders the whole
// block's writes before what it does next. Each thread's own fence orders its writes before the count.
INLINE bool last_to_exit(u32 *exited, u32 threads) {
  fence();
  u32 mask = active_mask();
  __nvvm_bar_warp_sync(mask);
  if (lane_id() != (u32)__builtin_ctz(mask))
    return false;
  u32 n = __builtin_popcount(mask);
  if ((u32)__nvvm_atom_add_gen_i((int *)exited, (int)n) + n != threads)
    return false;
  fence();
  return true;
}
// The first thread to reach a launch site takes the slot's argument space; the others get null.
INLINE char *slot_take(PromoteSlot *s) {
  u32 old = (u32)__nvvm_atom_or_gen_i((int *)&s->state, (int)PROMOTE_TAKEN);
  return (old & PROMOTE_TAKEN) ? 0 : s->args;
}

// The thread that launches the next instance at the start of the kernel.
// Where the block has more than one row (the host's launch of the first instance may give it one),
// threads of every row pass the launch's threadIdx.x test and each launches: no leader, and the launch
// site launches as written, each of those launches a first instance of its own (fuzz case 234-9 at
// auto lost 76 of 81 grids when thread 0 launched for all of them).
ACCESSOR bool __klap_promote_leader() {
  return tid_linear() == 0 && __nvvm_read_ptx_sreg_ntid_y() == 1 && __nvvm_read_ptx_sreg_ntid_z() == 1;
}

// A slot for a promoted launch with `arg_bytes` bytes of arguments; null where the pool has no room.
DEVICE Chunk *__klap_promote_slot(u32 arg_bytes) {
  if (arg_bytes > PROMOTE_ARGS_MAX)
    return 0;
  u32 record = 16 + arg_bytes;
  Chunk *c = chunk_alloc(0, slabs_for(1, record, SMALL_SLAB, 1), record, 0);
  if (!c)
    return 0;
  promote_slot(c)->state = 0;
  return c;
}

// The promoted launch was not made: its slot goes back.
DEVICE void __klap_promote_cancel(Chunk *c) { chunk_free(c); }

// Every thread, at the start: the leader's slot (or null) for all, and the exit count set up.
DEVICE Chunk *__klap_promote_share(Chunk *c) {
  if (tid_linear() == 0) {
    klap_promote.next = c;
    klap_promote.exited = 0;
    klap_promote.threads = block_thread_count();
  }
  __syncthreads();
  return klap_promote.next;
}

// The thread that reaches the launch site: where to store the postponed arguments, or null where there is
// no slot or another thread took it first (that thread's launch is made as written).
DEVICE char *__klap_promote_take(Chunk *c) { return c ? slot_take(promote_slot(c)) : 0; }

// Every thread at its return: counted out of the block; the last one releases the child. Each thread's
// fence orders its own writes before the count, the warp's barrier before its leader's atomic, and the
// last thread's fence the whole block's writes before DONE.
DEVICE void __klap_promote_exit(Chunk *c) {
  if (!c)
    return;
  if (!last_to_exit(&klap_promote.exited, klap_promote.threads))
    return;
  __nvvm_atom_or_gen_i((int *)&promote_slot(c)->state, (int)PROMOTE_DONE);
}

// Every thread of a promoted child, at its start: thread 0 waits for the parent to be done, copies the
// postponed arguments (`arg_bytes`, at most PROMOTE_ARGS_MAX) into shared memory and gives the slot back.
// Returns where the arguments are, or null where the parent did not reach its launch (the child ends).
DEVICE char *__klap_promote_enter(Chunk *c, u32 arg_bytes) {
  if (tid_linear() == 0) {
    PromoteSlot *s = promote_slot(c);
    u32 state;
    while (!((state = load_relaxed(&s->state)) & PROMOTE_DONE))
      ;
    fence();
    u32 go = state & PROMOTE_TAKEN;
    if (go) {
      u32 words = (arg_bytes < PROMOTE_ARGS_MAX ? arg_bytes : PROMOTE_ARGS_MAX) / 4 + (arg_bytes % 4 != 0);
      for (u32 i = 0; i < words; ++i)
        ((u32 *)klap_promote_args)[i] = ((const u32 *)s->args)[i];
    }
    klap_promote_go = go;
    chunk_free(c);
  }
  __syncthreads();
  return klap_promote_go ? klap_promote_args : 0;
}

// ---- promotion with aggregation (KLAP section III-B, Fig. 5c) ------------------------------------------
//
// A link launches a pool of `size` descendants at once: one grid of `size` blocks of the promoted kernel's
// pool form. The pool's record (one chunk of the bounded pool) has a header and one slot per link of the
// pool, laid out as a PromoteSlot (state, then from byte 16 the link's arguments in the kernel's parameter
// layout). Slot i is written and released by the link before logical link i: the launcher of the pool for
// i = 0, logical link i - 1 of the pool otherwise; the pool's last link writes slot 0 of the next pool.
//
// Logical indices are handed out by one counter in the header, taken by thread 0 of each block as it
// starts (so in the order blocks start running, not in blockIdx order): a block waits only for the link
// before its own, whose index was taken earlier by a block that was already running, or for the pool's
// launcher, which runs. No block waits for a block that is not yet scheduled, so the pool cannot deadlock
// however many of its blocks fit on the device at once. Where the chain ends (a link does not reach its
// launch, so its successor's slot is released without TAKEN), the block that sees it sets `abort`, and
// every block still waiting (all of them after it: none of their slots will be released) ends at once.
// Each block counts itself finished once it no longer touches the record; the last one frees it.
struct PromotePool {
  u32 ticket;   // logical indices handed out
  u32 abort;    // set once the chain has ended: the blocks still waiting end
  u32 finished; // blocks done with the record
  u32 size;     // links (blocks) of the pool
  u32 stride;   // bytes of one link's slot
  u32 reserved[3];
};
enum { POOL_HEADER = 32 };

INLINE PromotePool *pool_of(Chunk *c) { return (PromotePool *)c->args; }
// A pool's slot has its state and a word of arguments in one 64-bit word (the state in the low half, the
// word in the high half), every atomic on it 64 bits wide: a link whose only late argument fits in 32 bits
// is released with it in the same atomic (__klap_pool_release_word), so that the next link has it from
// the poll that sees the release, without another round trip to memory.
INLINE u64 *slot_word(PromoteSlot *s) { return (u64 *)&s->state; }
INLINE void slot_or(PromoteSlot *s, u64 bits) { __nvvm_atom_or_gen_ll((long long *)slot_word(s), (long long)bits); }
// The same as a release: what the calling thread wrote (or saw) before comes before it. One instruction where a
// fence and a relaxed atomic were two: a hop between two blocks of 512 threads that wrote 16 words each took
// 1.25 us against 1.46 on an H200 (BENCHMARKS.md, nineteenth session).
INLINE void slot_or_release(PromoteSlot *s, u64 bits) {
  u64 old;
  asm volatile("atom.release.gpu.or.b64 %0, [%1], %2;" : "=l"(old) : "l"(slot_word(s)), "l"(bits) : "memory");
}
INLINE u64 load_acquire(const u64 *p) {
  u64 v;
  asm volatile("ld.acquire.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
INLINE PromoteSlot *pool_link(PromotePool *p, u32 i) {
  return (PromoteSlot *)((char *)p + POOL_HEADER + (u64)i * p->stride);
}

// The pool state of the running block: its pool (null in the host's form), its logical index, the slot it
// releases at its end (its successor's), and its count of threads that have returned.
struct PromotePoolBlock {
  Chunk *own;
  PromoteSlot *next;
  u32 index;
  u32 last;
  u32 exited;
  u32 threads;
  u32 released;  // the successor was released at the launch site (not again at the block's end)
};
SHARED PromotePoolBlock klap_pool_block;

// The block is done with its pool's record; the last of the pool's blocks gives the record back.
INLINE void pool_finish(Chunk *c) {
  PromotePool *p = pool_of(c);
  u32 size = p->size;
  fence();
  if ((u32)__nvvm_atom_add_gen_i((int *)&p->finished, 1) + 1 == size)
    chunk_free(c);
}

// The record of a pool of `size` links with `arg_bytes` bytes of arguments each, all slots unreleased;
// null where the pool has no room (the launch is then made as written).
DEVICE Chunk *__klap_pool_alloc(u32 size, u32 arg_bytes) {
  if (arg_bytes > PROMOTE_ARGS_MAX || size == 0 || size > (1u << 16))
    return 0;
  u32 stride = 16 + ((arg_bytes + 15) & ~15u);
  u32 bytes = POOL_HEADER + size * stride;
  // Small slabs where at most 64 of them hold the record, else large ones (at most 8).
  u32 small = slabs_for(1, bytes, SMALL_SLAB, 65);
  u32 large = small > 64;
  Chunk *c = chunk_alloc(large, large ? slabs_for(1, bytes, LARGE_SLAB, 8) : small, bytes, 0);
  if (!c)
    return 0;
  PromotePool *p = pool_of(c);
  p->ticket = 0;
  p->abort = 0;
  p->finished = 0;
  p->size = size;
  p->stride = stride;
  for (u32 i = 0; i < size; ++i)
    *slot_word(pool_link(p, i)) = 0;
  // The launch that follows makes these writes visible to the pool's blocks.
  return c;
}

// Thread 0: waits until slot `s` has one of the `ready` bits or the pool is aborted, then copies the
// slot's arguments (`arg_bytes`) into shared memory; `word` gets the slot's argument word. Returns whether
// the link runs: not where the pool was aborted, nor where the link before ended without reaching its
// launch (DONE without TAKEN; it then sets the abort flag). Once `abort` is set no slot after the one that
// set it is ever released.
INLINE u32 pool_wait_slot(PromotePool *p, PromoteSlot *s, u32 ready, u32 arg_bytes, u32 *word) {
  // Both loads of a poll go out together: testing `abort` only once the slot's load had come back made
  // every poll two round trips to memory, and the release waited for up to two of them to be seen.
  // The slot's load is an acquire (what the releasing link wrote comes after it), issued after the abort flag's
  // so that both are in flight at once (an acquire holds back the loads after it, not those before).
  u64 both;
  for (;;) {
    u32 aborted = load_relaxed(&p->abort);
    both = load_acquire(slot_word(s));
    if (((u32)both & ready) || aborted)
      break;
  }
  u32 state = (u32)both;
  *word = (u32)(both >> 32);
  u32 go = (state & ready) && !((state & PROMOTE_DONE) && !(state & PROMOTE_TAKEN));
  if (go) {
    u32 words = (arg_bytes < PROMOTE_ARGS_MAX ? arg_bytes : PROMOTE_ARGS_MAX) / 4 + (arg_bytes % 4 != 0);
    for (u32 k = 0; k < words; ++k)
      ((u32 *)klap_promote_args)[k] = ((const u32 *)s->args)[k];
  } else {
    store_relaxed(&p->abort, 1u);
  }
  return go;
}

// Every thread of a pool's block, at its start: thread 0 takes the block's logical index, waits for the
// link before it to be `ready`, copies its arguments into shared memory; the index is broadcast through
// shared memory before any thread goes on. Returns where the arguments are, or null where the chain ended
// before this link (the block is counted finished and ends).
INLINE char *pool_enter(Chunk *c, u32 arg_bytes, u32 ready) {
  if (tid_linear() == 0) {
    PromotePool *p = pool_of(c);
    u32 i = (u32)__nvvm_atom_add_gen_i((int *)&p->ticket, 1);
    u32 word;
    u32 go = pool_wait_slot(p, pool_link(p, i), ready, arg_bytes, &word);
    klap_pool_block.own = c;
    klap_pool_block.index = i;
    klap_pool_block.last = i + 1 == p->size;
    klap_promote_go = go;
    if (!go)
      pool_finish(c);
  }
  __syncthreads();
  return klap_promote_go ? klap_promote_args : 0;
}

// Without overlap: the link before has ended (DONE).
DEVICE char *__klap_pool_enter(Chunk *c, u32 arg_bytes) { return pool_enter(c, arg_bytes, PROMOTE_DONE); }

// ---- with overlap (KLAP section III-C) ------------------------------------------------------------------
// A link runs its prologue (what needs nothing from the link before) between two waits: at its start for
// the arguments known at the start of the link before (EARLY, published there), where its prologue ends for
// the end of the link before (DONE) and the arguments computed then. The argument against deadlock is the
// same as without overlap: each wait is for the link with the index before, already running.

// At the start: waits for the early arguments (or the end) of the link before.
DEVICE char *__klap_pool_enter_early(Chunk *c, u32 arg_bytes) {
  return pool_enter(c, arg_bytes, PROMOTE_DONE | PROMOTE_EARLY);
}

// Where thread 0 stores the successor's early arguments: the slot's arguments in thread 0 where there is
// a successor slot, else null.
DEVICE char *__klap_pool_early_args(PromoteSlot *s) { return s && tid_linear() == 0 ? s->args : 0; }

// Thread 0, once it has stored them: releases the early arguments (a release: its stores come before).
DEVICE void __klap_pool_publish(PromoteSlot *s) {
  slot_or_release(s, PROMOTE_EARLY);
}

// Every thread where the prologue ends: thread 0 waits for the end of the link before and copies the
// arguments again, now with those computed at its end. Returns where they are, or null where the chain
// ended before this link: the block then releases its successor without a launch (DONE without TAKEN:
// the successor, or the first link of the pool this block launched, ends too) and is counted finished.
// `word_at` (below PROMOTE_ARGS_MAX): the late arguments are the slot's argument word only, released with
// the state (__klap_pool_release_word); it goes to that offset of the arguments, and nothing is copied.
INLINE char *pool_wait(u32 arg_bytes, u32 word_at) {
  if (tid_linear() == 0) {
    Chunk *c = klap_pool_block.own;
    PromotePool *p = pool_of(c);
    u32 word;
    u32 packed = word_at < PROMOTE_ARGS_MAX;
    u32 go = pool_wait_slot(p, pool_link(p, klap_pool_block.index), PROMOTE_DONE, packed ? 0 : arg_bytes, &word);
    klap_promote_go = go;
    if (go && packed)
      *(u32 *)(klap_promote_args + word_at) = word;
    if (!go) {
      if (klap_pool_block.next)
        slot_or(klap_pool_block.next, PROMOTE_DONE);
      pool_finish(c);
    }
  }
  __syncthreads();
  return klap_promote_go ? klap_promote_args : 0;
}

DEVICE char *__klap_pool_wait(u32 arg_bytes) { return pool_wait(arg_bytes, PROMOTE_ARGS_MAX); }

// Where the one late argument (32 bits at most) comes in the slot's argument word: it is stored at
// `offset` of the arguments.
DEVICE char *__klap_pool_wait_word(u32 offset) { return pool_wait(0, offset); }

// Whether the running block of a pool holds the pool's last logical index (it launches the next pool).
ACCESSOR bool __klap_pool_last() { return klap_pool_block.last != 0; }

// Every thread, at the start: `own` is the block's pool (null in the host's form), `launched` the pool
// that thread 0 launched (or null). Returns the slot this block releases at its end, for all: the next
// link's in its own pool, else slot 0 of the pool it launched, else null (no successor: the launch site,
// if reached, launches as written).
DEVICE PromoteSlot *__klap_pool_share(Chunk *own, Chunk *launched) {
  if (tid_linear() == 0) {
    PromoteSlot *next = launched ? pool_link(pool_of(launched), 0) : 0;
    if (own) {
      PromotePool *p = pool_of(own);
      if (klap_pool_block.index + 1 < p->size)
        next = pool_link(p, klap_pool_block.index + 1);
    }
    klap_pool_block.own = own;
    klap_pool_block.next = next;
    klap_pool_block.exited = 0;
    klap_pool_block.threads = block_thread_count();
    klap_pool_block.released = 0;
  }
  __syncthreads();
  return klap_pool_block.next;
}

// The thread that reaches the launch site: where to store the successor's arguments, or null where there
// is no successor slot or another thread took it first (the launch is then made as written).
DEVICE char *__klap_pool_take(PromoteSlot *s) {
  if (!s)
    return 0;
  u64 old = (u64)__nvvm_atom_or_gen_ll((long long *)slot_word(s), (long long)PROMOTE_TAKEN);
  return (old & PROMOTE_TAKEN) ? 0 : s->args;
}

// The thread at a launch into the NULL or fire-and-forget stream, once it has stored the successor's
// arguments: releases the successor there, as the launch would have let it start there (the fence orders
// this thread's writes before; the block's later writes are not waited for, as the launch did not wait).
// The slot is not touched again by this block: the pool it belongs to may be done and freed before this
// block ends. `value`: where the late arguments are one value of 32 bits at most, it, released in the
// slot's argument word in the same atomic as the state (__klap_pool_wait_word takes it); else 0.
DEVICE void __klap_pool_release_word(char *args, u32 value) {
  PromoteSlot *s = (PromoteSlot *)(args - __builtin_offsetof(PromoteSlot, args));
  slot_or_release(s, ((u64)value << 32) | PROMOTE_TAKEN | PROMOTE_DONE);
  klap_pool_block.released = 1;
}

// The same where the late arguments went through the slot's arguments.
DEVICE void __klap_pool_release(char *args) { __klap_pool_release_word(args, 0); }

// The launch site's take where only one thread of the block can reach it (the pass proved it) and the
// release follows at once (__klap_pool_release marks the slot taken): no atomic, one round trip to memory
// less on the chain's critical path.
DEVICE char *__klap_pool_take_lone(PromoteSlot *s) { return s ? s->args : 0; }

// Every thread at its return: counted out of the block; the last one releases the successor where the
// launch site did not (after a fence, so that the whole block's writes come before the release) and then
// counts the block finished in its pool.
DEVICE void __klap_pool_exit(PromoteSlot *s) {
  Chunk *own = klap_pool_block.own;
  if (!s && !own)
    return;
  if (!last_to_exit(&klap_pool_block.exited, klap_pool_block.threads))
    return;
  if (s && !klap_pool_block.released)
    slot_or(s, PROMOTE_DONE);
  if (own)
    pool_finish(own);
}
