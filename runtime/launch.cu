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

// A launch refused for want of room (pending launches, parameter buffers) may go through once
// running grids finish: tried again with a growing wait, about 0.5 ms in all.
INLINE bool launch(void *kernel, Dim3 grid, Dim3 block, u32 smem, const char *args, u32 size, void *stream,
                   const char *first, u64 uniform_words, Chunk *chunk) {
  for (u32 wait = 1000;; wait *= 2) {
    if (launch_once(kernel, grid, block, smem, args, size, stream, first, uniform_words, chunk))
      return true;
    if (wait > 256000)
      return false;
    trace("klap: device launch refused (%u blocks); trying again in %u ns\n", grid.x * grid.y * grid.z, wait);
    __nvvm_nanosleep(wait);
  }
}

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

INLINE bool launch_record(Chunk *c, u32 r, ChildKernel k, void *stream) {
  const u32 *d = c->dims + 8 * r;
  Dim3 g = {d[0], d[1], d[2]}, b = {d[3], d[4], d[5]};
  return launch(k.original, g, b, d[6], c->args + (u64)r * c->record_size, k.param_size, stream, c->args,
                k.uniform_words, 0);
}

INLINE void launch_one_chunk(Chunk *c, ChildKernel k, void *stream) {
  // Frees the finished chunks in the bitmap word of chunk `c` (before it is launched: after, it may
  // be gone), where the claims of the warps that claimed it start. Reclaiming after the launch instead,
  // to take it off the way to the child's start, made the children slower (measured, the nested
  // benchmark at block granularity: median 0.90 to 0.99 ms against 0.51 to 0.53; cause not found), and
  // so did reclaiming only once half the word's slabs were in use (0.99 to 1.03 ms against 0.56 hand-
  // written; with 10,000 parents 0.097 against 0.066). Done here, once per launch, and not where a claim
  // finds no room: inlined into every registration, the reclaiming code's registers counted toward
  // every parent (measured: 56 to 70 registers, too many for 1024-thread blocks).
  reclaim_near(c);
  fence();
  u64 counter = load_relaxed(&c->counter);
  u32 records = (u32)(counter >> 32);
  u32 n = records < c->capacity ? records : c->capacity;
  if (n <= 1) {
    // Nothing to aggregate: the record, if any, is launched as it was written, and the chunk is
    // free at once (its child reads nothing of it).
    if (n == 1 && !launch_record(c, 0, k, stream))
      error("klap: error: a device launch failed (%u blocks, %u record): it is lost\n", c->end[0], 1);
    chunk_free(c);
    return;
  }
  u32 total = records <= c->capacity ? (u32)counter : c->end[c->capacity - 1];
  Dim3 grid = {launch_blocks(total, c->max_threads, k), 1, 1}, block = {c->max_threads, 1, 1};
  c->blocks = total;
  c->group = (n + DONE_COUNTERS - 1) / DONE_COUNTERS;
  // Written before the launch: its blocks see the scope set up.
  if (k.scope)
    setup_scope(&c->scope, k.scope->groups, k.scope->sizes, 1, (u64)total * ((c->max_threads + 31) / 32), 0);
  // The first record holds every argument uniform over the chunk.
  if (launch(k.aggregated, grid, block, c->max_smem, c->args, k.args_in_params ? k.param_size : 0, stream, 0, 0, c)) {
    chunk_free_when_done(c);
    return;
  }
  trace("klap: aggregated launch of %u blocks failed; launching its %u records one by one\n", total, records);
  for (u32 r = 0; r < n; ++r)
    if (!launch_record(c, r, k, stream))
      error("klap: error: a device launch failed (record %u of %u): it is lost\n", r, n);
  chunk_free(c);
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
    launch_one_chunk(c, k, stream);
    c = next;
  }
}

// A block or grid scope's chains, launched by the thread that completed its exit count.
DEVICE void __klap_scope_launch(Scope *s, u32 g, void *aggregated, void *original, u32 param_size,
                                u64 uniform_words, void *stream, const ChildScope *scope) {
  fence();
  __klap_launch_chunk(load_chunk(&s->head[g]), aggregated, original, param_size, uniform_words, stream, scope);
}
