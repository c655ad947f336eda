// The scopes a launch is aggregated over. A warp scope is the lanes that reach a launch together:
// the lowest claims a chunk for them and, once every lane has written its record, launches. A block
// or grid scope holds a chain of chunks per group of launch sites (same child, same stream class)
// (register.cu); its chunks are launched by the thread that completes the scope's exit count.
#include "klap_rt.h"

// ---- warp granularity, launched where it is reached -------------------------------------------
//
// No lane waits for a lane outside the step it is in. The lanes that reach a launch together claim a
// chunk together and take their records, each step among the lanes active at that step; then each
// writes its record (or, without one, launches as written) and arrives, and the lane whose arrival
// completes the count launches. (The first form launched after a barrier of all those lanes, which
// waited for lanes that were launching as written.) In kernels, launches made here hung in either
// form, in loops, beside tail launches and (fuzz cases 220-26, 327-8) with neither: at warp granularity
// every launching kernel takes a warp scope (below), and this path is left to device functions that no
// kernel's scope takes.

// `record_size` carries COUNT_THREADS as a scope's group does: a child with a grid scope of its own
// waits for the threads its chunk counts, whichever path registered them (a warp chunk that did not
// count left that scope waiting for ever, and the child's own launches were never made).
DEVICE Chunk *__klap_warp_chunk(u32 record_size) {
  u32 mask = active_mask();
  u32 lanes = __builtin_popcount(mask);
  // A lane alone has nothing to aggregate: it launches as written.
  if (lanes == 1)
    return 0;
  u32 leader = __builtin_ctz(mask);
  u32 size = record_size & ~COUNT_THREADS;
  Chunk *c = chunk_alloc_together(mask, slabs_for(lanes, size, SMALL_SLAB, 64), size, (record_size & COUNT_THREADS) != 0);
  if (c)
    c->arrivals = lanes;
  return (Chunk *)shfl_u64(mask, (u64)c, leader);
}

// Once the calling lane has written its record (or launched on its own): true in the one lane whose
// arrival completes the chunk's count, which launches it. The lanes arriving together are counted by
// one atomic, after a barrier of just those lanes (all at this step) that orders their records before
// it.
DEVICE bool __klap_warp_arrive(Chunk *c) {
  if (!c)
    return false;
  u32 peers = __nvvm_match_any_sync_i64(active_mask(), (long long)c);
  __nvvm_bar_warp_sync(peers);
  if (lane_id() != (u32)__builtin_ctz(peers))
    return false;
  u32 n = __builtin_popcount(peers);
  fence();
  return __nvvm_atom_add_gen_i((int *)&c->arrivals, -(int)n) == (int)n;
}

// ---- block and grid scopes ---------------------------------------------------------------------

SHARED Scope klap_block_scope;

// A grid launched as written (from the host, or a launch that was not aggregated) finds its scope in
// this table, keyed by %gridid (unique per launch). A grid's blocks must all find the one entry its
// first block set up: a block that set up a second would leave both scopes short of their exit count
// and their launches would never be made. So lookups scan a whole window of GRID_WINDOW entries (holes
// left by finished grids do not end the search), and an entry is only taken under klap_grid_lock,
// after looking again. The window is larger than the 128 grids a GPU runs at once (sm_90), so a grid
// always finds a free entry in it. The keys are apart from the entries, so that a warp reads a window's
// keys in a few coalesced loads.
enum { GRID_TABLE = 1024, GRID_WINDOW = 256 };
static_assert(GRID_WINDOW % 32 == 0, "a full warp searches the window in whole rows");
struct GridEntry {
  u64 ready;
  Scope scope;
};
GLOBAL_VAR u64 klap_grid_keys[GRID_TABLE];
GLOBAL_VAR GridEntry klap_grid_table[GRID_TABLE];
GLOBAL_VAR u32 klap_grid_lock;

SHARED Scope *klap_scope_ptr;
// In a grid of one warp, the lanes that have made their first launch (as written).
SHARED u32 klap_first_launched;

