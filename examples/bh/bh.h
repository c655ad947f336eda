// Barnes-Hut N-body simulation (KLAP's bh: 4096 bodies, 4 time steps, blocks of 256 / 256), in a form that CDP2
// allows. Each time step: the bounding cube of the bodies; an octree built level by level under the host's control
// (a block per node sorts the node's bodies into its 8 octants; a node of at most kLeafBodies bodies, or at
// kMaxDepth, is a leaf), each node's centre of mass summed as the node is visited; the force on every body; a
// kick-drift step (velocity, then position). For the force, one parent thread per body walks the tree and writes
// the body's interaction list: a node whose size / distance is below theta stands for all its bodies, else its
// children are looked at, down to the single bodies of near leaves. bh.cu then launches a child grid over the list
// (a thread per interaction, the block's sum added to the body's acceleration); bh_flat.cu sums the list in the
// parent thread. No thread waits for a child (CDP2 has no device-side wait): the host's next kernel, the
// kick-drift step, starts after the force grid and everything it launched.
// Positions and pulls are single correctly rounded float operations (common.h), and every sum (centres of mass,
// accelerations) is an integer sum in 2^-32 fixed point, whatever its order: the GPU and the CPU reference agree
// to the bit, whatever the order of threads, children and atomics.
#pragma once

#include "../common/children.h"

#include <numeric>

constexpr int kParentBlock = 256;
constexpr int kChildBlock = 256;
constexpr int kBuildBlock = 128;
constexpr int kLeafBodies = 8;
constexpr int kMaxDepth = 20;
constexpr int kStackSize = 7 * kMaxDepth + 1;  // a walk pops one node and pushes 8, once per depth at most
constexpr float kFix = 4294967296.0f;          // 2^32, the fixed-point unit of position and acceleration sums
constexpr float kUnfix = 1.0f / 4294967296.0f;

struct BhNode {
  float cx, cy, cz, half;  // the cube
  float mx, my, mz;        // centre of mass of its bodies
  int begin, end;          // its bodies, order[0][begin .. end) once the tree is built
  int depth;
  int child;               // the first of its 8 children, or -1 for a leaf
};

struct BhDev {
  float *x, *y, *z, *vx, *vy, *vz;
  int n;
  BhNode *nodes;
  int node_cap;
  int *order[2];       // body indices; while the tree is built, a node at depth d has its bodies in order[d % 2]
  int *lists;          // body i's interaction list is lists[i * list_cap ...]: node k >= 0, or body -(j + 1)
  int list_cap;
  int *status;         // [0] nodes allocated, [1] set when the node array or a list was too small
  long long *acc;      // 3 per body, fixed point
  float theta2, eps2, dt;
};

__host__ __device__ inline float bh_sqrt(float a) {
#ifdef __CUDA_ARCH__
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);  // IEEE square root, correctly rounded like __fsqrt_rn
#endif
}

__host__ __device__ inline long long bh_fix(float v) { return (long long)xmul(v, kFix); }  // truncation
__host__ __device__ inline float bh_unfix(long long s) { return xmul((float)s, kUnfix); }
__host__ __device__ inline float bh_mass(int bodies, int n) { return xdiv((float)bodies, (float)n); }

__host__ __device__ inline bool bh_is_leaf(const BhNode &nd) {
  return nd.end - nd.begin <= kLeafBodies || nd.depth >= kMaxDepth;
}

__host__ __device__ inline int bh_octant(const BhNode &nd, float x, float y, float z) {
  return (x >= nd.cx ? 1 : 0) | (y >= nd.cy ? 2 : 0) | (z >= nd.cz ? 4 : 0);
}

__host__ __device__ inline BhNode bh_child_node(const BhNode &nd, int oct, int begin, int end) {
  const float q = xmul(0.5f, nd.half);
  BhNode ch{};
  ch.cx = oct & 1 ? xadd(nd.cx, q) : xsub(nd.cx, q);
  ch.cy = oct & 2 ? xadd(nd.cy, q) : xsub(nd.cy, q);
  ch.cz = oct & 4 ? xadd(nd.cz, q) : xsub(nd.cz, q);
  ch.half = q;
  ch.begin = begin;
  ch.end = end;
  ch.depth = nd.depth + 1;
  ch.child = -1;
  return ch;
}

