// Pattern: the host gives klap its own record pool (runtime/klap.h) before the first launch; a parent
// launched 200 times has 4,096 threads each launch a child. Checks every child's work, and that the
// transformed program took its records from the host's buffer (an untransformed build has no pool to
// set). Prints the same lines either way.
#include "check.cuh"

#include "../../runtime/klap.h"

#include <vector>

constexpr int ITERS = 200;
constexpr int PG = 32, PB = 128;  // parent blocks and threads: 4096 launching threads
constexpr int CB = 32;            // child block size
constexpr size_t POOL = 16u << 20;

__global__ void child(unsigned *out, int base) {
  atomicAdd(&out[base + threadIdx.x], 1u);
}

__global__ void parent(unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  child<<<1, CB>>>(out, t * CB);
}

int main() {
  setPendingLaunchLimit(1 << 15);
  void *pool;
  CK(cudaMalloc(&pool, POOL));
  CK(cudaMemset(pool, 0, POOL));
  cudaError_t set = klap_set_pool((const void *)parent, pool, POOL);
  if (set != cudaSuccess && set != cudaErrorSymbolNotFound) {
    std::printf("FAIL klap_set_pool: %s\n", cudaGetErrorString(set));
    return 1;
  }
  const int n = PG * PB * CB;
  unsigned *out;
  CK(cudaMalloc(&out, n * sizeof(unsigned)));
  CK(cudaMemset(out, 0, n * sizeof(unsigned)));
  for (int it = 0; it < ITERS; ++it) {
    parent<<<PG, PB>>>(out);
    CK_LAUNCH();
  }
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> got(n);
  CK(cudaMemcpy(got.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (got[i] != ITERS)
      mismatch("out[%d] = %u, want %d", i, got[i], ITERS);
  if (set == cudaSuccess) {
    std::vector<unsigned char> bytes(POOL);
    CK(cudaMemcpy(bytes.data(), pool, POOL, cudaMemcpyDeviceToHost));
    size_t used = 0;
    for (unsigned char b : bytes)
      used += b != 0;
    if (used == 0)
      mismatch("the host's pool was set but no record was written into it");
  }
  std::printf("%d launches of %d children checked\n", ITERS, PG * PB);
  return finish();
}
