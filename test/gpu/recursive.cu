// Pattern: a recursive, self-launching kernel. Each launch (a 4-thread block)
// covers a range of the input; a large range is split into 2..4 parts (the
// count depends on the range and the depth), each part handled by a child
// launch of the same kernel from a different thread; a small range, or one at
// the depth limit, is summed by the block. Leaf values are weighted by depth
// so the result depends on the shape of the tree, which is checked against
// the same recursion on the CPU.
#include "check.cuh"

#include <vector>

constexpr int N = 20000;  // input elements
constexpr int LEAF = 50;  // a range this small is a leaf
constexpr int MAXD = 6;   // depth limit (CDP allows 24 levels)
constexpr int TB = 4;     // threads per launch (>= the most parts)

struct Stats {
  unsigned long long sum;
  unsigned nodes;
  unsigned leaves;
  unsigned maxDepth;
};

__device__ __host__ inline int parts(int lo, int depth) {
  return 2 + (lo / 7 + depth) % 3;
}
__device__ __host__ inline int cut(int lo, int hi, int t, int p) {
  return lo + (int)((long long)(hi - lo) * t / p);
}

__global__ void walk(const int *data, int lo, int hi, int depth, Stats *st) {
  int len = hi - lo;
  bool leaf = len <= LEAF || depth >= MAXD;
  if (threadIdx.x == 0) {
    atomicAdd(&st->nodes, 1u);
    atomicMax(&st->maxDepth, (unsigned)depth);
    if (leaf)
      atomicAdd(&st->leaves, 1u);
  }
  if (leaf) {
    for (int j = lo + (int)threadIdx.x; j < hi; j += blockDim.x)
      atomicAdd(&st->sum, (unsigned long long)data[j] * (unsigned)(depth + 1));
  } else {
    int p = parts(lo, depth);
    int t = threadIdx.x;
    if (t < p) {
      int a = cut(lo, hi, t, p), b = cut(lo, hi, t + 1, p);
      if (b > a)
        walk<<<1, TB>>>(data, a, b, depth + 1, st);
    }
  }
}

static void walkCpu(const std::vector<int> &data, int lo, int hi, int depth,
                    Stats &st) {
  int len = hi - lo;
  bool leaf = len <= LEAF || depth >= MAXD;
  st.nodes++;
  if ((unsigned)depth > st.maxDepth)
    st.maxDepth = depth;
  if (leaf) {
    st.leaves++;
    for (int j = lo; j < hi; ++j)
      st.sum += (unsigned long long)data[j] * (unsigned)(depth + 1);
    return;
  }
  int p = parts(lo, depth);
  for (int t = 0; t < p; ++t) {
    int a = cut(lo, hi, t, p), b = cut(lo, hi, t + 1, p);
    if (b > a)
      walkCpu(data, a, b, depth + 1, st);
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<int> data(N);
  for (int i = 0; i < N; ++i)
    data[i] = (int)((((unsigned)i * 2654435761u) >> 12) % 1000);

  Stats want = {0, 0, 0, 0};
  walkCpu(data, 0, N, 0, want);

  int *dData;
  Stats *dSt;
  CK(cudaMalloc(&dData, N * sizeof(int)));
  CK(cudaMalloc(&dSt, sizeof(Stats)));
  CK(cudaMemcpy(dData, data.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dSt, 0, sizeof(Stats)));

  walk<<<1, TB>>>(dData, 0, N, 0, dSt);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  Stats got;
  CK(cudaMemcpy(&got, dSt, sizeof(Stats), cudaMemcpyDeviceToHost));

  if (got.sum != want.sum)
    mismatch("sum %llu (want %llu)", got.sum, want.sum);
  if (got.nodes != want.nodes)
    mismatch("nodes %u (want %u)", got.nodes, want.nodes);
  if (got.leaves != want.leaves)
    mismatch("leaves %u (want %u)", got.leaves, want.leaves);
  if (got.maxDepth != want.maxDepth)
    mismatch("max depth %u (want %u)", got.maxDepth, want.maxDepth);

  std::printf("nodes=%u leaves=%u max_depth=%u\n", got.nodes, got.leaves,
              got.maxDepth);
  std::printf("sum=%llu\n", got.sum);

  CK(cudaFree(dData));
  CK(cudaFree(dSt));
  return finish();
}
