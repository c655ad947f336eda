// Connected component labelling of binary images (4-connected), after Stava and Benes: a first kernel labels each
// kTile x kTile tile on its own (union-find in shared memory), then the tiles are merged level by level: at level
// l the blocks of side s = kTile << l are merged in 2 x 2 groups by a union across every pixel pair that straddles
// a vertical or a horizontal border at an odd multiple of s, until one block covers the image; a last kernel
// points every pixel at its root. The merge of a level is two child grids of 4 x 256 threads, one over the
// level's vertical borders and one over its horizontal borders, launched by a parent of 1 block x 2 threads that
// chains the levels with tail launches (ccl.cu), or one grid per level launched by the host (ccl_flat.cu).
// KLAP's input: 8 frames on 4 host streams.
//
// Labels are pixel indices (y * n + x) and a union always hangs the larger root under the smaller, so every tree's
// root is its smallest pixel: the final label of a pixel is the first pixel of its component in raster order,
// whatever order the unions ran in. Background pixels are labelled -1.
#pragma once

#include "../common/children.h"

constexpr int kTile = 16;            // the local kernel's tile side, and its block is kTile x kTile threads
constexpr int kParentThreads = 2;    // KLAP's parent: one block of 2 threads, one per border direction
constexpr int kChildBlocks = 4;      // each child: 4 blocks of 256 threads
constexpr int kChildBlock = 256;
constexpr int kStreams = 4;          // frame f runs on host stream f % kStreams
constexpr int kFinalBlock = 256;

// Number of merge levels for an n x n image: level l exists while a block of side kTile << l is not the whole image.
inline int ccl_levels(int n) {
  int l = 0;
  while ((kTile << l) < n) l++;
  return l;
}

// Other threads hang roots under other roots while this one walks up, so every step must read memory, not a
// register or a stale L1 line; a stale step only costs the union one more round.
__device__ inline int ccl_find(const volatile int *label, int x) {
  int p;
  while ((p = label[x]) != x) x = p;
  return x;
}

// Lock-free union: the larger root is hung under the smaller with atomicMin. If the atomic finds that `hi` stopped
// being a root meanwhile, it may have re-hung `hi` under `lo`, detaching it from its old parent; the loop then unites
// that old parent with `lo`, so no connection is lost. Labels only ever decrease, so this terminates.
__device__ inline void ccl_union(int *label, int a, int b) {
  for (;;) {
    a = ccl_find(label, a);
    b = ccl_find(label, b);
    if (a == b) return;
    int lo = a < b ? a : b, hi = a < b ? b : a;
    int old = atomicMin(&label[hi], lo);
    if (old == hi) return;
    a = lo;
    b = old;
  }
}

// Labels each tile on its own. Local indices order the tile's pixels as global indices do (row-major in both), so
// the local root, the tile component's smallest local index, names its smallest global pixel.
__global__ void ccl_local(const unsigned char *img, int *label, int n) {
  __shared__ int tile[kTile * kTile];
  int lx = threadIdx.x, ly = threadIdx.y, i = ly * kTile + lx;
  int x = blockIdx.x * kTile + lx, y = blockIdx.y * kTile + ly;
  bool inside = x < n && y < n;
  bool fg = inside && img[(size_t)y * n + x];
  tile[i] = fg ? i : -1;
  __syncthreads();
  // Neighbours are tested in the image: the tile changes under the other threads' unions.
  if (fg && lx > 0 && img[(size_t)y * n + x - 1]) ccl_union(tile, i, i - 1);
  if (fg && ly > 0 && img[(size_t)(y - 1) * n + x]) ccl_union(tile, i, i - kTile);
  __syncthreads();
  if (!inside) return;
  int r = fg ? ccl_find(tile, i) : 0;
  int ry = (int)blockIdx.y * kTile + r / kTile, rx = (int)blockIdx.x * kTile + r % kTile;
  label[(size_t)y * n + x] = fg ? ry * n + rx : -1;
}

