// Boruvka minimum spanning forest, shared by the mstf and mstv benchmarks. Each round:
//   find:   every vertex offers each edge that leaves its component; an atomicMin per component keeps the lightest
//   verify: every vertex scans its edges for the one whose key won, and records the component it leads to
//   link:   every component root hooks onto that component (of two that picked each other, only the larger id)
//   jump:   every vertex follows the hooks to its new root.
// Keys (weight, undirected edge id) are unique, so the forest and the number of rounds are deterministic.
// mstf runs find as parent thread per vertex + child grid over its edges, mstv does so for verify; the other
// steps and both *_flat versions use one thread per vertex that loops over the edges.
#pragma once

#include "children.h"
#include "graph.h"

constexpr int kParentBlock = 1024;
constexpr int kChildBlock = 1024;
constexpr unsigned long long kNoEdge = ~0ull;

struct MstDev {
  const int *off, *adj, *wt;
  const int *eid;               // undirected edge id of each directed edge: both directions share one
  const int *comp;              // the root vertex of each vertex's component
  unsigned long long *min_key;  // per component root: the key of the lightest edge leaving it
  int *partner;                 // per component root: the component that edge leads to
};

__host__ __device__ inline unsigned long long mst_key(int w, int eid) {
  return ((unsigned long long)w << 32) | (unsigned)eid;
}

__device__ inline void mst_find_edge(int c, int u, int w, int eid, const int *comp, unsigned long long *min_key) {
  if (comp[u] != c) atomicMin(&min_key[c], mst_key(w, eid));
}

// Only one directed edge leaves component c with the winning key, so `partner` gets a single value.
__device__ inline void mst_verify_edge(int c, int u, int w, int eid, unsigned long long mk, const int *comp,
                                       int *partner) {
  if (mst_key(w, eid) == mk && comp[u] != c) partner[c] = comp[u];
}

__global__ void mst_find_flat(MstDev d, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int c = d.comp[v];
  for (int e = d.off[v]; e < d.off[v + 1]; e++) mst_find_edge(c, d.adj[e], d.wt[e], d.eid[e], d.comp, d.min_key);
}

__global__ void mst_verify_flat(MstDev d, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int c = d.comp[v];
  unsigned long long mk = d.min_key[c];
  if (mk == kNoEdge) return;
  for (int e = d.off[v]; e < d.off[v + 1]; e++)
    mst_verify_edge(c, d.adj[e], d.wt[e], d.eid[e], mk, d.comp, d.partner);
}

__global__ void mst_link(const int *comp, const unsigned long long *min_key, const int *partner, int *hook,
                         unsigned long long *chosen, int *n_links, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || comp[v] != v) return;
  int to = v;
  if (min_key[v] != kNoEdge) {
    int q = partner[v];  // -1 only if verify lost its result, which the check then reports
    // Components that picked each other picked the same edge: the smaller id stays a root, the edge counts once.
    if (q >= 0 && !(partner[q] == v && v < q)) {
      to = q;
      chosen[v] = min_key[v];
      atomicAdd(n_links, 1);
    }
  }
  hook[v] = to;
}

__global__ void mst_jump(int *comp, const int *hook, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int r = comp[v];
  while (hook[r] != r) r = hook[r];
  comp[v] = r;
}

// The two steps each benchmark may run with child grids (defined by each program).
void mst_find(const MstDev &d, int n);
void mst_verify(const MstDev &d, int n);

inline void mst_find_flat_launch(const MstDev &d, int n) {
  mst_find_flat<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(mst_find_flat);
}
inline void mst_verify_flat_launch(const MstDev &d, int n) {
  mst_verify_flat<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(mst_verify_flat);
}

