// Bezier line tessellation (after the PMPP dynamic-parallelism chapter): each quadratic Bezier line gets between
// 4 and 32 vertices depending on its curvature. One parent thread per line picks the count; the vertices are
// computed by a child grid (bt.cu) or by the parent thread itself (bt_flat.cu). Vertex memory is allocated
// once on the host, kMaxTess slots per line, instead of by device-side cudaMalloc.
#pragma once

#include "../common/children.h"

constexpr int kParentBlock = 64;
constexpr int kChildBlock = 32;
constexpr int kMaxTess = 32;

struct BezierLine {
  float2 cp[3];         // control points
  float2 *vertex_pos;   // kMaxTess slots
  int n_vertices;
};

// Curvature c = |cp1 - midpoint(cp0, cp2)| / |cp2 - cp0|; points = clamp(floor(16 c), 4, kMaxTess). Compared in
// squares, with unfused operations, so that host and device agree exactly (no sqrt rounding to differ).
__host__ __device__ inline int bt_tess_points(const BezierLine &l) {
  float mx = xmul(0.5f, xadd(l.cp[0].x, l.cp[2].x)), my = xmul(0.5f, xadd(l.cp[0].y, l.cp[2].y));
  float dx = xsub(l.cp[1].x, mx), dy = xsub(l.cp[1].y, my);
  float lx = xsub(l.cp[2].x, l.cp[0].x), ly = xsub(l.cp[2].y, l.cp[0].y);
  float q = xmul(256.0f, xdiv(xadd(xmul(dx, dx), xmul(dy, dy)), xadd(xmul(lx, lx), xmul(ly, ly))));
  int k = 4;
  while (k < kMaxTess && (float)((k + 1) * (k + 1)) <= q) k++;
  return k;
}

__host__ __device__ inline float2 bt_point(const BezierLine &l, int idx, int n) {
  float u = xdiv((float)idx, (float)(n - 1)), omu = xsub(1.0f, u);
  float b0 = xmul(omu, omu), b1 = xmul(xmul(2.0f, u), omu), b2 = xmul(u, u);
  float x = xadd(xadd(xmul(b0, l.cp[0].x), xmul(b1, l.cp[1].x)), xmul(b2, l.cp[2].x));
  float y = xadd(xadd(xmul(b0, l.cp[0].y), xmul(b1, l.cp[1].y)), xmul(b2, l.cp[2].y));
  return make_float2(x, y);
}

// Tessellates all lines (defined by each variant).
void bt_tessellate(BezierLine *lines, int n_lines);

inline int bt_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: bt [--reps N] [--lines N] [--seed S]\n"
              "  N random quadratic Bezier lines in the unit square (default 25600)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int n_lines = (int)opt.num("--lines", 25600, 1, 1 << 24);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  DevArray<float2> verts((size_t)n_lines * kMaxTess);
  DevArray<BezierLine> dlines(n_lines);
  std::vector<BezierLine> lines(n_lines);
  Rng rng(seed);
  for (int i = 0; i < n_lines; i++) {
    for (auto &p : lines[i].cp) p = make_float2(rng.unit(), rng.unit());
    lines[i].vertex_pos = verts.get() + (size_t)i * kMaxTess;
    lines[i].n_vertices = 0;
  }
  std::vector<int> ref_n(n_lines);
  long long ref_total = 0;
  for (int i = 0; i < n_lines; i++) ref_total += ref_n[i] = bt_tess_points(lines[i]);
  printf("# bt %s: %d lines, %lld vertices\n", cdp ? "cdp" : "flat", n_lines, ref_total);
  ChildGrids children;  // one child per line, over its vertices
  for (int i = 0; i < n_lines; i++) children.add(blocks_for(ref_n[i], kChildBlock), kChildBlock);
  children.print();

  if (cdp) reserve_device_launches(n_lines);
  std::vector<BezierLine> got_lines;
  std::vector<float2> got;
  BenchHooks h;
  h.reset = [&] {
    dlines.upload(lines);
    verts.fill_bytes(0xff);  // NaN: a vertex that is never written cannot pass the check
  };
  h.run = [&] { bt_tessellate(dlines.get(), n_lines); };
  h.check = [&]() -> std::string {
    got_lines = dlines.download();
    got = verts.download();
    for (int i = 0; i < n_lines; i++) {
      if (got_lines[i].n_vertices != ref_n[i])
        return strf("line %d: gpu %d vertices, cpu %d", i, got_lines[i].n_vertices, ref_n[i]);
      for (int k = 0; k < ref_n[i]; k++) {
        float2 g = got[(size_t)i * kMaxTess + k], c = bt_point(lines[i], k, ref_n[i]);
        if (!(fabsf(g.x - c.x) <= 1e-5f && fabsf(g.y - c.y) <= 1e-5f))
          return strf("line %d vertex %d: gpu (%.8g, %.8g), cpu (%.8g, %.8g)", i, k, g.x, g.y, c.x, c.y);
      }
    }
    return "";
  };
  h.result = [&] {
    long long total = 0;
    double sx = 0, sy = 0;
    for (int i = 0; i < n_lines; i++) {
      total += got_lines[i].n_vertices;
      for (int k = 0; k < got_lines[i].n_vertices; k++) {
        sx += got[(size_t)i * kMaxTess + k].x;
        sy += got[(size_t)i * kMaxTess + k].y;
      }
    }
    return strf("vertices=%lld sum_x=%.6f sum_y=%.6f", total, sx, sy);
  };
  return bench_run("bt", reps, h);
}