// The root: the cube around the bounding box [lo, hi] (per axis).
__host__ __device__ inline BhNode bh_root(const float lo[3], const float hi[3], int n) {
  BhNode r{};
  r.cx = xmul(0.5f, xadd(lo[0], hi[0]));
  r.cy = xmul(0.5f, xadd(lo[1], hi[1]));
  r.cz = xmul(0.5f, xadd(lo[2], hi[2]));
  r.half = fmaxf(fmaxf(xmul(0.5f, xsub(hi[0], lo[0])), xmul(0.5f, xsub(hi[1], lo[1]))), xmul(0.5f, xsub(hi[2], lo[2])));
  r.begin = 0;
  r.end = n;
  r.depth = 0;
  r.child = -1;
  return r;
}

__host__ __device__ inline void bh_set_centre(BhNode &nd, long long sx, long long sy, long long sz) {
  const float count = (float)(nd.end - nd.begin);
  nd.mx = xdiv(bh_unfix(sx), count);
  nd.my = xdiv(bh_unfix(sy), count);
  nd.mz = xdiv(bh_unfix(sz), count);
}

// Writes body i's interaction list (up to cap entries) and returns its length, also past cap.
__host__ __device__ inline int bh_walk(const BhNode *nodes, const int *order, const float *x, const float *y,
                                       const float *z, int i, float theta2, int *list, int cap) {
  int stack[kStackSize];
  int top = 0, len = 0;
  stack[top++] = 0;
  const float xi = x[i], yi = y[i], zi = z[i];
  while (top > 0) {
    const int k = stack[--top];
    const BhNode &nd = nodes[k];
    if (nd.end == nd.begin) continue;
    const float dx = xsub(nd.mx, xi), dy = xsub(nd.my, yi), dz = xsub(nd.mz, zi);
    const float d2 = xadd(xadd(xmul(dx, dx), xmul(dy, dy)), xmul(dz, dz));
    const float size = xmul(2.0f, nd.half);
    if (xmul(size, size) < xmul(theta2, d2)) {
      if (len < cap) list[len] = k;
      len++;
    } else if (nd.child < 0) {
      for (int j = nd.begin; j < nd.end; j++)
        if (order[j] != i) {
          if (len < cap) list[len] = -(order[j] + 1);
          len++;
        }
    } else {
      for (int c = 7; c >= 0; c--) stack[top++] = nd.child + c;
    }
  }
  return len;
}

// Adds the pull of list entry `entry` on body i, softened by eps2, to a (fixed point).
__host__ __device__ inline void bh_pull(const BhNode *nodes, const float *x, const float *y, const float *z, int n,
                                        float eps2, int i, int entry, long long a[3]) {
  float sx, sy, sz, m;
  if (entry >= 0) {
    const BhNode &nd = nodes[entry];
    sx = nd.mx, sy = nd.my, sz = nd.mz, m = bh_mass(nd.end - nd.begin, n);
  } else {
    const int j = -entry - 1;
    sx = x[j], sy = y[j], sz = z[j], m = bh_mass(1, n);
  }
  const float dx = xsub(sx, x[i]), dy = xsub(sy, y[i]), dz = xsub(sz, z[i]);
  const float r2 = xadd(xadd(xadd(xmul(dx, dx), xmul(dy, dy)), xmul(dz, dz)), eps2);
  const float inv = xdiv(1.0f, bh_sqrt(r2));
  const float s = xmul(m, xmul(inv, xmul(inv, inv)));
  a[0] += bh_fix(xmul(s, dx));
  a[1] += bh_fix(xmul(s, dy));
  a[2] += bh_fix(xmul(s, dz));
}