// Pairs the two directions of every undirected edge under one id (parallel edges pair up in order);
// dies if the graph is not symmetric, since Boruvka must see each edge from both of its components.
inline std::vector<int> mst_edge_ids(const Graph &g, const std::string &path) {
  struct Half { int lo, hi, w, back, e; };
  std::vector<Half> h;
  for (int v = 0; v < g.n; v++)
    for (int e = g.off[v]; e < g.off[v + 1]; e++) {
      int u = g.adj[e];
      if (u != v) h.push_back({std::min(u, v), std::max(u, v), g.wt[e], v > u, e});
    }
  std::sort(h.begin(), h.end(), [](const Half &a, const Half &b) {
    if (a.lo != b.lo) return a.lo < b.lo;
    if (a.hi != b.hi) return a.hi < b.hi;
    if (a.w != b.w) return a.w < b.w;
    if (a.back != b.back) return a.back < b.back;
    return a.e < b.e;
  });
  std::vector<int> id(g.adj.size(), -1);
  int next_id = 0;
  for (size_t i = 0; i < h.size();) {
    size_t j = i, mid;
    while (j < h.size() && h[j].lo == h[i].lo && h[j].hi == h[i].hi && h[j].w == h[i].w) j++;
    for (mid = i; mid < j && !h[mid].back;) mid++;
    if (mid - i != j - mid) die("%s: edge %d-%d (weight %d) is not symmetric", path.c_str(), h[i].lo, h[i].hi, h[i].w);
    for (size_t k = 0; k < mid - i; k++) id[h[i + k].e] = id[h[mid + k].e] = next_id++;
    i = j;
  }
  for (int &x : id)
    if (x < 0) x = next_id++;  // self loops: never leave a component
  return id;
}

// Kruskal over the same keys gives the same (unique) forest.
struct MstRef {
  std::vector<unsigned long long> keys;  // sorted
  std::vector<int> root;                 // union-find root of each vertex
  int components = 0;
};

