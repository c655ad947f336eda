// Pattern: three levels of distinct kernels, parent -> mid -> leaf (no
// recursion). Some parent threads launch a mid grid; some mid threads launch a
// leaf grid; grid and block sizes differ per launching thread at both levels.
// Every mid and leaf thread adds into a slot owned by its launcher.
#include "check.cuh"

#include <vector>

constexpr int PG = 2;   // parent blocks
constexpr int PB = 32;  // parent block size
constexpr int N = PG * PB;
constexpr int MB = 16;  // mid block size
constexpr int MAXJ = 2 * MB;  // most mid threads per parent thread

__device__ __host__ inline bool hasMid(int i) { return i % 4 != 3; }
__device__ __host__ inline unsigned midGrid(int i) { return 1 + i % 2; }
__device__ __host__ inline bool hasLeaf(int i, int j) { return (i + j) % 3 == 0; }
__device__ __host__ inline unsigned leafGrid(int j) { return 1 + j % 2; }
__device__ __host__ inline unsigned leafBlock(int i, int j) {
  return 8 * (1 + (i + j) % 4);
}

__global__ void leaf(unsigned long long *leafSum, unsigned *leafThreads, int i,
                     int j) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&leafSum[i * MAXJ + j], (unsigned long long)(k + 1) * (i + 1));
  atomicAdd(leafThreads, 1u);
}

__global__ void mid(unsigned long long *midSum, unsigned long long *leafSum,
                    unsigned *leafThreads, int i) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&midSum[i], (unsigned long long)(j + 1 + 100 * i));
  if (hasLeaf(i, j))
    leaf<<<leafGrid(j), leafBlock(i, j)>>>(leafSum, leafThreads, i, j);
}

__global__ void parent(unsigned long long *midSum, unsigned long long *leafSum,
                       unsigned *leafThreads) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (hasMid(i))
    mid<<<midGrid(i), MB>>>(midSum, leafSum, leafThreads, i);
}

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<unsigned long long> wantMid(N, 0), wantLeaf(N * MAXJ, 0);
  unsigned wantLeafThreads = 0;
  for (int i = 0; i < N; ++i) {
    if (!hasMid(i))
      continue;
    for (int j = 0; j < (int)(midGrid(i) * MB); ++j) {
      wantMid[i] += (unsigned long long)(j + 1 + 100 * i);
      if (!hasLeaf(i, j))
        continue;
      unsigned total = leafGrid(j) * leafBlock(i, j);
      for (unsigned k = 0; k < total; ++k)
        wantLeaf[i * MAXJ + j] += (unsigned long long)(k + 1) * (i + 1);
      wantLeafThreads += total;
    }
  }

  unsigned long long *dMid, *dLeaf;
  unsigned *dLeafThreads;
  CK(cudaMalloc(&dMid, N * sizeof(unsigned long long)));
  CK(cudaMalloc(&dLeaf, N * MAXJ * sizeof(unsigned long long)));
  CK(cudaMalloc(&dLeafThreads, sizeof(unsigned)));
  CK(cudaMemset(dMid, 0, N * sizeof(unsigned long long)));
  CK(cudaMemset(dLeaf, 0, N * MAXJ * sizeof(unsigned long long)));
  CK(cudaMemset(dLeafThreads, 0, sizeof(unsigned)));

  parent<<<PG, PB>>>(dMid, dLeaf, dLeafThreads);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned long long> gotMid(N), gotLeaf(N * MAXJ);
  unsigned gotLeafThreads;
  CK(cudaMemcpy(gotMid.data(), dMid, N * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotLeaf.data(), dLeaf, N * MAXJ * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&gotLeafThreads, dLeafThreads, sizeof(unsigned),
                cudaMemcpyDeviceToHost));

  unsigned long long midTotal = 0, leafTotal = 0;
  for (int i = 0; i < N; ++i) {
    midTotal += gotMid[i];
    if (gotMid[i] != wantMid[i])
      mismatch("mid of parent %d: %llu (want %llu)", i, gotMid[i], wantMid[i]);
  }
  for (int s = 0; s < N * MAXJ; ++s) {
    leafTotal += gotLeaf[s];
    if (gotLeaf[s] != wantLeaf[s])
      mismatch("leaf of parent %d mid thread %d: %llu (want %llu)", s / MAXJ,
               s % MAXJ, gotLeaf[s], wantLeaf[s]);
  }
  if (gotLeafThreads != wantLeafThreads)
    mismatch("leaf threads %u (want %u)", gotLeafThreads, wantLeafThreads);

  std::printf("mid_sum=%llu\n", midTotal);
  std::printf("leaf_sum=%llu leaf_threads=%u\n", leafTotal, gotLeafThreads);

  CK(cudaFree(dMid));
  CK(cudaFree(dLeaf));
  CK(cudaFree(dLeafThreads));
  return finish();
}
