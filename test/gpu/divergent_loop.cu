// Pattern: each parent thread launches inside a loop whose trip count (0..12)
// differs per thread, every launch with its own arguments, grid size and block
// size. The parent uses the common early-exit idiom `if (i >= n) return;`
// (the last parent block is partial), so some threads have left the kernel
// before the others reach the launch. At this size, launches made in the loop
// at warp granularity deadlocked (every run); 300 threads of up to 5 launches
// did not show it.
#include "check.cuh"

#include <vector>

constexpr int N = 3000;  // parent threads
constexpr int PB = 64;   // parent block size (last block: 56 threads)
constexpr int MAXK = 12; // most launches per parent thread

__device__ __host__ inline int childGrid(int i, int k) { return 1 + (i + k) % 3; }
__device__ __host__ inline int childBlock(int k) { return 32 * (1 + k % 2); }
__device__ __host__ inline int childArg(int i, int k) { return i * 10 + k + 1; }

__global__ void child(unsigned long long *sum, unsigned *threads, int slot,
                      int arg) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&sum[slot], (unsigned long long)(3 * g + 1) * (unsigned)arg);
  atomicAdd(&threads[slot], 1u);
}

__global__ void parent(const int *trips, int n, unsigned long long *sum,
                       unsigned *threads) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int t = trips[i];
  for (int k = 0; k < t; ++k)
    child<<<childGrid(i, k), childBlock(k)>>>(sum, threads, i * MAXK + k,
                                               childArg(i, k));
}

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<int> trips(N);
  for (int i = 0; i < N; ++i) {
    trips[i] = (int)((((unsigned)i * 2246822519u) >> 13) % (MAXK + 1));
    if (i >= 64 && i < 96)
      trips[i] = 0;  // a whole warp that never launches
    if (i >= 128 && i < 160)
      trips[i] = MAXK;  // a whole warp with the same, maximal trip count
  }

  const int S = N * MAXK;
  std::vector<unsigned long long> wantSum(S, 0);
  std::vector<unsigned> wantThreads(S, 0);
  unsigned long long wantLaunches = 0;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < trips[i]; ++k) {
      ++wantLaunches;
      unsigned total = (unsigned)(childGrid(i, k) * childBlock(k));
      for (unsigned g = 0; g < total; ++g)
        wantSum[i * MAXK + k] +=
            (unsigned long long)(3 * g + 1) * (unsigned)childArg(i, k);
      wantThreads[i * MAXK + k] = total;
    }

  int *dTrips;
  unsigned long long *dSum;
  unsigned *dThreads;
  CK(cudaMalloc(&dTrips, N * sizeof(int)));
  CK(cudaMalloc(&dSum, S * sizeof(unsigned long long)));
  CK(cudaMalloc(&dThreads, S * sizeof(unsigned)));
  CK(cudaMemcpy(dTrips, trips.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dSum, 0, S * sizeof(unsigned long long)));
  CK(cudaMemset(dThreads, 0, S * sizeof(unsigned)));

  parent<<<(N + PB - 1) / PB, PB>>>(dTrips, N, dSum, dThreads);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned long long> sum(S);
  std::vector<unsigned> threads(S);
  CK(cudaMemcpy(sum.data(), dSum, S * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(threads.data(), dThreads, S * sizeof(unsigned),
                cudaMemcpyDeviceToHost));

  unsigned long long checksum = 0, totalThreads = 0, launches = 0;
  for (int s = 0; s < S; ++s) {
    checksum += sum[s];
    totalThreads += threads[s];
    launches += threads[s] != 0;
    if (sum[s] != wantSum[s] || threads[s] != wantThreads[s])
      mismatch("parent %d launch %d: sum %llu (want %llu), threads %u (want %u)",
               s / MAXK, s % MAXK, sum[s], wantSum[s], threads[s],
               wantThreads[s]);
  }

  std::printf("launches=%llu (want %llu) child_threads=%llu\n", launches,
              wantLaunches, totalThreads);
  std::printf("checksum=%llu\n", checksum);

  CK(cudaFree(dTrips));
  CK(cudaFree(dSum));
  CK(cudaFree(dThreads));
  return finish();
}