inline MstRef mst_cpu(const Graph &g, const std::vector<int> &eid) {
  std::vector<std::pair<unsigned long long, std::pair<int, int>>> edges;
  for (int v = 0; v < g.n; v++)
    for (int e = g.off[v]; e < g.off[v + 1]; e++)
      if (v < g.adj[e]) edges.push_back({mst_key(g.wt[e], eid[e]), {v, g.adj[e]}});
  std::sort(edges.begin(), edges.end());
  std::vector<int> up(g.n);
  for (int v = 0; v < g.n; v++) up[v] = v;
  auto find = [&](int x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  MstRef r;
  for (auto &e : edges) {
    int a = find(e.second.first), b = find(e.second.second);
    if (a != b) {
      up[a] = b;
      r.keys.push_back(e.first);
    }
  }
  r.root.resize(g.n);
  for (int v = 0; v < g.n; v++) {
    r.root[v] = find(v);
    r.components += r.root[v] == v;
  }
  return r;
}

// Which step the CDP version of a benchmark runs with a child grid per vertex.
enum class MstChildStep { find, verify };

// The GPU's rounds replayed on the host (the same keys, hooks and jumps), for what the CDP version launches: every
// round, and once more in the round that links nothing, find launches a child for each vertex with edges, verify
// for each such vertex whose component has an edge leaving it. Returns the number of rounds that linked.
inline int mst_boruvka_children(const Graph &g, const std::vector<int> &eid, MstChildStep step,
                                ChildGrids &children) {
  int n = g.n;
  std::vector<int> comp(n), partner(n), hook(n);
  std::vector<unsigned long long> min_key(n);
  for (int v = 0; v < n; v++) comp[v] = v;
  for (int rounds = 0;; rounds++) {
    std::fill(min_key.begin(), min_key.end(), kNoEdge);
    std::fill(partner.begin(), partner.end(), -1);
    for (int v = 0; v < n; v++)
      for (int e = g.off[v]; e < g.off[v + 1]; e++)
        if (comp[g.adj[e]] != comp[v]) min_key[comp[v]] = std::min(min_key[comp[v]], mst_key(g.wt[e], eid[e]));
    for (int v = 0; v < n; v++) {
      int c = comp[v];
      if (min_key[c] == kNoEdge) continue;
      for (int e = g.off[v]; e < g.off[v + 1]; e++)
        if (mst_key(g.wt[e], eid[e]) == min_key[c] && comp[g.adj[e]] != c) partner[c] = comp[g.adj[e]];
    }
    for (int v = 0; v < n; v++)
      if (g.deg(v) > 0 && (step == MstChildStep::find || min_key[comp[v]] != kNoEdge))
        children.add(blocks_for(g.deg(v), kChildBlock), kChildBlock);
    int links = 0;
    for (int v = 0; v < n; v++) {
      if (comp[v] != v) continue;
      int q = partner[v];
      hook[v] = min_key[v] != kNoEdge && q >= 0 && !(partner[q] == v && v < q) ? q : v;
      links += hook[v] != v;
    }
    if (links == 0) return rounds;
    for (int v = 0; v < n; v++) {
      int r = comp[v];
      while (hook[r] != r) r = hook[r];
      comp[v] = r;
    }
  }
}

inline int mst_main(int argc, char **argv, const char *name, MstChildStep step, bool cdp) {
  std::string usage = std::string("usage: ") + name +
                      " [--reps N] [--input FILE.gr]\n"
                      "  minimum spanning forest of a symmetric weighted Galois gr graph\n"
                      "  (default ../shared/data/rmat12.sym.gr)\n";
  Options opt(argc, argv, usage.c_str());
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string path = opt.str("--input", "../shared/data/rmat12.sym.gr");
  opt.done();

  Graph g = read_gr(path);
  int n = g.n;
  std::vector<int> eid = mst_edge_ids(g, path);
  MstRef ref = mst_cpu(g, eid);
  printf("# %s %s: %s, %d vertices, %lld directed edges\n", name, cdp ? "cdp" : "flat", path.c_str(), n, g.edges());
  ChildGrids children;
  int ref_rounds = mst_boruvka_children(g, eid, step, children);
  children.print();

  if (cdp) reserve_device_launches(n);  // at most one child per vertex
  DevGraph dg;
  dg.upload(g);
  DevArray<int> deid, comp(n), partner(n), hook(n), n_links(1);
  deid.upload(eid);
  DevArray<unsigned long long> min_key(n), chosen(n);
  std::vector<int> comp0(n);
  for (int v = 0; v < n; v++) comp0[v] = v;
  MstDev d{dg.off.get(), dg.adj.get(), dg.wt.get(), deid.get(), comp.get(), min_key.get(), partner.get()};

  int rounds = 0;
  std::vector<int> got_comp;
  std::vector<unsigned long long> got_keys;
  BenchHooks h;
  h.reset = [&] {
    comp.upload(comp0);
    chosen.fill_bytes(0xff);
  };
  h.run = [&] {
    for (rounds = 0;; rounds++) {
      min_key.fill_bytes(0xff);
      partner.fill_bytes(0xff);
      mst_find(d, n);
      mst_verify(d, n);
      CK(cudaMemsetAsync(n_links.get(), 0, sizeof(int)));
      mst_link<<<blocks_for(n, kParentBlock), kParentBlock>>>(comp.get(), min_key.get(), partner.get(), hook.get(),
                                                              chosen.get(), n_links.get(), n);
      CK_LAUNCH(mst_link);
      if (n_links.read(0) == 0) break;
      if (rounds >= n) die("Boruvka did not converge");
      mst_jump<<<blocks_for(n, kParentBlock), kParentBlock>>>(comp.get(), hook.get(), n);
      CK_LAUNCH(mst_jump);
    }
  };
  h.check = [&]() -> std::string {
    got_comp = comp.download();
    got_keys.clear();
    for (unsigned long long k : chosen.download())
      if (k != kNoEdge) got_keys.push_back(k);
    std::sort(got_keys.begin(), got_keys.end());
    if (got_keys != ref.keys) {
      size_t i = 0;
      while (i < got_keys.size() && i < ref.keys.size() && got_keys[i] == ref.keys[i]) i++;
      return strf("gpu forest has %zu edges, cpu %zu; they differ from sorted position %zu", got_keys.size(),
                  ref.keys.size(), i);
    }
    int roots = 0;
    for (int v = 0; v < n; v++) {
      int r = got_comp[v];
      if (r < 0 || r >= n || ref.root[r] != ref.root[v]) return strf("vertex %d: gpu component %d is wrong", v, r);
      roots += r == v;
    }
    if (roots != ref.components) return strf("gpu has %d components, cpu %d", roots, ref.components);
    if (rounds != ref_rounds) return strf("gpu took %d Boruvka rounds, cpu %d", rounds, ref_rounds);
    return "";
  };
  h.result = [&] {
    unsigned long long weight = 0;
    for (unsigned long long k : got_keys) weight += k >> 32;
    int roots = 0;
    for (int v = 0; v < n; v++) roots += got_comp[v] == v;
    return strf("weight=%llu edges=%zu components=%d rounds=%d", weight, got_keys.size(), roots, rounds);
  };
  return bench_run(name, reps, h);
}
