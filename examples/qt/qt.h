// Quadtree construction (after the PMPP dynamic-parallelism chapter). One thread block per node counts the node's
// points per quadrant, moves them into four contiguous ranges of the other point buffer, and creates four
// children, until a node has at most min_points points or reaches max_depth. qt.cu launches the four children
// recursively from the device; qt_flat.cu has the host launch one grid per tree level instead.
// Children are allocated with an atomic counter, so node indices vary from run to run; the tree does not.
#pragma once

#include "../common/children.h"

#include <utility>

constexpr int kBlock = 128;  // threads per node, parent and child alike

struct QtNode {
  float min_x, min_y, max_x, max_y;
  int begin, end;  // the node's points: [begin, end) of the point buffers
  int depth;
  int child;       // the first of its 4 children, or -1 for a leaf
};

// Double buffer: a node at depth d reads buffer d % 2 and writes its children's points to the other.
struct QtPoints {
  float *x[2], *y[2];
};

struct QtParams {
  int max_depth, min_points, capacity;
  int *node_count;  // nodes allocated so far
  int *overflow;    // set if the node array was too small
};

// 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right.
__host__ __device__ inline int qt_quadrant(float x, float y, float cx, float cy) {
  return (x >= cx ? 1 : 0) + (y < cy ? 2 : 0);
}

__host__ __device__ inline float2 qt_center(const QtNode &nd) {
  return make_float2(xmul(0.5f, xadd(nd.min_x, nd.max_x)), xmul(0.5f, xadd(nd.min_y, nd.max_y)));
}

__host__ __device__ inline bool qt_is_leaf(const QtNode &nd, const QtParams &p) {
  return nd.depth >= p.max_depth || nd.end - nd.begin <= p.min_points;
}

__host__ __device__ inline QtNode qt_child_node(const QtNode &nd, int q, int begin, int end) {
  float2 c = qt_center(nd);
  QtNode ch;
  ch.min_x = q & 1 ? c.x : nd.min_x;
  ch.max_x = q & 1 ? nd.max_x : c.x;
  ch.min_y = q & 2 ? nd.min_y : c.y;
  ch.max_y = q & 2 ? c.y : nd.max_y;
  ch.begin = begin;
  ch.end = end;
  ch.depth = nd.depth + 1;
  ch.child = -1;
  return ch;
}

// Processes nodes[idx] with the whole block. Returns (in every thread) the index of its first child, or -1 for a
// leaf. On return all of the block's point writes are done (a __syncthreads orders them before any launch).
__device__ inline int qt_split(QtNode *nodes, int idx, QtPoints pts, QtParams prm) {
  __shared__ int count[4], offset[4], first_child;
  const QtNode node = nodes[idx];
  const int in = node.depth % 2, out = 1 - in;
  if (qt_is_leaf(node, prm)) {
    if (in == 1)  // the result lives in buffer 0
      for (int i = node.begin + threadIdx.x; i < node.end; i += blockDim.x) {
        pts.x[0][i] = pts.x[1][i];
        pts.y[0][i] = pts.y[1][i];
      }
    return -1;
  }
  const float2 c = qt_center(node);
  if (threadIdx.x < 4) count[threadIdx.x] = 0;
  __syncthreads();
  for (int i = node.begin + threadIdx.x; i < node.end; i += blockDim.x)
    atomicAdd(&count[qt_quadrant(pts.x[in][i], pts.y[in][i], c.x, c.y)], 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    int first = atomicAdd(prm.node_count, 4);
    if (first + 4 > prm.capacity) {
      atomicExch(prm.overflow, 1);
      first = -1;
    } else {
      for (int q = 0, at = node.begin; q < 4; at += count[q++]) {
        offset[q] = at;
        nodes[first + q] = qt_child_node(node, q, at, at + count[q]);
      }
    }
    nodes[idx].child = first;
    first_child = first;
  }
  __syncthreads();
  if (first_child < 0) return -1;
  for (int i = node.begin + threadIdx.x; i < node.end; i += blockDim.x) {
    float x = pts.x[in][i], y = pts.y[in][i];
    int dest = atomicAdd(&offset[qt_quadrant(x, y, c.x, c.y)], 1);
    pts.x[out][dest] = x;
    pts.y[out][dest] = y;
  }
  __syncthreads();
  return first_child;
}

