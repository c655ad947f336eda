// Sparse matrix (CSR) times dense matrix (SPAWN's MM): C = A B with A sparse n x k and B dense k x m, both row major.
// One parent thread per row of A; row i's m outputs C[i][col] are computed by a child grid of one thread per dense
// column (mm.cu) or by the parent thread's loop over the columns (mm_flat.cu), each output as the sum over the
// row's nonzeros in CSR order with unfused float operations, so that both variants and the CPU agree to the bit.
// A is read from a Matrix Market file (bcsstk13 by default) or generated with power-law row lengths, so that a few
// rows carry most of the work.
#pragma once

#include "../common/children.h"

#include <cmath>

constexpr int kParentBlock = 128;
constexpr int kChildBlock = 128;

struct Csr {
  int rows = 0, cols = 0;
  std::vector<int> off;  // rows + 1 entries: row i's nonzeros are col/val[off[i] .. off[i + 1])
  std::vector<int> col;
  std::vector<float> val;
  int row_nnz(int i) const { return off[i + 1] - off[i]; }
};

struct MmDev {
  const int *off, *col;
  const float *val;
  const float *b;  // k x m
  float *c;        // n x m
  int m;
};

// Output (i, j) of C for row i's nonzeros col/val[0 .. nnz).
__host__ __device__ inline float mm_dot(const int *col, const float *val, int nnz, const float *b, int m, int j) {
  float s = 0.0f;
  for (int e = 0; e < nnz; e++) s = xadd(s, xmul(val[e], b[(long long)col[e] * m + j]));
  return s;
}

// Computes every row of C (defined by each variant).
void mm_multiply(const MmDev &d, int n);

// Matrix Market coordinate file, real, integer or pattern (values 1), general or symmetric (the other triangle is
// added); entries sorted by row, then column.
inline Csr read_mtx_csr(const std::string &path) {
  MtxFile m = open_mtx(path);
  FILE *f = m.f;
  char line[1024];
  const long long rows = m.rows, cols = m.cols, nnz = m.nnz;
  bool pattern = m.field == "pattern", symmetric = m.symmetry == "symmetric";
  if (!pattern && m.field != "real" && m.field != "integer")
    die("%s: field '%s' is not real, integer or pattern", path.c_str(), m.field.c_str());
  if (!symmetric && m.symmetry != "general")
    die("%s: symmetry '%s' is not general or symmetric", path.c_str(), m.symmetry.c_str());
  if (rows <= 0 || cols <= 0 || rows >= (1 << 30) || cols >= (1 << 30) || nnz < 0 || nnz >= (1ll << 30))
    die("%s: bad matrix size", path.c_str());

  struct Entry {
    int i, j;
    float v;
  };
  std::vector<Entry> e;
  e.reserve(symmetric ? 2 * nnz : nnz);
  for (long long k = 0; k < nnz; k++) {
    long long i, j;
    double v = 1.0;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%lld %lld %lf", &i, &j, &v) != (pattern ? 2 : 3))
      die("%s: entry %lld of %lld missing or malformed", path.c_str(), k + 1, nnz);
    if (i < 1 || i > rows || j < 1 || j > cols) die("%s: entry %lld out of range", path.c_str(), k + 1);
    e.push_back({(int)i - 1, (int)j - 1, (float)v});
    if (symmetric && i != j) e.push_back({(int)j - 1, (int)i - 1, (float)v});
  }
  fclose(f);
  std::sort(e.begin(), e.end(), [](const Entry &a, const Entry &b) { return a.i != b.i ? a.i < b.i : a.j < b.j; });

  Csr a;
  a.rows = (int)rows;
  a.cols = (int)cols;
  a.off.assign(a.rows + 1, 0);
  for (const Entry &x : e) {
    a.off[x.i + 1]++;
    a.col.push_back(x.j);
    a.val.push_back(x.v);
  }
  for (int i = 0; i < a.rows; i++) a.off[i + 1] += a.off[i];
  return a;
}

