// In-place data sliding, KLAP's promotion benchmarks pd and upd (after Gómez-Luna et al., "In-place data sliding
// algorithms for many-core architectures", ICPP 2015). Padding gives each row of a rows x cols int matrix, stored
// row-major, the pitch cols + pad in the same buffer (the pad slots get kPadFill); unpadding is the reverse. Element
// i moves by up to (rows - 1) * pad positions, across chunks, so a chunk may write only once every chunk whose
// elements its writes land on has read them. Padding moves elements up, so the chunks go from the last to the first,
// and within a chunk its tiles too; unpadding moves them down, so everything goes from the first to the last. The
// dependence between chunks is through memory: nothing is carried from one to the next but the order. pd.cu and
// ../upd/upd.cu walk the chunks with a chain of single-block kernels; the flat versions have one block per tile,
// taking their tiles in that order and waiting for the flag of the tile before. A policy gives the direction:
//   kUp                       elements move to higher addresses
//   sources(rows, cols, pad)  how many elements the walk reads (the buffer it starts from)
//   put(buf, cols, pad, i, x) stores element i (value x) where it goes
#pragma once

#include "../common/children.h"
#include "../common/chain.h"
#include "../../runtime/klap.h"

constexpr int kBlock = 512;             // threads of every chain link and flat block (KLAP's parent = child = 512)
constexpr int kItems = 16;              // elements per thread of a tile
constexpr int kTile = kBlock * kItems;  // 8192, KLAP's chunk, and the flat version's work per block
constexpr int kPadFill = 0;

struct Padding {
  static constexpr bool kUp = true;
  static long long sources(int rows, int cols, int) { return (long long)rows * cols; }
  __host__ __device__ static void put(int *buf, int cols, int pad, int i, int x) {
    const int r = i / cols, c = i % cols, at = r * (cols + pad) + c;
    buf[at] = x;
    if (c == cols - 1)
      for (int p = 1; p <= pad; p++) buf[at + p] = kPadFill;
  }
};

struct Unpadding {
  static constexpr bool kUp = false;
  static long long sources(int rows, int cols, int pad) { return (long long)rows * (cols + pad); }
  __host__ __device__ static void put(int *buf, int cols, int pad, int i, int x) {
    const int r = i / (cols + pad), c = i % (cols + pad);
    if (c < cols) buf[r * cols + c] = x;
  }
};

// A tile: up to kTile consecutive elements from `first`, element first + j * kBlock + threadIdx.x in the thread's slot
// j. Reading it needs nothing from the chunks walked before: in a promoted chain it is what a link can do before its
// parent releases it (no chunk before ever writes below its own first element, for padding, or above its own last,
// for unpadding).
__device__ inline void slide_tile_load(const int *buf, int first, int end, int (&v)[kItems]) {
#pragma unroll
  for (int j = 0; j < kItems; j++) {
    const int i = first + j * kBlock + (int)threadIdx.x;
    v[j] = i < end ? buf[i] : 0;
  }
}

// Writes the tile where it goes. The caller has made sure (__syncthreads) that the whole tile was read, and that
// every tile before it in the walk was too.
template <class Slide>
__device__ void slide_tile_store(int *buf, int cols, int pad, int first, int end, const int (&v)[kItems]) {
#pragma unroll
  for (int j = 0; j < kItems; j++) {
    const int i = first + j * kBlock + (int)threadIdx.x;
    if (i < end) Slide::put(buf, cols, pad, i, v[j]);
  }
}

