// The aggregated allocations, with the runtime inlined, assemble with ptxas and link with nvlink and
// libcudadevrt at every granularity; at -O0 too, where the kernels call the CUDA headers' static
// wrappers (`_ZL10cudaMallocPPvm`) and load the pointer from its variable at every use.
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 --cuda-device-only -S -mllvm -klap-granularity=warp \
// RUN:   -Rpass=klap %s -o %t.warp.ptx 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: FileCheck %s < %t.warp.ptx
// RUN: %ptxas -arch=sm_90 -c %t.warp.ptx -o %t.warp.o
// RUN: %nvlink -arch=sm_90 %t.warp.o %cudadevrt -o %t.warp.cubin
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 --cuda-device-only -S -mllvm -klap-granularity=block %s -o %t.block.ptx
// RUN: %ptxas -arch=sm_90 -c %t.block.ptx -o %t.block.o
// RUN: %nvlink -arch=sm_90 %t.block.o %cudadevrt -o %t.block.cubin
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 -mllvm -klap-granularity=grid %s -o %t.exe
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O0 --cuda-device-only -S -Rpass=klap -Rpass-missed=klap %s \
// RUN:   -o %t.o0.ptx 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: FileCheck --check-prefix=O0 %s < %t.o0.ptx
// RUN: %ptxas -arch=sm_90 -c %t.o0.ptx -o %t.o0.o
// RUN: %nvlink -arch=sm_90 %t.o0.o %cudadevrt -o %t.o0.cubin
// REMARK-COUNT-3: remark: cudaMalloc aggregated per warp
// REMARK-NOT: KLAP50{{[1-9]}}
// CHECK-LABEL: .entry _Z7scratchPii(
// CHECK: activemask.b32
// CHECK: vote.sync.ballot.b32
// CHECK: call.uni (retval0), __cudaCDP2Malloc,
// CHECK: match.any.sync.b64
// CHECK: atom.acq_rel.gpu.add.u32
// CHECK: call.uni (retval0), __cudaCDP2Free,
// O0-NOT: cudaMallocPPvm
// O0-NOT: cudaFreePv
// O0: activemask.b32
#include <cstdio>

__global__ void scratch(int *out, int n) {
  int *p = nullptr;
  cudaError_t err = cudaMalloc((void **)&p, n * sizeof(int));
  if (err == cudaSuccess) {
    for (int i = 0; i < n; ++i)
      p[i] = i;
    out[threadIdx.x] = p[n - 1];
    cudaFree(p);
  }
}

__global__ void in_loop(int *out, int rounds) {
  int sum = 0;
  for (int r = 0; r < rounds + (int)threadIdx.x % 3; ++r) {
    int *p;
    if (cudaMalloc((void **)&p, (r + 1) * sizeof(int)) != cudaSuccess) {
      sum = -1;
      break;
    }
    p[r] = r;
    sum += p[r];
    cudaFree(p);
  }
  out[threadIdx.x] = sum;
}

__global__ void divergent(int *out) {
  if (threadIdx.x % 3 == 0) {
    long *p;
    if (cudaMalloc((void **)&p, sizeof(long) * threadIdx.x + 8) == cudaSuccess) {
      p[0] = threadIdx.x;
      out[threadIdx.x] = (int)p[0];
      cudaFree(p);
    }
  }
}

int main() { return 0; }
