// klap_prologue_end() (runtime/klap.h) compiles in a CUDA program and overrides the analysis of what a promoted
// link may run before its wait: this link's input is not `__restrict__`, so the analysis alone would wait before
// its read; the mark after the read and the barrier is where the link waits. The promoted code assembles.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -I%root/runtime -c %s -o %t.bc
// RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all>' -pass-remarks=klap %t.bc -o %t.out.bc 2>&1 | FileCheck %s
// RUN: llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.out.bc -o %t.ptx
// RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o
// CHECK: the wait is at klap_prologue_end(), the programmer's mark, which overrides the analysis of what may run before it [KLAP415]
#include "klap.h"

__global__ void link(const int *in, int *out, int n, int first, int carried) {
  const int i = first + (int)threadIdx.x;
  const int x = i < n ? in[i] : 0;
  __syncthreads();
  klap_prologue_end();
  if (i < n)
    out[i] = x + carried;
  if (threadIdx.x == 0 && first + 256 < n)
    link<<<1, 256, 0, cudaStreamFireAndForget>>>(in, out, n, first + 256, carried + x);
}
