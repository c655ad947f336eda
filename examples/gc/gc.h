// Graph coloring by iterated conflict resolution (after Grosset et al., PPoPP'11). Starting from a perturbed
// greedy coloring, each round (1) detects conflicts: vertex v is in conflict if a neighbour u < v has its color,
// and (2) gives every conflicting vertex the smallest color none of its neighbours had at the start of the
// round. The minimum conflicting index grows every round, so this ends, and the result does not depend on
// thread order. Detection runs one parent thread per vertex, with a child grid over its neighbours (gc.cu) or a
// loop (gc_flat.cu); resolution is an ordinary kernel in both.
#pragma once

#include "../common/children.h"
#include "../common/graph.h"

constexpr int kParentBlock = 256;
constexpr int kChildBlock = 256;

struct GcDev {
  const int *off, *adj;
  const int *color;
  int *conflict;
};

__device__ inline void gc_check(int u, int v, int cv, const int *color, int *conflict) {
  if (u < v && color[u] == cv) conflict[v] = 1;
}

// Sets d.conflict for all n vertices (defined by each variant).
void gc_detect(const GcDev &d, int n);

// The smallest color that no vertex adj[begin .. end) has (negative colors are ignored).
__host__ __device__ inline int gc_first_free(const int *adj, int begin, int end, const int *color) {
  for (int base = 0;; base += 64) {
    unsigned long long used = 0;
    for (int e = begin; e < end; e++) {
      int c = color[adj[e]] - base;
      if (c >= 0 && c < 64) used |= 1ull << c;
    }
    if (~used) {
#ifdef __CUDA_ARCH__
      return base + __ffsll((long long)~used) - 1;
#else
      return base + __builtin_ctzll(~used);
#endif
    }
  }
}

__global__ void gc_resolve(const int *off, const int *adj, const int *color, const int *conflict, int *new_color,
                           int *n_conflicts, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  if (conflict[v]) {
    new_color[v] = gc_first_free(adj, off[v], off[v + 1], color);
    atomicAdd(n_conflicts, 1);
  } else {
    new_color[v] = color[v];
  }
}

struct GcOutcome {
  std::vector<int> color;
  int rounds = 0;
  long long recolored = 0;
};

inline GcOutcome gc_cpu(const Graph &g, std::vector<int> color) {
  GcOutcome r;
  std::vector<int> next(g.n);
  for (;;) {
    int count = 0;
    for (int v = 0; v < g.n; v++) {
      bool conflict = false;
      for (int e = g.off[v]; e < g.off[v + 1]; e++) conflict |= g.adj[e] < v && color[g.adj[e]] == color[v];
      next[v] = conflict ? gc_first_free(g.adj.data(), g.off[v], g.off[v + 1], color.data()) : color[v];
      count += conflict;
    }
    if (count == 0) break;
    r.rounds++;
    r.recolored += count;
    color.swap(next);
  }
  r.color = color;
  return r;
}

inline int gc_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: gc [--reps N] [--input FILE.mtx] [--rmat SCALE [--edgefactor E]] [--perturb P] [--seed S]\n"
              "  colors the graph of a symmetric Matrix Market file (default ../shared/data/bcsstk13.mtx), or with\n"
              "  --rmat an undirected R-MAT graph of 2^SCALE vertices and E * 2^SCALE generated edges (default E 16),\n"
              "  starting from a greedy coloring where a fraction P (default 0.1) of vertices get random colors\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string path = opt.str("--input", "../shared/data/bcsstk13.mtx");
  int rmat_scale = (int)opt.num("--rmat", 0, 0, 30);
  int edgefactor = (int)opt.num("--edgefactor", 16, 1, 1 << 20);
  double perturb = opt.real("--perturb", 0.1, 0.0, 1.0);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  Graph g = rmat_scale > 0 ? rmat_graph(rmat_scale, edgefactor, seed) : read_mtx_graph(path);
  int n = g.n;
  std::vector<int> init(n, -1);
  int greedy_colors = 0;
  for (int v = 0; v < n; v++) {
    init[v] = gc_first_free(g.adj.data(), g.off[v], g.off[v + 1], init.data());
    greedy_colors = std::max(greedy_colors, init[v] + 1);
  }
  Rng rng(seed);
  for (int v = 0; v < n; v++)
    if (rng.unit() < perturb) init[v] = (int)rng.below((uint32_t)greedy_colors);
  GcOutcome ref = gc_cpu(g, init);
  std::string what = rmat_scale > 0 ? strf("R-MAT scale %d, edge factor %d", rmat_scale, edgefactor) : path;
  printf("# gc %s: %s, %d vertices, %lld edges, max degree %d, %d greedy colors\n", cdp ? "cdp" : "flat",
         what.c_str(), n, g.edges() / 2, g.max_deg(), greedy_colors);
  // Detection runs once per round and once more to find no conflict; each time every vertex with neighbours
  // launches a child.
  ChildGrids children;
  for (int v = 0; v < n; v++)
    if (g.deg(v) > 0) children.add_many(ref.rounds + 1, blocks_for(g.deg(v), kChildBlock), kChildBlock);
  children.print();

  if (cdp) reserve_device_launches(n);
  DevGraph dg;
  dg.upload(g);
  DevArray<int> color_a(n), color_b(n), conflict(n), count(1);
  int *final_color = nullptr;
  GcOutcome got;
  BenchHooks h;
  h.reset = [&] { color_a.upload(init); };
  h.run = [&] {
    int *cur = color_a.get(), *nxt = color_b.get();
    got.rounds = 0;
    got.recolored = 0;
    for (;;) {
      gc_detect(GcDev{dg.off.get(), dg.adj.get(), cur, conflict.get()}, n);
      CK(cudaMemsetAsync(count.get(), 0, sizeof(int)));
      gc_resolve<<<blocks_for(n, kParentBlock), kParentBlock>>>(dg.off.get(), dg.adj.get(), cur, conflict.get(), nxt,
                                                                count.get(), n);
      CK_LAUNCH(gc_resolve);
      int c = count.read(0);
      if (c == 0) break;
      if (++got.rounds > n) die("coloring did not converge");
      got.recolored += c;
      std::swap(cur, nxt);
    }
    final_color = cur;
  };
  h.check = [&]() -> std::string {
    got.color.resize(n);
    CK(cudaMemcpy(got.color.data(), final_color, n * sizeof(int), cudaMemcpyDeviceToHost));
    if (got.rounds != ref.rounds || got.recolored != ref.recolored)
      return strf("gpu took %d rounds / %lld recolorings, cpu %d / %lld", got.rounds, got.recolored, ref.rounds,
                  ref.recolored);
    for (int v = 0; v < n; v++)
      if (got.color[v] != ref.color[v]) return strf("vertex %d: gpu color %d, cpu %d", v, got.color[v], ref.color[v]);
    for (int v = 0; v < n; v++)
      for (int e = g.off[v]; e < g.off[v + 1]; e++)
        if (got.color[g.adj[e]] == got.color[v]) return strf("edge %d-%d is not properly colored", v, g.adj[e]);
    return "";
  };
  h.result = [&] {
    int colors = 0;
    unsigned long long sum = 0;
    for (int v = 0; v < n; v++) {
      colors = std::max(colors, got.color[v] + 1);
      sum += (unsigned long long)(v + 1) * (unsigned long long)got.color[v];
    }
    return strf("colors=%d rounds=%d recolored=%lld checksum=%llu", colors, got.rounds, got.recolored, sum);
  };
  return bench_run("gc", reps, h);
}
