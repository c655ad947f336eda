// Graphs in compressed sparse row form, readers for the Galois "gr" and Matrix Market formats, and a seeded R-MAT
// generator.
#pragma once

#include "common.h"

#include <cstring>
#include <numeric>

struct Graph {
  int n = 0;
  std::vector<int> off;  // n + 1 entries: the edges of v are adj[off[v] .. off[v + 1])
  std::vector<int> adj;
  std::vector<int> wt;   // one weight per edge, or empty
  int deg(int v) const { return off[v + 1] - off[v]; }
  long long edges() const { return (long long)adj.size(); }
  int max_deg() const {
    int d = 0;
    for (int v = 0; v < n; v++) d = std::max(d, deg(v));
    return d;
  }
};

// Galois gr version 1, little endian: u64 version, u64 edge-data size, u64 nodes, u64 edges,
// u64 end offset per node, u32 destination per edge (padded to 8 bytes), then the edge data (u32 weights here).
inline Graph read_gr(const std::string &path) {
  FILE *f = open_input(path);
  std::vector<unsigned char> buf;
  unsigned char chunk[1 << 16];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  fclose(f);

  auto u64at = [&](size_t pos) {
    uint64_t x;
    memcpy(&x, &buf[pos], 8);
    return x;
  };
  auto u32at = [&](size_t pos) {
    uint32_t x;
    memcpy(&x, &buf[pos], 4);
    return x;
  };
  if (buf.size() < 32) die("%s: too short for a gr header", path.c_str());
  uint64_t version = u64at(0), esize = u64at(8), n = u64at(16), m = u64at(24);
  if (version != 1) die("%s: gr version %llu, expected 1", path.c_str(), (unsigned long long)version);
  if (esize != 4) die("%s: edge data of %llu bytes, expected 4 (u32 weights)", path.c_str(), (unsigned long long)esize);
  if (n >= (1u << 31) || m >= (1u << 31)) die("%s: graph too large for 32-bit indices", path.c_str());
  size_t idx_at = 32, dst_at = idx_at + 8 * n, wt_at = dst_at + 4 * m + (m % 2 ? 4 : 0);
  if (buf.size() < wt_at + 4 * m) die("%s: truncated (%zu bytes, need %zu)", path.c_str(), buf.size(), wt_at + 4 * m);

  Graph g;
  g.n = (int)n;
  g.off.resize(n + 1);
  g.off[0] = 0;
  for (uint64_t v = 0; v < n; v++) {
    uint64_t end = u64at(idx_at + 8 * v);
    if (end < (uint64_t)g.off[v] || end > m) die("%s: bad edge offset at node %llu", path.c_str(), (unsigned long long)v);
    g.off[v + 1] = (int)end;
  }
  if ((uint64_t)g.off[n] != m) die("%s: offsets end at %d, expected %llu edges", path.c_str(), g.off[n], (unsigned long long)m);
  g.adj.resize(m);
  g.wt.resize(m);
  for (uint64_t e = 0; e < m; e++) {
    uint32_t d = u32at(dst_at + 4 * e), w = u32at(wt_at + 4 * e);
    if (d >= n) die("%s: edge %llu points to node %u of %llu", path.c_str(), (unsigned long long)e, d, (unsigned long long)n);
    if (w >= (1u << 31)) die("%s: weight %u too large", path.c_str(), w);
    g.adj[e] = (int)d;
    g.wt[e] = (int)w;
  }
  return g;
}

// Matrix Market coordinate file as an undirected graph: an entry (i, j) with i != j is the edge {i, j};
// the diagonal and repeated entries are dropped. Symmetric files store one triangle, general ones both.
inline Graph read_mtx_graph(const std::string &path) {
  MtxFile m = open_mtx(path);
  FILE *f = m.f;
  char line[1024];
  const long long rows = m.rows, cols = m.cols, nnz = m.nnz;
  if (rows <= 0 || rows != cols || rows >= (1 << 30) || nnz < 0) die("%s: need a square matrix", path.c_str());

  std::vector<std::pair<int, int>> e;
  e.reserve(2 * nnz);
  for (long long k = 0; k < nnz; k++) {
    long long i, j;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%lld %lld", &i, &j) != 2)
      die("%s: entry %lld of %lld missing or malformed", path.c_str(), k + 1, nnz);
    if (i < 1 || i > rows || j < 1 || j > cols) die("%s: entry %lld out of range", path.c_str(), k + 1);
    if (i == j) continue;
    e.push_back({(int)i - 1, (int)j - 1});
    e.push_back({(int)j - 1, (int)i - 1});
  }
  fclose(f);
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());

  Graph g;
  g.n = (int)rows;
  g.off.assign(g.n + 1, 0);
  g.adj.resize(e.size());
  for (size_t k = 0; k < e.size(); k++) {
    g.off[e[k].first + 1]++;
    g.adj[k] = e[k].second;
  }
  for (int v = 0; v < g.n; v++) g.off[v + 1] += g.off[v];
  return g;
}

