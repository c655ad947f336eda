// Line of sight (KLAP Table I "los", after the CUDA samples' lineOfSight): an observer stands kEye above point 0 of a
// terrain profile, one height per unit of distance, and point i is visible when the slope from the eye to it is at
// least the largest slope to any point before it. The profile is a valley side rising ever more steeply (0.01 i^2)
// with seeded bumps of up to 2.5% of the distance, so that about 60% of the points are visible, spread over the
// whole profile (on a random walk only the first few would be). The profile is cut into chunks (256
// points by default, KLAP's: one per thread of a 256-thread block), and the one value carried from a chunk to the
// next is the largest slope before it. los.cu walks the chunks with a chain of single-block kernels, each handing
// that maximum to the next as a launch argument; los_flat.cu has one block per tile of 256 points, which finds it by
// decoupled look-back.
#pragma once

#include "../common/children.h"
#include "../common/chain.h"

constexpr int kBlock = 256;  // threads of every chain link and flat block (KLAP's parent = child = 256)
constexpr int kTile = kBlock;  // one point per thread
constexpr int kWarps = kBlock / 32;
constexpr float kEye = 1.5f;
constexpr unsigned char kUnwritten = 0xab;

// The slope from the eye to point i, the tangent of its elevation angle: it orders points as the angle does and
// needs no atan. Single rounded operations, so the host reference gets the same bits.
__host__ __device__ inline float los_slope(const float *height, int i) {
  if (i == 0) return -INFINITY;  // the observer's own point, visible: nothing stands before it
  return xdiv(xsub(height[i], xadd(height[0], kEye)), (float)i);
}

// Exclusive running maximum over the block in thread order (-inf for thread 0), the block's maximum in `total`.
// Every thread must call it.
__device__ inline float block_exclusive_max(float x, float &total) {
  __shared__ float warp_incl[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float incl = x;
  for (int d = 1; d < 32; d <<= 1) {
    float y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl = fmaxf(incl, y);
  }
  float excl = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0) excl = -INFINITY;
  if (lane == 31) warp_incl[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    float w = lane < kWarps ? warp_incl[lane] : -INFINITY;
    for (int d = 1; d < kWarps; d <<= 1) {
      float y = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w = fmaxf(w, y);
    }
    if (lane < kWarps) warp_incl[lane] = w;
  }
  __syncthreads();
  total = warp_incl[kWarps - 1];
  if (warp > 0) excl = fmaxf(excl, warp_incl[warp - 1]);
  __syncthreads();  // warp_incl is reused by the next call
  return excl;
}

// A tile of up to kTile points, point first + threadIdx.x in its thread.
struct LosTile {
  float slope;
  float max_before;  // the largest slope before this point in the tile
};

// Computes the tile's slopes and running maxima; returns (in every thread) the tile's largest slope. This part
// needs nothing from the chunks before it: in a promoted chain it is what a link can do before its parent releases it.
__device__ inline float los_tile_load(const float *height, int first, int end, LosTile &t) {
  const int i = first + (int)threadIdx.x;
  t.slope = i < end ? los_slope(height, i) : -INFINITY;
  float tile_max;
  t.max_before = block_exclusive_max(t.slope, tile_max);
  return tile_max;
}

// Stores the tile's visibility, `max_before` being the largest slope before the tile: the part that needs the
// carried value.
__device__ inline void los_tile_store(unsigned char *visible, int first, int end, const LosTile &t, float max_before) {
  const int i = first + (int)threadIdx.x;
  if (i < end) visible[i] = t.slope >= fmaxf(max_before, t.max_before);
}

// One chain link's work: the chunk [first, end), tile by tile. Returns (in every thread) the largest slope before
// `end`.
// Each tile is loaded before the one before it is stored, so the first tile's load comes before anything needs
// `max_before`: the part of a link that promotion with overlap runs before the link before it has ended.
__device__ inline float los_chunk(const float *height, unsigned char *visible, int first, int end, float max_before) {
  LosTile t;
  float tile_max = los_tile_load(height, first, min(end, first + kTile), t);
  for (int tile = first; tile < end;) {
    los_tile_store(visible, tile, min(end, tile + kTile), t, max_before);
    max_before = fmaxf(max_before, tile_max);
    tile += kTile;
    if (tile < end)
      tile_max = los_tile_load(height, tile, min(end, tile + kTile), t);
  }
  return max_before;
}

// ---------------------------------------------------------------------------------------------------------------
// Flat version: decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016) with max for the operator. Tile k's status word holds a flag in its high half and a slope's bits
// in its low half, written in one 64-bit store: the tile's own maximum, then the maximum up to its end once known.
constexpr unsigned long long kAggregate = 1ull << 32, kPrefix = 2ull << 32;

