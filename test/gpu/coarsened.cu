// Pattern: many children of many blocks each, of differing grid and block sizes, whose threads return
// early past a bound: what a coarsened aggregated child (-klap-coarsen) runs several of per block, through
// one record's blocks (no lookup) and from one record into the next. Each child thread that passes the bound
// writes its slot once (its block, thread and a word from its arguments); the host checks every slot, those
// no thread may write included, and the count of threads that ran.
#include "check.cuh"

#include <vector>

constexpr int N = 6000;     // parent threads
constexpr int PB = 128;     // parent block size
constexpr int MAXB = 9;     // most blocks of one child
constexpr int MAXT = 128;   // most threads of one child block

__device__ __host__ inline int blocksOf(int i) { return 1 + i % MAXB; }
__device__ __host__ inline int threadsOf(int i) { return 32 * (1 + (i / MAXB) % 4); }
// Threads of the child at or past this return at once.
__device__ __host__ inline int boundOf(int i) { return blocksOf(i) * threadsOf(i) - 7 * (i % 5); }

__global__ void child(unsigned *out, int bound, unsigned tag, unsigned *ran) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= bound)
    return;
  out[t] = tag ^ (blockIdx.x << 20) ^ (threadIdx.x << 8) ^ gridDim.x ^ (blockDim.x << 12);
  atomicAdd(ran, 1u);
}

__global__ void parent(unsigned *out, unsigned *ran, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  child<<<blocksOf(i), threadsOf(i)>>>(out + (size_t)i * MAXB * MAXT, boundOf(i), 0x9e3779b9u * i, ran);
}

int main() {
  setPendingLaunchLimit(1 << 15);
  const size_t S = (size_t)N * MAXB * MAXT;
  std::vector<unsigned> want(S, 0xffffffffu);
  unsigned long long wantRan = 0;
  for (int i = 0; i < N; ++i) {
    unsigned tag = 0x9e3779b9u * i;
    for (int t = 0; t < boundOf(i); ++t) {
      unsigned b = t / threadsOf(i), x = t % threadsOf(i);
      want[(size_t)i * MAXB * MAXT + t] = tag ^ (b << 20) ^ (x << 8) ^ blocksOf(i) ^ (threadsOf(i) << 12);
      ++wantRan;
    }
  }
  unsigned *dOut, *dRan;
  CK(cudaMalloc(&dOut, S * sizeof(unsigned)));
  CK(cudaMalloc(&dRan, sizeof(unsigned)));
  CK(cudaMemset(dOut, 0xff, S * sizeof(unsigned)));
  CK(cudaMemset(dRan, 0, sizeof(unsigned)));
  parent<<<(N + PB - 1) / PB, PB>>>(dOut, dRan, N);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> out(S);
  unsigned ran = 0;
  CK(cudaMemcpy(out.data(), dOut, S * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&ran, dRan, sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long checksum = checksumWords(out.data(), want.data(), S, [&](size_t k) {
    mismatch("parent %zu slot %zu: %08x (want %08x)", k / (MAXB * MAXT), k % (MAXB * MAXT), out[k], want[k]);
  });
  if (ran != wantRan)
    mismatch("%u child threads ran (want %llu)", ran, wantRan);
  std::printf("child_threads=%u\n", ran);
  std::printf("checksum=%llu\n", checksum);
  CK(cudaFree(dOut));
  CK(cudaFree(dRan));
  return finish();
}