// In a grid of one warp (Scope::first_launches_as_written): whether this is the calling thread's first
// launch, which it then makes as written.
HELPER bool first_launch() {
  u32 bit = 1u << lane_id();
  return !(__nvvm_atom_or_gen_i((int *)&klap_first_launched, (int)bit) & bit);
}

// A grid scope's exits are counted per block first (klap_block_exits: exits in the low half, those of
// groups with a registering lane in the high half). A group with a registering lane adds itself to the
// scope at once: the registration's fence released its records, and its own atomic carries that
// release. The warp that completes the block's count adds the others, which release nothing, without a
// fence. (One atomic per warp on the scope's one counter queued: qt's blocks, four warps each and one
// launching thread, waited there once the fences at exit were gone; a fence in each block's last warp
// instead cost amr 7% to 10%: BENCHMARKS.md, thirteenth session.) The count is one 32-bit word (a
// block has at most 1024 threads, so each half holds its count). A 64-bit add to shared memory is a
// compare-and-swap loop on sm_90 (ATOMS.CAST.SPIN.64): qt's aggregated child took two rounds of it a
// warp on average, 23 of its 241 instructions a warp (ncu source counters, H200, eighteenth session); a
// 32-bit add is one ATOMS.ADD.
SHARED u32 klap_block_exits;
constexpr u32 REGISTERED_SHIFT = 16, EXITS_MASK = (1u << REGISTERED_SHIFT) - 1;
// Per warp of the block, the lanes that registered a record (set by __klap_record_written_in_block).
SHARED u32 klap_registered_lanes[32];
// At the entry of a block whose grid scope is counted per block, by every thread, before the entry's
// barrier (the grid scope's, or in an aggregated child its record lookup's).
ACCESSOR void __klap_grid_exits_reset() {
  u32 t = tid_linear();
  if (t == 0)
    klap_block_exits = 0;
  if (t < 32)
    klap_registered_lanes[t] = 0;
}

INLINE u32 block_threads() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_ntid_z();
}
INLINE u64 grid_blocks() {
  return (u64)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_nctaid_y() * __nvvm_read_ptx_sreg_nctaid_z();
}

HELPER void setup_scope(Scope *s, u32 groups, const u32 *sizes, u32 large, u64 warps, u32 in_table) {
  for (u32 g = 0; g < MAX_GROUPS; ++g) {
    s->head[g] = 0;
    s->current[g] = g < groups ? 0 : NO_CHUNK;
    s->record_size[g] = sizes[g];
  }
  s->large = large;
  s->in_table = in_table;
  s->warps = warps;
  s->threads_done = 0;
  s->first_launches_as_written = 0;
  s->block_only = 0;
  s->blocks_entered = 0;
  s->threads_at_end = 0;
}

// Block scope: call at kernel entry, by every thread.
DEVICE Scope *__klap_block_enter(u32 groups, u32 size0, u32 size1, u32 size2, u32 size3, u32 size4, u32 size5, u32 size6,
                                  u32 size7) {
  if (tid_linear() == 0) {
    u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3, size4, size5, size6, size7};
    setup_scope(&klap_block_scope, groups, sizes, 0, (block_threads() + 31) / 32, 0);
  }
  __syncthreads();
  return &klap_block_scope;
}

// Warp scopes: at warp granularity, a launching kernel gathers each warp's launches in a scope of the
// warp's own, launched by the warp's last thread to return, as a block scope is by the block's.
// Launched where they are reached instead (the warp path above), warps hung inside the device runtime:
// test/gpu/divergent_loop at 300 and at 3,000 parent threads, NULL-stream and fire-and-forget launches
// alike, and fuzz cases without loops; cuda-gdb on an H200 showed lanes stopped in the driver's
// cudaGetParameterBufferV2 with no child grid running, their warp-mates at convergence barriers and at
// yield points of the runtime's loops, none of them moving in 3 seconds. A hand-written
// warp-synchronous step beside device launches in the same divergent loop (no klap) did not hang.
SHARED Scope klap_warp_scopes[32];