__device__ inline unsigned long long los_status(unsigned long long flag, float slope) {
  return flag | __float_as_uint(slope);
}

// Called by one thread of tile `tile`, whose largest slope is `tile_max`: returns the largest slope before the tile.
// Tiles take their indices in order from a counter, so every tile looked at here has started and will publish.
__device__ inline float lookback_max_before(unsigned long long *status, int tile, float tile_max) {
  if (tile == 0) {
    atomicExch(&status[0], los_status(kPrefix, tile_max));
    return -INFINITY;
  }
  atomicExch(&status[tile], los_status(kAggregate, tile_max));
  float before = -INFINITY;
  for (int j = tile - 1;;) {
    const unsigned long long s = *(volatile unsigned long long *)&status[j];
    if (s == 0) continue;
    before = fmaxf(before, __uint_as_float((unsigned)s));
    if (s >= kPrefix) break;
    j--;
  }
  atomicExch(&status[tile], los_status(kPrefix, fmaxf(before, tile_max)));
  return before;
}

// ---------------------------------------------------------------------------------------------------------------
struct LosDev {
  const float *height;
  unsigned char *visible;
  int n, chunk;
  int *next_tile;               // flat version: the next tile index to hand out
  unsigned long long *status;   // flat version: one look-back word per tile
};

inline int los_main(int argc, char **argv, void (*run)(const LosDev &), bool cdp) {
  Options opt(argc, argv,
              "usage: los [--reps N] [--size N] [--chunk N] [--seed S]\n"
              "  which of N points of a random terrain profile (default 6399) an observer at point 0 sees; the CDP\n"
              "  version takes them in a chain of kernels of one 256-thread block, one per chunk of --chunk points\n"
              "  (default 256)\n");
  const int reps = (int)opt.num("--reps", 5, 0, 1000000);
  const int n = (int)opt.num("--size", 6399, 1, 1 << 24);  // (float)i is exact below 2^24
  const int chunk = (int)opt.num("--chunk", kTile, 1, 1 << 24);
  const uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  Rng rng(seed);
  std::vector<float> height(n);
  for (int i = 0; i < n; i++) height[i] = (float)(0.01 * i * i + 0.05 * i * (rng.unit() - 0.5));
  std::vector<unsigned char> expect(n);
  float max_before = -INFINITY;
  int seen = 0;
  for (int i = 0; i < n; i++) {
    const float s = los_slope(height.data(), i);
    expect[i] = s >= max_before;
    seen += expect[i];
    max_before = std::max(max_before, s);
  }
  const long long links = ((long long)n + chunk - 1) / chunk, tiles = ((long long)n + kTile - 1) / kTile;
  if (cdp)
    printf("# los cdp: %d points, %d visible; a chain of %lld kernels of %d points\n", n, seen, links, chunk);
  else
    printf("# los flat: %d points, %d visible; %lld blocks of %d points\n", n, seen, tiles, kTile);
  ChildGrids children;  // every link but the first is a device launch of one block
  children.add_many(links - 1, 1, kBlock);
  children.print();
  if (cdp) reserve_device_launches((size_t)links);

  DevArray<float> d_height;
  DevArray<unsigned char> d_visible(n);
  DevArray<int> d_next(1);
  DevArray<unsigned long long> d_status((size_t)tiles);
  d_height.upload(height);
  const LosDev dev{d_height.get(), d_visible.get(), n, chunk, d_next.get(), d_status.get()};
  std::vector<unsigned char> got;
  BenchHooks h;
  h.reset = [&] {
    d_visible.fill_bytes(kUnwritten);
    d_next.fill_bytes(0);
    d_status.fill_bytes(0);
    if (cdp) chain_links_reset();
  };
  h.run = [&] { run(dev); };
  h.check = [&]() -> std::string {
    if (cdp) chain_links_check(links);
    got = d_visible.download();
    for (int i = 0; i < n; i++)
      if (got[i] != expect[i]) return strf("visible[%d] = %d, cpu %d", i, got[i], expect[i]);
    return "";
  };
  h.result = [&] {
    int count = 0;
    unsigned long long hash = 1469598103934665603ull;  // FNV-1a over the indices of the visible points
    for (int i = 0; i < n; i++)
      if (got[i] == 1) {
        count++;
        hash = (hash ^ (uint32_t)i) * 1099511628211ull;
      }
    return strf("visible=%d hash=%016llx", count, hash);
  };
  return bench_run("los", reps, h);
}
