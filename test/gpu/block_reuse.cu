// Pattern: children whose threads need each other (barriers, static and dynamic shared memory, warp
// shuffles), the children block reuse runs in their launching block (klap's -klap-block-reuse, and
// -klap-granularity=auto). Each part checks every child block's result against the CPU:
// - barrier: parent threads that return before and after the parent's own barriers; the launching
//   threads ask for child blocks of the parent's size (run by the block), of half of it (whole warps:
//   run by its first warps) and of 48 threads (not whole warps: launched as written). The parent runs
//   once with dynamic shared memory for its children and once without (every launch as written). Its
//   early return before a barrier keeps its launches as written (KLAP313); `sync` is the same parent
//   without it, whose launches block reuse takes.
// - loop: launches in a loop, more than a block's queue holds (the rest launched as written).
// - warp: a child that sums with warp shuffles, a warp per block (join's shape).
// - tree: qt's shape, a kernel whose last thread launches 4 blocks of the same kernel, whose threads
//   meet at barriers, to a bounded depth.
// - leaf: the same tree whose leaves return before the barriers, after a loop whose trip count differs
//   between the threads (qt's leaves), so that the child blocks a parent runs end with their lanes apart.
#include "check.cuh"

#include <cstring>
#include <vector>

constexpr int PB = 128;     // parent block size
constexpr int MAXG = 3;     // largest child grid
constexpr int EXTRA = 16;   // most extra dynamic shared words of a child
constexpr size_t DYN = (PB + EXTRA) * sizeof(unsigned);

__device__ __host__ inline unsigned mix(unsigned a, unsigned b) { return (a * 2654435761u) ^ (b + 0x9e3779b9u); }

// ---- barrier and shared memory ----

__device__ __host__ inline unsigned childBlock(int slot) {
  const unsigned sizes[3] = {PB, PB / 2, 48};
  return sizes[slot % 3];
}
__device__ __host__ inline unsigned childGrid(int slot) { return 1 + (slot / 3) % MAXG; }
__device__ __host__ inline unsigned extraWords(int slot) { return (5 * slot) % (EXTRA + 1); }

__global__ void reduce(unsigned *out, int slot, unsigned extra, unsigned salt) {
  __shared__ unsigned st[PB];
  extern __shared__ unsigned dyn[];  // blockDim.x + extra words
  unsigned t = threadIdx.x, B = blockDim.x;
  st[t] = mix(t, salt);
  dyn[t] = mix(salt, t + 7 * blockIdx.x);
  for (unsigned k = t; k < extra; k += B)
    dyn[B + k] = salt + 3 * k;
  __syncthreads();
  unsigned v = st[(t + 1) % B] + 7u * dyn[B - 1 - t];
  if (t == 0)
    for (unsigned k = 0; k < extra; ++k)
      v += dyn[B + k];
  __syncthreads();
  st[t] = v;
  __syncthreads();
  // B is 128, 64 or 48: halving reaches every word for the first two; 48 sums 48 words as 24+24, 12+12,
  // 6+6, 3+3, then word 0 takes words 1 and 2.
  for (unsigned s = B / 2; s > 0; s >>= 1) {
    if (t < s)
      st[t] += st[t + s];
    __syncthreads();
    if (s == 3)
      break;
  }
  if (t == 0)
    out[slot * MAXG + blockIdx.x] = B == 48 ? st[0] + st[1] + st[2] : st[0];
}

static unsigned reduceCpu(int slot, unsigned b) {
  unsigned B = childBlock(slot), extra = extraWords(slot), salt = 977u * slot + 1;
  std::vector<unsigned> st(B), dyn(B + extra), v(B);
  for (unsigned t = 0; t < B; ++t) {
    st[t] = mix(t, salt);
    dyn[t] = mix(salt, t + 7 * b);
  }
  for (unsigned k = 0; k < extra; ++k)
    dyn[B + k] = salt + 3 * k;
  for (unsigned t = 0; t < B; ++t) {
    v[t] = st[(t + 1) % B] + 7u * dyn[B - 1 - t];
    if (t == 0)
      for (unsigned k = 0; k < extra; ++k)
        v[t] += dyn[B + k];
  }
  unsigned total = 0;
  for (unsigned t = 0; t < B; ++t)
    total += v[t];
  return total;
}