// Warp scope: call at kernel entry (in an aggregated child: after its record lookup), by every thread.
// `threads`: the threads of the block that take part (in a variant, those serving its record).
DEVICE Scope *__klap_warp_enter(u32 threads, u32 groups, u32 size0, u32 size1, u32 size2, u32 size3, u32 size4,
                                 u32 size5, u32 size6, u32 size7) {
  u32 warp = tid_linear() / 32;
  Scope *s = &klap_warp_scopes[warp];
  if (lane_id() == 0) {
    u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3, size4, size5, size6, size7};
    setup_scope(s, groups, sizes, 0, 1, 0);
    u32 rest = threads - warp * 32;
    s->threads = rest < 32 ? rest : 32;
  }
  __nvvm_bar_warp_sync(active_mask());
  return s;
}

// The threads a warp scope's exit count waits for.
ACCESSOR u64 __klap_warp_scope_threads(Scope *s) { return s->threads; }

// The entry of grid `g` in the window starting at `h`, searched by the lanes of `mask`; or null. A grid
// has at most one entry (taken under the lock), so any hit is it. A full warp issues all its loads of
// the window before it waits for any: a search that finds nothing (every block of a grid at its start,
// before the first has set the entry up) takes one round trip to memory, not one per 32 keys (eight
// in a row cost gc's parents about a fifth of their time at entry, measured with ncu on an H200).
INLINE GridEntry *grid_lookup(u64 g, u32 h, u32 mask) {
  u32 lanes = __builtin_popcount(mask), rank = __builtin_popcount(mask & lanemask_lt());
  if (lanes == 32) {
    constexpr u32 PER_LANE = GRID_WINDOW / 32;
    u64 keys[PER_LANE];
#pragma unroll
    for (u32 k = 0; k < PER_LANE; ++k)
      keys[k] = load_relaxed(&klap_grid_keys[(h + rank + 32 * k) % GRID_TABLE]);
    u32 found = GRID_WINDOW;
#pragma unroll
    for (u32 k = 0; k < PER_LANE; ++k)
      if (keys[k] == g)
        found = rank + 32 * k;
    u32 hits = __nvvm_vote_ballot_sync(mask, found < GRID_WINDOW);
    if (!hits)
      return 0;
    return &klap_grid_table[(h + shfl_idx(mask, found, __builtin_ctz(hits))) % GRID_TABLE];
  }
  for (u32 base = 0; base < GRID_WINDOW; base += lanes) {
    u32 i = base + rank;
    bool hit = i < GRID_WINDOW &&
               load_relaxed(&klap_grid_keys[(h + i) % GRID_TABLE]) == g;
    u32 hits = __nvvm_vote_ballot_sync(mask, hit);
    if (hits)
      return &klap_grid_table[(h + shfl_idx(mask, i, __builtin_ctz(hits))) % GRID_TABLE];
  }
  return 0;
}

// Under klap_grid_lock: takes a free entry of the window for grid `g` and sets its scope up.
INLINE GridEntry *grid_claim(u64 g, u32 h, u32 groups, const u32 *sizes) {
  for (u32 i = 0; i < GRID_WINDOW; ++i) {
    u32 slot = (h + i) % GRID_TABLE;
    if (load_relaxed(&klap_grid_keys[slot]) != 0)
      continue;
    GridEntry *e = &klap_grid_table[slot];
    setup_scope(&e->scope, groups, sizes, 1, grid_blocks() * ((block_threads() + 31) / 32), 1);
    fence();
    store_relaxed(&klap_grid_keys[slot], g);
    fence();
    store_relaxed(&e->ready, 1);
    return e;
  }
  return 0;
}

