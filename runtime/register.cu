// Registration: a launch the pass turned into a record takes one in a chunk (one atomic per warp)
// and writes the launch's dimensions there; the pass then writes its arguments. At warp granularity
// the chunk is the warp's; in a block or grid scope it is the scope's current chunk of the launch's
// group, replaced by one twice as large when full.
#include "klap_rt.h"

// A scope's chunk pointers are read by other warps while one warp sets them, ordered by the fences
// around them: atomic accesses, so that the reads are not data races (and compute-sanitizer's racecheck,
// which knows barriers but not fences, does not report them: test/gpu-race).
HELPER Chunk *load_chunk(Chunk **p) { return (Chunk *)load_relaxed((const u64 *)p); }
INLINE void store_chunk(Chunk **p, Chunk *c) { store_relaxed((u64 *)p, (u64)c); }

// ---- taking records in a chunk -------------------------------------------------------------------

struct Taken {
  u32 record, first;
};

// The sum of `v` over the lanes of `peers` below this one, and (in `total`) over all of them. Lanes
// lo..hi with none missing (a whole warp, the last warp of a grid) scan in five shuffles; others walk
// over the peers, a shuffle each. (The walk was the only way, with two shuffles per peer: measured at
// grid granularity with 10,000 parents, registration took 3 us after the chunk was known, where
// hand-written code took 1.3 us for the whole parent.)
INLINE u32 sum_below(u32 peers, u32 v, u32 *total) {
  u32 me = lane_id(), lo = __builtin_ctz(peers), from_lo = peers >> lo;
  *total = __nvvm_redux_sync_add(v, peers);
  if ((from_lo & (from_lo + 1)) == 0) {
    u32 s = v;
    for (u32 k = 1; k < 32; k <<= 1) {
      u32 t = __nvvm_shfl_sync_up_i32(peers, s, k, 0);
      s += me >= lo + k ? t : 0;
    }
    return s - v;
  }
  // Every peer takes part in every shuffle: the walk is over all of them.
  u32 below = 0;
  for (u32 rest = peers; rest; rest &= rest - 1) {
    u32 src = __builtin_ctz(rest), w = shfl_idx(peers, v, src);
    below += src < me ? w : 0;
  }
  return below;
}

// What a registration reads of its chunk's header, loaded by every registering lane together before the
// record's atomic: read after it, one round trip each (the maxima, the capacity, the arrays), they held
// the registering warp longer than the atomic did (ncu warp-state samples, qt at auto, H200, thirty-sixth
// session). All but the maxima are fixed once the chunk is published (which the caller acquired); the
// maxima only grow, so a value read before the atomic costs at most one atomic max more.
struct ChunkView {
  u32 capacity, record_size, count_threads, max_threads, max_smem;
  u32 *end, *dims;
  char *args;
};
INLINE ChunkView view_chunk(Chunk *c) {
  ChunkView v;
  v.capacity = c->capacity;
  v.record_size = c->record_size;
  v.count_threads = c->count_threads;
  v.end = c->end;
  v.dims = c->dims;
  v.args = c->args;
  v.max_threads = load_relaxed(&c->max_threads);
  v.max_smem = load_relaxed(&c->max_smem);
  return v;
}