// Threads past n return at once; of the others, one in 8 launches, after two barriers of the parent.
__global__ void parentBarrier(unsigned *out, unsigned *seen, int n) {
  __shared__ unsigned here;
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n)
    return;
  if (threadIdx.x == 0)
    here = 0;
  __syncthreads();
  atomicAdd(&here, 1u);
  __syncthreads();
  if (threadIdx.x == 0)
    seen[blockIdx.x] = here;
  if (threadIdx.x % 8 != 0)
    return;
  int slot = p / 8;
  unsigned B = childBlock(slot), extra = extraWords(slot);
  reduce<<<childGrid(slot), B, (B + extra) * sizeof(unsigned)>>>(out, slot, extra, 977u * slot + 1);
}

// The same launches from a parent whose threads all reach both barriers (no early return): block reuse
// takes these; parentBarrier's early return before a barrier keeps its launches as written (KLAP313).
__global__ void parentSync(unsigned *out, unsigned *seen) {
  __shared__ unsigned here;
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    here = 0;
  __syncthreads();
  atomicAdd(&here, 1u);
  __syncthreads();
  if (threadIdx.x == 0)
    seen[blockIdx.x] = here;
  if (threadIdx.x % 8 == 0) {
    int slot = p / 8;
    unsigned B = childBlock(slot), extra = extraWords(slot);
    reduce<<<childGrid(slot), B, (B + extra) * sizeof(unsigned)>>>(out, slot, extra, 977u * slot + 1);
  }
}

// ---- launches in a loop ----

constexpr int LOOP_BLOCKS = 3;
constexpr int PER_THREAD = 3;  // launches of each launching thread: 32 * 3 per block, a queue of 32

__global__ void parentLoop(unsigned *out) {
  if (threadIdx.x % 4 != 0)
    return;
  int launcher = blockIdx.x * (PB / 4) + threadIdx.x / 4;
  for (int k = 0; k < PER_THREAD; ++k) {
    int slot = launcher * PER_THREAD + k;
    // Slots of the parent's block size only (every third: childBlock).
    int r = slot * 3;
    reduce<<<1, PB, (PB + extraWords(r)) * sizeof(unsigned)>>>(out, r, extraWords(r), 977u * r + 1);
  }
}

// ---- warp shuffles ----

constexpr int WARP_SLOTS = 64;

__global__ void warpSum(unsigned *out, int slot) {
  unsigned v = mix(threadIdx.x + 32 * blockIdx.x, slot);
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x == 0)
    out[slot * 2 + blockIdx.x] = v;
}

__global__ void parentWarp(unsigned *out) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p % 4 == 0 && p / 4 < WARP_SLOTS)
    warpSum<<<2, 32>>>(out, p / 4);
}

static unsigned warpSumCpu(int slot, unsigned b) {
  unsigned total = 0;
  for (unsigned t = 0; t < 32; ++t)
    total += mix(t + 32 * b, slot);
  return total;
}

// ---- recursion (qt's shape) ----

constexpr int DEPTH = 4;  // levels below the root
constexpr int NODES = 1 + 4 + 16 + 64 + 256;

__device__ __host__ inline unsigned leafSpan(int node) { return 5 + (node % 7) * 40; }

// With `leaves` (the leaf part), the nodes at DEPTH return before the barriers, after a loop whose trip
// count differs between the threads (qt's leaves), adding their threads' sums to their word.
__global__ void tree(unsigned *out, int base, int depth, bool leaves) {
  __shared__ unsigned words[PB];
  int node = base + blockIdx.x;
  unsigned t = threadIdx.x;
  if (leaves && depth == DEPTH) {
    unsigned acc = 0;
    for (unsigned k = t; k < leafSpan(node); k += 3)
      acc += mix(k, node);
    atomicAdd(&out[node], acc);
    return;
  }
  words[t] = mix(t, node);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      words[t] += words[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[node] = words[0] + depth;
  if (t == blockDim.x - 1 && depth < DEPTH)
    tree<<<4, blockDim.x>>>(out, 4 * node + 1, depth + 1, leaves);
}

static unsigned treeCpu(int node, int depth) {
  unsigned total = 0;
  for (unsigned t = 0; t < PB; ++t)
    total += mix(t, node);
  return total + depth;
}

// A leaf's word starts at 0xffffffff (run's fill) and takes every thread's sum.
static unsigned leafCpu(int node) {
  unsigned total = 0xffffffffu;
  for (unsigned t = 0; t < PB; ++t)
    for (unsigned k = t; k < leafSpan(node); k += 3)
      total += mix(k, node);
  return total;
}

static int depthOf(int node) {
  int d = 0;
  for (int first = 0, width = 1; node >= first + width; first += width, width *= 4)
    ++d;
  return d;
}

template <typename F> static void compare(const char *part, const std::vector<unsigned> &got, F want) {
  unsigned long long sum = 0;
  int filled = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    unsigned w = want((int)k);
    if (got[k] != w)
      mismatch("%s %zu: %u (want %u)", part, k, got[k], w);
    if (got[k] != 0xffffffffu) {
      sum += got[k];
      ++filled;
    }
  }
  std::printf("%s: %d results, sum %llu\n", part, filled, sum);
}

