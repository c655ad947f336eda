// The record pool: device memory cut into slabs, taken a few adjacent at a time for a chunk of
// records and given back when the chunk's launch no longer needs them.
//
// The pass defines klap_pool (its size set by -klap-pool-size) and klap_pool_bytes. The pool is cut
// into slabs of two sizes: SMALL for warp and block scopes, LARGE for grid scopes; a bitmap word per
// 64 slabs.
//
// The host may give its own pool instead (runtime/klap.h, klap_set_pool) before the first launch:
// klap_host_pool is the program's one such setting (a weak symbol, not internalized by the pass,
// found by the host by name). With several translation units each linking this runtime (each with
// its own maps), the first to need a pool takes the host's; the others keep their own.
#include "klap_rt.h"

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

INLINE u64 align16(u64 x) { return (x + 15) & ~15ull; }

INLINE u64 record_bytes(u32 record_size) { return 4 + 32 + align16(record_size); }

HELPER u32 slabs_for(u64 records, u32 record_size, u64 slab_bytes, u32 max_slabs) {
  u64 bytes = CHUNK_HEADER + 64 + records * record_bytes(record_size);
  u64 n = (bytes + slab_bytes - 1) / slab_bytes;
  return n > max_slabs ? max_slabs : (u32)n;
}

HELPER u32 chunk_records(const Chunk *c) {
  u32 records = (u32)(load_relaxed(&c->counter) >> 32);
  return records < c->capacity ? records : c->capacity;
}

enum { MAX_WORDS = 4096 };
// The small slabs of a pool of up to 256 MiB: half of it, up to 64 MiB.
static const u64 SMALL_POOL_BYTES = 64ull << 20;
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
  // Half the pool in small slabs up to 64 MiB of them, the split of every pool up to 256 MiB (the default);
  // of a larger pool a quarter (at most MAX_WORDS * 64 slabs): the small slabs hold the chunks of warp
  // and block scopes, which at 64 MiB ran short with tens of thousands of launching blocks waiting for
  // room to launch (test/gpu-limits, BENCHMARKS.md, twenty-fourth session). The rest in large ones.
  u64 half = bytes / 2 < SMALL_POOL_BYTES ? bytes / 2 : SMALL_POOL_BYTES;
  u64 small = (bytes / 4 > half ? bytes / 4 : half) / SMALL_SLAB;
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

HELPER u32 pool_small_slabs() { return slab_class(0).slabs; }

INLINE u64 slab_bits(u32 count) { return count >= 64 ? ~0ull : ((1ull << count) - 1); }

INLINE void release_slabs(SlabClass k, u32 first, u32 count) {
  __nvvm_atom_and_gen_ll((long long *)&k.map[first / 64], (long long)~(slab_bits(count) << (first % 64)));
}

