// Graphs in compressed sparse row form, and readers for the Galois "gr" and Matrix Market formats.
#pragma once

#include "common.h"

#include <cstring>

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
  FILE *f = open_input(path);
  char line[1024];
  if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket", 14) != 0)
    die("%s: no %%%%MatrixMarket header", path.c_str());
  char obj[64], fmt[64], field[64], sym[64];
  if (sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4 || strcmp(obj, "matrix") != 0 ||
      strcmp(fmt, "coordinate") != 0)
    die("%s: only 'matrix coordinate' files are supported", path.c_str());
  long long rows = -1, cols = -1, nnz = -1;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '%' || line[strspn(line, " \t\r\n")] == '\0') continue;
    if (sscanf(line, "%lld %lld %lld", &rows, &cols, &nnz) != 3) die("%s: bad size line", path.c_str());
    break;
  }
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
