// Making the launches: a chunk's aggregated child as one launch, or, where that cannot be made, each
// record as it was written, so that a launch is never lost. The one part that needs the device
// runtime library: left out of test/gpu-race's harness (klap_rt.cu, KLAP_RT_NO_LAUNCH), since
// compute-sanitizer's racecheck only checks programs without device-side launches.
#include "klap_rt.h"

// The device runtime's launch entry points (libcudadevrt), as klap-normalize calls them.
struct Dim3 {
  u32 x, y, z;
};
extern "C" __attribute__((device)) void *__cudaCDP2GetParameterBufferV2(void *kernel, Dim3 grid, Dim3 block, u32 smem);
extern "C" __attribute__((device)) int __cudaCDP2LaunchDeviceV2(void *buffer, void *stream);

// `uniform_words`: the 4-byte words of the arguments (the first 64) that only the chunk's first record,
// `first`, holds. `chunk`, where given, is the last parameter, after `size` bytes of arguments.
INLINE bool launch_once(void *kernel, Dim3 grid, Dim3 block, u32 smem, const char *args, u32 size, void *stream,
                        const char *first, u64 uniform_words, Chunk *chunk) {
  char *buf = (char *)__cudaCDP2GetParameterBufferV2(kernel, grid, block, smem);
  if (!buf)
    return false;
  auto from = [&](u32 word) { return word < 64 && (uniform_words >> word) & 1 ? first : args; };
  u32 words = size / 4;
  for (u32 i = 0; i < words; ++i)
    ((u32 *)buf)[i] = ((const u32 *)from(i))[i];
  for (u32 i = words * 4; i < size; ++i)
    buf[i] = from(i / 4)[i];
  if (chunk)
    *(Chunk **)(buf + (size + 7) / 8 * 8) = chunk;
  return __cudaCDP2LaunchDeviceV2(buf, stream) == 0;
}

// How long a launch refused for want of room (the device runtime's pending launches, 2,048 by default,
// or its parameter buffers) is tried again, with a wait doubling from 1 us up to 256 us: a thread that
// may leave the launch to its grid's waiter tries twice more (3 us), the waiter about a second.
enum { QUICK_RETRIES = 2, PATIENT_RETRIES = 4000 };

INLINE bool launch(void *kernel, Dim3 grid, Dim3 block, u32 smem, const char *args, u32 size, void *stream,
                   const char *first, u64 uniform_words, Chunk *chunk, u32 retries) {
  u32 wait = 1000;
  for (u32 tried = 0;; ++tried) {
    if (launch_once(kernel, grid, block, smem, args, size, stream, first, uniform_words, chunk))
      return true;
    if (tried == retries)
      return false;
    trace("klap: device launch refused (%u blocks); trying again in %u ns\n", grid.x * grid.y * grid.z, wait);
    __nvvm_nanosleep(wait);
    wait = wait < 256000 ? 2 * wait : wait;
  }
}

// The most blocks a multiprocessor holds (sm_90).
enum { SM_MAX_BLOCKS = 32 };

// The blocks of the aggregated launch for `total` aggregated blocks of `threads` threads: each block of a
// coarsened child runs up to `k.coarsen` of them (lookup.cu, __klap_child_coarse_range), but no fewer
// blocks are launched than make `k.coarsen_sm_threads` threads a multiprocessor (at most as many blocks as
// it holds).
INLINE u32 launch_blocks(u32 total, u32 threads, ChildKernel k) {
  if (k.coarsen <= 1)
    return total;
  u32 per_sm = (k.coarsen_sm_threads + threads - 1) / threads;
  u32 least = __nvvm_read_ptx_sreg_nsmid() * (per_sm < SM_MAX_BLOCKS ? per_sm : SM_MAX_BLOCKS);
  if (total <= least)
    return total;
  u32 blocks = (total + k.coarsen - 1) / k.coarsen;
  return blocks > least ? blocks : least;
}

INLINE bool launch_record(Chunk *c, u32 r, ChildKernel k, void *stream, u32 retries) {
  const u32 *d = c->dims + 8 * r;
  Dim3 g = {d[0], d[1], d[2]}, b = {d[3], d[4], d[5]};
  return launch(k.original, g, b, d[6], c->args + (u64)r * c->record_size, k.param_size, stream, c->args,
                k.uniform_words, 0, retries);
}

