// klap's device runtime: the record pool, registration of launches into aggregation records, the
// aggregated child's record lookup and index remapping, and the end-of-scope bookkeeping.
//
// Compiled by pass/build.rs with clang-22 to NVPTX bitcode (no CUDA headers: clang builtins only),
// embedded in the plugin, and linked into a module by the aggregation pass (only what it uses).
//
// Why no barriers at a parent's exit: a thread that returns early from a kernel counts as arrived at
// the kernel's __syncthreads(); a thread held at an exit barrier of ours would not, and the kernel's
// own barriers would deadlock or release early. Exits are therefore counted per thread (one atomic per
// warp), and the thread completing the count does the scope's work.

#define DEVICE extern "C" __attribute__((device, always_inline))
// Entry points small enough to belong inline where the pass calls them.
#define ACCESSOR extern "C" __attribute__((device, always_inline))
#define INLINE __attribute__((device, always_inline)) static inline
#define SHARED __attribute__((shared))
#define GLOBAL_VAR __attribute__((device))

typedef unsigned int u32;
typedef unsigned long long u64;

// ---- special registers -------------------------------------------------------------------------

INLINE u32 tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }
INLINE u32 tid_linear() {
  return __nvvm_read_ptx_sreg_tid_x() +
         __nvvm_read_ptx_sreg_ntid_x() *
             (__nvvm_read_ptx_sreg_tid_y() + __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_tid_z());
}
INLINE u32 lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
INLINE u64 grid_id() {
  u64 g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  return g;
}
INLINE u32 active_mask() {
  u32 m;
  asm volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}
