// Mandelbrot set by Mariani-Silver subdivision (SPAWN's Mandel). The image starts as an init x init grid of square
// rectangles, one thread block each. A block computes the dwell (escape iteration count, capped at max_dwell) of
// its rectangle's border; a uniform border means a uniform inside, so the block fills the rectangle with that
// dwell. Otherwise the rectangle is split into kSubdiv x kSubdiv children, down to max_depth splits and to sides
// of at least min_side; a rectangle that may not be split any more gets every pixel computed. mandel.cu launches
// a child grid of kSubdiv x kSubdiv blocks per split rectangle, recursively; mandel_flat.cu has the host launch one
// grid per level over the rectangles the level before split. The decisions depend only on the dwell values, which
// unfused float operations make bit-identical on the CPU and the GPU, so the image is exactly the CPU's.
#pragma once

#include "../common/children.h"

constexpr int kBlock = 256;  // threads per rectangle, parent and child alike
constexpr int kSubdiv = 4;   // a split rectangle becomes kSubdiv x kSubdiv children

struct MandelParams {
  int size;       // the image is size x size pixels
  int max_dwell;  // iterations before a point counts as inside the set
  int max_depth;  // levels of splits below the initial grid
  int min_side;   // children are never smaller than this
  float re0, im0, step;  // pixel (x, y) is the point re0 + x step + i (im0 + y step)
  int *dwell;            // size x size, row major
};

__host__ __device__ inline int mandel_dwell(int x, int y, const MandelParams &p) {
  float cr = xadd(p.re0, xmul((float)x, p.step)), ci = xadd(p.im0, xmul((float)y, p.step));
  float zr = cr, zi = ci;
  int d = 0;
  while (d < p.max_dwell && xadd(xmul(zr, zr), xmul(zi, zi)) <= 4.0f) {
    float next_r = xadd(xsub(xmul(zr, zr), xmul(zi, zi)), cr);
    zi = xadd(xmul(xmul(2.0f, zr), zi), ci);
    zr = next_r;
    d++;
  }
  return d;
}

// Border pixel k of a side x side rectangle, k in [0, 4 (side - 1)): each border pixel once, clockwise from the
// top-left corner.
__host__ __device__ inline void mandel_border_pixel(int k, int side, int *dx, int *dy) {
  int edge = k / (side - 1), at = k % (side - 1);
  *dx = edge == 0 ? at : edge == 1 ? side - 1 : edge == 2 ? side - 1 - at : 0;
  *dy = edge == 0 ? 0 : edge == 1 ? at : edge == 2 ? side - 1 : side - 1 - at;
}

__host__ __device__ inline bool mandel_may_split(int side, int depth, const MandelParams &p) {
  return depth < p.max_depth && side / kSubdiv >= p.min_side;
}

// Processes the rectangle at (rx, ry) with the whole block; returns (in every thread) whether it must be split.
__device__ inline bool mandel_rect(const MandelParams &p, int rx, int ry, int side, int depth) {
  __shared__ int lo, hi;
  if (threadIdx.x == 0) {
    lo = INT_MAX;
    hi = INT_MIN;
  }
  __syncthreads();
  int my_lo = INT_MAX, my_hi = INT_MIN;
  for (int k = threadIdx.x; k < 4 * (side - 1); k += blockDim.x) {
    int dx, dy;
    mandel_border_pixel(k, side, &dx, &dy);
    int d = mandel_dwell(rx + dx, ry + dy, p);
    my_lo = min(my_lo, d);
    my_hi = max(my_hi, d);
  }
  my_lo = __reduce_min_sync(0xffffffffu, my_lo);
  my_hi = __reduce_max_sync(0xffffffffu, my_hi);
  if (threadIdx.x % 32 == 0) {
    atomicMin(&lo, my_lo);
    atomicMax(&hi, my_hi);
  }
  __syncthreads();
  const int border_lo = lo, border_hi = hi;
  const long long pixels = (long long)side * side;
  if (border_lo == border_hi) {
    for (long long i = threadIdx.x; i < pixels; i += blockDim.x)
      p.dwell[(long long)(ry + i / side) * p.size + rx + i % side] = border_lo;
    return false;
  }
  if (mandel_may_split(side, depth, p)) return true;
  for (long long i = threadIdx.x; i < pixels; i += blockDim.x) {
    int x = rx + (int)(i % side), y = ry + (int)(i / side);
    p.dwell[(long long)y * p.size + x] = mandel_dwell(x, y, p);
  }
  return false;
}

// The flat version's rectangle lists (top-left corners): the initial grid, and two for the levels below it in turn.
struct MandelLists {
  const int2 *top;
  int2 *level[2];
  int *count;  // rectangles appended to the next level's list
};

// Computes the whole image into p.dwell with an init x init grid of rectangles at the top (defined by each variant).
void mandel_render(const MandelParams &p, int init, const MandelLists &lists);

// The same subdivision on the CPU. Counts the split rectangles (the CDP version's launches) and the iterations.
struct MandelCpu {
  const MandelParams &p;
  std::vector<int> &dwell;
  ChildGrids &children;
  long long iterations = 0;

  int dwell_at(int x, int y) {
    int d = mandel_dwell(x, y, p);
    iterations += d;
    return d;
  }

