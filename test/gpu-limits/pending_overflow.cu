// More launches at once than the device runtime holds (2,048 pending launches by default, left as it is
// here): a parent grid whose every thread launches one child of one 32-thread block. As written, in plain
// CDP, the launches beyond the device runtime's room are refused and lost (the program prints FAIL: this
// folder's README). At block and warp granularity klap makes one launch a block or warp, still more than
// 2,048: a launch refused for room is left to its grid's waiter (runtime/launch.cu), and no child may be
// lost. Parent blocks of 32 and of 64 threads: a multiprocessor holds 32 of them, and with every one
// of them waiting for room (as klap's launches did before the waiter) no child had room to start. Sized
// so that the record pool's small slabs (64 MiB) hold every chunk waiting for its launch: a chunk that
// cannot be had makes its launch as written, and a launch as written refused is lost (and reported).
#include "../gpu/check.cuh"

#include <vector>

__global__ void child(unsigned *out, unsigned id) {
  out[(size_t)id * 32 + threadIdx.x] = hashOf(id * 32 + threadIdx.x);
}

__global__ void parent(unsigned *out) {
  unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  child<<<1, 32>>>(out, id);
}

static bool run(int blocks, int threads) {
  size_t n = (size_t)blocks * threads * 32;
  unsigned *out;
  CK(cudaMalloc(&out, n * sizeof(unsigned)));
  CK(cudaMemset(out, 0, n * sizeof(unsigned)));
  parent<<<blocks, threads>>>(out);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> h(n);
  CK(cudaMemcpy(h.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaFree(out));
  size_t missing = 0;
  for (size_t i = 0; i < n; ++i)
    missing += h[i] != hashOf((unsigned)i);
  std::printf("%d blocks of %d threads: %zu of %zu child threads did not run\n", blocks, threads, missing, n);
  return missing == 0;
}

int main() {
  bool ok = run(12000, 32);
  ok = run(6000, 64) && ok;
  std::printf(ok ? "PASS\n" : "FAIL children lost\n");
  return ok ? 0 : 1;
}