__host__ __device__ inline void bh_kick_drift(float &x, float &v, long long acc, float dt) {
  v = xadd(v, xmul(bh_unfix(acc), dt));
  x = xadd(x, xmul(v, dt));
}

// ---------------------------------------------------------------------------------------------------------------
// The GPU steps both versions share.

// One block of 1024 threads: the bounding box of the bodies, the root node, one node allocated.
__global__ void bh_bound(BhDev d) {
  __shared__ float lo[3][1024], hi[3][1024];
  const int t = threadIdx.x;
  const float *axis[3] = {d.x, d.y, d.z};
  for (int c = 0; c < 3; c++) {
    float l = INFINITY, h = -INFINITY;
    for (int i = t; i < d.n; i += blockDim.x) l = fminf(l, axis[c][i]), h = fmaxf(h, axis[c][i]);
    lo[c][t] = l;
    hi[c][t] = h;
  }
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s)
      for (int c = 0; c < 3; c++) lo[c][t] = fminf(lo[c][t], lo[c][t + s]), hi[c][t] = fmaxf(hi[c][t], hi[c][t + s]);
    __syncthreads();
  }
  if (t == 0) {
    const float l[3] = {lo[0][0], lo[1][0], lo[2][0]}, h[3] = {hi[0][0], hi[1][0], hi[2][0]};
    d.nodes[0] = bh_root(l, h, d.n);
    d.status[0] = 1;
  }
}

// A block per node of one level, nodes[first + blockIdx.x]: its centre of mass, and unless it is a leaf, its 8
// children and its bodies moved into their octants' ranges of the other order buffer.
__global__ void bh_build_level(BhDev d, int first) {
  __shared__ int count[8], offset[8], first_child;
  __shared__ unsigned long long sum[3];
  const int k = first + blockIdx.x;
  const BhNode node = d.nodes[k];
  const int *in = d.order[node.depth % 2];
  int *out = d.order[1 - node.depth % 2];
  bool leaf = bh_is_leaf(node);
  if (threadIdx.x < 8) count[threadIdx.x] = 0;
  if (threadIdx.x < 3) sum[threadIdx.x] = 0;
  __syncthreads();
  long long sx = 0, sy = 0, sz = 0;
  for (int j = node.begin + threadIdx.x; j < node.end; j += blockDim.x) {
    const int b = in[j];
    const float x = d.x[b], y = d.y[b], z = d.z[b];
    sx += bh_fix(x), sy += bh_fix(y), sz += bh_fix(z);
    if (!leaf) atomicAdd(&count[bh_octant(node, x, y, z)], 1);
  }
  atomicAdd(&sum[0], (unsigned long long)sx);
  atomicAdd(&sum[1], (unsigned long long)sy);
  atomicAdd(&sum[2], (unsigned long long)sz);
  __syncthreads();
  if (threadIdx.x == 0) {
    BhNode nd = node;
    if (nd.end > nd.begin) bh_set_centre(nd, (long long)sum[0], (long long)sum[1], (long long)sum[2]);
    nd.child = -1;
    if (!leaf) {
      const int f = atomicAdd(&d.status[0], 8);
      if (f + 8 > d.node_cap) {
        atomicExch(&d.status[1], 1);
      } else {
        for (int o = 0, at = node.begin; o < 8; at += count[o++]) {
          offset[o] = at;
          d.nodes[f + o] = bh_child_node(node, o, at, at + count[o]);
        }
        nd.child = f;
      }
    }
    d.nodes[k] = nd;
    first_child = nd.child;
  }
  __syncthreads();
  if (first_child < 0) {  // a leaf: its bodies end in order[0]
    if (node.depth % 2 == 1)
      for (int j = node.begin + threadIdx.x; j < node.end; j += blockDim.x) d.order[0][j] = in[j];
    return;
  }
  for (int j = node.begin + threadIdx.x; j < node.end; j += blockDim.x) {
    const int b = in[j];
    out[atomicAdd(&offset[bh_octant(node, d.x[b], d.y[b], d.z[b])], 1)] = b;
  }
}

