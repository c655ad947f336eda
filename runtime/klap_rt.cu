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
INLINE void fence() { __nvvm_membar_gl(); }
INLINE u32 shfl_idx(u32 mask, u32 v, u32 src) { return __nvvm_shfl_sync_idx_i32(mask, v, src, 31); }

// ---- the pool ----------------------------------------------------------------------------------
//
// The pass defines klap_pool (its size set by -klap-pool-size) and klap_pool_bytes. The pool is cut
// into slabs of two sizes: SMALL for warp and block scopes, LARGE for grid scopes; a bitmap word per
// 64 slabs. A host may point klap_pool_override at its own buffer before the first launch.

extern "C" GLOBAL_VAR char klap_pool[];
extern "C" GLOBAL_VAR u64 klap_pool_bytes;
extern "C" GLOBAL_VAR char *klap_pool_override = 0;
extern "C" GLOBAL_VAR u64 klap_pool_override_bytes = 0;

// Set by the pass (-klap-trace): report every fallback to an unaggregated launch, the first
// hundred of them, with device printf.
extern "C" GLOBAL_VAR u32 klap_trace;
GLOBAL_VAR u32 klap_trace_count;
extern "C" __attribute__((device)) int vprintf(const char *format, const char *args);

INLINE void trace(const char *format, u32 a, u32 b) {
  if (!klap_trace || __nvvm_atom_add_gen_i((int *)&klap_trace_count, 1) >= 100)
    return;
  u32 args[2] = {a, b};
  vprintf(format, (const char *)args);
}

enum { SMALL_SLAB = 4 << 10, LARGE_SLAB = 1 << 20, MAX_WORDS = 256 };
GLOBAL_VAR u64 klap_small_map[MAX_WORDS];
GLOBAL_VAR u64 klap_large_map[MAX_WORDS];

struct PoolLayout {
  char *base;
  u32 small_slabs, large_slabs;
};

INLINE PoolLayout pool_layout() {
  char *base = klap_pool_override ? klap_pool_override : klap_pool;
  u64 bytes = klap_pool_override ? klap_pool_override_bytes : klap_pool_bytes;
  // Half the pool in small slabs, half in large ones, each at most MAX_WORDS * 64 slabs.
  u64 small = (bytes / 2) / SMALL_SLAB, large = (bytes / 2) / LARGE_SLAB;
  PoolLayout p;
  p.base = base;
  p.small_slabs = small > MAX_WORDS * 64 ? MAX_WORDS * 64 : (u32)small;
  p.large_slabs = large > MAX_WORDS * 64 ? MAX_WORDS * 64 : (u32)large;
  return p;
}

// Claims `count` adjacent free slabs (count <= 64, all in one bitmap word); returns the first or -1.
// The search starts at a word chosen by the calling warp, so that thousands of warps claiming at
// once do not all fight over the first words.
INLINE int claim_slabs(u64 *map, u32 slabs, u32 count) {
  u64 want = count >= 64 ? ~0ull : ((1ull << count) - 1);
  u32 words = (slabs + 63) / 64;
  u32 warp = (__nvvm_read_ptx_sreg_ctaid_x() * 32 + tid_linear() / 32) * 2654435761u;
  for (u32 i = 0; i < words; ++i) {
    u32 w = (warp + i) % words;
    u32 in_word = slabs - w * 64 < 64 ? slabs - w * 64 : 64;
    u64 cur = __atomic_load_n(&map[w], __ATOMIC_RELAXED);
    for (u32 s = 0; s + count <= in_word;) {
      u64 bits = want << s;
      if (cur & bits) {
        ++s;
        continue;
      }
      u64 seen = __nvvm_atom_cas_gen_ll((long long *)&map[w], cur, cur | bits);
      if (seen == cur)
        return (int)(w * 64 + s);
      cur = seen;
    }
  }
  return -1;
}

// ---- aggregation records -----------------------------------------------------------------------
//
// A chunk holds the records of one aggregated launch. Records are handed out by one 64-bit atomic
// (record index << 32 | first child block), so record order and block order agree and the
// inclusive ends of the records' block ranges are sorted: the child finds its record by binary search.

