// cooperative_groups in a CDP build: CUDA 13's cooperative_groups.h includes <cuda/std/type_traits>,
// which lives under the CUDA tree's include/cccl, a folder clang does not search. scripts/klap-clang++
// adds it, and this program (a parent that reduces with a warp tile and launches a child grid)
// compiles, and its device code links against libcudadevrt; with the plain flags the header is not
// found. On a GPU the program prints PASS.
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 -Rpass=klap %s -o %t.exe 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: test -x %t.exe
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: not %clang %cudaflags -O2 --cuda-device-only -S %s -o %t.plain.ptx 2>&1 | FileCheck --check-prefix=PLAIN %s
// REMARK: remark: {{.*}}[KLAP200]
// CHECK: redux.sync.add
// CHECK: __cudaCDP2LaunchDeviceV2
// PLAIN: fatal error: 'cuda/std/type_traits' file not found
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void scale(int *out, int factor) { out[threadIdx.x] *= factor; }

// Block b sums its 64 values with warp tiles; its first thread launches a child that scales them by
// the block's sum.
__global__ void parent(int *data, int *sums) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int *mine = data + 64 * blockIdx.x;
  int warp_sum = cg::reduce(warp, mine[threadIdx.x], cg::plus<int>());
  if (warp.thread_rank() == 0)
    atomicAdd(&sums[blockIdx.x], warp_sum);
  block.sync();
  if (block.thread_rank() == 0)
    scale<<<1, 64>>>(mine, sums[blockIdx.x]);
}

int main() {
  const int blocks = 4, n = 64 * blocks;
  int host[n], *data = nullptr, *sums = nullptr;
  for (int i = 0; i < n; ++i)
    host[i] = i % 7;
  cudaError_t err = cudaMalloc((void **)&data, sizeof host);
  if (err == cudaSuccess)
    err = cudaMalloc((void **)&sums, blocks * sizeof(int));
  if (err == cudaSuccess)
    err = cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemset(sums, 0, blocks * sizeof(int));
  if (err == cudaSuccess) {
    parent<<<blocks, 64>>>(data, sums);
    err = cudaDeviceSynchronize();
  }
  int got[n];
  if (err == cudaSuccess)
    err = cudaMemcpy(got, data, sizeof got, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(err));
    return 2;
  }
  for (int b = 0; b < blocks; ++b) {
    int sum = 0;
    for (int i = 0; i < 64; ++i)
      sum += host[64 * b + i];
    for (int i = 0; i < 64; ++i)
      if (got[64 * b + i] != host[64 * b + i] * sum) {
        std::printf("FAIL: block %d value %d: %d (want %d)\n", b, i, got[64 * b + i], host[64 * b + i] * sum);
        return 1;
      }
  }
  std::printf("PASS\n");
  return 0;
}