// Body i's interaction list into d.lists; returns its length (at most list_cap, the status flag set beyond).
__device__ inline int bh_list(const BhDev &d, int i) {
  const int len = bh_walk(d.nodes, d.order[0], d.x, d.y, d.z, i, d.theta2, d.lists + (size_t)i * d.list_cap,
                          d.list_cap);
  if (len <= d.list_cap) return len;
  atomicExch(&d.status[1], 1);
  return d.list_cap;
}

__global__ void bh_integrate(BhDev d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= d.n) return;
  bh_kick_drift(d.x[i], d.vx[i], d.acc[3 * i], d.dt);
  bh_kick_drift(d.y[i], d.vy[i], d.acc[3 * i + 1], d.dt);
  bh_kick_drift(d.z[i], d.vz[i], d.acc[3 * i + 2], d.dt);
}

// Fills d.acc with every body's acceleration (defined by each variant).
void bh_force(const BhDev &d);

// ---------------------------------------------------------------------------------------------------------------
struct BhBodies {
  std::vector<float> x, y, z, vx, vy, vz;
};

// A Plummer sphere (Aarseth, Henon and Wielen 1974) of total mass 1 and scale radius 1, G = 1, radii beyond 10
// drawn again.
inline BhBodies bh_plummer(int n, uint64_t seed) {
  Rng rng(seed);
  auto uniform = [&] { return (double)((rng.next() >> 11) + 1) * 0x1p-53; };  // (0, 1]
  auto direction = [&](double len, float &ox, float &oy, float &oz) {
    double cz = 2.0 * uniform() - 1.0, phi = 6.283185307179586 * uniform(), sz = std::sqrt(1.0 - cz * cz);
    ox = (float)(len * sz * std::cos(phi));
    oy = (float)(len * sz * std::sin(phi));
    oz = (float)(len * cz);
  };
  BhBodies b;
  for (auto *v : {&b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz}) v->resize(n);
  for (int i = 0; i < n; i++) {
    double r;
    do r = 1.0 / std::sqrt(std::pow(uniform(), -2.0 / 3.0) - 1.0);
    while (r > 10.0);
    direction(r, b.x[i], b.y[i], b.z[i]);
    double q, g;  // speed / escape speed, from q^2 (1 - q^2)^3.5 by rejection (its maximum is below 0.1)
    do {
      q = uniform();
      g = q * q * std::pow(1.0 - q * q, 3.5);
    } while (0.1 * uniform() > g);
    direction(q * std::sqrt(2.0) * std::pow(1.0 + r * r, -0.25), b.vx[i], b.vy[i], b.vz[i]);
  }
  return b;
}

struct BhTree {
  std::vector<BhNode> nodes;
  std::vector<int> order;
};

// The CPU reference's tree: the same nodes as the GPU's (in another order), from the same operations.
inline void bh_cpu_tree(const BhBodies &b, BhTree &t) {
  const int n = (int)b.x.size();
  float lo[3], hi[3];
  const std::vector<float> *axis[3] = {&b.x, &b.y, &b.z};
  for (int c = 0; c < 3; c++) {
    lo[c] = *std::min_element(axis[c]->begin(), axis[c]->end());
    hi[c] = *std::max_element(axis[c]->begin(), axis[c]->end());
  }
  t.nodes.assign(1, bh_root(lo, hi, n));
  t.order.resize(n);
  std::iota(t.order.begin(), t.order.end(), 0);
  std::vector<int> part[8];
  for (size_t k = 0; k < t.nodes.size(); k++) {
    BhNode nd = t.nodes[k];
    long long sx = 0, sy = 0, sz = 0;
    for (int j = nd.begin; j < nd.end; j++) {
      const int i = t.order[j];
      sx += bh_fix(b.x[i]), sy += bh_fix(b.y[i]), sz += bh_fix(b.z[i]);
    }
    if (nd.end > nd.begin) bh_set_centre(nd, sx, sy, sz);
    if (!bh_is_leaf(nd)) {
      for (auto &p : part) p.clear();
      for (int j = nd.begin; j < nd.end; j++) {
        const int i = t.order[j];
        part[bh_octant(nd, b.x[i], b.y[i], b.z[i])].push_back(i);
      }
      nd.child = (int)t.nodes.size();
      for (int o = 0, at = nd.begin; o < 8; at += (int)part[o++].size()) {
        std::copy(part[o].begin(), part[o].end(), t.order.begin() + at);
        t.nodes.push_back(bh_child_node(nd, o, at, at + (int)part[o].size()));
      }
    }
    t.nodes[k] = nd;
  }
}