struct Chunk {
  u64 counter;       // records << 32 | child blocks handed out
  u32 capacity;      // records that fit
  u32 record_size;   // bytes of one argument record (the child's parameter layout)
  u32 max_threads;   // threads per block of the aggregated launch
  u32 max_smem;      // dynamic shared memory of the aggregated launch
  u64 threads_total; // child threads that run (sum of blocks * threads over the records)
  u32 blocks_done;   // aggregated blocks finished, for a chunk its children free
  u32 freed_by_children; // warp chunks: one tail launch each to free them would double the launches
  u32 slab;          // first slab, and the slab class in the top bit
  u32 slab_count;
  u32 *end;          // inclusive end of each record's block range
  u32 *dims;         // 8 per record: grid x y z, block x y z, dynamic shared memory, unused
  char *args;        // record_size bytes per record
};

INLINE u64 align16(u64 x) { return (x + 15) & ~15ull; }

DEVICE Chunk *__klap_chunk_alloc(u32 large, u32 slab_count, u32 record_size) {
  PoolLayout p = pool_layout();
  u64 *map = large ? klap_large_map : klap_small_map;
  u32 slabs = large ? p.large_slabs : p.small_slabs;
  u64 slab_bytes = large ? LARGE_SLAB : SMALL_SLAB;
  int first = claim_slabs(map, slabs, slab_count);
  if (first < 0) {
    trace("klap: pool exhausted: no %u free slabs of class %u; launches are made as written\n", slab_count, large);
    return 0;
  }
  char *mem = p.base + (large ? (u64)p.small_slabs * SMALL_SLAB : 0) + (u64)first * slab_bytes;
  u64 bytes = slab_bytes * slab_count;
  Chunk *c = (Chunk *)mem;
  u64 header = align16(sizeof(Chunk));
  u64 per_record = 4 + 32 + align16(record_size);
  u32 cap = (u32)((bytes - header - 64) / per_record);
  c->counter = 0;
  c->capacity = cap;
  c->record_size = (u32)align16(record_size);
  c->max_threads = 0;
  c->max_smem = 0;
  c->threads_total = 0;
  c->blocks_done = 0;
  c->freed_by_children = 0;
  c->slab = (u32)first | (large ? 0x80000000u : 0);
  c->slab_count = slab_count;
  c->end = (u32 *)(mem + header);
  c->dims = (u32 *)(mem + align16(header + 4ull * cap));
  c->args = mem + align16(header + 4ull * cap) + align16(32ull * cap);
  return c;
}

INLINE void chunk_free(Chunk *c) {
  u32 first = c->slab & 0x7fffffffu;
  u64 *map = (c->slab & 0x80000000u) ? klap_large_map : klap_small_map;
  u64 want = c->slab_count >= 64 ? ~0ull : ((1ull << c->slab_count) - 1);
  fence();
  __nvvm_atom_and_gen_ll((long long *)&map[first / 64], (long long)~(want << (first % 64)));
}

INLINE u32 lanemask_lt() { return __nvvm_read_ptx_sreg_lanemask_lt(); }

// Registers one launch of `blocks` child blocks of `threads` threads; returns where its argument
// record goes, or null when the chunk is full (the caller then makes the original launch).
// The lanes registering into one chunk together take their records with one atomic per warp (and one
// per running total): per-thread atomics on the chunk's header made registration the bottleneck.
DEVICE char *__klap_register(Chunk *c, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem) {
  if (!c)
    return 0;
  u32 blocks = gx * gy * gz, threads = bx * by * bz;
  u32 mask = active_mask();
  u32 peers = __nvvm_match_any_sync_i64(mask, (long long)c);
  u32 leader = __builtin_ctz(peers), me = lane_id();
  // Blocks of the lower peers, all peers' blocks, and child threads, by a walk over the peers.
  u32 before = 0, total = 0;
  u64 work = 0;
  for (u32 rest = peers; rest; rest &= rest - 1) {
    u32 src = __builtin_ctz(rest);
    u32 b = shfl_idx(peers, blocks, src), t = shfl_idx(peers, threads, src);
    before += src < me ? b : 0;
    total += b;
    work += (u64)b * t;
  }
  u32 rank = __builtin_popcount(peers & lanemask_lt());
  u32 most_threads = __nvvm_redux_sync_umax(threads, peers), most_smem = __nvvm_redux_sync_umax(smem, peers);
  u64 old = 0;
  if (me == leader) {
    u32 n = __builtin_popcount(peers);
    old = __nvvm_atom_add_gen_ll((long long *)&c->counter, (long long)(((u64)n << 32) | total));
    __nvvm_atom_max_gen_ui(&c->max_threads, most_threads);
    __nvvm_atom_max_gen_ui(&c->max_smem, most_smem);
    __nvvm_atom_add_gen_ll((long long *)&c->threads_total, (long long)work);
  }
  u32 lo = shfl_idx(peers, (u32)old, leader), hi = shfl_idx(peers, (u32)(old >> 32), leader);
  u32 r = hi + rank, first = lo + before;
  if (r >= c->capacity) {
    // Its blocks will not run in the aggregated launch: they must not be waited for.
    __nvvm_atom_add_gen_ll((long long *)&c->threads_total, -(long long)((u64)blocks * threads));
    trace("klap: chunk full (%u records of capacity %u); launch made as written\n", r + 1, c->capacity);
    return 0;
  }
  c->end[r] = first + blocks;
  u32 *d = c->dims + 8 * r;
  d[0] = gx, d[1] = gy, d[2] = gz, d[3] = bx, d[4] = by, d[5] = bz, d[6] = smem;
  return c->args + (u64)r * c->record_size;
}

