// Order-preserving compaction, the pattern of three of KLAP's promotion benchmarks (sc, pt, unq): a predicate keeps
// or drops each element of an int array, and where an element goes depends on how many elements before it were kept.
// The array is cut into chunks, and the one number carried from a chunk to the next is the count of elements kept
// before it. The CDP versions (sc.cu, ../pt/pt.cu, ../unq/unq.cu) walk the chunks with a chain of single-block
// kernels, each handing that count to the next as a launch argument; the flat versions have one block per tile,
// which finds the count by decoupled look-back. The three programs differ only in a policy:
//   static bool keep(const int *in, int i, int x)    element i (value x) is kept
//   static void place(int *out, int n, int x, bool kept, int i, int kept_before)
//                                                   stores element i, given how many elements before it were kept
//   static std::vector<int> generate(int n, double fraction, uint64_t seed)
//   kName, kCountName (the RESULT's count), kUsage
#pragma once

#include "../common/children.h"
#include "../common/chain.h"

constexpr int kBlock = 512;             // threads of every chain link and flat block (KLAP's parent = child = 512)
constexpr int kItems = 16;              // elements per thread of a tile
constexpr int kTile = kBlock * kItems;  // 8192, KLAP's chunk, and the flat version's work per block
constexpr int kWarps = kBlock / 32;
constexpr int kUnwritten = (int)0xabababab;  // what the output holds where nothing was stored (fill byte 0xab)

// Exclusive prefix sum over the block in thread order, the block's sum in `total`. Every thread must call it.
__device__ inline int block_exclusive_sum(int x, int &total) {
  __shared__ int warp_incl[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int incl = x;
  for (int d = 1; d < 32; d <<= 1) {
    int y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += y;
  }
  if (lane == 31) warp_incl[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    int w = lane < kWarps ? warp_incl[lane] : 0;
    for (int d = 1; d < kWarps; d <<= 1) {
      int y = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += y;
    }
    if (lane < kWarps) warp_incl[lane] = w;
  }
  __syncthreads();
  total = warp_incl[kWarps - 1];
  int excl = (warp ? warp_incl[warp - 1] : 0) + incl - x;
  __syncthreads();  // warp_incl is reused by the next call
  return excl;
}

// A tile: up to kTile consecutive elements, element first + j * kBlock + threadIdx.x in the thread's slot j, so that
// loads are coalesced. Tile order is slot-major: all of slot 0, then all of slot 1, and so on.
struct CompactTile {
  int value[kItems];
  int before[kItems];  // elements kept before this one in the tile
  unsigned kept;       // bit j: slot j is kept
};

// Loads the tile [first, end) and ranks its elements. Returns (in every thread) how many it keeps. This part needs
// nothing from the chunks before it: in a promoted chain it is what a link can do before its parent releases it.
template <class Policy>
__device__ int compact_tile_load(const int *in, int first, int end, CompactTile &t) {
  static_assert(kItems * kWarps <= kBlock, "one count per thread in the scan");
  __shared__ int counts[kItems * kWarps];  // kept elements per (slot, warp), in tile order
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned lanes_below = (1u << lane) - 1;
  unsigned ballot[kItems];
  t.kept = 0;
#pragma unroll
  for (int j = 0; j < kItems; j++) {
    const int i = first + j * kBlock + (int)threadIdx.x;
    bool keep = false;
    t.value[j] = 0;
    if (i < end) {
      t.value[j] = in[i];
      keep = Policy::keep(in, i, t.value[j]);
    }
    ballot[j] = __ballot_sync(0xffffffffu, keep);
    t.kept |= (unsigned)keep << j;
    if (lane == 0) counts[j * kWarps + warp] = __popc(ballot[j]);
  }
  __syncthreads();
  int total;
  const int base = block_exclusive_sum(threadIdx.x < kItems * kWarps ? counts[threadIdx.x] : 0, total);
  if (threadIdx.x < kItems * kWarps) counts[threadIdx.x] = base;
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; j++) t.before[j] = counts[j * kWarps + warp] + __popc(ballot[j] & lanes_below);
  __syncthreads();  // counts is reused by the next tile
  return total;
}

// Stores the tile, `kept_before` elements having been kept before it: the part that needs the carried count.
template <class Policy>
__device__ void compact_tile_store(int *out, int n, int first, int end, const CompactTile &t, int kept_before) {
#pragma unroll
  for (int j = 0; j < kItems; j++) {
    const int i = first + j * kBlock + (int)threadIdx.x;
    if (i < end) Policy::place(out, n, t.value[j], (t.kept >> j) & 1, i, kept_before + t.before[j]);
  }
}

// One chain link's work: the chunk [first, end), tile by tile. Returns (in every thread) the count kept before `end`.
// Each tile is loaded before the one before it is stored, so the first tile's load comes before anything needs
// `kept_before`: the part of a link that promotion with overlap runs before the link before it has ended.
template <class Policy>
__device__ __forceinline__ int compact_chunk(const int *in, int *out, int n, int first, int end, int kept_before) {
  CompactTile t;
  int kept = compact_tile_load<Policy>(in, first, min(end, first + kTile), t);
  for (int tile = first; tile < end;) {
    compact_tile_store<Policy>(out, n, tile, min(end, tile + kTile), t, kept_before);
    kept_before += kept;
    tile += kTile;
    if (tile < end)
      kept = compact_tile_load<Policy>(in, tile, min(end, tile + kTile), t);
  }
  return kept_before;
}