// The lanes of `peers` (all registering into `c`) take their records with one atomic per warp:
// per-thread atomics on the chunk's header made registration the bottleneck. The running maxima take
// an atomic only where they grow, and the child threads are counted only for a child that waits for
// them: each atomic on the header line is one more in a queue of one per warp of the grid.
INLINE Taken take_records(Chunk *c, const ChunkView &v, u32 peers, u32 blocks, u32 threads, u32 smem) {
  u32 leader = __builtin_ctz(peers), me = lane_id();
  u32 total;
  u32 before = sum_below(peers, blocks, &total);
  u32 rank = __builtin_popcount(peers & lanemask_lt());
  u32 most_threads = __nvvm_redux_sync_umax(threads, peers), most_smem = __nvvm_redux_sync_umax(smem, peers);
  u64 work = 0;
  if (v.count_threads)
    for (u32 rest = peers; rest; rest &= rest - 1) {
      u32 src = __builtin_ctz(rest);
      work += (u64)shfl_idx(peers, blocks, src) * shfl_idx(peers, threads, src);
    }
  u64 old = 0;
  if (me == leader) {
    u32 n = __builtin_popcount(peers);
    old = __nvvm_atom_add_gen_ll((long long *)&c->counter, (long long)(((u64)n << 32) | total));
    if (most_threads > v.max_threads)
      __nvvm_atom_max_gen_ui(&c->max_threads, most_threads);
    if (most_smem > v.max_smem)
      __nvvm_atom_max_gen_ui(&c->max_smem, most_smem);
    if (work)
      __nvvm_atom_add_gen_ll((long long *)&c->threads_total, (long long)work);
    spawn_queued(total);
  }
  u32 lo = shfl_idx(peers, (u32)old, leader), hi = shfl_idx(peers, (u32)(old >> 32), leader);
  Taken t = {hi + rank, lo + before};
  if (t.record >= v.capacity && v.count_threads)
    // Its blocks will not run in this chunk's launch: they must not be waited for.
    __nvvm_atom_add_gen_ll((long long *)&c->threads_total, -(long long)((u64)blocks * threads));
  return t;
}

// Returns where the record's arguments go, tagged in bit 0 for the chunk's first record: the one that
// also holds the arguments uniform over the scope (the pass writes them only there).
// `flagged`: the record has a ready flag (grid reuse, reuse.cu), pending until the registering thread has
// written the arguments (__klap_record_ready).
INLINE char *write_record(Chunk *c, const ChunkView &v, Taken t, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz,
                          u32 smem, bool flagged = false) {
  v.end[t.record] = t.first + gx * gy * gz;
  u32 *d = v.dims + 8 * t.record;
  d[0] = gx, d[1] = gy, d[2] = gz, d[3] = bx, d[4] = by, d[5] = bz, d[6] = smem, d[7] = 0;
  char *args = v.args + (u64)t.record * v.record_size;
  if (flagged)
    *(u64 *)(args + v.record_size - 8) = c->epoch | PENDING;
  return args + (t.record == 0);
}

// After a flagged registration's arguments and __klap_record_written's fence, by the registering thread:
// the record's ready flag, `flag` bytes into its arguments, from pending to the chunk's epoch (which the
// pending flag holds), for a parent block that takes it (reuse.cu).
ACCESSOR void __klap_record_ready(char *tagged, u32 flag) {
  u64 *f = (u64 *)(((u64)tagged & ~1ull) + flag);
  store_relaxed(f, *f & ~PENDING);
}

// A registration's result: where its arguments go, and whether it also writes the uniform ones.
ACCESSOR char *__klap_record_args(char *tagged) { return (char *)((u64)tagged & ~1ull); }
ACCESSOR bool __klap_record_first(char *tagged) { return (u64)tagged & 1; }

// Whether a launch of this grid and block may take a record: the device runtime accepts it (CUDA's limits
// on sm_90), and its blocks fit a record's 32-bit count. One it refuses is made as written, and fails as it
// would have (an aggregated block runs a block of any shape: a record would run a child that never ran,
// and one of no blocks would never finish).
INLINE bool launch_accepted(u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz) {
  return gx - 1 < 0x7fffffffu && gy - 1 < 65535 && gz - 1 < 65535 && bx - 1 < 1024 && by - 1 < 1024 && bz - 1 < 64 &&
         bx * by * bz <= 1024 && (u64)gx * gy * gz <= 0x7fffffffu;
}

// Registers one launch of a warp scope; returns where its argument record goes, or null (no chunk, or
// the chunk is full): the caller then makes the original launch.
DEVICE char *__klap_register(Chunk *c, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem) {
  if (!c)
    return 0;
  bool accepted = launch_accepted(gx, gy, gz, bx, by, bz);
  u32 peers = __nvvm_match_any_sync_i64(active_mask(), accepted ? (long long)c : 0);
  if (!accepted)
    return 0;
  u32 blocks = gx * gy * gz;
  ChunkView v = view_chunk(c);
  Taken t = take_records(c, v, peers, blocks, bx * by * bz, smem);
  if (t.record >= v.capacity) {
    trace("klap: chunk full (%u records of capacity %u); launch made as written (or run by its launching thread, KLAP215)\n", t.record + 1, v.capacity);
    return 0;
  }
  return write_record(c, v, t, gx, gy, gz, bx, by, bz, smem);
}

