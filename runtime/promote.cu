// Kernel launch promotion (pass/src/transform/promote.rs): a one-block kernel that launches itself at the
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
// promises, so the promoted chain allows no schedule the original did not.
#include "klap_rt.h"

enum : u32 { PROMOTE_TAKEN = 1u, PROMOTE_DONE = 2u };
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

// The thread that launches the next instance at the start of the kernel.
ACCESSOR bool __klap_promote_leader() { return tid_linear() == 0; }

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
    klap_promote.threads =
        __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_ntid_z();
  }
  __syncthreads();
  return klap_promote.next;
}

// The thread that reaches the launch site: where to store the postponed arguments, or null where there is
// no slot or another thread took it first (that thread's launch is made as written).
DEVICE char *__klap_promote_take(Chunk *c) {
  if (!c)
    return 0;
  PromoteSlot *s = promote_slot(c);
  u32 old = (u32)__nvvm_atom_or_gen_i((int *)&s->state, (int)PROMOTE_TAKEN);
  return (old & PROMOTE_TAKEN) ? 0 : s->args;
}

// Every thread at its return: counted out of the block; the last one releases the child. Each thread's
// fence orders its own writes before the count, the warp's barrier before its leader's atomic, and the
// last thread's fence the whole block's writes before DONE.
DEVICE void __klap_promote_exit(Chunk *c) {
  if (!c)
    return;
  fence();
  u32 mask = active_mask();
  __nvvm_bar_warp_sync(mask);
  if (lane_id() != (u32)__builtin_ctz(mask))
    return;
  u32 n = __builtin_popcount(mask);
  if ((u32)__nvvm_atom_add_gen_i((int *)&klap_promote.exited, (int)n) + n != klap_promote.threads)
    return;
  fence();
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
