// Device-side cudaMalloc and cudaFree in a build with -fgpu-rdc: scripts/klap-clang++ defines
// __CUDACC_RDC__ (clang defines only __CLANG_RDC__), so CUDA 13's cuda_device_runtime_api.h declares
// the device runtime's real entry points; without it device code gets inline stubs that return
// cudaErrorUnknown (999) and allocate nothing. The PTX of the wrapper's build calls
// __cudaCDP2Malloc and __cudaCDP2Free (libcudadevrt), and the program links; the same source with
// the plain flags gets the stub. On a GPU the program prints PASS (with the stub: FAIL ... 999).
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o
// RUN: %nvlink -arch=sm_90 %t.o %cudadevrt -o %t.cubin
// RUN: KLAP_PLUGIN=%plugin %root/scripts/klap-clang++ -O2 %s -o %t.exe
// RUN: test -x %t.exe
// RUN: %clang %cudaflags -O2 --cuda-device-only -S %s -o %t.stub.ptx
// RUN: FileCheck --check-prefix=STUB %s < %t.stub.ptx
// CHECK: .extern .func (.param .b32 func_retval0) __cudaCDP2Malloc
// CHECK: .extern .func (.param .b32 func_retval0) __cudaCDP2Free
// CHECK: call.uni (retval0), __cudaCDP2Malloc,
// CHECK: call.uni (retval0), __cudaCDP2Free,
// STUB-NOT: __cudaCDP2Malloc
// STUB: .entry _Z11use_scratchPii
// STUB-NOT: __cudaCDP2Malloc
#include <cstdio>

// Each thread takes a scratch buffer of its own from the device heap, fills it, sums it back, frees it.
__global__ void use_scratch(int *out, int n) {
  int *scratch = nullptr;
  cudaError_t err = cudaMalloc((void **)&scratch, n * sizeof(int));
  int sum = -1;
  if (err == cudaSuccess) {
    for (int i = 0; i < n; ++i)
      scratch[i] = i + (int)threadIdx.x;
    sum = 0;
    for (int i = 0; i < n; ++i)
      sum += scratch[i];
    err = cudaFree(scratch);
  }
  out[2 * threadIdx.x] = sum;
  out[2 * threadIdx.x + 1] = (int)err;
}

int main() {
  const int threads = 32, n = 100;
  int *out = nullptr, host[2 * threads];
  if (cudaMalloc((void **)&out, sizeof host) != cudaSuccess) {
    std::printf("FAIL: no device memory\n");
    return 2;
  }
  use_scratch<<<1, threads>>>(out, n);
  cudaError_t err = cudaDeviceSynchronize();
  if (err == cudaSuccess)
    err = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(err));
    return 2;
  }
  for (int t = 0; t < threads; ++t) {
    int want = n * (n - 1) / 2 + n * t;
    if (host[2 * t] != want || host[2 * t + 1] != 0) {
      std::printf("FAIL: thread %d: sum %d (want %d), device cudaMalloc/cudaFree error %d\n", t, host[2 * t], want,
                  host[2 * t + 1]);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