// ---- block and grid scopes ---------------------------------------------------------------------

// A grid scope's chunk that fits in a few small slabs takes those: a grid of a few blocks (e.g. one of
// the launches made as written when the pool ran short) must not hold a whole large slab.
enum { SMALL_ENOUGH = 16 };
INLINE Chunk *scope_chunk_alloc(Scope *s, u32 g, u64 records) {
  u32 size = s->record_size[g] & ~(COUNT_THREADS | READY_FLAGS);
  u32 small = slabs_for(records, size, SMALL_SLAB, 64);
  bool large = s->large && small > SMALL_ENOUGH;
  Chunk *c = chunk_alloc(large, large ? slabs_for(records, size, LARGE_SLAB, 8) : small, size,
                         (s->record_size[g] & COUNT_THREADS) != 0);
  if (c && (s->record_size[g] & READY_FLAGS))
    chunk_flag_records(c);
  return c;
}

INLINE void publish(Scope *s, u32 g, Chunk *c) {
  fence_release();
  store_chunk(&s->current[g], c ? c : NO_CHUNK);
}

// The chunk registrations of group `g` go to; null when there is none. `full` is the chunk the
// caller found full (null at first): the one caller that swaps it out takes the next chunk, twice as
// large (the group's first: as many records per warp of the scope as lanes register now).
INLINE Chunk *scope_current(Scope *s, u32 g, u32 lanes, Chunk *full) {
  for (;;) {
    Chunk *c = load_chunk(&s->current[g]);
    if (c == full && cas_acquire((u64 *)&s->current[g], (u64)full, (u64)CLAIMING) == (u64)full) {
      u64 records = full ? 2ull * full->capacity : (u64)lanes * s->warps;
      Chunk *n = scope_chunk_alloc(s, g, records > lanes ? records : lanes);
      publish(s, g, n);
      // After the fence: a parent block that finds the chunk here (grid reuse) reads its header. The
      // scope's launch, which also does, comes after this thread's exit.
      if (full)
        store_chunk(&full->next, n);
      else
        store_chunk(&s->head[g], n);
      return n;
    }
    if (c == NO_CHUNK)
      return 0;
    if (c != full && c != CLAIMING) {
      fence_acquire();
      return c;
    }
  }
}

// Registers one launch in group `g` of a block or grid scope; returns where its argument record
// goes, or null: the caller then makes the original launch. `flagged`: as write_record.
INLINE char *scope_register(Scope *s, u32 g, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem, bool flagged) {
  if (!s || (s->first_launches_as_written && first_launch()))
    return 0;
  bool accepted = launch_accepted(gx, gy, gz, bx, by, bz);
  u32 live = __nvvm_vote_ballot_sync(active_mask(), accepted);
  if (!accepted)
    return 0; // as in __klap_register
  u32 blocks = gx * gy * gz;
  Chunk *full = 0;
  for (;;) {
    u32 leader = __builtin_ctz(live);
    u64 p = lane_id() == leader ? (u64)scope_current(s, g, __builtin_popcount(live), full) : 0;
    Chunk *c = (Chunk *)shfl_u64(live, p, leader);
    if (!c)
      return 0;
    ChunkView v = view_chunk(c);
    Taken t = take_records(c, v, live, blocks, bx * by * bz, smem);
    u32 over = __nvvm_vote_ballot_sync(live, t.record >= v.capacity);
    if (t.record < v.capacity)
      return write_record(c, v, t, gx, gy, gz, bx, by, bz, smem, flagged);
    full = c;
    live = over;
  }
}

DEVICE char *__klap_scope_register(Scope *s, u32 g, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem) {
  return scope_register(s, g, gx, gy, gz, bx, by, bz, smem, false);
}

// As __klap_scope_register, into a group whose records parent blocks may take (READY_FLAGS): the record's
// ready flag is pending until __klap_record_ready.
DEVICE char *__klap_scope_register_flagged(Scope *s, u32 g, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz,
                                           u32 smem) {
  return scope_register(s, g, gx, gy, gz, bx, by, bz, smem, true);
}