// The device runtime's launch entry points (libcudadevrt), as klap-normalize calls them.
struct Dim3 {
  u32 x, y, z;
};
extern "C" __attribute__((device)) void *__cudaCDP2GetParameterBufferV2(void *kernel, Dim3 grid, Dim3 block, u32 smem);
extern "C" __attribute__((device)) int __cudaCDP2LaunchDeviceV2(void *buffer, void *stream);

INLINE bool launch(void *kernel, Dim3 grid, Dim3 block, u32 smem, const char *args, u32 size, void *stream) {
  char *buf = (char *)__cudaCDP2GetParameterBufferV2(kernel, grid, block, smem);
  if (!buf)
    return false;
  u32 words = size / 4;
  for (u32 i = 0; i < words; ++i)
    ((u32 *)buf)[i] = ((const u32 *)args)[i];
  for (u32 i = words * 4; i < size; ++i)
    buf[i] = args[i];
  return __cudaCDP2LaunchDeviceV2(buf, stream) == 0;
}

// Returns a chunk to the pool. Launched into the tail stream of the grid that launched the chunk's
// aggregated child, it runs once that grid and all its work, the aggregated child included, are done.
extern "C" __attribute__((global)) void __klap_free_chunk(Chunk *c) { chunk_free(c); }

#define TAIL_LAUNCH ((void *)0x3)

// Launches a chunk's records as one launch of `aggregated` (taking the chunk as its only argument),
// once every registration is done, and schedules the chunk's return to the pool. If the launch
// cannot be made, each record is launched as it was written, as `original` with `param_size` bytes of
// arguments: a launch is never lost.
DEVICE void __klap_launch_chunk(Chunk *c, void *aggregated, void *original, u32 param_size, void *stream) {
  if (!c)
    return;
  fence();
  u64 counter = __atomic_load_n(&c->counter, __ATOMIC_RELAXED);
  u32 records = (u32)(counter >> 32);
  u32 total = records <= c->capacity ? (u32)counter : (c->capacity ? c->end[c->capacity - 1] : 0);
  if (total == 0) {
    chunk_free(c);
    return;
  }
  Dim3 grid = {total, 1, 1}, block = {c->max_threads, 1, 1}, one = {1, 1, 1};
  u64 arg = (u64)c;
  // Once the aggregated child runs, a chunk its children free may be gone (and claimed again): read
  // nothing of it after the launch.
  bool freed_by_children = c->freed_by_children;
  if (launch(aggregated, grid, block, c->max_smem, (const char *)&arg, 8, stream)) {
    if (!freed_by_children && !launch((void *)__klap_free_chunk, one, one, 0, (const char *)&arg, 8, TAIL_LAUNCH))
      trace("klap: could not schedule the return of a chunk of %u records (%u blocks) to the pool\n", records, total);
    return;
  }
  trace("klap: aggregated launch of %u blocks failed; launching its %u records one by one\n", total, records);
  u32 n = records < c->capacity ? records : c->capacity;
  for (u32 r = 0; r < n; ++r) {
    const u32 *d = c->dims + 8 * r;
    Dim3 g = {d[0], d[1], d[2]}, b = {d[3], d[4], d[5]};
    launch(original, g, b, d[6], c->args + (u64)r * c->record_size, param_size, stream);
  }
  chunk_free(c);
}

