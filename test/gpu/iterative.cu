// Pattern: the host launches the same small parent 10000 times; each parent
// launches children from a different subset of its threads each iteration.
// Checks the totals at the end. For the transformed program this shows that
// whatever memory the pass uses per parent launch is reused or released, not
// grown per launch.
#include "check.cuh"

constexpr int ITERS = 10000;
constexpr int SYNC_EVERY = 1000;  // host synchronizes every this many parents
constexpr int PG = 2;             // parent blocks
constexpr int PB = 32;            // parent block size
constexpr int CB = 32;            // child block size

struct Totals {
  unsigned long long sum;
  unsigned long long threads;
  unsigned long long launches;
};

__device__ __host__ inline bool launchesChild(int t, int it) {
  return (t + it) % 4 == 0;
}
__device__ __host__ inline unsigned childGrid(int t, int it) {
  return 1 + (t / 4 + it) % 2;
}
__device__ __host__ inline unsigned long long childArg(int t, int it) {
  return (unsigned long long)it * 64 + t;
}

__global__ void child(Totals *tot, unsigned long long v) {
  atomicAdd(&tot->sum, v + threadIdx.x + blockIdx.x);
  atomicAdd(&tot->threads, 1ull);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    atomicAdd(&tot->launches, 1ull);
}

__global__ void parent(Totals *tot, int it) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (launchesChild(t, it))
    child<<<childGrid(t, it), CB>>>(tot, childArg(t, it));
}

int main() {
  setPendingLaunchLimit(1 << 15);

  Totals want = {0, 0, 0};
  for (int it = 0; it < ITERS; ++it)
    for (int t = 0; t < PG * PB; ++t) {
      if (!launchesChild(t, it))
        continue;
      unsigned long long nb = childGrid(t, it), v = childArg(t, it);
      want.launches += 1;
      want.threads += nb * CB;
      // sum over blocks b < nb and threads x < CB of v + x + b
      want.sum += nb * CB * v + nb * (CB * (CB - 1) / 2) + CB * (nb * (nb - 1) / 2);
    }

  Totals *dTot;
  CK(cudaMalloc(&dTot, sizeof(Totals)));
  CK(cudaMemset(dTot, 0, sizeof(Totals)));

  for (int it = 0; it < ITERS; ++it) {
    parent<<<PG, PB>>>(dTot, it);
    CK_LAUNCH();
    if ((it + 1) % SYNC_EVERY == 0)
      CK(cudaDeviceSynchronize());
  }
  CK(cudaDeviceSynchronize());

  Totals got;
  CK(cudaMemcpy(&got, dTot, sizeof(Totals), cudaMemcpyDeviceToHost));

  if (got.launches != want.launches)
    mismatch("child launches %llu (want %llu)", got.launches, want.launches);
  if (got.threads != want.threads)
    mismatch("child threads %llu (want %llu)", got.threads, want.threads);
  if (got.sum != want.sum)
    mismatch("sum %llu (want %llu)", got.sum, want.sum);

  std::printf("iterations=%d child_launches=%llu child_threads=%llu\n", ITERS,
              got.launches, got.threads);
  std::printf("sum=%llu\n", got.sum);

  CK(cudaFree(dTot));
  return finish();
}