struct DevGraph {
  DevArray<int> off, adj, wt;
  void upload(const Graph &g) {
    off.upload(g.off);
    adj.upload(g.adj);
    if (!g.wt.empty()) wt.upload(g.wt);
  }
};

// R-MAT (Chakrabarti, Zhan, Faloutsos, SDM'04) with graph500's parameters a = 0.57, b = 0.19, c = 0.19, d = 0.05:
// each of edgefactor * 2^scale edges picks one quadrant of the adjacency matrix per bit of its endpoints, which
// gives a few vertices a very high degree and most a low one. As in graph500 the vertex labels are then shuffled,
// so the hubs are spread over the index range rather than packed at vertex 0. The graph is made undirected, self
// loops and repeated edges are dropped. With max_weight > 0 every edge gets a weight uniform in [1, max_weight],
// the same in both directions (of repeated edges the lightest stays).
inline Graph rmat_graph(int scale, int edgefactor, uint64_t seed, int max_weight = 0) {
  if (scale < 1 || scale > 30) die("R-MAT scale %d outside [1, 30]", scale);
  const int n = 1 << scale;
  const long long m = (long long)edgefactor << scale;
  if (edgefactor < 1 || 2 * m >= (1ll << 31)) die("R-MAT scale %d, edge factor %d: too many edges", scale, edgefactor);
  // Quadrant thresholds on a 32-bit uniform: [0, a) top-left, [a, a+b) top-right, [a+b, a+b+c) bottom-left.
  const uint64_t t_a = (uint64_t)(0.57 * 4294967296.0), t_ab = (uint64_t)(0.76 * 4294967296.0),
                 t_abc = (uint64_t)(0.95 * 4294967296.0);
  Rng rng(seed);
  std::vector<int> src(m), dst(m), w(max_weight > 0 ? m : 0);
  for (long long e = 0; e < m; e++) {
    int u = 0, v = 0;
    uint64_t bits = 0;
    for (int b = 0; b < scale; b++) {
      if (b % 2 == 0) bits = rng.next();
      uint64_t r = (b % 2 == 0 ? bits >> 32 : bits) & 0xffffffffu;
      int down = r >= t_ab, right = (r >= t_a && r < t_ab) || r >= t_abc;
      u |= down << b;
      v |= right << b;
    }
    src[e] = u;
    dst[e] = v;
    if (max_weight > 0) w[e] = 1 + (int)rng.below((uint32_t)max_weight);
  }
  std::vector<int> label(n);
  std::iota(label.begin(), label.end(), 0);
  for (int i = n - 1; i > 0; i--) std::swap(label[i], label[rng.below((uint32_t)i + 1)]);

  // Both directions of every edge, bucketed by source, then each vertex's list sorted and deduplicated.
  Graph g;
  g.n = n;
  std::vector<int> start(n + 1, 0);
  for (long long e = 0; e < m; e++)
    if (src[e] != dst[e]) start[label[src[e]] + 1]++, start[label[dst[e]] + 1]++;
  for (int v = 0; v < n; v++) start[v + 1] += start[v];
  std::vector<std::pair<int, int>> out(start[n]);  // (neighbour, weight)
  {
    std::vector<int> at(start.begin(), start.end() - 1);
    for (long long e = 0; e < m; e++) {
      if (src[e] == dst[e]) continue;
      int u = label[src[e]], v = label[dst[e]], wt = max_weight > 0 ? w[e] : 0;
      out[at[u]++] = {v, wt};
      out[at[v]++] = {u, wt};
    }
  }
  g.off.assign(n + 1, 0);
  g.adj.reserve(out.size());
  if (max_weight > 0) g.wt.reserve(out.size());
  for (int v = 0; v < n; v++) {
    auto first = out.begin() + start[v], last = out.begin() + start[v + 1];
    std::sort(first, last);
    for (auto it = first; it != last; ++it) {
      if (it != first && it->first == (it - 1)->first) continue;
      g.adj.push_back(it->first);
      if (max_weight > 0) g.wt.push_back(it->second);
    }
    g.off[v + 1] = (int)g.adj.size();
  }
  return g;
}

// The lowest-numbered vertex with an edge: a search source that is not isolated (R-MAT leaves many vertices so).
inline int first_connected_vertex(const Graph &g) {
  for (int v = 0; v < g.n; v++)
    if (g.deg(v) > 0) return v;
  return 0;
}