// One chain link's work: the chunk [first, end), tile by tile in the walk's order. A tile's writes land only on its
// own elements and those of tiles walked before it, so one barrier per tile, between its reads and its writes, is
// all the order needed inside the block.
//
// The first tile is read before the loop, and klap_prologue_end() (../../runtime/klap.h) marks where that read
// ends: no link walked before this one writes what this link reads (see above), a promise klap's analysis of
// memory cannot make for one buffer. With klap's promotion with overlap a link reads its first tile before it
// waits for the link before it; without klap the mark compiles to a PTX comment.
template <class Slide>
__device__ __forceinline__ void slide_chunk(int *buf, int cols, int pad, int first, int end) {
  const int last_tile = first + (end - 1 - first) / kTile * kTile;
  int tile = Slide::kUp ? last_tile : first;
  int v[kItems];
  slide_tile_load(buf, tile, min(end, tile + kTile), v);
  __syncthreads();
  klap_prologue_end();
  for (int k = 1;; k++) {
    slide_tile_store<Slide>(buf, cols, pad, tile, min(end, tile + kTile), v);
    if (first + k * kTile >= end)
      break;
    tile = Slide::kUp ? last_tile - k * kTile : first + k * kTile;
    slide_tile_load(buf, tile, min(end, tile + kTile), v);
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Flat version: one block per tile. Blocks take their places in the walk from a counter, so the tile before a
// block's own has always started (no block waits for one that cannot run). ready[k] is set once tile k and every
// tile before it in the walk have been read; a tile writes only after the flag of the tile before it.
template <class Slide>
__global__ void slide_flat(int *buf, int cols, int pad, int n, int *next_place, int *ready) {
  __shared__ int s_place;
  if (threadIdx.x == 0) s_place = atomicAdd(next_place, 1);
  __syncthreads();
  const int tiles = (int)blocks_for(n, kTile), place = s_place;
  const int tile = Slide::kUp ? tiles - 1 - place : place;
  const int first = tile * kTile, end = min(n, first + kTile);
  int v[kItems];
  slide_tile_load(buf, first, end, v);
  __syncthreads();  // the whole tile is read
  if (threadIdx.x == 0) {
    if (place > 0) {
      const int before = Slide::kUp ? tile + 1 : tile - 1;
      while (*(volatile int *)&ready[before] == 0) {
      }
    }
    __threadfence();  // the block's reads (ordered by the barrier) before the flag; the flag seen before the writes
    *(volatile int *)&ready[tile] = 1;
  }
  __syncthreads();
  slide_tile_store<Slide>(buf, cols, pad, first, end, v);
}

// ---------------------------------------------------------------------------------------------------------------
struct SlideDev {
  int *buf;
  int cols, pad, n, chunk;  // n: elements read (the sources)
  int *next_place;          // flat version: the next place in the walk to hand out
  int *ready;               // flat version: one flag per tile
};

template <class Slide>
int slide_main(int argc, char **argv, const char *name, void (*run)(const SlideDev &), bool cdp) {
  const std::string usage = strf(
      "usage: %s [--reps N] [--rows R] [--cols C] [--pad P] [--chunk N] [--seed S]\n"
      "  %s a random R x C int matrix (default 450 x 450) in place, row pitch C %s C + P (default P = 1); the\n"
      "  CDP version takes it in a chain of kernels of one 512-thread block, one per chunk of --chunk elements\n"
      "  (default 8192)\n",
      name, Slide::kUp ? "pads" : "unpads", Slide::kUp ? "->" : "<-");
  Options opt(argc, argv, usage.c_str());
  const int reps = (int)opt.num("--reps", 5, 0, 1000000);
  const int rows = (int)opt.num("--rows", 450, 1, 1 << 30);
  const int cols = (int)opt.num("--cols", 450, 1, 1 << 30);
  const int pad = (int)opt.num("--pad", 1, 0, 1 << 30);
  const int chunk = (int)opt.num("--chunk", kTile, 1, 1 << 30);
  const uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();
  const long long padded = (long long)rows * (cols + (long long)pad);
  if (padded > (1 << 30)) die("the padded matrix (%lld elements) is larger than 2^30", padded);

  // The buffer holds the padded size; the walk starts from the compact matrix (padding) or the padded one
  // (unpadding), the rest of the buffer holding junk that must not leak into the result.
  Rng rng(seed);
  std::vector<int> start((size_t)padded), expect;
  for (int &x : start) x = (int)(rng.next() >> 32);
  const int n = (int)Slide::sources(rows, cols, pad);
  if (Slide::kUp) {
    expect.assign((size_t)padded, kPadFill);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) expect[(size_t)r * (cols + pad) + c] = start[(size_t)r * cols + c];
  } else {
    expect.resize((size_t)rows * cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) expect[(size_t)r * cols + c] = start[(size_t)r * (cols + pad) + c];
  }
  const long long links = ((long long)n + chunk - 1) / chunk, tiles = ((long long)n + kTile - 1) / kTile;
  if (cdp)
    printf("# %s cdp: %d x %d matrix, pad %d, %d elements walked; a chain of %lld kernels of %d elements\n", name,
           rows, cols, pad, n, links, chunk);
  else
    printf("# %s flat: %d x %d matrix, pad %d, %d elements walked; %lld blocks of %d elements\n", name, rows, cols,
           pad, n, tiles, kTile);
  ChildGrids children;  // every link but the first is a device launch of one block
  children.add_many(links - 1, 1, kBlock);
  children.print();
  if (cdp) reserve_device_launches((size_t)links);

  DevArray<int> d_buf, d_next(1), d_ready((size_t)tiles);
  d_buf.upload(start);
  const SlideDev dev{d_buf.get(), cols, pad, n, chunk, d_next.get(), d_ready.get()};
  std::vector<int> got;
  unsigned long long hash = 0;
  BenchHooks h;
  h.reset = [&] {
    d_buf.upload(start);
    d_next.fill_bytes(0);
    d_ready.fill_bytes(0);
    if (cdp) chain_links_reset();
  };
  h.run = [&] { run(dev); };
  h.check = [&]() -> std::string {
    if (cdp) chain_links_check(links);
    got = d_buf.download();
    hash = 1469598103934665603ull;  // FNV-1a over the words of the result
    for (size_t i = 0; i < expect.size(); i++) {
      if (got[i] != expect[i]) return strf("buffer[%zu] = %d, cpu %d", i, got[i], expect[i]);
      hash = (hash ^ (uint32_t)got[i]) * 1099511628211ull;
    }
    return "";
  };
  h.result = [&] { return strf("elements=%zu hash=%016llx", expect.size(), hash); };
  return bench_run(name, reps, h);
}