// The table entry of the calling block's grid, found or set up by warp 0 (`mask` its threads).
INLINE Scope *grid_table_scope(u32 groups, const u32 *sizes, u32 mask) {
  u64 g = grid_id() + 1;
  u32 h = (u32)((g * 0x9E3779B97F4A7C15ull) >> 54) % GRID_TABLE;
  bool leader = lane_id() == (u32)__builtin_ctz(mask);
  for (u32 wait = 32;; wait = wait < 1024 ? 2 * wait : wait) {
    GridEntry *e = grid_lookup(g, h, mask);
    if (!e) {
      u32 locked = leader && cas_acquire(&klap_grid_lock, 0u, 1u) == 0;
      if (__nvvm_vote_ballot_sync(mask, locked)) {
        e = grid_lookup(g, h, mask);
        bool claimed = !e && leader;
        if (claimed) {
          e = grid_claim(g, h, groups, sizes);
          if (!e)
            error("klap: error: no free grid table entry among %u (at most %u grids run at once)\n", GRID_WINDOW, 128);
        }
        if (leader) {
          fence();
          store_relaxed(&klap_grid_lock, 0);
        }
        e = (GridEntry *)shfl_u64(mask, (u64)e, __builtin_ctz(mask));
        // The grid's first block frees the large slabs of finished chunks before the grid registers
        // (where fewer than half are free). Only launches did, and a grid scope launches at its grid's
        // end, so a grid that came after one whose chunks filled the pool found no room for any
        // registration, made every launch as written and lost those beyond the device runtime's 2,048
        // pending (reuse_gap.cu, 8,000 blocks of 256 threads at grid granularity: 2,045,952 of
        // 2,048,000 child blocks; BENCHMARKS.md, twenty-fourth session).
        if (claimed)
          reclaim_large_if_short();
        return e ? &e->scope : 0;
      }
      __nvvm_nanosleep(wait);
      continue;
    }
    while (load_relaxed(&e->ready) == 0)
      ;
    fence();
    return &e->scope;
  }
}

// Grid scope: at kernel entry, by every thread. A one-block grid's scope is the block's, with no table
// lookup (ccl's parents are one block of 2 threads: 2 lanes to scan a window). So is, where `per_block`
// asks (the pass's flags, at auto):
// - PER_BLOCK_IF_SMALL_GRID: a small grid's (at most SMALL_GRID_THREADS), where every launch is what
//   serialization left for children above its threshold. There most children were serialized, few
//   launches are left to gather, and the grid-wide scope (the table search, the grid-wide exit count)
//   cost more than gathering them per grid gained (gc's 8 blocks, mstf's and mstv's 4: 1.02x to 1.12x
//   faster per block on an H100, BENCHMARKS.md, fourteenth session).
// - PER_BLOCK_IF_LARGE_BLOCKS: a grid of blocks of at least LARGE_BLOCK_THREADS threads. Such a block
//   gathers up to that many launches by itself, and its children start when it ends instead of when
//   the grid does (bfs's 1024-thread parents: 0.405 ms against 0.430 with the grid's scope, block
//   granularity 0.398; mstv 0.473 against 0.501; H200, BENCHMARKS.md, seventeenth session). Only
//   where the first chunks of all its blocks take at most an eighth of the chunks of their size the
//   pool's small slabs hold (a chunk's slabs are adjacent within one 64-slab bitmap word, so a word
//   holds two of bfs's 22-slab chunks; chunks whose children ended are freed only when a launch or an
//   allocation that found no room asks, so the levels before hold theirs): on bfs's larger inputs
//   (645,961 frontier vertices, 631 such blocks) the pool ran out, and the launches it could not take
//   were made as written, 40 times slower than with the grid's scope (168 against 4.2 ms); with half
//   the pool's chunks allowed, one run in three still did (H200, BENCHMARKS.md, twenty-first session).
// (An aggregated child's grid scope is in its chunk, set up by its launch: __klap_child_grid_scope.)
INLINE bool block_chunks_fit(u32 groups, const u32 *sizes) {
  u32 widest = 1;
  for (u32 g = 0; g < groups; ++g) {
    u32 slabs = slabs_for(block_threads(), sizes[g] & ~(COUNT_THREADS | READY_FLAGS), SMALL_SLAB, 64);
    widest = slabs > widest ? slabs : widest;
  }
  u64 chunks = (u64)(pool_small_slabs() / 64) * (64 / widest);
  return grid_blocks() * groups <= chunks / 8;
}

