// Stress version of test/gpu/divergent_loop.cu for the warp path (issue 15): N parent threads
// (argument 1, default 3,000) each launch in a loop whose trip count (0..MAXK, argument 2, default 12)
// differs per thread, with the early-exit idiom `if (i >= n) return;` (the last parent block is
// partial). Two parents: one launching in the kernel's own loop (the shape that hung at warp
// granularity in 10 of 10 runs and was moved to block granularity, KLAP207), one calling a
// __noinline__ device function in its loop (the shape left as written, KLAP208). Both now take the
// warp path. Run many times under a timeout (test/gpu/stress/loop.sh): a hang is the failure looked
// for; every launch's arguments, grid and block are checked too.
#include "../check.cuh"

#include <cstdlib>
#include <vector>

constexpr int PB = 64; // parent block size

__device__ __host__ inline int childGrid(int i, int k) { return 1 + (i + k) % 3; }
__device__ __host__ inline int childBlock(int k) { return 32 * (1 + k % 2); }
__device__ __host__ inline int childArg(int i, int k) { return i * 10 + k + 1; }

__global__ void child(unsigned long long *sum, unsigned *threads, int slot, int arg) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&sum[slot], (unsigned long long)(3 * g + 1) * (unsigned)arg);
  atomicAdd(&threads[slot], 1u);
}

__global__ void parent(const int *trips, int n, int maxk, unsigned long long *sum, unsigned *threads) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int t = trips[i];
  for (int k = 0; k < t; ++k)
    child<<<childGrid(i, k), childBlock(k)>>>(sum, threads, i * maxk + k, childArg(i, k));
}

__device__ __noinline__ void launchOne(unsigned long long *sum, unsigned *threads, int i, int k, int maxk) {
  child<<<childGrid(i, k), childBlock(k)>>>(sum, threads, i * maxk + k, childArg(i, k));
}

__global__ void parentThroughFunction(const int *trips, int n, int maxk, unsigned long long *sum,
                                      unsigned *threads) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int t = trips[i];
  for (int k = 0; k < t; ++k)
    launchOne(sum, threads, i, k, maxk);
}

// Runs one parent and checks every launch it made; returns the launches seen.
template <typename Parent>
static unsigned long long runAndCheck(const char *name, Parent kernel, const std::vector<int> &trips, int n,
                                      int maxk, const int *dTrips) {
  const size_t S = (size_t)n * maxk;
  unsigned long long *dSum;
  unsigned *dThreads;
  CK(cudaMalloc(&dSum, S * sizeof(unsigned long long)));
  CK(cudaMalloc(&dThreads, S * sizeof(unsigned)));
  CK(cudaMemset(dSum, 0, S * sizeof(unsigned long long)));
  CK(cudaMemset(dThreads, 0, S * sizeof(unsigned)));
  kernel<<<(n + PB - 1) / PB, PB>>>(dTrips, n, maxk, dSum, dThreads);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> sum(S);
  std::vector<unsigned> threads(S);
  CK(cudaMemcpy(sum.data(), dSum, S * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(threads.data(), dThreads, S * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long launches = 0, wantLaunches = 0, checksum = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < maxk; ++k) {
      size_t s = (size_t)i * maxk + k;
      unsigned long long wantSum = 0;
      unsigned wantThreads = 0;
      if (k < trips[i]) {
        ++wantLaunches;
        wantThreads = (unsigned)(childGrid(i, k) * childBlock(k));
        for (unsigned g = 0; g < wantThreads; ++g)
          wantSum += (unsigned long long)(3 * g + 1) * (unsigned)childArg(i, k);
      }
      launches += threads[s] != 0;
      checksum += sum[s];
      if (sum[s] != wantSum || threads[s] != wantThreads)
        mismatch("%s: parent %d launch %d: sum %llu (want %llu), threads %u (want %u)", name, i, k, sum[s],
                 wantSum, threads[s], wantThreads);
    }
  std::printf("%s: launches=%llu (want %llu) checksum=%llu\n", name, launches, wantLaunches, checksum);
  CK(cudaFree(dSum));
  CK(cudaFree(dThreads));
  return launches;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3000;
  int maxk = argc > 2 ? std::atoi(argv[2]) : 12;
  if (n < 160 || maxk < 1) {
    std::printf("FAIL usage: %s [parent threads >= 160] [most launches per thread >= 1]\n", argv[0]);
    return 1;
  }
  setPendingLaunchLimit((size_t)n * maxk + 1024);

  std::vector<int> trips(n);
  for (int i = 0; i < n; ++i) {
    trips[i] = (int)((((unsigned)i * 2246822519u) >> 13) % (unsigned)(maxk + 1));
    if (i >= 64 && i < 96)
      trips[i] = 0; // a whole warp that never launches
    if (i >= 128 && i < 160)
      trips[i] = maxk; // a whole warp with the same, maximal trip count
  }
  int *dTrips;
  CK(cudaMalloc(&dTrips, n * sizeof(int)));
  CK(cudaMemcpy(dTrips, trips.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  std::printf("parents=%d most_launches=%d\n", n, maxk);
  runAndCheck("kernel_loop", parent, trips, n, maxk, dTrips);
  runAndCheck("function_in_loop", parentThroughFunction, trips, n, maxk, dTrips);

  CK(cudaFree(dTrips));
  return finish();
}
