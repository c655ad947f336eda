// Pattern: the record pool running short. 262,144 parent threads (1,024 blocks of 256) each launch a child
// whose arguments are a 1 KiB struct of their own, all registered in the same scope generation: at grid
// granularity one grid scope needs about 270 MiB of records, more than the default pool's 192 MiB of large
// slabs; at block and warp granularity the resident blocks' and warps' chunks need more than its 64 MiB of
// small slabs. The registrations that find no chunk must make their launch as written (docs/aggregation.md,
// "Never losing a launch"), beside the aggregated ones. The host launches the parent three times: the pool,
// short in the first, must come back for the next. A parent thread in 8 launches nothing (no warp with all 32
// lanes launching is needed). With `-mllvm -klap-pool-size=1` (1 MiB) nearly every launch is made as
// written, at every granularity; with the default (256 MiB) the shortage bites at grid, block and warp.
// Each child sums its struct's words, weighted, into its parent's slot; the host checks every slot.
// A second parent launches the same child from seven lanes in eight (229,376 records, about 226 MiB: short at
// `auto` with the default pool too), and from the eighth a small child of 1 to 40 threads that `auto` runs in
// the launching thread where it has at most 32 (KLAP300): in that kernel a registration that finds no record
// runs its child in the launching thread instead of launching it as written (KLAP215), where lanes in the
// device runtime beside warp-mates running a child hung (test/gpu/warp_reduce.cu with a 1 MiB pool,
// thirty-fourth session).
#include "check.cuh"

#include <vector>

constexpr int PG = 1024, PB = 256;  // parent blocks and threads
constexpr int N = PG * PB;
constexpr int WORDS = 256;          // words of a child's by-value payload (1 KiB)
constexpr int CB = 64;              // child block size
constexpr int ITERS = 3;

struct Payload {
  unsigned w[WORDS];
};

__device__ __host__ inline unsigned mixw(unsigned a, unsigned b) {
  unsigned x = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
  x ^= x >> 15;
  x *= 0x2c1b3c6du;
  return x ^ (x >> 12);
}
__device__ __host__ inline bool launches(int i, int it) { return mixw(i, it) % 8 != 0; }

__global__ void child(Payload p, unsigned *out, int slot) {
  unsigned acc = 0;
  // A loop per thread: the child is launched (aggregated) at auto too, never run in its parent (KLAP305).
  for (int k = threadIdx.x; k < WORDS; k += CB)
    acc += p.w[k] * (unsigned)(k % 7 + 1);
  atomicAdd(&out[slot], acc);
}

__global__ void parent(unsigned *out, int it) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!launches(i, it))
    return;
  Payload p;
  for (int k = 0; k < WORDS; ++k)
    p.w[k] = mixw(i * 977 + it, k);
  child<<<1, CB>>>(p, out, i);
}

__device__ __host__ inline bool small_lane(int i) { return i % 8 == 0; }
__device__ __host__ inline int small_threads(int i, int it) { return 1 + (int)(mixw(i + 7, it) % 40); }

__global__ void small(unsigned *out, int slot, int it) { atomicAdd(&out[slot], mixw(slot, threadIdx.x + 64 * it)); }

__global__ void parent_beside_small(unsigned *out, int it) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (small_lane(i)) {
    small<<<1, small_threads(i, it)>>>(out, i, it);
    return;
  }
  Payload p;
  for (int k = 0; k < WORDS; ++k)
    p.w[k] = mixw(i * 977 + it, k);
  child<<<1, CB>>>(p, out, i);
}

int main() {
  setPendingLaunchLimit(1 << 19);
  std::vector<unsigned> want(N, 0);
  long long wantLaunches = 0;
  for (int it = 0; it < ITERS; ++it)
    for (int i = 0; i < N; ++i) {
      if (!launches(i, it))
        continue;
      ++wantLaunches;
      unsigned acc = 0;
      for (int k = 0; k < WORDS; ++k)
        acc += mixw(i * 977 + it, k) * (unsigned)(k % 7 + 1);
      want[i] += acc;
    }
  std::vector<unsigned> wantBeside(N, 0);
  for (int it = 0; it < ITERS; ++it)
    for (int i = 0; i < N; ++i) {
      if (small_lane(i)) {
        for (int t = 0; t < small_threads(i, it); ++t)
          wantBeside[i] += mixw(i, t + 64 * it);
        continue;
      }
      for (int k = 0; k < WORDS; ++k)
        wantBeside[i] += mixw(i * 977 + it, k) * (unsigned)(k % 7 + 1);
    }
  unsigned *out;
  CK(cudaMalloc(&out, N * sizeof(unsigned)));
  CK(cudaMemset(out, 0, N * sizeof(unsigned)));
  for (int it = 0; it < ITERS; ++it) {
    parent<<<PG, PB>>>(out, it);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
  }
  std::vector<unsigned> got(N);
  CK(cudaMemcpy(got.data(), out, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long checksum = checksumWords(got.data(), want.data(), N, [&](size_t k) {
    mismatch("parent %zu: %08x (want %08x)", k, got[k], want[k]);
  });
  std::printf("launches=%lld of %d parent threads x %d\n", wantLaunches, N, ITERS);
  std::printf("checksum=%llu\n", checksum);
  CK(cudaMemset(out, 0, N * sizeof(unsigned)));
  for (int it = 0; it < ITERS; ++it) {
    parent_beside_small<<<PG, PB>>>(out, it);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
  }
  CK(cudaMemcpy(got.data(), out, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  checksum = checksumWords(got.data(), wantBeside.data(), N, [&](size_t k) {
    mismatch("beside small children: parent %zu: %08x (want %08x)", k, got[k], wantBeside[k]);
  });
  std::printf("beside small children: checksum=%llu\n", checksum);
  CK(cudaFree(out));
  return finish();
}