// One thread's share of a level's merge in one direction: thread `tid` of `nthreads` takes every nthreads-th pixel
// pair across the level's borders. dir 0: the vertical borders x = s, 3s, 5s, ... (pairs (x-1, y), (x, y)); dir 1:
// the horizontal ones (pairs (x, y-1), (x, y)). Consecutive threads take consecutive positions along a border, so
// the horizontal pass reads memory contiguously.
__device__ inline void ccl_merge_borders(const unsigned char *img, int *label, int n, int level, int dir, int tid,
                                         int nthreads) {
  int s = kTile << level;
  int borders = ((n - 1) / s + 1) / 2;  // odd multiples of s below n
  long long pairs = (long long)borders * n;
  for (long long j = tid; j < pairs; j += nthreads) {
    int along = (int)(j % n), at = (int)(j / n) * 2 * s + s;
    int p, q;
    if (dir == 0) {
      p = along * n + at - 1;
      q = p + 1;
    } else {
      p = (at - 1) * n + along;
      q = p + n;
    }
    if (img[p] && img[q]) ccl_union(label, p, q);
  }
}

// No union runs any more, so compressing in place is safe: a thread that reads a label another thread has just
// replaced by its root reaches the same root.
__global__ void ccl_final(int *label, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels && label[i] >= 0) label[i] = ccl_find(label, i);
}

// Runs every merge level of one frame on `stream` (defined by each variant).
void ccl_merge_levels(const unsigned char *img, int *label, int n, cudaStream_t stream);

// The reference: component ids 0, 1, ... in raster order of their first pixel by an iterative flood fill, -1 for
// background; returns the number of components.
inline int ccl_cpu(const unsigned char *img, int n, int *comp, int *largest) {
  size_t pixels = (size_t)n * n;
  std::fill(comp, comp + pixels, -1);
  std::vector<int> stack;
  int count = 0;
  for (size_t i = 0; i < pixels; i++) {
    if (!img[i] || comp[i] >= 0) continue;
    int size = 0;
    comp[i] = count;
    stack.push_back((int)i);
    while (!stack.empty()) {
      int p = stack.back();
      stack.pop_back();
      size++;
      int x = p % n, y = p / n;
      int nb[4] = {x > 0 ? p - 1 : -1, x < n - 1 ? p + 1 : -1, y > 0 ? p - n : -1, y < n - 1 ? p + n : -1};
      for (int q : nb)
        if (q >= 0 && img[q] && comp[q] < 0) {
          comp[q] = count;
          stack.push_back(q);
        }
    }
    *largest = std::max(*largest, size);
    count++;
  }
  return count;
}