// Memory ordering at GPU scope. What C++ atomics compile to here is system scope: a compare-and-swap
// became `fence.sc.sys; atom.acquire.sys.cas` and a fence `membar.gl`, on the way of every chunk claim
// and registration. Every ordering this runtime needs is a message passed (a release before a flag,
// an acquire after it), which acquire-release fences give.
INLINE void fence() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
INLINE u64 load_relaxed(const u64 *p) {
  u64 v;
  asm volatile("ld.relaxed.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
INLINE u32 load_relaxed(const u32 *p) {
  u32 v;
  asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
INLINE void store_relaxed(u64 *p, u64 v) { asm volatile("st.relaxed.gpu.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory"); }
INLINE void store_relaxed(u32 *p, u32 v) { asm volatile("st.relaxed.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }
// Returns the old value; acquire, so that what the slot's previous holder released is seen.
INLINE u64 cas_acquire(u64 *p, u64 expected, u64 desired) {
  u64 old;
  asm volatile("atom.acquire.gpu.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(expected), "l"(desired) : "memory");
  return old;
}
INLINE u32 cas_acquire(u32 *p, u32 expected, u32 desired) {
  u32 old;
  asm volatile("atom.acquire.gpu.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old;
}
INLINE u32 shfl_idx(u32 mask, u32 v, u32 src) { return __nvvm_shfl_sync_idx_i32(mask, v, src, 31); }
INLINE u64 shfl_u64(u32 mask, u64 v, u32 src) {
  return (u64)shfl_idx(mask, (u32)(v >> 32), src) << 32 | shfl_idx(mask, (u32)v, src);
}

// ---- the pool ----------------------------------------------------------------------------------
//
// The pass defines klap_pool (its size set by -klap-pool-size) and klap_pool_bytes. The pool is cut
// into slabs of two sizes: SMALL for warp and block scopes, LARGE for grid scopes; a bitmap word per
// 64 slabs.
//
// The host may give its own pool instead (runtime/klap.h, klap_set_pool) before the first launch:
// klap_host_pool is the program's one such setting (a weak symbol, not internalized by the pass,
// found by the host by name). With several translation units each linking this runtime (each with
// its own maps), the first to need a pool takes the host's; the others keep their own.

extern "C" GLOBAL_VAR char klap_pool[];
extern "C" GLOBAL_VAR u64 klap_pool_bytes;
struct HostPool {
  char *base;
  u64 bytes;
  u64 owner; // klap_pool's address in the translation unit that uses it
};
extern "C" __attribute__((device, weak)) HostPool klap_host_pool = {0, 0, 0};

INLINE bool host_pool_mine() {
  if (!klap_host_pool.base)
    return false;
  u64 me = (u64)klap_pool;
  u64 owner = load_relaxed(&klap_host_pool.owner);
  if (owner == 0) {
    owner = cas_acquire(&klap_host_pool.owner, 0, me);
    owner = owner ? owner : me;
  }
  return owner == me;
}

// Set by the pass (-klap-trace): report every fallback to an unaggregated launch, the first
// hundred of them, with device printf.
extern "C" GLOBAL_VAR u32 klap_trace;
GLOBAL_VAR u32 klap_trace_count;
extern "C" __attribute__((device)) int vprintf(const char *format, const char *args);

INLINE void report(bool always, const char *format, u32 a, u32 b) {
  if ((!always && !klap_trace) || __nvvm_atom_add_gen_i((int *)&klap_trace_count, 1) >= 100)
    return;
  u32 args[2] = {a, b};
  vprintf(format, (const char *)args);
}

INLINE void trace(const char *format, u32 a, u32 b) { report(false, format, a, b); }
// A launch the device runtime refused even after waiting: what the program would have seen as the
// error of its own launch. Always reported (the first hundred messages).
INLINE void error(const char *format, u32 a, u32 b) { report(true, format, a, b); }

enum { SMALL_SLAB = 4 << 10, LARGE_SLAB = 1 << 20, MAX_WORDS = 256 };
// A set bit in `map` is a slab in use. A set bit in `pending` is the first slab of a chunk whose
// aggregated child is running and counts its finished blocks into the chunk: whoever next needs
// room in that word frees it if they are all done.
GLOBAL_VAR u64 klap_small_map[MAX_WORDS], klap_small_pending[MAX_WORDS];
GLOBAL_VAR u64 klap_large_map[MAX_WORDS], klap_large_pending[MAX_WORDS];

struct SlabClass {
  u64 *map, *pending;
  char *base;
  u32 slabs;
  u64 slab_bytes;
};

INLINE SlabClass slab_class(u32 large) {
  bool host = host_pool_mine();
  char *base = host ? klap_host_pool.base : klap_pool;
  u64 bytes = host ? klap_host_pool.bytes : klap_pool_bytes;
  // Half the pool in small slabs (at most MAX_WORDS * 64 of them), the rest in large ones.
  u64 small = (bytes / 2) / SMALL_SLAB;
  u32 small_slabs = small > MAX_WORDS * 64 ? MAX_WORDS * 64 : (u32)small;
  u64 big = (bytes - (u64)small_slabs * SMALL_SLAB) / LARGE_SLAB;
  u32 large_slabs = big > MAX_WORDS * 64 ? MAX_WORDS * 64 : (u32)big;
  SlabClass k;
  if (large) {
    k.map = klap_large_map, k.pending = klap_large_pending;
    k.base = base + (u64)small_slabs * SMALL_SLAB, k.slabs = large_slabs, k.slab_bytes = LARGE_SLAB;
  } else {
    k.map = klap_small_map, k.pending = klap_small_pending;
    k.base = base, k.slabs = small_slabs, k.slab_bytes = SMALL_SLAB;
  }
  return k;
}

INLINE u64 slab_bits(u32 count) { return count >= 64 ? ~0ull : ((1ull << count) - 1); }

// ---- aggregation records -----------------------------------------------------------------------
//
// A chunk holds the records of one aggregated launch. Records are handed out by one 64-bit atomic
// (record index << 32 | first child block), so record order and block order agree and the
// inclusive ends of the records' block ranges are sorted: the child finds its record by searching them.

// A chunk its children free counts their finished blocks in at most DONE_COUNTERS counters, each
// in the unused last word of the dims of the first record of a group of adjacent records. One
// counter for every block of a chunk was a queue (measured on the nested benchmark at block
// granularity: 0.49 ms against 0.32 ms with no counting; 0.34 ms with a counter per record, 0.43 ms
// with 16 counters 128 bytes apart); a counter per record would make checking a chunk of 100,000
// records slow.
enum { DONE_COUNTERS = 32, NOT_LAUNCHED = 0xffffffffu };

// A block or grid scope: a chain of chunks per group of launch sites (same child, same stream class).
enum { MAX_GROUPS = 4 };
// Set by the pass in a group's record size where the child has a grid scope of its own, which waits
// for the child threads the chunk counts (Chunk::threads_total).
enum : u32 { COUNT_THREADS = 0x80000000u };
struct Chunk;
struct Scope {
  Chunk *head[MAX_GROUPS];
  Chunk *current[MAX_GROUPS]; // null until claimed, CLAIMING, NO_CHUNK, or where registrations go
  u32 record_size[MAX_GROUPS]; // and COUNT_THREADS
  u32 large;
  u32 in_table; // a grid scope in klap_grid_table, else in the chunk its grid was launched for
  u64 warps;
  u64 threads_done;
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
  Chunk *next;       // the scope's next chunk, taken when this one was full
  u32 *end;          // inclusive end of each record's block range
  u32 *dims;         // 8 per record: grid x y z, block x y z, dynamic shared memory, a counter
  char *args;        // record_size bytes per record
  // The grid scope of the aggregated child's own launches (a grid-granularity variant that launches):
  // its blocks find it here; set up by the first of them to arrive (scope_state 0 -> 1 -> 2).
  u32 scope_state;
  Scope scope;
};

INLINE u64 align16(u64 x) { return (x + 15) & ~15ull; }
enum { CHUNK_HEADER = (sizeof(Chunk) + 15) & ~15ul };

INLINE u64 record_bytes(u32 record_size) { return 4 + 32 + align16(record_size); }

// Slabs for a chunk of `records` records, at most `max_slabs`.
INLINE u32 slabs_for(u64 records, u32 record_size, u64 slab_bytes, u32 max_slabs) {
  u64 bytes = CHUNK_HEADER + 64 + records * record_bytes(record_size);
  u64 n = (bytes + slab_bytes - 1) / slab_bytes;
  return n > max_slabs ? max_slabs : (u32)n;
}

INLINE void release_slabs(SlabClass k, u32 first, u32 count) {
  __nvvm_atom_and_gen_ll((long long *)&k.map[first / 64], (long long)~(slab_bits(count) << (first % 64)));
}

INLINE void chunk_free(Chunk *c) {
  fence();
  release_slabs(slab_class(c->slab >> 31), c->slab & 0x7fffffffu, c->slab_count);
}

INLINE u32 chunk_records(const Chunk *c) {
  u32 records = (u32)(load_relaxed(&c->counter) >> 32);
  return records < c->capacity ? records : c->capacity;
}

// The counters are loaded four at a time before any is added: a loop that added each as it came
// waited for one round trip to memory per counter, up to 32 of them before a launch (measured, nested
// benchmark at block granularity with 10,000 parents: 0.096 ms against 0.063 hand-written). Eight at
// a time made test/gpu/divergent_loop (then 300 threads) hang at warp granularity in every run: the
// deadlock of warp-granularity launches in loops (aggregate.rs, KLAP207), which at 3,000 threads hung
// with four at a time as well and now takes the block scope.
enum { DONE_BATCH = 4 };
INLINE bool children_done(const Chunk *c) {
  u32 n = chunk_records(c), group = c->group, sum = 0;
  for (u32 first = 0; first < DONE_COUNTERS && first * group < n; first += DONE_BATCH) {
    u32 done[DONE_BATCH];
#pragma unroll
    for (u32 i = 0; i < DONE_BATCH; ++i) {
      u32 r = (first + i) * group;
      done[i] = r < n ? load_relaxed(&c->dims[8 * r + 7]) : 0;
    }
#pragma unroll
    for (u32 i = 0; i < DONE_BATCH; ++i)
      sum += done[i];
  }
  return sum == c->blocks;
}

// Frees the chunks of word `w` whose children have all finished. A reclaimer first takes the chunk's
// pending bit, so no two free one chunk, and none sees a chunk that was freed and claimed again.
INLINE void reclaim_word(SlabClass k, u32 w) {
  for (u64 p = load_relaxed(&k.pending[w]); p; p &= p - 1) {
    u64 bit = p & (~p + 1);
    if (!(__nvvm_atom_and_gen_ll((long long *)&k.pending[w], (long long)~bit) & bit))
      continue;
    fence();
    Chunk *c = (Chunk *)(k.base + (u64)(w * 64 + __builtin_ctzll(bit)) * k.slab_bytes);
    if (children_done(c))
      chunk_free(c);
    else
      __nvvm_atom_or_gen_ll((long long *)&k.pending[w], (long long)bit);
  }
}

INLINE int claim_in_word(u64 *word, u32 in_word, u32 count) {
  u64 want = slab_bits(count);
  u64 cur = load_relaxed(word);
  for (u32 s = 0; s + count <= in_word;) {
    u64 bits = want << s;
    if (cur & bits) {
      ++s;
      continue;
    }
    u64 seen = cas_acquire(word, cur, cur | bits);
    if (seen == cur)
      return (int)s;
    cur = seen;
  }
  return -1;
}

// Claims `count` adjacent free slabs (count <= 64, all in one bitmap word); returns the first or -1.
// The search starts at a word chosen by the calling warp, so that thousands of warps claiming at
// once do not all fight over the first words. The word is taken from the high bits of the warp's
// multiplicative hash: its low bits, taken modulo a power of two, put the first warps of all blocks
// in 4 of 128 words (measured, nested benchmark at block granularity, 391 parent blocks: the pool ran
// short and records were launched one by one; median 1.13 ms against 0.51 to 0.53, single runs of 50
// to 169 ms).
INLINE int claim_slabs(SlabClass k, u32 count) {
  u32 words = (k.slabs + 63) / 64;
  u32 hash = (__nvvm_read_ptx_sreg_ctaid_x() * 32 + tid_linear() / 32) * 2654435761u;
  u32 start = (u32)(((u64)hash * words) >> 32);
  for (u32 i = 0; i < words; ++i) {
    u32 w = (start + i) % words;
    u32 in_word = k.slabs - w * 64 < 64 ? k.slabs - w * 64 : 64;
    int s = claim_in_word(&k.map[w], in_word, count);
    if (s >= 0)
      return (int)(w * 64) + s;
  }
  return -1;
}

// Set where a claim found no room: the next launch of a chunk frees every finished chunk. Not where
// the claim fails: that is inlined into every registration, where the reclaiming code's registers
// counted toward every parent (measured: 67 to 82 registers, as a call).
GLOBAL_VAR u32 klap_reclaim_wanted;

INLINE Chunk *chunk_alloc(u32 large, u32 slab_count, u32 record_size, u32 count_threads) {
  SlabClass k = slab_class(large);
  int first = claim_slabs(k, slab_count);
  if (first < 0) {
    store_relaxed(&klap_reclaim_wanted, 1);
    trace("klap: pool exhausted: no %u free slabs of class %u; launches are made as written\n", slab_count, large);
    return 0;
  }
  char *mem = k.base + (u64)first * k.slab_bytes;
  u64 bytes = k.slab_bytes * slab_count;
  Chunk *c = (Chunk *)mem;
  u32 cap = (u32)((bytes - CHUNK_HEADER - 64) / record_bytes(record_size));
  if (cap == 0) {
    // Arguments too large for the largest chunk of the class.
    release_slabs(k, first, slab_count);
    return 0;
  }
  c->counter = 0;
  c->capacity = cap;
  c->record_size = (u32)align16(record_size);
  c->max_threads = 0;
  c->max_smem = 0;
  c->threads_total = 0;
  c->blocks = NOT_LAUNCHED;
  c->group = 1;
  c->count_threads = count_threads;
  c->slab = (u32)first | (large ? 0x80000000u : 0);
  c->slab_count = slab_count;
  c->next = 0;
  c->scope_state = 0;
  c->end = (u32 *)(mem + CHUNK_HEADER);
  c->dims = (u32 *)(mem + align16(CHUNK_HEADER + 4ull * cap));
  c->args = mem + align16(CHUNK_HEADER + 4ull * cap) + align16(32ull * cap);
  return c;
}

INLINE u32 lanemask_lt() { return __nvvm_read_ptx_sreg_lanemask_lt(); }

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

// The lanes of `peers` (all registering into `c`) take their records with one atomic per warp:
// per-thread atomics on the chunk's header made registration the bottleneck. The running maxima take
// an atomic only where they grow, and the child threads are counted only for a child that waits for
// them: each atomic on the header line is one more in a queue of one per warp of the grid.
INLINE Taken take_records(Chunk *c, u32 peers, u32 blocks, u32 threads, u32 smem) {
  u32 leader = __builtin_ctz(peers), me = lane_id();
  u32 total;
  u32 before = sum_below(peers, blocks, &total);
  u32 rank = __builtin_popcount(peers & lanemask_lt());
  u32 most_threads = __nvvm_redux_sync_umax(threads, peers), most_smem = __nvvm_redux_sync_umax(smem, peers);
  u64 work = 0;
  if (c->count_threads)
    for (u32 rest = peers; rest; rest &= rest - 1) {
      u32 src = __builtin_ctz(rest);
      work += (u64)shfl_idx(peers, blocks, src) * shfl_idx(peers, threads, src);
    }
  u64 old = 0;
  if (me == leader) {
    u32 n = __builtin_popcount(peers);
    old = __nvvm_atom_add_gen_ll((long long *)&c->counter, (long long)(((u64)n << 32) | total));
    if (most_threads > load_relaxed(&c->max_threads))
      __nvvm_atom_max_gen_ui(&c->max_threads, most_threads);
    if (most_smem > load_relaxed(&c->max_smem))
      __nvvm_atom_max_gen_ui(&c->max_smem, most_smem);
    if (work)
      __nvvm_atom_add_gen_ll((long long *)&c->threads_total, (long long)work);
  }
  u32 lo = shfl_idx(peers, (u32)old, leader), hi = shfl_idx(peers, (u32)(old >> 32), leader);
  Taken t = {hi + rank, lo + before};
  if (t.record >= c->capacity && c->count_threads)
    // Its blocks will not run in this chunk's launch: they must not be waited for.
    __nvvm_atom_add_gen_ll((long long *)&c->threads_total, -(long long)((u64)blocks * threads));
  return t;
}

// Returns where the record's arguments go, tagged in bit 0 for the chunk's first record: the one that
// also holds the arguments uniform over the scope (the pass writes them only there).
INLINE char *write_record(Chunk *c, Taken t, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem) {
  c->end[t.record] = t.first + gx * gy * gz;
  u32 *d = c->dims + 8 * t.record;
  d[0] = gx, d[1] = gy, d[2] = gz, d[3] = bx, d[4] = by, d[5] = bz, d[6] = smem, d[7] = 0;
  return c->args + (u64)t.record * c->record_size + (t.record == 0);
}

// A registration's result: where its arguments go, and whether it also writes the uniform ones.
ACCESSOR char *__klap_record_args(char *tagged) { return (char *)((u64)tagged & ~1ull); }
ACCESSOR bool __klap_record_first(char *tagged) { return (u64)tagged & 1; }

// Registers one launch of a warp scope; returns where its argument record goes, or null (no chunk, or
// the chunk is full): the caller then makes the original launch.
DEVICE char *__klap_register(Chunk *c, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem) {
  if (!c)
    return 0;
  u32 blocks = gx * gy * gz;
  // A launch of no blocks takes no record (no block of it would ever finish): it is made as written,
  // and fails as it would have.
  u32 peers = __nvvm_match_any_sync_i64(active_mask(), blocks ? (long long)c : 0);
  if (!blocks)
    return 0;
  Taken t = take_records(c, peers, blocks, bx * by * bz, smem);
  if (t.record >= c->capacity) {
    trace("klap: chunk full (%u records of capacity %u); launch made as written\n", t.record + 1, c->capacity);
    return 0;
  }
  return write_record(c, t, gx, gy, gz, bx, by, bz, smem);
}

// What launches (and so needs the device runtime) is left out of test/gpu-race's harness, which
// compute-sanitizer's racecheck only checks in programs without device-side launches.
#ifndef KLAP_RT_NO_LAUNCH
// The device runtime's launch entry points (libcudadevrt), as klap-normalize calls them.
struct Dim3 {
  u32 x, y, z;
};
extern "C" __attribute__((device)) void *__cudaCDP2GetParameterBufferV2(void *kernel, Dim3 grid, Dim3 block, u32 smem);
extern "C" __attribute__((device)) int __cudaCDP2LaunchDeviceV2(void *buffer, void *stream);

// `uniform_words`: the 4-byte words of the arguments (the first 64) that only the chunk's first record,
// `first`, holds.
INLINE bool launch_once(void *kernel, Dim3 grid, Dim3 block, u32 smem, const char *args, u32 size, void *stream,
                        const char *first, u64 uniform_words) {
  char *buf = (char *)__cudaCDP2GetParameterBufferV2(kernel, grid, block, smem);
  if (!buf)
    return false;
  auto from = [&](u32 word) { return word < 64 && (uniform_words >> word) & 1 ? first : args; };
  u32 words = size / 4;
  for (u32 i = 0; i < words; ++i)
    ((u32 *)buf)[i] = ((const u32 *)from(i))[i];
  for (u32 i = words * 4; i < size; ++i)
    buf[i] = from(i / 4)[i];
  return __cudaCDP2LaunchDeviceV2(buf, stream) == 0;
}

// A launch refused for want of room (pending launches, parameter buffers) may go through once
// running grids finish: tried again with a growing wait, about 0.5 ms in all.
INLINE bool launch(void *kernel, Dim3 grid, Dim3 block, u32 smem, const char *args, u32 size, void *stream,
                   const char *first = 0, u64 uniform_words = 0) {
  for (u32 wait = 1000;; wait *= 2) {
    if (launch_once(kernel, grid, block, smem, args, size, stream, first, uniform_words))
      return true;
    if (wait > 256000)
      return false;
    trace("klap: device launch refused (%u blocks); trying again in %u ns\n", grid.x * grid.y * grid.z, wait);
    __nvvm_nanosleep(wait);
  }
}

// What a chunk's aggregated child is, and what its records are launched as when they are launched one
// by one: `original` with `param_size` bytes of arguments, of which `uniform_words` are in record 0 only.
struct ChildKernel {
  void *aggregated, *original;
  u32 param_size;
  u64 uniform_words;
};

INLINE bool launch_record(Chunk *c, u32 r, ChildKernel k, void *stream) {
  const u32 *d = c->dims + 8 * r;
  Dim3 g = {d[0], d[1], d[2]}, b = {d[3], d[4], d[5]};
  return launch(k.original, g, b, d[6], c->args + (u64)r * c->record_size, k.param_size, stream, c->args,
                k.uniform_words);
}

// Frees the finished chunks in the bitmap word of chunk `c` (before it is launched: after, it may
// be gone), where the claims of the warps that claimed it start. Reclaiming after the launch instead,
// to take it off the way to the child's start, made the children slower (measured, the nested
// benchmark at block granularity: median 0.90 to 0.99 ms against 0.51 to 0.53; cause not found), and
// so did reclaiming only once half the word's slabs were in use (0.99 to 1.03 ms against 0.56 hand-
// written; with 10,000 parents 0.097 against 0.066). Done here, once per launch, and not where a claim
// finds no room: inlined into every registration, the reclaiming code's registers counted toward
// every parent (measured: 56 to 70 registers, too many for 1024-thread blocks).
INLINE void reclaim_near(Chunk *c) {
  reclaim_word(slab_class(c->slab >> 31), (c->slab & 0x7fffffffu) / 64);
}

INLINE void launch_one_chunk(Chunk *c, ChildKernel k, void *stream) {
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
  Dim3 grid = {total, 1, 1}, block = {c->max_threads, 1, 1};
  u64 arg = (u64)c;
  c->blocks = total;
  c->group = (n + DONE_COUNTERS - 1) / DONE_COUNTERS;
  if (launch(k.aggregated, grid, block, c->max_smem, (const char *)&arg, 8, stream)) {
    // Nothing frees a chunk before its pending bit is set: it can still be read here.
    SlabClass k = slab_class(c->slab >> 31);
    u32 first = c->slab & 0x7fffffffu;
    fence();
    __nvvm_atom_or_gen_ll((long long *)&k.pending[first / 64], (long long)(1ull << (first % 64)));
    return;
  }
  trace("klap: aggregated launch of %u blocks failed; launching its %u records one by one\n", total, records);
  for (u32 r = 0; r < n; ++r)
    if (!launch_record(c, r, k, stream))
      error("klap: error: a device launch failed (record %u of %u): it is lost\n", r, n);
  chunk_free(c);
}

// Launches each chunk of a chain as one launch of `aggregated` (taking the chunk as its only
// argument), once every registration is done, and schedules the chunk's return to the pool. If a
// launch cannot be made, each record is launched as it was written, as `original` with `param_size`
// bytes of arguments: a launch is never lost.
DEVICE void __klap_launch_chunk(Chunk *c, void *aggregated, void *original, u32 param_size, u64 uniform_words,
                                void *stream) {
  if (load_relaxed(&klap_reclaim_wanted) &&
      __nvvm_atom_xchg_gen_i((int *)&klap_reclaim_wanted, 0)) {
    for (u32 large = 0; large < 2; ++large) {
      SlabClass k = slab_class(large);
      for (u32 w = 0; w < (k.slabs + 63) / 64; ++w)
        reclaim_word(k, w);
    }
  }
  while (c) {
    Chunk *next = c->next;
    launch_one_chunk(c, {aggregated, original, param_size, uniform_words}, stream);
    c = next;
  }
}
#endif // KLAP_RT_NO_LAUNCH

// ---- warp scope ----------------------------------------------------------------------------------
//
// The lanes that reach a launch together share one chunk; the lowest lane claims it and, after every
// lane has written its record, launches.

ACCESSOR u32 __klap_active_mask() { return active_mask(); }

DEVICE Chunk *__klap_warp_chunk(u32 mask, u32 record_size) {
  u32 lanes = __builtin_popcount(mask);
  // A lane alone has nothing to aggregate: it launches as written.
  if (lanes == 1)
    return 0;
  u32 leader = __builtin_ctz(mask);
  Chunk *c = 0;
  if (lane_id() == leader)
    c = chunk_alloc(0, slabs_for(lanes, record_size, SMALL_SLAB, 64), record_size, 0);
  return (Chunk *)shfl_u64(mask, (u64)c, leader);
}

// Once every lane of `mask` has registered (or launched on its own): true in the lane that launches.
DEVICE bool __klap_warp_leader(u32 mask) {
  __nvvm_bar_warp_sync(mask);
  return lane_id() == (u32)__builtin_ctz(mask);
}

// ---- block and grid scopes ---------------------------------------------------------------------
//
// A scope holds a chain of chunks per group of launch sites (same child, same stream class). The
// first registration of a group claims its first chunk, sized for as many registering lanes in every
// warp of the scope as in the first; a registration that finds the chunk full takes a new one twice
// as large. Chunks are launched by the thread that completes the scope's exit count.

#define CLAIMING ((Chunk *)1)
#define NO_CHUNK ((Chunk *)2)

SHARED Scope klap_block_scope;

// Where an aggregated child's blocks find their record; a grid scope in the child lives in its chunk.
struct ChildContext {
  Chunk *chunk;
  char *args;
  char *uniform_args; // the chunk's first record: the arguments uniform over the scope
  u32 grid[3], block[3], index[3];
  u32 threads;
  u32 exited; // threads of this block past their exit
  u32 *done; // the counter of the block's group of records
  u64 grid_threads; // the aggregated launch's threads that serve records
};
SHARED ChildContext klap_child;

// A grid launched as written (from the host, or a launch that was not aggregated) finds its scope in
// this table, keyed by %gridid (unique per launch). A grid's blocks must all find the one entry its
// first block set up: a block that set up a second would leave both scopes short of their exit count
// and their launches would never be made. So lookups scan a whole window of GRID_WINDOW entries (holes
// left by finished grids do not end the search), and an entry is only taken under klap_grid_lock,
// after looking again. The window is larger than the 128 grids a GPU runs at once (sm_90), so a grid
// always finds a free entry in it. The keys are apart from the entries, so that a warp reads a window's
// keys in a few coalesced loads.
enum { GRID_TABLE = 1024, GRID_WINDOW = 256 };
struct GridEntry {
  u64 ready;
  Scope scope;
};
GLOBAL_VAR u64 klap_grid_keys[GRID_TABLE];
GLOBAL_VAR GridEntry klap_grid_table[GRID_TABLE];
GLOBAL_VAR u32 klap_grid_lock;

SHARED Scope *klap_scope_ptr;

INLINE u32 block_threads() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_ntid_z();
}
INLINE u64 grid_blocks() {
  return (u64)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_nctaid_y() * __nvvm_read_ptx_sreg_nctaid_z();
}

INLINE void setup_scope(Scope *s, u32 groups, const u32 *sizes, u32 large, u64 warps, u32 in_table) {
  for (u32 g = 0; g < MAX_GROUPS; ++g) {
    s->head[g] = 0;
    s->current[g] = g < groups ? 0 : NO_CHUNK;
    s->record_size[g] = sizes[g];
  }
  s->large = large;
  s->in_table = in_table;
  s->warps = warps;
  s->threads_done = 0;
}

// A grid scope's chunk that fits in a few small slabs takes those: a grid of a few blocks (e.g. one of
// the launches made as written when the pool ran short) must not hold a whole large slab.
enum { SMALL_ENOUGH = 16 };
INLINE Chunk *scope_chunk_alloc(Scope *s, u32 g, u64 records) {
  u32 size = s->record_size[g] & ~COUNT_THREADS;
  u32 small = slabs_for(records, size, SMALL_SLAB, 64);
  bool large = s->large && small > SMALL_ENOUGH;
  return chunk_alloc(large, large ? slabs_for(records, size, LARGE_SLAB, 8) : small, size,
                     (s->record_size[g] & COUNT_THREADS) != 0);
}
// A scope's chunk pointers are read by other warps while one warp sets them, ordered by the fences
// around them: atomic accesses, so that the reads are not data races (and compute-sanitizer's racecheck,
// which knows barriers but not fences, does not report them: test/gpu-race).
INLINE Chunk *load_chunk(Chunk **p) { return (Chunk *)load_relaxed((const u64 *)p); }
INLINE void store_chunk(Chunk **p, Chunk *c) { store_relaxed((u64 *)p, (u64)c); }

INLINE void publish(Scope *s, u32 g, Chunk *c) {
  fence();
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
      if (full)
        full->next = n;
      else
        store_chunk(&s->head[g], n);
      publish(s, g, n);
      return n;
    }
    if (c == NO_CHUNK)
      return 0;
    if (c != full && c != CLAIMING) {
      fence();
      return c;
    }
  }
}

// Registers one launch in group `g` of a block or grid scope; returns where its argument record
// goes, or null: the caller then makes the original launch.
DEVICE char *__klap_scope_register(Scope *s, u32 g, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem) {
  if (!s)
    return 0;
  u32 blocks = gx * gy * gz;
  u32 live = __nvvm_vote_ballot_sync(active_mask(), blocks != 0);
  if (!blocks)
    return 0; // as in __klap_register
  Chunk *full = 0;
  for (;;) {
    u32 leader = __builtin_ctz(live);
    u64 p = lane_id() == leader ? (u64)scope_current(s, g, __builtin_popcount(live), full) : 0;
    Chunk *c = (Chunk *)shfl_u64(live, p, leader);
    if (!c)
      return 0;
    Taken t = take_records(c, live, blocks, bx * by * bz, smem);
    u32 over = __nvvm_vote_ballot_sync(live, t.record >= c->capacity);
    if (t.record < c->capacity)
      return write_record(c, t, gx, gy, gz, bx, by, bz, smem);
    full = c;
    live = over;
  }
}

// Block scope: call at kernel entry, by every thread.
DEVICE Scope *__klap_block_enter(u32 groups, u32 size0, u32 size1, u32 size2, u32 size3) {
  if (tid_linear() == 0) {
    u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3};
    setup_scope(&klap_block_scope, groups, sizes, 0, (block_threads() + 31) / 32, 0);
  }
  __syncthreads();
  return &klap_block_scope;
}

// The entry of grid `g` in the window starting at `h`, searched by the lanes of `mask`; or null.
INLINE GridEntry *grid_lookup(u64 g, u32 h, u32 mask) {
  u32 lanes = __builtin_popcount(mask), rank = __builtin_popcount(mask & lanemask_lt());
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
        if (!e && leader) {
          e = grid_claim(g, h, groups, sizes);
          if (!e)
            error("klap: error: no free grid table entry among %u (at most %u grids run at once)\n", GRID_WINDOW, 128);
        }
        if (leader) {
          fence();
          store_relaxed(&klap_grid_lock, 0);
        }
        e = (GridEntry *)shfl_u64(mask, (u64)e, __builtin_ctz(mask));
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

// The grid scope of an aggregated child: in its chunk, set up by the first block to arrive.
INLINE Scope *chunk_scope(u32 groups, const u32 *sizes) {
  Chunk *c = klap_child.chunk;
  u32 *state = &c->scope_state;
  if (cas_acquire(state, 0u, 1u) == 0) {
    u64 blocks = __nvvm_read_ptx_sreg_nctaid_x();
    setup_scope(&c->scope, groups, sizes, 1, blocks * ((block_threads() + 31) / 32), 0);
    fence();
    store_relaxed(state, 2);
  } else {
    while (load_relaxed(state) != 2)
      ;
    fence();
  }
  return &c->scope;
}

// Grid scope: call at kernel entry (in an aggregated child: after its record lookup), by every thread.
DEVICE Scope *__klap_grid_enter(u32 groups, u32 size0, u32 size1, u32 size2, u32 size3, u32 in_child) {
  u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3};
  if (in_child) {
    if (tid_linear() == 0)
      klap_scope_ptr = chunk_scope(groups, sizes);
  } else if (grid_blocks() == 1) {
    // Nothing to share with other blocks: the scope is the block's, with no table lookup (ccl's parents
    // are one block of 2 threads: 2 lanes to scan a window).
    if (tid_linear() == 0) {
      setup_scope(&klap_block_scope, groups, sizes, 1, (block_threads() + 31) / 32, 0);
      klap_scope_ptr = &klap_block_scope;
    }
  } else if (tid_linear() < 32) {
    Scope *s = grid_table_scope(groups, sizes, active_mask());
    if (tid_linear() == 0)
      klap_scope_ptr = s;
  }
  __syncthreads();
  return klap_scope_ptr;
}

// At kernel exit, by every thread that ran (one atomic per warp): true in the one thread that completes
// the scope's `expected` threads; that thread then launches each group's chunks.
DEVICE bool __klap_scope_exit(Scope *s, u64 expected) {
  if (!s)
    return false;
  u32 mask = active_mask();
  u32 leader = __builtin_ctz(mask);
  u32 last = 0;
  fence();
  if (lane_id() == leader) {
    u64 n = __builtin_popcount(mask);
    u64 before = __nvvm_atom_add_gen_ll((long long *)&s->threads_done, (long long)n);
    last = before + n == expected;
  }
  last = shfl_idx(mask, last, leader);
  // Only the leader's lane can be the last; hand the role to it alone.
  return last && lane_id() == leader;
}

#ifndef KLAP_RT_NO_LAUNCH
DEVICE void __klap_scope_launch(Scope *s, u32 g, void *aggregated, void *original, u32 param_size,
                                u64 uniform_words, void *stream) {
  fence();
  __klap_launch_chunk(load_chunk(&s->head[g]), aggregated, original, param_size, uniform_words, stream);
}
#endif

// The grid scope's table entry is free again once its last thread has taken the chunks.
DEVICE void __klap_grid_release(Scope *s) {
  if (!s->in_table)
    return;
  GridEntry *e = (GridEntry *)((char *)s - __builtin_offsetof(GridEntry, scope));
  store_relaxed(&e->ready, 0);
  fence();
  store_relaxed(&klap_grid_keys[e - klap_grid_table], 0);
}

// ---- the aggregated child ----------------------------------------------------------------------
//
// Every aggregated block serves one record. Thread 0 finds it, the block reads it from shared memory,
// and the sreg reads of the child's code are remapped onto it.


// At the aggregated child's entry, by every thread: the record's arguments, or null for a thread
// beyond the record's block size (it must return at once).
// The record serving aggregated block b: the first whose block range ends past b. With a full first
// warp a 32-ary search (one probe per lane and a ballot a step: four steps for 100,000 records where a
// binary search takes seventeen dependent loads); with fewer threads, a binary search by thread 0.
INLINE u32 find_record(Chunk *c, u32 b) {
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

DEVICE char *__klap_child_enter(Chunk *c) {
  u32 threads = __nvvm_read_ptx_sreg_ntid_x();
  if (tid_x() < 32 && (threads >= 32 || tid_x() == 0)) {
    u32 b = __nvvm_read_ptx_sreg_ctaid_x();
    u32 r = find_record(c, b);
    if (tid_x() == 0) {
      u32 local = b - (r ? c->end[r - 1] : 0);
      const u32 *d = c->dims + 8 * r;
      klap_child.chunk = c;
      klap_child.args = c->args + (u64)r * c->record_size;
      klap_child.uniform_args = c->args;
      klap_child.grid[0] = d[0], klap_child.grid[1] = d[1], klap_child.grid[2] = d[2];
      klap_child.block[0] = d[3], klap_child.block[1] = d[4], klap_child.block[2] = d[5];
      klap_child.index[0] = local % d[0];
      klap_child.index[1] = (local / d[0]) % d[1];
      klap_child.index[2] = local / (d[0] * d[1]);
      klap_child.threads = d[3] * d[4] * d[5];
      klap_child.exited = 0;
      klap_child.done = c->dims + 8 * (r - r % c->group) + 7;
      klap_child.grid_threads = c->threads_total;
    }
  }
  __syncthreads();
  return tid_x() < klap_child.threads ? klap_child.args : 0;
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
  asm volatile("red.relaxed.gpu.add.u32 [%0], 1;" ::"l"(klap_child.done) : "memory");
}

ACCESSOR char *__klap_child_uniform_args() { return klap_child.uniform_args; }

// The child's view of its indices.
ACCESSOR u32 __klap_tid_x() { return tid_x() % klap_child.block[0]; }
ACCESSOR u32 __klap_tid_y() { return (tid_x() / klap_child.block[0]) % klap_child.block[1]; }
ACCESSOR u32 __klap_tid_z() { return tid_x() / (klap_child.block[0] * klap_child.block[1]); }
ACCESSOR u32 __klap_ntid_x() { return klap_child.block[0]; }
ACCESSOR u32 __klap_ntid_y() { return klap_child.block[1]; }
ACCESSOR u32 __klap_ntid_z() { return klap_child.block[2]; }
ACCESSOR u32 __klap_ctaid_x() { return klap_child.index[0]; }
ACCESSOR u32 __klap_ctaid_y() { return klap_child.index[1]; }
ACCESSOR u32 __klap_ctaid_z() { return klap_child.index[2]; }
ACCESSOR u32 __klap_nctaid_x() { return klap_child.grid[0]; }
ACCESSOR u32 __klap_nctaid_y() { return klap_child.grid[1]; }
ACCESSOR u32 __klap_nctaid_z() { return klap_child.grid[2]; }
// Threads of the record's block and of its whole grid: what a scope inside the child waits for.
ACCESSOR u64 __klap_child_block_threads() { return klap_child.threads; }
// Copied at entry: by the time a thread reaches its exit, the chunk may be back in the pool.
ACCESSOR u64 __klap_child_grid_threads() { return klap_child.grid_threads; }
