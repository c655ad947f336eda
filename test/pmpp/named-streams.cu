// PMPP chapter 21, "Child kernel launch with named streams": the full launch configuration
// kernel_name<<<Dg, Db, Ns, S>>>(args), with a dim3 grid Dg, a dim3 block Db, Ns bytes of dynamic
// shared memory and a stream S. The book's stream is one the parent thread creates with
// cudaStreamCreateWithFlags(cudaStreamNonBlocking), launches into once and destroys (stream=single-launch:
// ordered after nothing, like fire-and-forget, KLAP209); CUDA 12's
// device runtime adds the named streams cudaStreamTailLaunch and cudaStreamFireAndForget, launched
// here from their own kernels. Every thread launches (no branch, no loop): none is divergent.
// Facts from the source: grid (numBlocks,1,1) from size[], block (128,1,1) or (32,2,1), Ns 512 or
// 0, child parameters (int *, const int *, int) at offsets 0, 8, 16.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-graph>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRAPH

// LAUNCH: klap-launch: caller=_Z21parent_created_streamPiS_S_ child=_Z12child_kernelPiPKii abi=v1 grid=({{%[0-9]+}},1,1) block=(128,1,1) dims=byval smem=512 stream=single-launch args=3 [0:ptr=%0 8:ptr=%1 16:i32={{%[0-9]+}}] loop=0 divergent=no{{$}}
// LAUNCH-NEXT: klap-launch: caller=_Z11parent_tailPiS_S_ child=_Z12child_kernelPiPKii abi=v1 grid=({{%[0-9]+}},1,1) block=(32,2,1) dims=byval smem=0 stream=tail args=3 [0:ptr=%0 8:ptr=%1 16:i32={{%[0-9]+}}] loop=0 divergent=no{{$}}
// LAUNCH-NEXT: klap-launch: caller=_Z22parent_fire_and_forgetPiS_S_ child=_Z12child_kernelPiPKii abi=v1 grid=({{%[0-9]+}},1,1) block=(32,2,1) dims=byval smem=0 stream=fire-and-forget args=3 [0:ptr=%0 8:ptr=%1 16:i32={{%[0-9]+}}] loop=0 divergent=no{{$}}
// LAUNCH-NOT: klap-launch

// GRAPH: klap-graph: kernel=_Z12child_kernelPiPKii launches=[]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z21parent_created_streamPiS_S_ launches=[_Z12child_kernelPiPKii]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z11parent_tailPiS_S_ launches=[_Z12child_kernelPiPKii]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z22parent_fire_and_forgetPiS_S_ launches=[_Z12child_kernelPiPKii]{{$}}
// GRAPH-NOT: recursi

// Doubles n elements of input into output, staging them in dynamic shared memory when there is some.
__global__ void child_kernel(int *output, const int *input, int n) {
  extern __shared__ int stage[];
  int idx = threadIdx.x + blockDim.x * threadIdx.y + blockDim.x * blockDim.y * blockIdx.x;
  if (idx >= n)
    return;
  int v = input[idx];
  if (blockDim.y == 1) {
    stage[threadIdx.x] = v;
    v = stage[threadIdx.x];
  }
  output[idx] = 2 * v;
}

__global__ void parent_created_stream(int *output, int *input, int *size) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  int n = size[idx];
  dim3 Dg((n + 127) / 128, 1, 1);
  dim3 Db(128, 1, 1);
  size_t Ns = 128 * sizeof(int);
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  child_kernel<<<Dg, Db, Ns, S>>>(output, input, n);
  cudaStreamDestroy(S);
}

__global__ void parent_tail(int *output, int *input, int *size) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  int n = size[idx];
  dim3 Dg((n + 63) / 64);
  dim3 Db(32, 2);
  child_kernel<<<Dg, Db, 0, cudaStreamTailLaunch>>>(output, input, n);
}

__global__ void parent_fire_and_forget(int *output, int *input, int *size) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  int n = size[idx];
  dim3 Dg((n + 63) / 64);
  dim3 Db(32, 2);
  child_kernel<<<Dg, Db, 0, cudaStreamFireAndForget>>>(output, input, n);
}