struct BhReference {
  BhBodies end;          // the bodies after the last step
  int node_cap = 0;      // the most tree nodes of any step
  int list_cap = 0;      // the longest interaction list of any step
  long long interactions = 0;
  ChildGrids children;   // one per body and step with a non-empty list
};

inline BhReference bh_cpu(BhBodies b, int steps, float theta2, float eps2, float dt) {
  const int n = (int)b.x.size();
  BhReference r;
  BhTree t;
  std::vector<int> list;
  std::vector<long long> acc(3 * (size_t)n);
  for (int s = 0; s < steps; s++) {
    bh_cpu_tree(b, t);
    r.node_cap = std::max(r.node_cap, (int)t.nodes.size());
    list.resize(t.nodes.size() + n);  // a walk lists a node, or the bodies of a leaf, at most once
    for (int i = 0; i < n; i++) {
      int len = bh_walk(t.nodes.data(), t.order.data(), b.x.data(), b.y.data(), b.z.data(), i, theta2, list.data(),
                        (int)list.size());
      long long a[3] = {0, 0, 0};
      for (int k = 0; k < len; k++) bh_pull(t.nodes.data(), b.x.data(), b.y.data(), b.z.data(), n, eps2, i, list[k], a);
      std::copy(a, a + 3, &acc[3 * (size_t)i]);
      r.list_cap = std::max(r.list_cap, len);
      r.interactions += len;
      if (len > 0) r.children.add(blocks_for(len, kChildBlock), kChildBlock);
    }
    // A node's position sum must fit in 63 bits of 2^-32 fixed point.
    const float far = (float)std::ldexp(1.0, 30) / (float)n;
    for (int i = 0; i < n; i++) {
      bh_kick_drift(b.x[i], b.vx[i], acc[3 * i], dt);
      bh_kick_drift(b.y[i], b.vy[i], acc[3 * i + 1], dt);
      bh_kick_drift(b.z[i], b.vz[i], acc[3 * i + 2], dt);
      if (!(std::fabs(b.x[i]) < far && std::fabs(b.y[i]) < far && std::fabs(b.z[i]) < far))
        die("body %d went further than %g from the origin: too far for the fixed-point sums", i, far);
    }
  }
  r.end = std::move(b);
  return r;
}