INLINE Scope *grid_enter(u32 groups, const u32 *sizes, u32 per_block) {
  // Warp 0 decides and sets the scope up; the others only wait for it (a 1024-thread block's other 31 warps
  // evaluated block_chunks_fit for nothing).
  if (tid_linear() < 32) {
    bool one_block = grid_blocks() == 1;
    bool small = (per_block & PER_BLOCK_IF_SMALL_GRID) && grid_blocks() * block_threads() <= SMALL_GRID_THREADS;
    bool large_blocks = (per_block & PER_BLOCK_IF_LARGE_BLOCKS) && block_threads() >= LARGE_BLOCK_THREADS &&
                        block_chunks_fit(groups, sizes);
    if (one_block || small || large_blocks) {
      if (tid_linear() == 0) {
        setup_scope(&klap_block_scope, groups, sizes, one_block, (block_threads() + 31) / 32, 0);
        klap_block_scope.block_only = !one_block;
        // A grid of one warp has at most one launch per thread to gather where its threads launch once:
        // fewer than an aggregated launch and its child's record lookup are worth (ccl's 2-thread parents
        // launch one child each: 1.13x faster as written than aggregated on an H200, BENCHMARKS.md,
        // fourteenth session). So each thread's first launch is made as written, and only the later
        // ones of a thread that launches again (in a loop) are gathered.
        if (one_block && block_threads() <= 32) {
          klap_block_scope.first_launches_as_written = 1;
          klap_first_launched = 0;
        }
        klap_scope_ptr = &klap_block_scope;
      }
    } else {
      Scope *s = grid_table_scope(groups, sizes, active_mask());
      if (tid_linear() == 0) {
        klap_scope_ptr = s;
        if (s && (per_block & COUNT_ENTERED))
          __nvvm_atom_add_gen_i((int *)&s->blocks_entered, 1);
      }
    }
  }
  __syncthreads();
  return klap_scope_ptr;
}

DEVICE Scope *__klap_grid_enter(u32 groups, u32 size0, u32 size1, u32 size2, u32 size3, u32 size4, u32 size5, u32 size6,
                                 u32 size7) {
  u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3, size4, size5, size6, size7};
  return grid_enter(groups, sizes, 0);
}

// `per_block`: PER_BLOCK_IF_SMALL_GRID and PER_BLOCK_IF_LARGE_BLOCKS, as grid_enter says.
DEVICE Scope *__klap_grid_enter_per_block(u32 per_block, u32 groups, u32 size0, u32 size1, u32 size2, u32 size3,
                                          u32 size4, u32 size5, u32 size6, u32 size7) {
  u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3, size4, size5, size6, size7};
  return grid_enter(groups, sizes, per_block);
}

// After a registration's record is written, by the registering thread: releases the record (and what
// the thread saw before its launch) to the thread whose exit completes the scope, whose count this
// thread's exit adds to after the fence.
ACCESSOR void __klap_record_written() { fence_release(); }

// As __klap_record_written, in a grid scope counted per block (__klap_grid_scope_exit): the lane is
// marked, so that its warp counts itself into the scope at its exit.
ACCESSOR void __klap_record_written_in_block() {
  fence_release();
  __nvvm_atom_or_gen_i((int *)&klap_registered_lanes[tid_linear() / 32], (int)(1u << lane_id()));
}

// The threads a scope's exit count waits for: `expected` (the pass's: the block's or the grid's), or in
// a small grid's scope, each block's own, the block's.
INLINE u64 expected_exits(Scope *s, u64 expected) { return s && s->block_only ? block_threads() : expected; }

