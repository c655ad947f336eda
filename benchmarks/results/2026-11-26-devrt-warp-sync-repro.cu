// Minimal: device launches in a divergent loop, beside a warp-synchronous step among the lanes that
// are active at that step (no klap). MODE 0: every lane launches; MODE 1: a shuffle from the leader
// of the active lanes, then every lane launches; MODE 2: the leader claims with a CAS loop, a
// shuffle, then only the leader launches (a warp-aggregated launch done by hand).
#include <cstdio>
#include <vector>
#ifndef MODE
#define MODE 1
#endif
constexpr int N = 3000, PB = 64, MAXK = 12;
__device__ unsigned long long word;
__global__ void child(unsigned *count, int slot) { atomicAdd(&count[slot], 1u); }
__global__ void parent(const int *trips, int n, unsigned *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < trips[i]; ++k) {
    int slot = i * MAXK + k;
#if MODE == 0
    child<<<1, 32>>>(count, slot);
#else
    unsigned m = __activemask();
    int leader = __ffs(m) - 1, lane = threadIdx.x % 32;
    unsigned long long got = 0;
    if (lane == leader) {
#if MODE == 2
      unsigned long long cur = word;
      for (;;) { unsigned long long seen = atomicCAS(&word, cur, cur + 1); if (seen == cur) break; cur = seen; }
      got = cur;
#else
      got = atomicAdd(&word, 1ull);
#endif
    }
    got = __shfl_sync(m, got, leader);
    if (got != ~0ull)
      child<<<1, 32>>>(count, slot);
#endif
  }
}
int main() {
  cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 1 << 15);
  std::vector<int> trips(N);
  long want = 0;
  for (int i = 0; i < N; ++i) { trips[i] = (int)((((unsigned)i * 2246822519u) >> 13) % (MAXK + 1)); want += trips[i]; }
  int *dt; unsigned *dc;
  cudaMalloc(&dt, N * sizeof(int)); cudaMalloc(&dc, N * MAXK * sizeof(unsigned));
  cudaMemcpy(dt, trips.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dc, 0, N * MAXK * sizeof(unsigned));
  parent<<<(N + PB - 1) / PB, PB>>>(dt, N, dc);
  cudaError_t e = cudaDeviceSynchronize();
  std::vector<unsigned> c(N * MAXK);
  cudaMemcpy(c.data(), dc, c.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
  long got = 0; for (unsigned v : c) got += v;
  printf("%s launches %ld child threads %ld (want %ld)\n", cudaGetErrorString(e), want, got, want * 32);
  printf(got == want * 32 ? "PASS\n" : "FAIL\n");
}
