// Pattern: a launch taken by only some parent threads
// (`if (data[i] % 3 == 0) child<<<...>>>`), with a child grid size that
// differs per parent thread. The data is shaped so that one parent block has
// no launching thread at all, one warp launches in every lane, and the last
// parent block is partial.
#include "check.cuh"

#include <vector>

constexpr int N = 1000;  // parent threads
constexpr int PB = 128;  // parent block size (last block: 104 threads)
constexpr int CB = 32;   // child block size

__global__ void child(unsigned long long *sum, unsigned *threads,
                      unsigned *launches, int parent, int v) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&sum[parent], (unsigned long long)(g + 1) * (unsigned)(v + 1));
  atomicAdd(&threads[parent], 1u);
  if (g == 0)
    atomicAdd(launches, 1u);
}

__global__ void parent(const int *data, int n, unsigned long long *sum,
                       unsigned *threads, unsigned *launches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] % 3 == 0) {
    int v = data[i];
    child<<<(v / 3) % 6 + 1, CB>>>(sum, threads, launches, i, v);
  }
}

static int childBlocks(int v) { return (v / 3) % 6 + 1; }

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<int> data(N);
  for (int i = 0; i < N; ++i) {
    int v = (int)(((unsigned)i * 2654435761u) >> 16) % 1000;
    if (i / PB == 4)
      v = 3 * (v / 3) + 1;  // parent block 4: nobody launches
    if (i >= 256 && i < 288)
      v = 3 * (v / 3);  // one whole warp launches
    data[i] = v;
  }

  // CPU reference.
  std::vector<unsigned long long> wantSum(N, 0);
  std::vector<unsigned> wantThreads(N, 0);
  unsigned wantLaunches = 0;
  for (int i = 0; i < N; ++i) {
    int v = data[i];
    if (v % 3 != 0)
      continue;
    ++wantLaunches;
    unsigned total = (unsigned)(childBlocks(v) * CB);
    for (unsigned g = 0; g < total; ++g)
      wantSum[i] += (unsigned long long)(g + 1) * (unsigned)(v + 1);
    wantThreads[i] = total;
  }

  int *dData;
  unsigned long long *dSum;
  unsigned *dThreads, *dLaunches;
  CK(cudaMalloc(&dData, N * sizeof(int)));
  CK(cudaMalloc(&dSum, N * sizeof(unsigned long long)));
  CK(cudaMalloc(&dThreads, N * sizeof(unsigned)));
  CK(cudaMalloc(&dLaunches, sizeof(unsigned)));
  CK(cudaMemcpy(dData, data.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dSum, 0, N * sizeof(unsigned long long)));
  CK(cudaMemset(dThreads, 0, N * sizeof(unsigned)));
  CK(cudaMemset(dLaunches, 0, sizeof(unsigned)));

  parent<<<(N + PB - 1) / PB, PB>>>(dData, N, dSum, dThreads, dLaunches);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned long long> sum(N);
  std::vector<unsigned> threads(N);
  unsigned launches;
  CK(cudaMemcpy(sum.data(), dSum, N * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(threads.data(), dThreads, N * sizeof(unsigned),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&launches, dLaunches, sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned long long checksum = 0, totalThreads = 0;
  for (int i = 0; i < N; ++i) {
    checksum += sum[i];
    totalThreads += threads[i];
    if (sum[i] != wantSum[i] || threads[i] != wantThreads[i])
      mismatch("parent %d: sum %llu (want %llu), threads %u (want %u)", i,
               sum[i], wantSum[i], threads[i], wantThreads[i]);
  }
  if (launches != wantLaunches)
    mismatch("launches %u (want %u)", launches, wantLaunches);

  std::printf("launches=%u child_threads=%llu\n", launches, totalThreads);
  std::printf("checksum=%llu\n", checksum);

  CK(cudaFree(dData));
  CK(cudaFree(dSum));
  CK(cudaFree(dThreads));
  CK(cudaFree(dLaunches));
  return finish();
}