// Builds the tree below the root, nodes[0] (defined by each variant).
void qt_build_tree(QtNode *nodes, QtPoints pts, QtParams prm);

// What the check compares: every node in depth-first order, children in quadrant order.
struct QtShape {
  int depth, points;
  bool leaf;
  bool operator==(const QtShape &o) const { return depth == o.depth && points == o.points && leaf == o.leaf; }
};

inline void qt_cpu(const QtNode &nd, std::vector<float2> &p, const QtParams &prm, std::vector<QtShape> &out) {
  out.push_back({nd.depth, nd.end - nd.begin, qt_is_leaf(nd, prm)});
  if (out.back().leaf) return;
  float2 c = qt_center(nd);
  std::vector<float2> quad[4];
  for (int i = nd.begin; i < nd.end; i++) quad[qt_quadrant(p[i].x, p[i].y, c.x, c.y)].push_back(p[i]);
  for (int q = 0, at = nd.begin; q < 4; q++) {
    std::copy(quad[q].begin(), quad[q].end(), p.begin() + at);
    qt_cpu(qt_child_node(nd, q, at, at + (int)quad[q].size()), p, prm, out);
    at += (int)quad[q].size();
  }
}

// Walks the GPU tree depth first, checking that children match their parent and that every point in a child's
// range lies in that child's quadrant.
inline std::string qt_walk(const std::vector<QtNode> &nodes, int idx, const std::vector<float> &x,
                           const std::vector<float> &y, const QtParams &prm, std::vector<QtShape> &out) {
  const QtNode &nd = nodes[idx];
  bool leaf = nd.child < 0;
  if (leaf != qt_is_leaf(nd, prm)) return strf("node %d (depth %d, %d points) leaf=%d", idx, nd.depth, nd.end - nd.begin, leaf);
  out.push_back({nd.depth, nd.end - nd.begin, leaf});
  if (leaf) return "";
  if (nd.child + 4 > (int)nodes.size()) return strf("node %d: child index %d out of range", idx, nd.child);
  float2 c = qt_center(nd);
  for (int q = 0, at = nd.begin; q < 4; q++) {
    const QtNode &ch = nodes[nd.child + q];
    QtNode want = qt_child_node(nd, q, at, ch.end);
    if (ch.begin != at || ch.end < at || ch.end > nd.end || ch.depth != want.depth || ch.min_x != want.min_x ||
        ch.max_x != want.max_x || ch.min_y != want.min_y || ch.max_y != want.max_y)
      return strf("node %d: child %d does not match its parent", idx, q);
    for (int i = ch.begin; i < ch.end; i++)
      if (qt_quadrant(x[i], y[i], c.x, c.y) != q) return strf("point %d is in the wrong quadrant of node %d", i, idx);
    std::string err = qt_walk(nodes, nd.child + q, x, y, prm, out);
    if (!err.empty()) return err;
    at = ch.end;
  }
  if (nodes[nd.child + 3].end != nd.end) return strf("node %d: children do not cover its points", idx);
  return "";
}

