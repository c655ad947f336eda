// PMPP chapter 21's parent_kernel / child_kernel example: each thread computes how many blocks its
// share (size[idx]) needs and launches child_kernel with that many blocks of the parent's own block
// size. The launch is unconditional and not in a loop; the grid and block are known only at run time
// (the block is the parent's blockDim.x, read with llvm.nvvm.read.ptx.sreg.ntid.x); the three pointer
// arguments are the parent's own parameters. The book leaves child_kernel's body out: here it copies.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-graph>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRAPH

// LAUNCH: klap-launch: caller=_Z13parent_kernelPiS_S_ child=_Z12child_kernelPiS_S_ abi=v1 grid=({{%[0-9]+}},1,1) block=({{%[0-9]+}},1,1) dims=byval smem=0 stream=null args=3 [0:ptr=%0 8:ptr=%1 16:ptr=%2] loop=0 divergent=no{{$}}
// LAUNCH-NOT: klap-launch

// GRAPH: klap-graph: kernel=_Z12child_kernelPiS_S_ launches=[]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z13parent_kernelPiS_S_ launches=[_Z12child_kernelPiS_S_]{{$}}
// GRAPH-NOT: recursi

__global__ void child_kernel(int *output, int *input, int *size) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  output[idx] = input[idx];
}

__global__ void parent_kernel(int *output, int *input, int *size) {
  // Thread index
  int idx = threadIdx.x + blockDim.x * blockIdx.x;

  // Number of child blocks
  int numBlocks = size[idx] / blockDim.x;

  // Launch child
  child_kernel<<<numBlocks, blockDim.x>>>(output, input, size);
}