// ---------------------------------------------------------------------------------------------------------------
// Flat version: decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016). Tile k's status word holds a flag in its high half and a count in its low half, written in one
// 64-bit store: the tile's own count, then the count up to its end once known.
constexpr unsigned long long kAggregate = 1ull << 32, kPrefix = 2ull << 32;

// Called by one thread of tile `tile`, which keeps `count` elements: returns how many were kept before the tile.
// Tiles take their indices in order from a counter, so every tile looked at here has started and will publish.
__device__ inline int lookback_kept_before(unsigned long long *status, int tile, int count) {
  if (tile == 0) {
    atomicExch(&status[0], kPrefix | (unsigned)count);
    return 0;
  }
  atomicExch(&status[tile], kAggregate | (unsigned)count);
  int before = 0;
  for (int j = tile - 1;;) {
    const unsigned long long s = *(volatile unsigned long long *)&status[j];
    if (s == 0) continue;
    before += (int)(unsigned)s;
    if (s >= kPrefix) break;
    j--;
  }
  atomicExch(&status[tile], kPrefix | (unsigned)(before + count));
  return before;
}

template <class Policy>
__global__ void compact_flat(const int *__restrict__ in, int *out, int n, int *next_tile, unsigned long long *status,
                             int *kept_total) {
  __shared__ int s_tile, s_before;
  if (threadIdx.x == 0) s_tile = atomicAdd(next_tile, 1);
  __syncthreads();
  const int tile = s_tile, first = tile * kTile, end = min(n, first + kTile);
  CompactTile t;
  const int kept = compact_tile_load<Policy>(in, first, end, t);
  if (threadIdx.x == 0) {
    s_before = lookback_kept_before(status, tile, kept);
    if (end == n) *kept_total = s_before + kept;
  }
  __syncthreads();
  compact_tile_store<Policy>(out, n, first, end, t, s_before);
}

// ---------------------------------------------------------------------------------------------------------------
struct CompactDev {
  const int *in;
  int *out;
  int n, chunk;
  int *kept_total;
  int *next_tile;               // flat version: the next tile index to hand out
  unsigned long long *status;   // flat version: one look-back word per tile
};

inline unsigned long long hash_ints(const std::vector<int> &v, size_t count) {
  unsigned long long h = 1469598103934665603ull;  // FNV-1a over the 32-bit words
  for (size_t i = 0; i < count; i++) h = (h ^ (uint32_t)v[i]) * 1099511628211ull;
  return h;
}

template <class Policy>
int compact_main(int argc, char **argv, void (*run)(const CompactDev &), bool cdp) {
  Options opt(argc, argv, Policy::kUsage);
  const int reps = (int)opt.num("--reps", 5, 0, 1000000);
  const int n = (int)opt.num("--size", 204800, 1, 1 << 30);
  const int chunk = (int)opt.num("--chunk", kTile, 1, 1 << 30);
  const double fraction = opt.real("--fraction", 0.5, 0.0, 1.0);
  const uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  const std::vector<int> in = Policy::generate(n, fraction, seed);
  std::vector<int> expect(n, kUnwritten);
  int kept = 0;
  for (int i = 0; i < n; i++) {
    const bool k = Policy::keep(in.data(), i, in[i]);
    Policy::place(expect.data(), n, in[i], k, i, kept);
    kept += k;
  }
  const long long links = ((long long)n + chunk - 1) / chunk, tiles = ((long long)n + kTile - 1) / kTile;
  if (cdp)
    printf("# %s cdp: %d elements, %s=%d; a chain of %lld kernels of %d elements\n", Policy::kName, n,
           Policy::kCountName, kept, links, chunk);
  else
    printf("# %s flat: %d elements, %s=%d; %lld blocks of %d elements\n", Policy::kName, n, Policy::kCountName,
           kept, tiles, kTile);
  ChildGrids children;  // every link but the first is a device launch of one block
  children.add_many(links - 1, 1, kBlock);
  children.print();
  if (cdp) reserve_device_launches((size_t)links);

  DevArray<int> d_in, d_out(n), d_kept(1), d_next(1);
  DevArray<unsigned long long> d_status((size_t)tiles);
  d_in.upload(in);
  const CompactDev dev{d_in.get(), d_out.get(), n, chunk, d_kept.get(), d_next.get(), d_status.get()};
  std::vector<int> got;
  int got_kept = 0;
  BenchHooks h;
  h.reset = [&] {
    d_out.fill_bytes(0xab);
    d_kept.fill_bytes(0xff);
    d_next.fill_bytes(0);
    d_status.fill_bytes(0);
    if (cdp) chain_links_reset();
  };
  h.run = [&] { run(dev); };
  h.check = [&]() -> std::string {
    if (cdp) chain_links_check(links);
    got = d_out.download();
    got_kept = d_kept.read(0);
    if (got_kept != kept) return strf("%s=%d, cpu %d", Policy::kCountName, got_kept, kept);
    for (int i = 0; i < n; i++)
      if (got[i] != expect[i]) return strf("out[%d] = %d, cpu %d", i, got[i], expect[i]);
    return "";
  };
  h.result = [&] { return strf("%s=%d hash=%016llx", Policy::kCountName, got_kept, hash_ints(got, got.size())); };
  return bench_run(Policy::kName, reps, h);
}
