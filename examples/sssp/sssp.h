// Single-source shortest paths by frontier-based Bellman-Ford relaxation. The host loops over rounds; per round
// one parent thread per frontier vertex relaxes that vertex's edges, and every vertex whose distance drops joins
// the next frontier (once per round). The distances do not depend on thread order. sssp.cu relaxes the edges in
// a child grid, sssp_flat.cu in a loop of the parent thread.
#pragma once

#include "../common/children.h"
#include "../common/graph.h"

constexpr int kParentBlock = 128;
constexpr int kChildBlock = 128;
constexpr unsigned kInf = 0xffffffffu;

struct SsspDev {
  const int *off, *adj, *wt;
  unsigned *dist;
  int *frontier, *next;
  int *next_count;
  int *stamp;  // the last round in which the vertex joined a frontier
};

__device__ inline void sssp_relax(int u, unsigned nd, unsigned *dist, int *next, int *next_count, int *stamp,
                                  int round) {
  if (nd < dist[u] && atomicMin(&dist[u], nd) > nd && atomicExch(&stamp[u], round) != round)
    next[atomicAdd(next_count, 1)] = u;
}

// Relaxes the edges of `count` frontier vertices into d.next (defined by each variant).
void sssp_round(const SsspDev &d, int count, int round);

struct SsspReference {
  std::vector<unsigned> dist;
  ChildGrids children;  // what the CDP version launches
  int rounds = 0;
};

// The GPU's rounds on one thread: the frontier's vertices in turn relax their edges against the distances as
// they stand, and a vertex whose distance drops joins the next frontier once. Ends with the exact distances; the
// GPU's rounds can differ from these by timing (a relaxation seen early or late), so the child grids recorded
// here are what the CDP version launches up to that.
inline SsspReference sssp_cpu(const Graph &g, int src) {
  SsspReference r;
  r.dist.assign(g.n, kInf);
  r.dist[src] = 0;
  std::vector<int> frontier(1, src), next, stamp(g.n, -1);
  for (; !frontier.empty(); r.rounds++) {
    next.clear();
    for (int v : frontier) {
      if (g.deg(v) > 0) r.children.add(blocks_for(g.deg(v), kChildBlock), kChildBlock);
      for (int e = g.off[v]; e < g.off[v + 1]; e++) {
        int u = g.adj[e];
        unsigned nd = r.dist[v] + (unsigned)g.wt[e];
        if (nd < r.dist[u]) {
          r.dist[u] = nd;
          if (stamp[u] != r.rounds) stamp[u] = r.rounds, next.push_back(u);
        }
      }
    }
    frontier.swap(next);
  }
  return r;
}

inline int sssp_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: sssp [--reps N] [--input FILE.gr] [--rmat SCALE [--edgefactor E] [--seed S]] [--source V]\n"
              "  shortest paths from V in a weighted Galois gr graph (default ../shared/data/rmat12.sym.gr,\n"
              "  source 0), or with --rmat in an undirected R-MAT graph of 2^SCALE vertices and E * 2^SCALE\n"
              "  generated edges (default E 16) with weights uniform in [1, 4096] (source: the first vertex that\n"
              "  has an edge)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string path = opt.str("--input", "../shared/data/rmat12.sym.gr");
  int rmat_scale = (int)opt.num("--rmat", 0, 0, 30);
  int edgefactor = (int)opt.num("--edgefactor", 16, 1, 1 << 20);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  long long src_opt = opt.num("--source", -1, 0, INT_MAX);
  opt.done();

  Graph g = rmat_scale > 0 ? rmat_graph(rmat_scale, edgefactor, seed, 4096) : read_gr(path);
  int n = g.n;
  int src = src_opt >= 0 ? (int)src_opt : rmat_scale > 0 ? first_connected_vertex(g) : 0;
  if (src >= n) die("--source %d: the graph has %d vertices", src, n);
  int max_wt = g.wt.empty() ? 0 : *std::max_element(g.wt.begin(), g.wt.end());
  if ((long long)max_wt * (n - 1) >= kInf) die("weights too large for 32-bit distances");
  SsspReference ref = sssp_cpu(g, src);
  std::string what = rmat_scale > 0 ? strf("R-MAT scale %d, edge factor %d", rmat_scale, edgefactor) : path;
  printf("# sssp %s: %s, %d vertices, %lld edges, max degree %d, source %d, %d rounds on the cpu\n",
         cdp ? "cdp" : "flat", what.c_str(), n, g.edges(), g.max_deg(), src, ref.rounds);
  ref.children.print();

  if (cdp) reserve_device_launches(n);  // at most one child per frontier vertex
  DevGraph dg;
  dg.upload(g);
  DevArray<unsigned> dist(n);
  DevArray<int> frontier(n), next(n), next_count(1), stamp(n);
  SsspDev d{dg.off.get(), dg.adj.get(), dg.wt.get(), dist.get(), frontier.get(), next.get(), next_count.get(),
            stamp.get()};

  std::vector<unsigned> got;
  BenchHooks h;
  h.reset = [&] {
    dist.fill_bytes(0xff);
    dist.write(src, 0);
    stamp.fill_bytes(0xff);
    frontier.write(0, src);
  };
  h.run = [&] {
    SsspDev cur = d;
    int count = 1;
    for (int round = 0; count > 0; round++) {
      CK(cudaMemsetAsync(cur.next_count, 0, sizeof(int)));
      sssp_round(cur, count, round);
      CK(cudaMemcpy(&count, cur.next_count, sizeof(int), cudaMemcpyDeviceToHost));
      if (count > n) die("frontier overflow (%d > %d vertices)", count, n);
      std::swap(cur.frontier, cur.next);
    }
  };
  h.check = [&]() -> std::string {
    got = dist.download();
    int bad = 0, first = -1;
    for (int v = 0; v < n; v++)
      if (got[v] != ref.dist[v] && bad++ == 0) first = v;
    if (bad)
      return strf("%d distances differ, first at vertex %d: gpu %u, cpu %u", bad, first, got[first], ref.dist[first]);
    return "";
  };
  h.result = [&] {
    long long reached = 0, sum = 0;
    unsigned far = 0;
    for (unsigned x : got)
      if (x != kInf) reached++, sum += x, far = std::max(far, x);
    return strf("reached=%lld dist_sum=%lld max_dist=%u", reached, sum, far);
  };
  return bench_run("sssp", reps, h);
}
