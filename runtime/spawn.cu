// SPAWN's controller in software (Tang et al., HPCA 2017, Algorithm 1; transform/serialize.rs with
// -klap-spawn): at each launch of a child the launching thread could run itself, whether it does, from
// what is known of the child work in flight. SPAWN models the hardware's queue of child blocks as a
// server: a launched child finishes after the launch's overhead plus the blocks queued before it and its
// own, over the blocks that run at once (Equation 1); run in the parent, it takes its threads one after
// another (Equation 2). The lower estimate wins.
//
// What SPAWN reads from the hardware's grid management unit is counted here in software: the child
// blocks registered into records (one atomic per registering warp), a sample of the aggregated blocks
// (one in SPAWN_SAMPLE) timed and counted as finished, and a sample of the serialized runs timed per
// child thread. Times are in clock64 cycles, each measured within one thread or one block (one
// multiprocessor's clock).
#include "klap_rt.h"

// Set by the pass (-klap-spawn): registrations count the blocks they queue, aggregated children time a
// sample of their blocks.
extern "C" GLOBAL_VAR u32 klap_spawn;

// One copy per translation unit, like the pool. Read with relaxed loads, added to with relaxed atomics:
// the controller's estimate needs no order, and a stale value costs one decision.
struct SpawnState {
  u64 block_cycles, blocks_timed;   // sampled aggregated blocks: their time in all, their number
  u64 thread_cycles, threads_timed; // sampled serialized runs: their time in all, their child threads
  u64 queued, finished;             // child blocks registered; finished (SPAWN_SAMPLE a sampled block)
};
GLOBAL_VAR SpawnState klap_spawn_state;
// The aggregated block's start, where this block samples it (else 0).
SHARED u64 klap_spawn_started;

enum { SPAWN_SAMPLE = 16 };

INLINE u64 cycles() { return __nvvm_read_ptx_sreg_clock64(); }
INLINE void add(u64 *p, u64 v) { asm volatile("red.relaxed.gpu.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory"); }

HELPER void spawn_queued(u32 blocks) {
  if (klap_spawn)
    add(&klap_spawn_state.queued, blocks);
}

// By thread 0, at the entry of aggregated block b (before the barrier that publishes the block's record).
HELPER void spawn_block_start(u32 b) {
  if (klap_spawn)
    klap_spawn_started = b % SPAWN_SAMPLE == 0 ? cycles() : 0;
}

// By the thread that completes the block's exit count.
HELPER void spawn_block_end() {
  if (!klap_spawn || !klap_spawn_started)
    return;
  add(&klap_spawn_state.block_cycles, cycles() - klap_spawn_started);
  add(&klap_spawn_state.blocks_timed, 1);
  add(&klap_spawn_state.finished, SPAWN_SAMPLE);
}

// Whether the launching thread runs the child itself: `threads` working threads in `blocks` blocks of
// `block_threads`. Until a child block has been timed, `until_timed` (the thresholds' answer) holds: SPAWN
// launches until it has measured, which would launch every child of a program's first grid, whose children
// run only after it at grid granularity.
DEVICE bool __klap_spawn_serial(u64 threads, u64 blocks, u32 block_threads, bool until_timed, u64 launch_cycles) {
  SpawnState *s = &klap_spawn_state;
  u64 block_cycles = load_relaxed(&s->block_cycles), blocks_timed = load_relaxed(&s->blocks_timed);
  u64 thread_cycles = load_relaxed(&s->thread_cycles), threads_timed = load_relaxed(&s->threads_timed);
  u64 queued = load_relaxed(&s->queued), finished = load_relaxed(&s->finished);
  if (!blocks_timed)
    return until_timed;
  // Until a serialized run is timed, SPAWN's own estimate: a child thread run in the parent takes about as
  // long as a child warp, whose time is its block's (the block's warps run together).
  u64 per_block = block_cycles / blocks_timed, per_thread = threads_timed ? thread_cycles / threads_timed : per_block;
  u64 pending = queued > finished ? queued - finished : 0;
  // The blocks a multiprocessor holds, by their threads (2,048 a multiprocessor, 32 blocks at most).
  u32 per_sm = block_threads ? 2048 / block_threads : 32;
  per_sm = per_sm < 1 ? 1 : per_sm > 32 ? 32 : per_sm;
  u64 at_once = (u64)__nvvm_read_ptx_sreg_nsmid() * per_sm;
  u64 launched = launch_cycles + (pending + blocks) * per_block / at_once;
  return threads * per_thread < launched;
}

// Around a serialized run of `threads` child threads: its start where this run is sampled (about one in
// SPAWN_SAMPLE, by the clock's low bits), else 0; then its time counted.
DEVICE u64 __klap_spawn_run_start() {
  u64 now = cycles();
  return now % SPAWN_SAMPLE == 0 ? now | 1 : 0;
}
DEVICE void __klap_spawn_run_end(u64 started, u64 threads) {
  if (!started || !threads)
    return;
  add(&klap_spawn_state.thread_cycles, cycles() - started);
  add(&klap_spawn_state.threads_timed, threads);
}
