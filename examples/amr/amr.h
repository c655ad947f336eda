// Adaptive mesh refinement of a combustion-like field (after SPAWN's AMR, HPCA'17). The field on the unit square
// is a cold background with a few hot flame kernels, each bounded by a thin elliptical front where the temperature
// jumps; their centres, sizes, front widths and heats come from a seed. A square grid of base cells is evaluated
// (the field at the cell's centre and four corners); a cell whose values differ by more than the threshold (it
// straddles a front) is refined into factor x factor sub-cells, evaluated the same way from the analytic field, and
// so on down to a depth bound. Cells that are not refined are leaves: the result is how many there are per level,
// the integral of the field over them, and a checksum of every leaf's place and value.
// amr.cu: one parent thread per base cell, and a refined cell launches a child grid of one thread per sub-cell,
// recursively. amr_flat.cu: the host launches one grid per level over the cells the previous level refined.
// All float arithmetic is single correctly rounded operations (common.h's x* and xsqrt below), so the GPU and the
// CPU reference evaluate bit-identical values and refine identical cells; the tallies are integer sums.
#pragma once

#include "../common/children.h"

constexpr int kParentBlock = 256;
constexpr int kMaxLevels = 8;
constexpr int kMaxFronts = 16;
constexpr float kQuantum = 1048576.0f;  // leaf values are summed as integers in units of 2^-20

__host__ __device__ inline float xsqrt(float a) {
#ifdef __CUDA_ARCH__
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);  // IEEE square root, correctly rounded like __fsqrt_rn
#endif
}

struct AmrFront {
  float cx, cy;    // centre
  float rx, ry;    // semi-axes of the front
  float width;     // of the front, as a fraction of the radius
  float heat;      // temperature rise inside
};

struct AmrStats {
  unsigned long long leaves[kMaxLevels], refined[kMaxLevels], value_sum[kMaxLevels];
  unsigned long long checksum;  // sum over leaves of a hash of (level, x, y, value), modulo 2^64
};

struct AmrParams {
  const AmrFront *fronts;
  int n_fronts;
  int base;        // cells per side at level 0
  int factor;      // a refined cell becomes factor x factor cells
  int max_level;   // cells of this level are never refined
  float threshold;
  AmrStats *stats;
};

// Temperature at (x, y): each front is a smoothstep across the ellipse, 3u^2 - 2u^3 of the position u in [0, 1]
// through the front; compact, so away from the fronts the field is flat and nothing is refined.
__host__ __device__ inline float amr_field(const AmrFront *fronts, int n_fronts, float x, float y) {
  float t = 0.0f;
  for (int k = 0; k < n_fronts; k++) {
    const AmrFront &f = fronts[k];
    float dx = xdiv(xsub(x, f.cx), f.rx), dy = xdiv(xsub(y, f.cy), f.ry);
    float rho = xsqrt(xadd(xmul(dx, dx), xmul(dy, dy)));
    float u = fminf(fmaxf(xadd(0.5f, xdiv(xsub(1.0f, rho), f.width)), 0.0f), 1.0f);
    t = xadd(t, xmul(f.heat, xmul(xmul(u, u), xsub(3.0f, xmul(2.0f, u)))));
  }
  return t;
}

struct AmrCell {
  float value;  // at the centre
  bool refine;
};

// Cell (ix, iy) of `level`, where a side has base * factor^level cells. Coordinates are single divisions of exact
// integers, so a corner shared by two cells has one value.
__host__ __device__ inline AmrCell amr_eval(const AmrParams &p, int level, int ix, int iy) {
  int side = p.base;
  for (int l = 0; l < level; l++) side *= p.factor;
  const float s = (float)side;
  const float x0 = xdiv((float)ix, s), x1 = xdiv((float)(ix + 1), s), xc = xdiv((float)(2 * ix + 1), 2.0f * s);
  const float y0 = xdiv((float)iy, s), y1 = xdiv((float)(iy + 1), s), yc = xdiv((float)(2 * iy + 1), 2.0f * s);
  AmrCell c;
  c.value = amr_field(p.fronts, p.n_fronts, xc, yc);
  float lo = c.value, hi = c.value;
  const float xs[2] = {x0, x1}, ys[2] = {y0, y1};
  for (int i = 0; i < 4; i++) {
    float v = amr_field(p.fronts, p.n_fronts, xs[i & 1], ys[i >> 1]);
    lo = fminf(lo, v);
    hi = fmaxf(hi, v);
  }
  c.refine = level < p.max_level && xsub(hi, lo) > p.threshold;
  return c;
}