// ---- warp scope ----------------------------------------------------------------------------------
//
// The lanes that reach a launch together share one chunk; the lowest lane claims it and, after every
// lane has written its record, launches.

ACCESSOR u32 __klap_active_mask() { return active_mask(); }

DEVICE Chunk *__klap_warp_chunk(u32 mask, u32 record_size) {
  u32 leader = __builtin_ctz(mask);
  Chunk *c = 0;
  if (lane_id() == leader) {
    c = __klap_chunk_alloc(0, (256 + 32 * (36 + record_size + 15)) / SMALL_SLAB + 1, record_size);
    if (c)
      c->freed_by_children = 1;
  }
  u64 p = (u64)c;
  u32 lo = shfl_idx(mask, (u32)p, leader), hi = shfl_idx(mask, (u32)(p >> 32), leader);
  return (Chunk *)(((u64)hi << 32) | lo);
}

// Once every lane of `mask` has registered (or launched on its own): true in the lane that launches.
DEVICE bool __klap_warp_leader(u32 mask) {
  __nvvm_bar_warp_sync(mask);
  return lane_id() == (u32)__builtin_ctz(mask);
}

// ---- block and grid scopes ---------------------------------------------------------------------
//
// A scope's chunks (one per group of launch sites: same child, same stream class) are set up at
// kernel entry, where every thread of the block still runs, and launched by the thread that
// completes the scope's exit count.

enum { MAX_GROUPS = 4, GRID_TABLE = 1024 };

struct Scope {
  Chunk *chunks[MAX_GROUPS];
  u64 threads_done;
};

SHARED Scope klap_block_scope;

struct GridEntry {
  u64 grid;
  u64 ready;
  Scope scope;
};
GLOBAL_VAR GridEntry klap_grid_table[GRID_TABLE];

SHARED Scope *klap_scope_ptr;

// Slabs for a chunk of `records` records of `record_size` bytes, at most `max_slabs`.
INLINE u32 slabs_for(u64 records, u32 record_size, u64 slab_bytes, u32 max_slabs) {
  u64 bytes = 256 + records * (36 + align16(record_size));
  u64 n = (bytes + slab_bytes - 1) / slab_bytes;
  return n > max_slabs ? max_slabs : (u32)n;
}

// A chunk freed by a tail-stream kernel lives until its whole launching grid is done; one its
// children free goes back as soon as they have read it. The first costs the children nothing; the
// second keeps the pool free where chunks are many (one per block) or nested (recursive launching).
INLINE void setup_chunks(Scope *s, u32 groups, const u32 *sizes, u32 large, u64 records, u32 freed_by_children) {
  for (u32 g = 0; g < MAX_GROUPS; ++g) {
    u32 slabs = g < groups ? slabs_for(records, sizes[g], large ? LARGE_SLAB : SMALL_SLAB, large ? 8 : 64) : 0;
    s->chunks[g] = g < groups ? __klap_chunk_alloc(large, slabs, sizes[g]) : 0;
    if (s->chunks[g])
      s->chunks[g]->freed_by_children = freed_by_children;
  }
  s->threads_done = 0;
}

INLINE u32 block_threads() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_ntid_z();
}

// Block scope: call at kernel entry, by every thread. Room for two launches per thread; launches
// beyond that are made as written.
DEVICE Scope *__klap_block_enter(u32 groups, u32 size0, u32 size1, u32 size2, u32 size3) {
  if (tid_linear() == 0) {
    u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3};
    setup_chunks(&klap_block_scope, groups, sizes, 0, 2ull * block_threads(), 1);
  }
  __syncthreads();
  return &klap_block_scope;
}