inline int bh_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: bh [--reps N] [--bodies N] [--steps S] [--theta T] [--eps E] [--dt D] [--seed S]\n"
              "  N bodies (default 4096) of a Plummer sphere, S kick-drift steps (default 4) of D (default 0.025),\n"
              "  opening angle T (default 0.5), softening length E (default 0.05)\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int n = (int)opt.num("--bodies", 4096, 2, 1 << 20);
  int steps = (int)opt.num("--steps", 4, 1, 100);
  float theta = (float)opt.real("--theta", 0.5, 0.0, 10.0);
  float eps = (float)opt.real("--eps", 0.05, 1e-3, 10.0);
  float dt = (float)opt.real("--dt", 0.025, 0.0, 1.0);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  const BhBodies start = bh_plummer(n, seed);
  const float theta2 = xmul(theta, theta), eps2 = xmul(eps, eps);
  BhReference ref = bh_cpu(start, steps, theta2, eps2, dt);
  if ((double)n * ref.list_cap > 2e9) die("interaction lists of %d entries for %d bodies: too large", ref.list_cap, n);
  printf("# bh %s: %d bodies, %d steps, theta %g: up to %d tree nodes, lists up to %d (mean %.0f)\n",
         cdp ? "cdp" : "flat", n, steps, theta, ref.node_cap, ref.list_cap, (double)ref.interactions / n / steps);
  ref.children.print();

  if (cdp) reserve_device_launches(n);  // one child per body and step
  DevArray<float> x(n), y(n), z(n), vx(n), vy(n), vz(n);
  DevArray<BhNode> nodes(ref.node_cap);
  DevArray<int> order0(n), order1(n), lists((size_t)n * ref.list_cap), status(2);
  DevArray<long long> acc(3 * (size_t)n);
  BhDev d{x.get(), y.get(), z.get(), vx.get(), vy.get(), vz.get(), n, nodes.get(), ref.node_cap,
          {order0.get(), order1.get()}, lists.get(), ref.list_cap, status.get(), acc.get(), theta2, eps2, dt};
  std::vector<int> identity(n);
  std::iota(identity.begin(), identity.end(), 0);

  BhBodies got;
  bool overflow = false;
  BenchHooks h;
  h.reset = [&] {
    x.upload(start.x);
    y.upload(start.y);
    z.upload(start.z);
    vx.upload(start.vx);
    vy.upload(start.vy);
    vz.upload(start.vz);
    order0.upload(identity);
    status.fill_bytes(0);
  };
  h.run = [&] {
    overflow = false;
    for (int s = 0; s < steps && !overflow; s++) {
      bh_bound<<<1, 1024>>>(d);
      CK_LAUNCH(bh_bound);
      int begin = 0, end = 1;
      while (begin < end) {
        bh_build_level<<<end - begin, kBuildBlock>>>(d, begin);
        CK_LAUNCH(bh_build_level);
        int st[2];
        CK(cudaMemcpy(st, d.status, sizeof st, cudaMemcpyDeviceToHost));
        if (st[1]) {
          overflow = true;
          break;
        }
        begin = end;
        end = st[0];
      }
      CK(cudaMemsetAsync(d.acc, 0, 3 * (size_t)n * sizeof(long long)));
      bh_force(d);
      bh_integrate<<<blocks_for(n, kParentBlock), kParentBlock>>>(d);
      CK_LAUNCH(bh_integrate);
    }
  };
  h.check = [&]() -> std::string {
    if (overflow || status.read(1)) return "the tree or an interaction list outgrew the CPU reference's";
    got.x = x.download();
    got.y = y.download();
    got.z = z.download();
    got.vx = vx.download();
    got.vy = vy.download();
    got.vz = vz.download();
    const std::vector<float> BhBodies::*fields[6] = {&BhBodies::x, &BhBodies::y, &BhBodies::z,
                                                     &BhBodies::vx, &BhBodies::vy, &BhBodies::vz};
    const char *names = "xyzuvw";
    for (int f = 0; f < 6; f++)
      for (int i = 0; i < n; i++) {
        float g = (got.*fields[f])[i], c = (ref.end.*fields[f])[i];
        if (memcmp(&g, &c, sizeof g) != 0)
          return strf("body %d: %c gpu %.9g, cpu %.9g (x y z position, u v w velocity)", i, names[f], g, c);
      }
    return "";
  };
  h.result = [&] {
    double kinetic = 0, cx = 0, cy = 0, cz = 0;
    unsigned long long checksum = 0;
    for (int i = 0; i < n; i++) {
      const double vx = got.vx[i], vy = got.vy[i], vz = got.vz[i];
      kinetic += 0.5 / n * (vx * vx + vy * vy + vz * vz);
      cx += got.x[i], cy += got.y[i], cz += got.z[i];
      for (float v : {got.x[i], got.y[i], got.z[i]}) {
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        checksum = checksum * 1000003u + bits;
      }
    }
    return strf("interactions=%lld kinetic=%.9f centre=(%.6f,%.6f,%.6f) checksum=%016llx", ref.interactions, kinetic,
                cx / n, cy / n, cz / n, checksum);
  };
  return bench_run("bh", reps, h);
}