inline int qt_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: qt [--reps N] [--points N] [--max-depth D] [--min-points M] [--seed S]\n"
              "  quadtree of N random points in the unit square (default 40000), depth limit D (default 12),\n"
              "  nodes of at most M points are leaves (default 1)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int n = (int)opt.num("--points", 40000, 1, 1 << 26);
  int max_depth = (int)opt.num("--max-depth", 12, 0, 23);  // 24 is CDP's nesting limit
  int min_points = (int)opt.num("--min-points", 1, 1, INT_MAX);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  std::vector<float> px(n), py(n);
  Rng rng(seed);
  for (int i = 0; i < n; i++) px[i] = rng.unit(), py[i] = rng.unit();
  QtNode root{0.0f, 0.0f, 1.0f, 1.0f, 0, n, 0, -1};
  // Each level splits at most n / (min_points + 1) nodes, each into 4.
  long long splits = (long long)max_depth * (n / (min_points + 1));
  if (1 + 4 * splits > INT_MAX) die("too many possible nodes");
  QtParams prm{max_depth, min_points, (int)(1 + 4 * splits), nullptr, nullptr};

  std::vector<QtShape> ref;
  {
    std::vector<float2> p(n);
    for (int i = 0; i < n; i++) p[i] = make_float2(px[i], py[i]);
    qt_cpu(root, p, prm, ref);
  }
  std::vector<std::pair<float, float>> sorted_in(n);
  for (int i = 0; i < n; i++) sorted_in[i] = {px[i], py[i]};
  std::sort(sorted_in.begin(), sorted_in.end());
  printf("# qt %s: %d points, max depth %d, min points %d, %zu nodes\n", cdp ? "cdp" : "flat", n, max_depth,
         min_points, ref.size());
  ChildGrids children;  // every node that splits launches its 4 children, a block each
  for (const QtShape &s : ref)
    if (!s.leaf) children.add(4, kBlock);
  children.print();

  if (cdp) reserve_device_launches((size_t)std::min(splits, 1ll << 20));  // one launch per split node
  DevArray<float> x0(n), y0(n), x1(n), y1(n), in_x, in_y;
  in_x.upload(px);
  in_y.upload(py);
  DevArray<QtNode> nodes(prm.capacity);
  DevArray<int> node_count(1), overflow(1);
  prm.node_count = node_count.get();
  prm.overflow = overflow.get();
  QtPoints pts{{x0.get(), x1.get()}, {y0.get(), y1.get()}};

  std::vector<QtShape> got;
  BenchHooks h;
  h.reset = [&] {
    x0.copy_from(in_x);
    y0.copy_from(in_y);
    nodes.write(0, root);
    node_count.write(0, 1);
    overflow.write(0, 0);
  };
  h.run = [&] { qt_build_tree(nodes.get(), pts, prm); };
  h.check = [&]() -> std::string {
    if (overflow.read(0)) return "node array overflow";
    int count = node_count.read(0);
    std::vector<QtNode> all(count);
    CK(cudaMemcpy(all.data(), nodes.get(), count * sizeof(QtNode), cudaMemcpyDeviceToHost));
    std::vector<float> gx = x0.download(), gy = y0.download();
    got.clear();
    std::string err = qt_walk(all, 0, gx, gy, prm, got);
    if (!err.empty()) return err;
    if ((int)got.size() != count) return strf("%d nodes allocated, %zu reachable", count, got.size());
    if (!(got == ref)) {
      size_t i = 0;
      while (i < got.size() && i < ref.size() && got[i] == ref[i]) i++;
      return strf("gpu tree has %zu nodes, cpu %zu; they differ at depth-first node %zu", got.size(), ref.size(), i);
    }
    std::vector<std::pair<float, float>> sorted_out(n);
    for (int i = 0; i < n; i++) sorted_out[i] = {gx[i], gy[i]};
    std::sort(sorted_out.begin(), sorted_out.end());
    if (sorted_out != sorted_in) return "the output points are not a permutation of the input";
    return "";
  };
  h.result = [&] {
    long long leaves = 0, depth_sum = 0;
    int deepest = 0;
    for (const QtShape &s : got)
      if (s.leaf) leaves++, depth_sum += (long long)s.depth * s.points, deepest = std::max(deepest, s.depth);
    return strf("nodes=%zu leaves=%lld max_depth=%d point_depth_sum=%lld", got.size(), leaves, deepest, depth_sum);
  };
  return bench_run("qt", reps, h);
}
