// Level-synchronous breadth-first search on a seeded random graph (uniform degrees, or R-MAT). The host loops
// over levels; per level one parent thread per frontier vertex expands that vertex's neighbours. Shared by bfs.cu
// (a child grid per vertex) and bfs_flat.cu (the parent thread loops over the neighbours).
#pragma once

#include "../common/children.h"
#include "../common/graph.h"

constexpr int kParentBlock = 1024;
constexpr int kChildBlock = 32;

struct BfsDev {
  const int *off, *adj;
  int *level;               // -1 until reached
  int *frontier, *next;     // vertex lists of this level and the next
  int *next_count;
};

// Claims u for the next level; the atomicCAS makes exactly one visitor append it to the next frontier.
__device__ inline void bfs_visit(int u, int *level, int new_level, int *next, int *next_count) {
  if (level[u] == -1 && atomicCAS(&level[u], -1, new_level) == -1) next[atomicAdd(next_count, 1)] = u;
}

// Expands `count` frontier vertices into d.next (defined by each variant).
void bfs_expand(const BfsDev &d, int count, int new_level);

// Degrees uniform in [1, 2 * degree - 1] (mean `degree`), neighbours uniform; repeats and self loops are harmless.
inline Graph bfs_random_graph(int n, int degree, uint64_t seed) {
  Rng rng(seed);
  Graph g;
  g.n = n;
  g.off.resize(n + 1);
  g.off[0] = 0;
  for (int v = 0; v < n; v++) {
    long long end = g.off[v] + 1 + (long long)rng.below(2 * (uint32_t)degree - 1);
    if (end >= (1ll << 31)) die("--vertices x --degree too large for 32-bit edge offsets");
    g.off[v + 1] = (int)end;
  }
  g.adj.resize(g.off[n]);
  for (int &u : g.adj) u = (int)rng.below((uint32_t)n);
  return g;
}

inline std::vector<int> bfs_cpu(const Graph &g, int src) {
  std::vector<int> level(g.n, -1), queue(1, src);
  level[src] = 0;
  for (size_t head = 0; head < queue.size(); head++) {
    int v = queue[head];
    for (int e = g.off[v]; e < g.off[v + 1]; e++)
      if (level[g.adj[e]] == -1) {
        level[g.adj[e]] = level[v] + 1;
        queue.push_back(g.adj[e]);
      }
  }
  return level;
}

// What the CDP version launches: one child per reached vertex that has neighbours, over all levels.
inline ChildGrids bfs_children(const Graph &g, const std::vector<int> &level) {
  ChildGrids children;
  for (int v = 0; v < g.n; v++)
    if (level[v] >= 0 && g.deg(v) > 0) children.add(blocks_for(g.deg(v), kChildBlock), kChildBlock);
  return children;
}

inline int bfs_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: bfs [--reps N] [--vertices N] [--degree D] [--rmat SCALE [--edgefactor E]] [--seed S]\n"
              "           [--source V]\n"
              "  random graph of N vertices (default 10000) with mean out-degree D (default 1000), or with --rmat an\n"
              "  undirected R-MAT graph of 2^SCALE vertices and E * 2^SCALE generated edges (default E 16);\n"
              "  the source defaults to vertex 0, or for R-MAT to the first vertex that has an edge\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int rmat_scale = (int)opt.num("--rmat", 0, 0, 30);
  int edgefactor = (int)opt.num("--edgefactor", 16, 1, 1 << 20);
  int n_opt = (int)opt.num("--vertices", 10000, 1, 1 << 30);
  int degree = (int)opt.num("--degree", 1000, 1, 1 << 30);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  long long src_opt = opt.num("--source", -1, 0, INT_MAX);
  opt.done();

  Graph g = rmat_scale > 0 ? rmat_graph(rmat_scale, edgefactor, seed) : bfs_random_graph(n_opt, degree, seed);
  int n = g.n;
  int src = src_opt >= 0 ? (int)src_opt : rmat_scale > 0 ? first_connected_vertex(g) : 0;
  if (src >= n) die("--source %d: the graph has %d vertices", src, n);
  std::vector<int> ref = bfs_cpu(g, src);
  if (rmat_scale > 0)
    printf("# bfs %s: R-MAT scale %d, edge factor %d, %d vertices, %lld edges, max degree %d, source %d\n",
           cdp ? "cdp" : "flat", rmat_scale, edgefactor, n, g.edges(), g.max_deg(), src);
  else
    printf("# bfs %s: %d vertices, %lld edges, source %d\n", cdp ? "cdp" : "flat", n, g.edges(), src);
  bfs_children(g, ref).print();

  if (cdp) reserve_device_launches(n);  // at most one child per frontier vertex
  DevGraph dg;
  dg.upload(g);
  DevArray<int> level(n), frontier(n), next(n), next_count(1);
  BfsDev d{dg.off.get(), dg.adj.get(), level.get(), frontier.get(), next.get(), next_count.get()};

  std::vector<int> got;
  BenchHooks h;
  h.reset = [&] {
    level.fill_bytes(0xff);
    level.write(src, 0);
    frontier.write(0, src);
  };
  h.run = [&] {
    BfsDev cur = d;
    int count = 1;
    for (int lvl = 1; count > 0; lvl++) {
      CK(cudaMemsetAsync(cur.next_count, 0, sizeof(int)));
      bfs_expand(cur, count, lvl);
      CK(cudaMemcpy(&count, cur.next_count, sizeof(int), cudaMemcpyDeviceToHost));
      if (count > n) die("frontier overflow (%d > %d vertices)", count, n);
      std::swap(cur.frontier, cur.next);
    }
  };
  h.check = [&]() -> std::string {
    got = level.download();
    int bad = 0, first = -1;
    for (int v = 0; v < n; v++)
      if (got[v] != ref[v] && bad++ == 0) first = v;
    if (bad) return strf("%d levels differ, first at vertex %d: gpu %d, cpu %d", bad, first, got[first], ref[first]);
    return "";
  };
  h.result = [&] {
    long long reached = 0, sum = 0;
    int depth = 0;
    for (int l : got)
      if (l >= 0) reached++, sum += l, depth = std::max(depth, l);
    return strf("reached=%lld depth=%d level_sum=%lld", reached, depth, sum);
  };
  return bench_run("bfs", reps, h);
}