__host__ __device__ inline unsigned long long amr_leaf_hash(int level, int ix, int iy, float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  unsigned long long z = ((unsigned long long)level << 56) ^ ((unsigned long long)ix << 28) ^ (unsigned long long)iy;
  z = (z ^ ((unsigned long long)bits << 20)) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__host__ __device__ inline unsigned long long amr_quantize(float value) {
  return (unsigned long long)xmul(value, kQuantum);  // truncation, the same on both sides; values are >= 0
}

// Adds one cell per thread of the warp to the level's tallies, one atomic per tally and warp (all the warp's
// threads call this, with `active` false for a thread that has no cell).
__device__ inline void amr_tally(AmrStats *stats, int level, bool active, int ix, int iy, AmrCell c) {
  const bool leaf = active && !c.refine;
  unsigned long long sum = leaf ? amr_quantize(c.value) : 0, hash = leaf ? amr_leaf_hash(level, ix, iy, c.value) : 0;
  for (int o = 16; o > 0; o >>= 1) {
    sum += __shfl_down_sync(0xffffffffu, sum, o);
    hash += __shfl_down_sync(0xffffffffu, hash, o);
  }
  const int leaves = __popc(__ballot_sync(0xffffffffu, leaf)),
            refined = __popc(__ballot_sync(0xffffffffu, active && c.refine));
  if (threadIdx.x % 32 == 0) {
    if (leaves) {
      atomicAdd(&stats->leaves[level], (unsigned long long)leaves);
      atomicAdd(&stats->value_sum[level], sum);
      atomicAdd(&stats->checksum, hash);
    }
    if (refined) atomicAdd(&stats->refined[level], (unsigned long long)refined);
  }
}

// Refines the whole mesh (defined by each variant); `refined_per_level` is what the CPU reference refined, for
// sizing work lists.
void amr_run(const AmrParams &p, const std::vector<long long> &refined_per_level);

// The CPU reference, level by level; returns the tallies and fills the number of refined cells per level.
inline AmrStats amr_cpu(const AmrParams &p, std::vector<long long> &refined_per_level) {
  AmrStats s{};
  refined_per_level.assign(p.max_level + 1, 0);
  std::vector<std::pair<int, int>> cells, next;
  for (int iy = 0; iy < p.base; iy++)
    for (int ix = 0; ix < p.base; ix++) cells.push_back({ix, iy});
  for (int level = 0; !cells.empty(); level++) {
    next.clear();
    for (auto [cx, cy] : cells) {
      AmrCell c = amr_eval(p, level, cx, cy);
      if (c.refine) {
        s.refined[level]++;
        for (int k = 0; k < p.factor * p.factor; k++)
          next.push_back({cx * p.factor + k % p.factor, cy * p.factor + k / p.factor});
      } else {
        s.leaves[level]++;
        s.value_sum[level] += amr_quantize(c.value);
        s.checksum += amr_leaf_hash(level, cx, cy, c.value);
      }
    }
    refined_per_level[level] = (long long)s.refined[level];
    cells.swap(next);
  }
  return s;
}

inline std::vector<AmrFront> amr_fronts(int n, float min_width, float max_width, uint64_t seed) {
  Rng rng(seed);
  std::vector<AmrFront> fronts(n);
  for (AmrFront &f : fronts) {
    f.cx = 0.2f + 0.6f * rng.unit();
    f.cy = 0.2f + 0.6f * rng.unit();
    f.rx = 0.05f + 0.2f * rng.unit();
    f.ry = 0.05f + 0.2f * rng.unit();
    f.width = min_width * std::pow(max_width / min_width, rng.unit());  // log-uniform: some fronts far sharper
    f.heat = 0.5f + rng.unit();
  }
  return fronts;
}

inline int amr_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: amr [--reps N] [--base B] [--factor F] [--max-level L] [--threshold T] [--fronts K]\n"
              "           [--min-width W] [--max-width W] [--seed S]\n"
              "  B x B base cells (default 256) on the unit square; a cell whose centre and corner temperatures\n"
              "  differ by more than T (default 0.05) becomes F x F cells (F a multiple of 8 up to 32, default 16),\n"
              "  down to level L (default 2). K flame fronts (default 4) with widths log-uniform in\n"
              "  [min-width, max-width] (default 0.002, 0.05) of their semi-axes\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int base = (int)opt.num("--base", 256, 1, 1 << 14);
  int factor = (int)opt.num("--factor", 16, 8, 32);
  int max_level = (int)opt.num("--max-level", 2, 0, kMaxLevels - 1);
  double threshold = opt.real("--threshold", 0.05, 0.0, 1e30);
  int n_fronts = (int)opt.num("--fronts", 4, 1, kMaxFronts);
  double min_width = opt.real("--min-width", 0.002, 1e-6, 1.0), max_width = opt.real("--max-width", 0.05, 1e-6, 1.0);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();
  // A child grid is one block of factor^2 threads, whole warps (amr_tally needs them).
  if (factor % 8 != 0) die("--factor %d is not a multiple of 8", factor);
  long long finest = base;
  for (int l = 0; l < max_level; l++) finest *= factor;
  if (finest > (1 << 22))
    die("%lld cells per side at level %d: coordinates must stay exact in floats", finest, max_level);
  if (min_width > max_width) die("--min-width above --max-width");

  std::vector<AmrFront> fronts = amr_fronts(n_fronts, (float)min_width, (float)max_width, seed);
  DevArray<AmrFront> dfronts;
  AmrParams p{fronts.data(), n_fronts, base, factor, max_level, (float)threshold, nullptr};
  std::vector<long long> refined;
  const AmrStats ref = amr_cpu(p, refined);
  long long cells = 0, launches = 0;
  for (int l = 0; l <= max_level; l++) cells += (long long)(ref.leaves[l] + ref.refined[l]), launches += refined[l];
  printf("# amr %s: %d x %d base cells, factor %d, %d levels below, %d fronts, threshold %g: %lld cells\n",
         cdp ? "cdp" : "flat", base, base, factor, max_level, n_fronts, threshold, cells);
  ChildGrids children;
  children.add_many(launches, 1, factor * factor);  // one block per refined cell
  children.print();

  if (cdp) reserve_device_launches((size_t)launches);  // every refined cell's launch can be pending at once
  dfronts.upload(fronts);
  DevArray<AmrStats> stats(1);
  p.fronts = dfronts.get();
  p.stats = stats.get();

  AmrStats got{};
  BenchHooks h;
  h.reset = [&] { stats.fill_bytes(0); };
  h.run = [&] { amr_run(p, refined); };
  h.check = [&]() -> std::string {
    got = stats.read(0);
    for (int l = 0; l <= max_level; l++)
      if (got.leaves[l] != ref.leaves[l] || got.refined[l] != ref.refined[l] || got.value_sum[l] != ref.value_sum[l])
        return strf("level %d: gpu %llu leaves, %llu refined, value sum %llu; cpu %llu, %llu, %llu", l, got.leaves[l],
                    got.refined[l], got.value_sum[l], ref.leaves[l], ref.refined[l], ref.value_sum[l]);
    if (got.checksum != ref.checksum) return strf("leaf checksum gpu %016llx, cpu %016llx", got.checksum, ref.checksum);
    return "";
  };
  h.result = [&] {
    std::string leaves, refined_cells;
    double integral = 0, side = base;
    for (int l = 0; l <= max_level; l++, side *= factor) {
      leaves += strf("%s%llu", l ? "/" : "", got.leaves[l]);
      refined_cells += strf("%s%llu", l ? "/" : "", got.refined[l]);
      integral += (double)got.value_sum[l] / kQuantum / (side * side);
    }
    return strf("leaves=%s refined=%s integral=%.9f checksum=%016llx", leaves.c_str(), refined_cells.c_str(), integral,
                got.checksum);
  };
  return bench_run("amr", reps, h);
}
