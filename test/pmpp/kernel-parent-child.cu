// PMPP chapter 21, "A revised example using CUDA dynamic parallelism": each thread of kernel_parent
// does its own work and then launches kernel_child over its range [start[i], end[i]) of moreData, in
// blocks of 256. The listing's doSomeWork / doMoreWork are left undefined by the book; here they are
// small device functions. Every thread launches (no branch around the launch), into the NULL stream,
// with a grid computed at run time and three arguments.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-graph>' -disable-output %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRAPH

// LAUNCH: klap-launch: caller=_Z13kernel_parentPjS_PfS0_ child=_Z12kernel_childjjPf abi=v1 grid=({{%[0-9]+}},1,1) block=(256,1,1) dims=byval smem=0 stream=null args=3 [0:i32={{%[0-9]+}} 4:i32={{%[0-9]+}} 8:ptr=%3] loop=0 divergent=no{{$}}
// LAUNCH-NOT: klap-launch

// GRAPH: klap-graph: kernel=_Z13kernel_parentPjS_PfS0_ launches=[_Z12kernel_childjjPf]{{$}}
// GRAPH-NEXT: klap-graph: kernel=_Z12kernel_childjjPf launches=[]{{$}}
// GRAPH-NOT: recursi

__device__ void doSomeWork(float &x) { x = x * x + 1.0f; }

__device__ void doMoreWork(float &x) { x = 0.5f * x; }

__global__ void kernel_child(unsigned int start, unsigned int end, float *moreData);

__global__ void kernel_parent(unsigned int *start, unsigned int *end, float *someData, float *moreData) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  doSomeWork(someData[i]);

  kernel_child<<<ceil((end[i] - start[i]) / 256.0), 256>>>(start[i], end[i], moreData);
}

__global__ void kernel_child(unsigned int start, unsigned int end, float *moreData) {
  unsigned int j = start + blockIdx.x * blockDim.x + threadIdx.x;

  if (j < end) {
    doMoreWork(moreData[j]);
  }
}