// launch_one_chunk's launch, its reclaim aside.
INLINE bool launch_chunk_now(Chunk *c, ChildKernel k, void *stream, bool patient) {
  u32 retries = patient ? PATIENT_RETRIES : QUICK_RETRIES;
  fence();
  u64 counter = load_relaxed(&c->counter);
  u32 records = (u32)(counter >> 32);
  u32 n = records < c->capacity ? records : c->capacity;
  // What parent blocks ran (grid reuse, reuse.cu): records [0, taken) whole and record taken's first
  // `part` blocks. The launch is of the blocks after them.
  u64 at = load_relaxed(&c->taken);
  u32 taken = (u32)(at >> 32), part = (u32)at;
  if (!part && n <= taken + 1) {
    if (taken)
      trace("klap: %u records run by parent blocks; %u launched as written\n", taken, n - taken);
    // Nothing to aggregate: the record, if any, is launched as it was written, and the chunk is
    // free at once (its child reads nothing of it).
    if (n == taken + 1 && !launch_record(c, taken, k, stream, retries)) {
      if (!patient)
        return false;
      error("klap: error: a device launch failed (record %u, %u records): it is lost\n", taken, n);
    }
    chunk_free(c);
    return true;
  }
  if (taken || part)
    trace("klap: %u records and %u blocks of the next run by parent blocks; the aggregated launch runs the rest\n", taken,
          part);
  u32 first = (taken ? c->end[taken - 1] : 0) + part;
  u32 total = (records <= c->capacity ? (u32)counter : c->end[c->capacity - 1]) - first;
  Dim3 grid = {launch_blocks(total, c->max_threads, k), 1, 1}, block = {c->max_threads, 1, 1};
  c->first_block = first;
  c->blocks = total;
  c->group = (n + DONE_COUNTERS - 1) / DONE_COUNTERS;
  // Written before the launch: its blocks see the scope set up.
  if (k.scope)
    setup_scope(&c->scope, k.scope->groups, k.scope->sizes, 1, (u64)total * ((c->max_threads + 31) / 32), 0);
  // The first record holds every argument uniform over the chunk.
  if (launch(k.aggregated, grid, block, c->max_smem, c->args, k.args_in_params ? k.param_size : 0, stream, 0, 0, c,
             retries)) {
    chunk_free_when_done(c);
    return true;
  }
  if (!patient)
    return false;
  trace("klap: aggregated launch of %u blocks failed; launching its %u records one by one\n", total, records);
  // A record whose first blocks parent blocks ran cannot be launched as written without running them again.
  if (part)
    error("klap: error: a device launch failed (record %u from block %u on): it is lost\n", taken, part);
  for (u32 r = taken + (part != 0); r < n; ++r)
    if (!launch_record(c, r, k, stream, QUICK_RETRIES))
      error("klap: error: a device launch failed (record %u of %u): it is lost\n", r, n);
  chunk_free(c);
  return true;
}

// Makes chunk `c`'s launch: true once made, or, by a `patient` caller, once made or reported lost; false,
// with nothing launched and the chunk still the caller's, where the device runtime refused it for want of
// room (an impatient caller).
//
// Frees the finished chunks in the bitmap word of chunk `c`, where the claims of the warps that claimed it
// start: once per launch, and not where a claim finds no room (inlined into every registration, the
// reclaiming code's registers counted toward every parent: 56 to 70 registers, too many for 1024-thread
// blocks). A small chunk's word (warp and block scopes) is reclaimed before its launch: after it made the
// children slower (the nested benchmark at block granularity: median 0.90 to 0.99 ms against 0.51 to 0.53;
// cause not found), and so did reclaiming only once half the word's slabs were in use (0.99 to 1.03 ms
// against 0.56 hand-written). A large chunk's (a grid scope's) after: there it was most of what klap's code
// adds between a grid's last exit and its children's launch, about 4 us of a generation's 15 (a probe of
// the global timer, H200, BENCHMARKS.md, twenty-fifth session), and a grid's last thread has nothing else
// to do. Its slab is read first: once launched, the chunk may be freed by its children.
INLINE bool launch_one_chunk(Chunk *c, ChildKernel k, void *stream, bool patient) {
  u32 slab = c->slab;
  bool large = slab >> 31;
  if (!large)
    reclaim_near(slab);
  bool made = launch_chunk_now(c, k, stream, patient);
  if (large && made)
    reclaim_near(slab);
  return made;
}

// ---- launches refused for want of room -----------------------------------------------------------
//
// The device runtime holds 2,048 launches that have not run (by default; only the host can raise it)
// and refuses more until some run. Every thread that waited for room where its launch was refused
// (about 0.5 ms, as this runtime did before) lost launches: at block granularity a grid of 2,640 blocks
// of 256 threads lost 142,911 of its 675,840 child blocks, and still 117,945 when each waited up to
// 200 ms: the GPU was full of blocks whose one thread waited, and the children that would have made
// room had none to start in (benchmarks/micro/reuse_gap.cu; plain launches retried for 3 s in every
// block of a grid of 8,000 lost 4,896 of 8,000, benchmarks/micro/pending_retry.cu: BENCHMARKS.md,
// twenty-fourth session). So one thread of a grid waits, its waiter, and launches in turn what the
// grid's other threads leave it (their chunks, in a list per grid under one lock: a path only refused
// launches take); they return, and their blocks make room. The waiter is in the grid that made the
// launches, so each child is still its grid's child, done before the grid is. Only launches into the
// NULL stream are left to it: a stream a block created is the block's alone.
enum { WAITER_TABLE = 128 };
struct Waiter {
  u64 grid; // %gridid + 1; 0: free
  Chunk *head;
};
GLOBAL_VAR Waiter klap_waiters[WAITER_TABLE];
GLOBAL_VAR u32 klap_waiter_lock;