// Grid scope: call at kernel entry, by every thread. The first block of a grid to arrive claims the
// grid's table entry (keyed by %gridid, unique per launch) and sets up its chunks.
DEVICE Scope *__klap_grid_enter(u32 groups, u32 size0, u32 size1, u32 size2, u32 size3, u32 freed_by_children) {
  if (tid_linear() == 0) {
    u32 sizes[MAX_GROUPS] = {size0, size1, size2, size3};
    u64 blocks = (u64)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_nctaid_y() * __nvvm_read_ptx_sreg_nctaid_z();
    u64 g = grid_id() + 1;
    u32 h = (u32)((g * 0x9E3779B97F4A7C15ull) >> 54) % GRID_TABLE;
    GridEntry *e = 0;
    for (u32 probe = 0; probe < GRID_TABLE; ++probe) {
      GridEntry *cand = &klap_grid_table[(h + probe) % GRID_TABLE];
      u64 seen = __nvvm_atom_cas_gen_ll((long long *)&cand->grid, 0, (long long)g);
      if (seen == 0) {
        setup_chunks(&cand->scope, groups, sizes, 1, 2 * blocks * block_threads(), freed_by_children);
        fence();
        __atomic_store_n(&cand->ready, 1, __ATOMIC_RELAXED);
        e = cand;
        break;
      }
      if (seen == g) {
        while (__atomic_load_n((volatile u64 *)&cand->ready, __ATOMIC_RELAXED) == 0)
          ;
        fence();
        e = cand;
        break;
      }
    }
    klap_scope_ptr = e ? &e->scope : 0;
  }
  __syncthreads();
  return klap_scope_ptr;
}

ACCESSOR Chunk *__klap_scope_chunk(Scope *s, u32 group) { return s ? s->chunks[group] : 0; }

// At kernel exit, by every thread that ran (one atomic per warp): true in the one thread that completes
// the scope's `expected` threads; that thread then launches each group's chunk.
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

// The grid scope's table entry is free again once its last thread has taken the chunks.
DEVICE void __klap_grid_release(Scope *s) {
  GridEntry *e = (GridEntry *)((char *)s - __builtin_offsetof(GridEntry, scope));
  __atomic_store_n(&e->ready, 0, __ATOMIC_RELAXED);
  fence();
  __atomic_store_n(&e->grid, 0, __ATOMIC_RELAXED);
}

// ---- the aggregated child ----------------------------------------------------------------------
//
// Every aggregated block serves one record. Thread 0 finds it, the block reads it from shared memory,
// and the sreg reads of the child's code are remapped onto it.

struct ChildContext {
  Chunk *chunk;
  char *args;
  u32 grid[3], block[3], index[3];
  u32 threads;
  u32 freed_by_children;
  u32 exited; // threads of this block past their exit
};
SHARED ChildContext klap_child;

// At the aggregated child's entry, by every thread: the record's arguments, or null for a thread
// beyond the record's block size (it must return at once).
// The record serving aggregated block b: the first whose block range ends past b. With a full first
// warp a 32-ary search (one probe per lane and a ballot a step: four steps for 100,000 records where a
// binary search takes seventeen dependent loads); with fewer threads, a binary search by thread 0.
INLINE u32 find_record(Chunk *c, u32 b) {
  u32 records = (u32)(__atomic_load_n(&c->counter, __ATOMIC_RELAXED) >> 32);
  u32 lo = 0, hi = records < c->capacity ? records : c->capacity;
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
      klap_child.grid[0] = d[0], klap_child.grid[1] = d[1], klap_child.grid[2] = d[2];
      klap_child.block[0] = d[3], klap_child.block[1] = d[4], klap_child.block[2] = d[5];
      klap_child.index[0] = local % d[0];
      klap_child.index[1] = (local / d[0]) % d[1];
      klap_child.index[2] = local / (d[0] * d[1]);
      klap_child.threads = d[3] * d[4] * d[5];
      klap_child.freed_by_children = c->freed_by_children;
      klap_child.exited = 0;
    }
  }
  __syncthreads();
  return tid_x() < klap_child.threads ? klap_child.args : 0;
}

// At the aggregated child's exit, by every thread that ran: for a chunk its children free, the last
// thread of the whole aggregated launch returns it to the pool. Warps count into the block's shared
// counter; only the thread completing its block touches the chunk (one global atomic per block).
DEVICE void __klap_child_exit() {
  if (!klap_child.freed_by_children)
    return;
  u32 mask = active_mask();
  u32 leader = __builtin_ctz(mask);
  if (lane_id() != leader)
    return;
  u32 n = __builtin_popcount(mask);
  fence();
  if (__nvvm_atom_add_gen_i((int *)&klap_child.exited, (int)n) + n != klap_child.threads)
    return;
  Chunk *c = klap_child.chunk;
  if (__nvvm_atom_add_gen_i((int *)&c->blocks_done, 1) + 1 == __nvvm_read_ptx_sreg_nctaid_x())
    chunk_free(c);
}

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
ACCESSOR u64 __klap_child_grid_threads() { return klap_child.chunk->threads_total; }