constexpr int N = 1000;  // parent threads of the barrier part (8 blocks, the last one partly)
constexpr int BLOCKS = (N + PB - 1) / PB;
constexpr int SLOTS = (N + 7) / 8;
static unsigned *g_seen;

// With an argument, only the part of that name runs (barrier, sync, loop, warp, tree, leaf): to find which part fails.
int main(int argc, char **argv) {
  auto part = [&](const char *name) { return argc < 2 || std::strcmp(argv[1], name) == 0; };
  setPendingLaunchLimit(1 << 15);
  CK(cudaMalloc(&g_seen, BLOCKS * sizeof(unsigned)));

  auto barrierWant = [](int k) {
    int slot = k / MAXG, b = k % MAXG;
    return (unsigned)b < childGrid(slot) ? reduceCpu(slot, b) : 0xffffffffu;
  };
  // With dynamic shared memory for the children, then without (every launch as written).
  for (size_t dyn : {DYN, (size_t)0}) {
    if (!part("barrier"))
      break;
    static size_t s_dyn;
    s_dyn = dyn;
    auto got = runOnWords(SLOTS * MAXG, [](unsigned *d) { parentBarrier<<<BLOCKS, PB, s_dyn>>>(d, g_seen, N); });
    compare(dyn ? "barrier" : "barrier-no-dynamic-smem", got, barrierWant);
    std::vector<unsigned> seen(BLOCKS);
    CK(cudaMemcpy(seen.data(), g_seen, BLOCKS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
      unsigned want = b < BLOCKS - 1 ? PB : N - (BLOCKS - 1) * PB;
      if (seen[b] != want)
        mismatch("barrier: block %d counted %u threads between its barriers (want %u)", b, seen[b], want);
    }
  }

  if (part("sync")) {
    auto got = runOnWords(BLOCKS * (PB / 8) * MAXG, [](unsigned *d) { parentSync<<<BLOCKS, PB, DYN>>>(d, g_seen); });
    compare("sync", got, barrierWant);
    std::vector<unsigned> seen(BLOCKS);
    CK(cudaMemcpy(seen.data(), g_seen, BLOCKS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b)
      if (seen[b] != PB)
        mismatch("sync: block %d counted %u threads between its barriers (want %d)", b, seen[b], PB);
  }

  constexpr int LOOP_SLOTS = LOOP_BLOCKS * (PB / 4) * PER_THREAD;
  if (part("loop")) {
    auto loop = runOnWords(LOOP_SLOTS * 3 * MAXG, [](unsigned *d) { parentLoop<<<LOOP_BLOCKS, PB, DYN>>>(d); });
    compare("loop", loop, [](int k) {
      int slot = k / MAXG, b = k % MAXG;
      return slot % 3 == 0 && b == 0 ? reduceCpu(slot, 0) : 0xffffffffu;
    });
  }

  if (part("warp")) {
    auto warp = runOnWords(WARP_SLOTS * 2, [](unsigned *d) { parentWarp<<<WARP_SLOTS * 4 / PB, PB>>>(d); });
    compare("warp", warp, [](int k) { return warpSumCpu(k / 2, k % 2); });
  }
  if (part("tree")) {
    auto nodes = runOnWords(NODES, [](unsigned *d) { tree<<<1, PB>>>(d, 0, 0, false); });
    compare("tree", nodes, [](int node) { return treeCpu(node, depthOf(node)); });
  }

  if (part("leaf")) {
    auto nodes = runOnWords(NODES, [](unsigned *d) { tree<<<1, PB>>>(d, 0, 0, true); });
    compare("leaf", nodes, [](int node) { int d = depthOf(node); return d == DEPTH ? leafCpu(node) : treeCpu(node, d); });
  }

  CK(cudaFree(g_seen));
  return finish();
}