  void rect(int rx, int ry, int side, int depth) {
    int lo = INT_MAX, hi = INT_MIN;
    for (int k = 0; k < 4 * (side - 1); k++) {
      int dx, dy;
      mandel_border_pixel(k, side, &dx, &dy);
      int d = dwell_at(rx + dx, ry + dy);
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    if (lo == hi) {
      for (int y = ry; y < ry + side; y++)
        for (int x = rx; x < rx + side; x++) dwell[(size_t)y * p.size + x] = lo;
    } else if (mandel_may_split(side, depth, p)) {
      children.add(kSubdiv * kSubdiv, kBlock);
      int sub = side / kSubdiv;
      for (int i = 0; i < kSubdiv * kSubdiv; i++) rect(rx + (i % kSubdiv) * sub, ry + (i / kSubdiv) * sub, sub, depth + 1);
    } else {
      for (int y = ry; y < ry + side; y++)
        for (int x = rx; x < rx + side; x++) dwell[(size_t)y * p.size + x] = dwell_at(x, y);
    }
  }
};

inline int mandel_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: mandel [--reps N] [--size S] [--max-dwell D] [--init I] [--max-depth L] [--min-side M]\n"
              "  the Mandelbrot set on [-2, 1] x [-1.5, 1.5] in an S x S image (default 8192), dwell capped at D\n"
              "  (default 1024), by Mariani-Silver subdivision of an I x I grid of rectangles (default 32), split\n"
              "  4 x 4 at most L times (default 4) into rectangles of side at least M (default 16)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int size = (int)opt.num("--size", 8192, 16, 1 << 15);
  int max_dwell = (int)opt.num("--max-dwell", 1024, 1, 1 << 20);
  int init = (int)opt.num("--init", 32, 1, 1 << 15);
  int max_depth = (int)opt.num("--max-depth", 4, 0, 23);  // 24 is CDP's nesting limit
  int min_side = (int)opt.num("--min-side", 16, 2, 1 << 15);
  opt.done();
  if (size % init != 0) die("--size %d is not a multiple of --init %d", size, init);
  int top_side = size / init;
  if (top_side < 2) die("rectangles of side %d: need at least 2", top_side);
  for (int s = top_side, d = 0; mandel_may_split(s, d, MandelParams{size, 0, max_depth, min_side}); s /= kSubdiv, d++)
    if (s % kSubdiv != 0) die("a rectangle of side %d does not split into %d x %d", s, kSubdiv, kSubdiv);

  // 3 / size is exact for a power of two; otherwise the rounded step is still the same on both sides.
  MandelParams prm{size, max_dwell, max_depth, min_side, -2.0f, -1.5f, 3.0f / (float)size, nullptr};
  std::vector<int> ref((size_t)size * size);
  ChildGrids children;
  MandelCpu cpu{prm, ref, children};
  for (int i = 0; i < init * init; i++) cpu.rect((i % init) * top_side, (i / init) * top_side, top_side, 0);
  printf("# mandel %s: %d x %d, max dwell %d, %d x %d rectangles of side %d, up to %d splits of %d x %d, min side %d,"
         " %lld iterations\n",
         cdp ? "cdp" : "flat", size, size, max_dwell, init, init, top_side, max_depth, kSubdiv, kSubdiv, min_side,
         cpu.iterations);
  children.print();

  if (cdp) reserve_device_launches(children.launches());
  DevArray<int> dwell((size_t)size * size);
  prm.dwell = dwell.get();
  DevArray<int2> top, level_a, level_b;
  DevArray<int> count(1);
  if (!cdp) {
    std::vector<int2> corners(init * init);
    for (int i = 0; i < init * init; i++) corners[i] = make_int2((i % init) * top_side, (i / init) * top_side);
    top.upload(corners);
    // A level's rectangles tile at most the whole image: the smallest side's tiling bounds every list.
    int side = top_side;
    for (int d = 0; mandel_may_split(side, d, prm); d++) side /= kSubdiv;
    level_a.alloc((size_t)(size / side) * (size / side));
    level_b.alloc(level_a.size());
  }
  MandelLists lists{top.get(), {level_a.get(), level_b.get()}, count.get()};
  std::vector<int> got;
  BenchHooks h;
  h.reset = [&] { dwell.fill_bytes(0xff); };  // -1: a pixel never written cannot pass the check
  h.run = [&] { mandel_render(prm, init, lists); };
  h.check = [&]() -> std::string {
    got = dwell.download();
    for (size_t i = 0; i < got.size(); i++)
      if (got[i] != ref[i])
        return strf("pixel (%zu, %zu): gpu dwell %d, cpu %d", i % size, i / size, got[i], ref[i]);
    return "";
  };
  h.result = [&] {
    long long inside = 0, sum = 0;
    uint64_t hash = 1469598103934665603ull;
    for (int d : got) {
      inside += d == max_dwell;
      sum += d;
      hash = (hash ^ (uint64_t)(unsigned)d) * 1099511628211ull;
    }
    return strf("inside=%lld dwell_sum=%lld checksum=%016llx", inside, sum, (unsigned long long)hash);
  };
  return bench_run("mandel", reps, h);
}