inline int ccl_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: ccl [--reps N] [--size N] [--frames F] [--fill P] [--seed S]\n"
              "  F random N x N binary images (default 8 of 1024 x 1024) on 4 host streams, each pixel set with\n"
              "  probability P (default 0.58, just below 4-connected site percolation: components of every size)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int n = (int)opt.num("--size", 1024, 1, 16384);  // 16384^2 pixels keep labels within int
  int frames = (int)opt.num("--frames", 8, 1, 64);
  double fill = opt.real("--fill", 0.58, 0.0, 1.0);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  size_t pixels = (size_t)n * n, all = pixels * frames;
  std::vector<unsigned char> img(all);
  Rng rng(seed);
  for (size_t i = 0; i < all; i++) img[i] = rng.unit() < (float)fill;
  std::vector<int> ref(all);
  long long ref_components = 0;
  int ref_largest = 0;
  for (int f = 0; f < frames; f++) ref_components += ccl_cpu(&img[f * pixels], n, &ref[f * pixels], &ref_largest);
  printf("# ccl %s: %d frames of %dx%d, fill %.2f, 4-connected, %d merge levels, %lld components\n",
         cdp ? "cdp" : "flat", frames, n, n, fill, ccl_levels(n), ref_components);
  // Per frame and merge level, the two border children; every level after the first is itself a child grid of the
  // level before, tail-launched.
  ChildGrids children;
  int levels = ccl_levels(n);
  children.add_many((long long)frames * 2 * levels, kChildBlocks, kChildBlock);
  if (levels > 1) children.add_many((long long)frames * (levels - 1), 1, kParentThreads);
  children.print();

  // In flight at once per frame: the two merge grids of a level and the next level's tail launch.
  if (cdp) reserve_device_launches((size_t)frames * 3);
  DevArray<unsigned char> dimg;
  dimg.upload(img);
  DevArray<int> dlabel(all);
  cudaStream_t streams[kStreams];
  for (cudaStream_t &s : streams) CK(cudaStreamCreate(&s));  // blocking: the timing events on stream 0 wait for them

  std::vector<int> got;
  BenchHooks h;
  h.reset = [&] { dlabel.fill_bytes(0x7f); };  // out of range: a label never written cannot pass the check
  h.run = [&] {
    int tiles = (int)blocks_for(n, kTile);
    for (int f = 0; f < frames; f++) {
      cudaStream_t st = streams[f % kStreams];
      const unsigned char *fimg = dimg.get() + f * pixels;
      int *flabel = dlabel.get() + f * pixels;
      ccl_local<<<dim3(tiles, tiles), dim3(kTile, kTile), 0, st>>>(fimg, flabel, n);
      CK_LAUNCH(ccl_local);
      ccl_merge_levels(fimg, flabel, n, st);
      ccl_final<<<blocks_for((long long)pixels, kFinalBlock), kFinalBlock, 0, st>>>(flabel, (int)pixels);
      CK_LAUNCH(ccl_final);
    }
  };
  // The partition must be the reference's: labels may be any pixel ids, but two pixels share a GPU label exactly
  // when they share a CPU component.
  std::vector<int> to_cpu(pixels), to_gpu;
  h.check = [&]() -> std::string {
    got = dlabel.download();
    for (int f = 0; f < frames; f++) {
      const int *g = &got[f * pixels], *c = &ref[f * pixels];
      const unsigned char *im = &img[f * pixels];
      std::fill(to_cpu.begin(), to_cpu.end(), -1);
      to_gpu.assign(pixels, -1);  // components <= pixels
      for (size_t i = 0; i < pixels; i++) {
        int x = (int)(i % n), y = (int)(i / n);
        if (!im[i]) {
          if (g[i] != -1) return strf("frame %d pixel (%d, %d): background labelled %d", f, x, y, g[i]);
          continue;
        }
        if (g[i] < 0 || (size_t)g[i] >= pixels)
          return strf("frame %d pixel (%d, %d): label %d out of range", f, x, y, g[i]);
        if (to_cpu[g[i]] < 0) to_cpu[g[i]] = c[i];
        if (to_gpu[c[i]] < 0) to_gpu[c[i]] = g[i];
        if (to_cpu[g[i]] != c[i])
          return strf("frame %d pixel (%d, %d): gpu label %d joins cpu components %d and %d", f, x, y, g[i],
                      to_cpu[g[i]], c[i]);
        if (to_gpu[c[i]] != g[i])
          return strf("frame %d pixel (%d, %d): cpu component %d split into gpu labels %d and %d", f, x, y, c[i],
                      to_gpu[c[i]], g[i]);
      }
    }
    return "";
  };
  // Renumbered by first appearance, so the checksum does not depend on which pixel ids the labels are.
  h.result = [&] {
    long long components = 0;
    size_t largest = 0;
    uint64_t sum = 1469598103934665603ull;
    std::vector<int> id(pixels);
    std::vector<size_t> size;
    for (int f = 0; f < frames; f++) {
      const int *g = &got[f * pixels];
      std::fill(id.begin(), id.end(), -1);
      size.clear();
      for (size_t i = 0; i < pixels; i++) {
        int k = -1;
        if (g[i] >= 0) {
          if (id[g[i]] < 0) {
            id[g[i]] = (int)size.size();
            size.push_back(0);
          }
          k = id[g[i]];
          size[k]++;
        }
        sum = (sum ^ (uint64_t)(k + 1)) * 1099511628211ull;
      }
      components += (long long)size.size();
      for (size_t z : size) largest = std::max(largest, z);
    }
    return strf("components=%lld largest=%zu checksum=%016llx", components, largest, (unsigned long long)sum);
  };
  int status = bench_run("ccl", reps, h);
  for (cudaStream_t s : streams) CK(cudaStreamDestroy(s));
  return status;
}
