// Single-source shortest paths by frontier-based Bellman-Ford relaxation. The host loops over rounds; per round
// one parent thread per frontier vertex relaxes that vertex's edges, and every vertex whose distance drops joins
// the next frontier (once per round). The distances do not depend on thread order. sssp.cu relaxes the edges in
// a child grid, sssp_flat.cu in a loop of the parent thread.
#pragma once

#include "../common/graph.h"

#include <queue>

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

inline std::vector<unsigned> sssp_cpu(const Graph &g, int src) {
  std::vector<unsigned> dist(g.n, kInf);
  using Item = std::pair<unsigned, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
  dist[src] = 0;
  pq.push({0, src});
  while (!pq.empty()) {
    auto [d, v] = pq.top();
    pq.pop();
    if (d != dist[v]) continue;
    for (int e = g.off[v]; e < g.off[v + 1]; e++) {
      unsigned nd = d + (unsigned)g.wt[e];
      if (nd < dist[g.adj[e]]) pq.push({dist[g.adj[e]] = nd, g.adj[e]});
    }
  }
  return dist;
}

inline int sssp_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: sssp [--reps N] [--input FILE.gr] [--source V]\n"
              "  shortest paths from V (default 0) in a weighted Galois gr graph\n"
              "  (default ../shared/data/rmat12.sym.gr)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string path = opt.str("--input", "../shared/data/rmat12.sym.gr");
  long long src_opt = opt.num("--source", 0, 0, INT_MAX);
  opt.done();

  Graph g = read_gr(path);
  int n = g.n, src = (int)src_opt;
  if (src >= n) die("--source %d: the graph has %d vertices", src, n);
  long long max_path = 0;
  for (int w : g.wt) max_path += w;
  if (max_path >= kInf) die("%s: weights too large for 32-bit distances", path.c_str());
  std::vector<unsigned> ref = sssp_cpu(g, src);
  printf("# sssp %s: %s, %d vertices, %lld edges, source %d\n", cdp ? "cdp" : "flat", path.c_str(), n, g.edges(),
         src);

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
      if (got[v] != ref[v] && bad++ == 0) first = v;
    if (bad) return strf("%d distances differ, first at vertex %d: gpu %u, cpu %u", bad, first, got[first], ref[first]);
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