// An n x n matrix whose row lengths follow a Pareto law, P(length >= x) = (min_nnz / x)^alpha, capped at n; each
// row's columns are distinct and uniformly random, its values uniform in [-1, 1).
inline Csr powerlaw_csr(int n, int min_nnz, double alpha, Rng &rng) {
  Csr a;
  a.rows = a.cols = n;
  a.off.assign(n + 1, 0);
  std::vector<char> taken(n, 0);
  std::vector<int> row;
  for (int i = 0; i < n; i++) {
    double u = (double)(rng.next() >> 11) * 0x1p-53;  // [0, 1)
    double len = std::floor(min_nnz * std::pow(1.0 - u, -1.0 / alpha));
    int nnz = (int)std::min(len, (double)n);
    row.clear();
    for (int top = n - nnz; top < n; top++) {  // Floyd's sampling of nnz distinct columns
      int t = (int)rng.below((uint32_t)top + 1);
      int pick = taken[t] ? top : t;
      taken[pick] = 1;
      row.push_back(pick);
    }
    std::sort(row.begin(), row.end());
    for (int j : row) {
      taken[j] = 0;
      a.col.push_back(j);
      a.val.push_back(xsub(xmul(2.0f, rng.unit()), 1.0f));
    }
    a.off[i + 1] = a.off[i] + nnz;
  }
  return a;
}

inline int mm_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: mm [--reps N] [--input FILE.mtx | --powerlaw N [--min-nnz K] [--alpha A]] [--cols M] [--seed S]\n"
              "  multiplies a sparse matrix (a Matrix Market file, default ../shared/data/bcsstk13.mtx, or an N x N\n"
              "  matrix with Pareto row lengths of minimum K (default 4) and exponent A (default 1.5)) by a random\n"
              "  dense matrix of M columns (default 256)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string path = opt.str("--input", "../shared/data/bcsstk13.mtx");
  int powerlaw = (int)opt.num("--powerlaw", 0, 0, 1 << 24);
  int min_nnz = (int)opt.num("--min-nnz", 4, 1, 1 << 24);
  double alpha = opt.real("--alpha", 1.5, 0.1, 100.0);
  int m = (int)opt.num("--cols", 256, 1, 1 << 16);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  Rng rng(seed);
  Csr a = powerlaw > 0 ? powerlaw_csr(powerlaw, min_nnz, alpha, rng) : read_mtx_csr(path);
  int n = a.rows, k = a.cols;
  if ((long long)k * m >= (1ll << 31) || (long long)n * m >= (1ll << 31)) die("dense matrices too large");
  std::vector<float> b((size_t)k * m);
  for (float &x : b) x = xsub(xmul(2.0f, rng.unit()), 1.0f);
  std::vector<float> ref((size_t)n * m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      ref[(size_t)i * m + j] = mm_dot(&a.col[a.off[i]], &a.val[a.off[i]], a.row_nnz(i), b.data(), m, j);
  int longest = 0;
  for (int i = 0; i < n; i++) longest = std::max(longest, a.row_nnz(i));
  std::string what = powerlaw > 0 ? strf("power-law rows (min %d, exponent %g)", min_nnz, alpha) : path;
  printf("# mm %s: %s, %d x %d, %zu nonzeros, longest row %d, times %d x %d dense\n", cdp ? "cdp" : "flat",
         what.c_str(), n, k, a.col.size(), longest, k, m);
  ChildGrids children;  // one child per row with nonzeros, over the dense columns
  for (int i = 0; i < n; i++)
    if (a.row_nnz(i) > 0) children.add(blocks_for(m, kChildBlock), kChildBlock);
  children.print();

  if (cdp) reserve_device_launches(children.launches());
  DevArray<int> d_off, d_col;
  DevArray<float> d_val, d_b, d_c((size_t)n * m);
  d_off.upload(a.off);
  d_col.upload(a.col);
  d_val.upload(a.val);
  d_b.upload(b);
  MmDev d{d_off.get(), d_col.get(), d_val.get(), d_b.get(), d_c.get(), m};

  std::vector<float> got;
  BenchHooks h;
  h.reset = [&] { d_c.fill_bytes(0xff); };  // NaN: an output never written cannot pass the check
  h.run = [&] { mm_multiply(d, n); };
  h.check = [&]() -> std::string {
    got = d_c.download();
    for (size_t x = 0; x < got.size(); x++)
      if (memcmp(&got[x], &ref[x], sizeof(float)) != 0)
        return strf("C[%zu][%zu]: gpu %.9g, cpu %.9g", x / m, x % m, got[x], ref[x]);
    return "";
  };
  h.result = [&] {
    double sum = 0;
    uint64_t hash = 1469598103934665603ull;
    for (float x : got) {
      uint32_t bits;
      memcpy(&bits, &x, sizeof bits);
      sum += x;
      hash = (hash ^ bits) * 1099511628211ull;
    }
    return strf("nonzeros=%zu sum=%.9e checksum=%016llx", a.col.size(), sum, (unsigned long long)hash);
  };
  return bench_run("mm", reps, h);
}