HELPER void chunk_free(Chunk *c) {
  fence();
  release_slabs(slab_class(c->slab >> 31), c->slab & 0x7fffffffu, c->slab_count);
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

// The bitmap word a warp's search for slabs starts at, of `words`: chosen by the warp, so that
// thousands of warps claiming at once do not all fight over the first words. It is taken from the high
// bits of the warp's multiplicative hash: its low bits, taken modulo a power of two, put the first
// warps of all blocks in 4 of 128 words (measured, nested benchmark at block granularity, 391 parent
// blocks: the pool ran short and records were launched one by one; median 1.13 ms against 0.51 to
// 0.53, single runs of 50 to 169 ms).
INLINE u32 first_word(u32 words) {
  u32 hash = (__nvvm_read_ptx_sreg_ctaid_x() * 32 + tid_linear() / 32) * 2654435761u;
  return (u32)(((u64)hash * words) >> 32);
}
// The slabs of bitmap word `w` (the last word may cover fewer than 64).
INLINE u32 slabs_in_word(SlabClass k, u32 w) { return k.slabs - w * 64 < 64 ? k.slabs - w * 64 : 64; }

// Claims `count` adjacent free slabs (count <= 64, all in one bitmap word); returns the first or -1.
INLINE int claim_slabs(SlabClass k, u32 count) {
  u32 words = (k.slabs + 63) / 64;
  u32 start = first_word(words);
  for (u32 i = 0; i < words; ++i) {
    u32 w = (start + i) % words;
    u32 in_word = slabs_in_word(k, w);
    int s = claim_in_word(&k.map[w], in_word, count);
    if (s >= 0)
      return (int)(w * 64) + s;
  }
  return -1;
}

// Set where a claim found no room: the next launch of a chunk frees every finished chunk. Not where
// the claim fails: that is inlined into every registration, where the reclaiming code's registers
// counted toward every parent (measured: 67 to 82 registers, as a call; under the register cap, 300
// bytes of spills instead of 20 in bfs, sssp, qt and mandel, twenty-fourth session). A grid's first
// block frees the large slabs' finished chunks (reclaim_large_if_short, scope.cu).
GLOBAL_VAR u32 klap_reclaim_wanted;

// The chunk in the `slab_count` slabs from `first` on, set up for records of `record_size` bytes; null
// (the slabs given back) where not one record fits.
INLINE Chunk *chunk_setup(SlabClass k, u32 large, int first, u32 slab_count, u32 record_size, u32 count_threads) {
  if (first < 0) {
    store_relaxed(&klap_reclaim_wanted, 1);
    trace("klap: pool exhausted: no %u free slabs of class %u; launches are made as written (or run by their launching thread, KLAP215)\n", slab_count, large);
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
  c->taken = 0;
  c->first_block = 0;
  c->epoch = 0;
  c->dims = (u32 *)(mem + CHUNK_HEADER);
  c->end = (u32 *)(mem + CHUNK_HEADER + 32ull * cap);
  c->args = mem + align16(CHUNK_HEADER + 36ull * cap);
  return c;
}

// Epochs are a count scrambled over 62 bits, never 0 and never PENDING: a flag left by an earlier use of
// the memory (another chunk's epoch, or argument bytes of a record without flags) is taken for this
// chunk's only where it equals one of 2^62 values.
GLOBAL_VAR u64 klap_epochs;
HELPER void chunk_flag_records(Chunk *c) {
  u64 n = __nvvm_atom_add_gen_ll((long long *)&klap_epochs, 1) + 1;
  c->epoch = ((n * 0x9E3779B97F4A7C15ull) >> 2) | 1;
}

HELPER Chunk *chunk_alloc(u32 large, u32 slab_count, u32 record_size, u32 count_threads) {
  SlabClass k = slab_class(large);
  return chunk_setup(k, large, claim_slabs(k, slab_count), slab_count, record_size, count_threads);
}

// The positions s in a bitmap word of `in_word` slabs where `count` adjacent slabs from s on are free.
INLINE u64 free_runs(u64 word, u32 in_word, u32 count) {
  u64 runs = ~word;
  for (u32 len = 1; len < count;) {
    u32 step = count - len < len ? count - len : len;
    runs &= runs >> step;
    len += step;
  }
  u32 starts = in_word + 1 - count;
  return starts >= 64 ? runs : runs & ((1ull << starts) - 1);
}

// claim_slabs by the lanes of `mask` together, each probing its own bitmap words: every lane runs the
// same loop the same number of times, and the one compare-and-swap a step is a single instruction of
// one lane. No lane of the warp waits at a shuffle for a lane that loops on its own: with the claim
// by one lane, its warp-mates waiting for it, and other lanes of the warp in the device runtime
// (launching as written), warps hung (test/gpu/divergent_loop at warp granularity; cuda-gdb: the
// claiming lane at a yield point of its loop, never scheduled again).
INLINE int claim_slabs_together(SlabClass k, u32 count, u32 mask) {
  u32 lanes = __builtin_popcount(mask), rank = __builtin_popcount(mask & lanemask_lt());
  u32 words = (k.slabs + 63) / 64;
  u32 start = first_word(words);
  for (u32 i = 0; i < words; i += lanes) {
    u32 w = (start + i + rank) % words;
    u32 in_word = slabs_in_word(k, w);
    u64 cur = 0, runs = 0;
    if (i + rank < words && in_word >= count) {
      cur = load_relaxed(&k.map[w]);
      runs = free_runs(cur, in_word, count);
    }
    // The lanes whose word has room try theirs, lowest first; a lane whose word changed under it
    // looks at the word again.
    for (u32 room = __nvvm_vote_ballot_sync(mask, runs != 0); room; room = __nvvm_vote_ballot_sync(mask, runs != 0)) {
      u32 src = __builtin_ctz(room);
      int got = -1;
      if (lane_id() == src) {
        u32 s = (u32)__builtin_ctzll(runs);
        u64 seen = cas_acquire(&k.map[w], cur, cur | (slab_bits(count) << s));
        if (seen == cur)
          got = (int)(w * 64 + s);
        cur = seen;
      }
      got = (int)shfl_idx(mask, (u32)got, src);
      if (got >= 0)
        return got;
      if (i + rank < words && in_word >= count)
        runs = free_runs(cur, in_word, count);
    }
  }
  return -1;
}

HELPER Chunk *chunk_alloc_together(u32 mask, u32 slab_count, u32 record_size, u32 count_threads) {
  SlabClass k = slab_class(0);
  int first = claim_slabs_together(k, slab_count, mask);
  if (lane_id() != (u32)__builtin_ctz(mask))
    return 0;
  return chunk_setup(k, 0, first, slab_count, record_size, count_threads);
}

HELPER void chunk_free_when_done(Chunk *c) {
  // Nothing frees a chunk before its pending bit is set: it can still be read here.
  SlabClass k = slab_class(c->slab >> 31);
  u32 first = c->slab & 0x7fffffffu;
  fence();
  __nvvm_atom_or_gen_ll((long long *)&k.pending[first / 64], (long long)(1ull << (first % 64)));
}

HELPER void reclaim_near(u32 slab) { reclaim_word(slab_class(slab >> 31), (slab & 0x7fffffffu) / 64); }

INLINE void reclaim_class(u32 large) {
  SlabClass k = slab_class(large);
  for (u32 w = 0; w < (k.slabs + 63) / 64; ++w)
    reclaim_word(k, w);
}

// Only where fewer than half the large slabs are free: a grid's first block that scanned them in every
// grid made bfs:rmat at auto 1.1x to 1.3x slower (a scope per level; H200, BENCHMARKS.md, twenty-fourth
// session).
HELPER void reclaim_large_if_short() {
  SlabClass k = slab_class(1);
  u32 words = (k.slabs + 63) / 64, free = 0;
  for (u32 w = 0; w < words; ++w) {
    u32 in_word = slabs_in_word(k, w);
    free += in_word - __builtin_popcountll(load_relaxed(&k.map[w]) & slab_bits(in_word));
  }
  if (2 * free < k.slabs)
    reclaim_class(1);
}

HELPER void reclaim_if_wanted() {
  if (load_relaxed(&klap_reclaim_wanted) && __nvvm_atom_xchg_gen_i((int *)&klap_reclaim_wanted, 0)) {
    reclaim_class(0);
    reclaim_class(1);
  }
}