INLINE void waiter_lock() {
  for (u32 wait = 32; cas_acquire(&klap_waiter_lock, 0u, 1u) != 0; wait = wait < 1024 ? 2 * wait : wait)
    __nvvm_nanosleep(wait);
}
INLINE void waiter_unlock() {
  fence();
  store_relaxed(&klap_waiter_lock, 0u);
}

// Leaves refused chunk `c` to the calling grid's waiter: true where the grid has one, which will launch
// it; false where the calling thread has become the waiter (`*mine`: the grid had none), or where no
// entry is free (`*mine` null). Under the lock. A grid's entry is looked for among WAITER_PROBES from
// where its id hashes to, so that the lock is held for a few loads: a grid that finds none of them has
// a second waiter, one more waiting block and nothing worse.
enum { WAITER_PROBES = 8 };
INLINE bool leave_to_waiter(Chunk *c, Waiter **mine) {
  u64 g = grid_id() + 1;
  u32 h = (u32)((g * 0x9E3779B97F4A7C15ull) >> 32);
  Waiter *free = 0;
  for (u32 i = 0; i < WAITER_PROBES; ++i) {
    Waiter *w = &klap_waiters[(h + i) % WAITER_TABLE];
    if (w->grid == g) {
      c->next = w->head;
      w->head = c;
      return true;
    }
    if (!free && w->grid == 0)
      free = w;
  }
  if (free) {
    free->grid = g;
    free->head = 0;
  }
  *mine = free;
  return false;
}

// The next chunk left to the waiter of entry `w`; where none is left, null, and the entry is given up
// (under the lock, so that no chunk is left to a waiter that has gone).
INLINE Chunk *next_left(Waiter *w) {
  waiter_lock();
  Chunk *c = w->head;
  if (c) {
    w->head = c->next;
  } else {
    w->grid = 0;
  }
  waiter_unlock();
  return c;
}

// Chunk `c`, refused for want of room: left to the grid's waiter, or the calling thread becomes the
// waiter (and launches what the grid's other threads leave it, until none is left), or, with no free
// entry, waits for room itself. What it is launched as is kept in the chunk, as the waiter finds it.
INLINE void leave_or_wait(Chunk *c, ChildKernel k) {
  c->deferred = k;
  waiter_lock();
  Waiter *w = 0;
  bool left = leave_to_waiter(c, &w);
  waiter_unlock();
  while (!left && c) {
    launch_one_chunk(c, c->deferred, 0, true);
    c = w ? next_left(w) : 0;
  }
}

// Launches chunk `c`, or, where the device runtime refuses it for want of room, leaves it to the grid's
// waiter (launches into the NULL stream only; one into a stream a block created waits for room itself).
INLINE void launch_or_leave(Chunk *c, ChildKernel k, void *stream) {
  if (!launch_one_chunk(c, k, stream, stream != 0))
    leave_or_wait(c, k);
}

// Launches each chunk of a chain as one launch of `aggregated` (taking the chunk as its last argument,
// after a copy of the first record's arguments where `param_size` has ARGS_IN_PARAMS; with its grid
// scope set up where `scope` describes one), once every registration is done, and schedules the
// chunk's return to the pool. If a launch cannot be made, each record is launched as it was written,
// as `original` with `param_size` bytes of arguments: a launch is never lost.
DEVICE void __klap_launch_chunk(Chunk *c, void *aggregated, void *original, u32 param_size, u64 uniform_words,
                                void *stream, const ChildScope *scope) {
  reclaim_if_wanted();
  ChildKernel k = {aggregated, original, param_size & PARAM_SIZE_MASK, uniform_words, (param_size & ARGS_IN_PARAMS) != 0,
                   scope, (param_size >> COARSEN_SHIFT) & COARSEN_MASK,
                   ((param_size >> COARSEN_SM_THREADS_SHIFT) & COARSEN_SM_THREADS_MASK) * COARSEN_SM_THREADS_UNIT};
  while (c) {
    Chunk *next = c->next;
    launch_or_leave(c, k, stream);
    c = next;
  }
}

// A block or grid scope's chains, launched by the thread that completed its exit count.
DEVICE void __klap_scope_launch(Scope *s, u32 g, void *aggregated, void *original, u32 param_size,
                                u64 uniform_words, void *stream, const ChildScope *scope) {
  fence();
  __klap_launch_chunk(load_chunk(&s->head[g]), aggregated, original, param_size, uniform_words, stream, scope);
}