// The exit count of a scope, by every thread that ran: the lowest of the lanes exiting together adds
// what `add` gives for them (nothing where 0) to the scope's count; true in that lane alone where the
// count reaches `expected`.
template <class Add> INLINE bool count_exit(Scope *s, u64 expected, Add add) {
  if (!s)
    return false;
  u32 mask = active_mask();
  // The calling lane is in it.
  __builtin_assume(mask != 0);
  u32 leader = __builtin_ctz(mask);
  u32 last = 0;
  if (lane_id() == leader) {
    u64 mine = add(mask);
    if (mine) {
      u64 before = __nvvm_atom_add_gen_ll((long long *)&s->threads_done, (long long)mine);
      last = before + mine == expected;
    }
  }
  last = shfl_idx(mask, last, leader);
  // Only the leader's lane can be the last; hand the role to it alone.
  return last && lane_id() == leader;
}

// At kernel exit, by every thread that ran (one atomic per warp): true in the one thread that completes
// the scope's `expected` threads; that thread then launches each group's chunks. No fence first: what a
// child may see of its parent thread (what that thread saw before its launch) the registration released
// (__klap_record_written); a fence here, in every warp, stalled qt's blocks on their way out.
DEVICE bool __klap_scope_exit(Scope *s, u64 expected) {
  return count_exit(s, expected_exits(s, expected), [](u32 mask) { return (u64)__builtin_popcount(mask); });
}

// A grid scope's exit, by every thread that ran: as __klap_scope_exit, counted per block first
// (klap_block_exits). `block_threads`: the threads of the block that take part.
DEVICE bool __klap_grid_scope_exit(Scope *s, u64 expected, u64 block_threads) {
  return count_exit(s, expected_exits(s, expected), [&](u32 mask) {
    u32 n = __builtin_popcount(mask);
    u32 direct = (klap_registered_lanes[tid_linear() / 32] & mask) ? n : 0;
    u32 before = __nvvm_atom_add_gen_i((int *)&klap_block_exits, (int)(n | direct << REGISTERED_SHIFT));
    u64 mine = direct;
    if ((before & EXITS_MASK) + n == block_threads)
      mine += block_threads - ((before >> REGISTERED_SHIFT) + direct);
    return mine;
  });
}

// ---- the scope of the kernel a device function's launch runs in -------------------------------
//
// A launch in a device function joins the scope of the kernel (or aggregated child) running it, where
// that kernel shares its scope: made where it is reached instead, beside launches that wait for the
// scope, it hung in the device runtime (fuzz cases 209-27, 220-20, 308-0, 327-12 at block granularity).
// Each warp finds the scope under its own entry, keyed by its grid's id: a grid whose kernel does not
// share a scope (one of another translation unit, one with no scope) never writes the key, so what its
// shared memory holds there is another grid's, and its device functions launch as written.
SHARED u64 klap_callee_keys[32];
SHARED Scope *klap_callee_scopes[32];

INLINE u64 callee_key() { return (grid_id() * 0x9E3779B97F4A7C15ull) ^ 0x6b6c6170ull; }

// At kernel entry, after the scope's enter, by every thread.
DEVICE void __klap_share_scope(Scope *s) {
  u32 warp = tid_linear() / 32;
  u32 mask = active_mask();
  if (lane_id() == (u32)__builtin_ctz(mask)) {
    klap_callee_scopes[warp] = s;
    klap_callee_keys[warp] = callee_key();
  }
  __nvvm_bar_warp_sync(mask);
}

// In a device function, at a launch: the scope its kernel shares, or null.
DEVICE Scope *__klap_callee_scope() {
  u32 warp = tid_linear() / 32;
  return klap_callee_keys[warp] == callee_key() ? klap_callee_scopes[warp] : 0;
}

// The grid scope's table entry is free again once its last thread has taken the chunks.
DEVICE void __klap_grid_release(Scope *s) {
  if (!s->in_table)
    return;
  GridEntry *e = (GridEntry *)((char *)s - __builtin_offsetof(GridEntry, scope));
  store_relaxed(&e->ready, 0);
  fence();
  store_relaxed(&klap_grid_keys[e - klap_grid_table], 0);
}

