// klap's host-side setting: the device memory its aggregation records are taken from.
//
// By default each translation unit's device code carries its own pool (-klap-pool-size, in MiB;
// 256 by default). A program may give its own instead, once, before the first launch of a kernel
// that klap transformed:
//
//   void *pool;
//   cudaMalloc(&pool, bytes);
//   klap_set_pool((const void *)my_kernel, pool, bytes);   // any kernel of the program's device code
//
// The pool must stay allocated while kernels run. Returns cudaErrorSymbolNotFound when the program's
// device code holds no klap runtime (nothing was aggregated). Header-only; no library to link.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <stddef.h>

static inline cudaError_t klap_set_pool(const void *kernel, void *pool, size_t bytes) {
  typedef CUresult (*FuncGetModule)(CUmodule *, CUfunction);
  typedef CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
  void *get_module = NULL, *get_global = NULL;
  cudaError_t err = cudaGetDriverEntryPointByVersion("cuFuncGetModule", &get_module, 12000, cudaEnableDefault, NULL);
  if (err == cudaSuccess)
    err = cudaGetDriverEntryPointByVersion("cuModuleGetGlobal", &get_global, 12000, cudaEnableDefault, NULL);
  if (err != cudaSuccess)
    return err;
  cudaFunction_t function;
  if ((err = cudaGetFuncBySymbol(&function, kernel)) != cudaSuccess)
    return err;
  CUmodule module;
  if (((FuncGetModule)get_module)(&module, (CUfunction)function) != CUDA_SUCCESS)
    return cudaErrorInvalidDeviceFunction;
  // The runtime's klap_host_pool: { base, bytes, owner }.
  CUdeviceptr setting;
  size_t size;
  if (((ModuleGetGlobal)get_global)(&setting, &size, module, "klap_host_pool") != CUDA_SUCCESS)
    return cudaErrorSymbolNotFound;
  unsigned long long value[3] = {(unsigned long long)(size_t)pool, (unsigned long long)bytes, 0};
  if (size != sizeof value)
    return cudaErrorInvalidSymbol;
  return cudaMemcpy((void *)(size_t)setting, value, sizeof value, cudaMemcpyHostToDevice);
}

// Promotion with overlap (docs/promotion.md): klap finds by itself what a promoted link may run before it
// waits for the link before (reads through `const T *__restrict__` parameters, shared memory, barriers).
// Where the analysis stops too early, a kernel may mark the end of its prologue:
//
//   __global__ void link(const int *in, int *out, int n, int first, int carried) {
//     ... loads and ranking that need nothing from the link before ...
//     klap_prologue_end();
//     ... the part that needs `carried` ...
//   }
//
// The mark is a promise that nothing before it reads memory a link earlier in the chain writes. klap then
// waits there (remark KLAP415), where every thread passes once and no parameter the link before computes is
// used before it (else KLAP416 says why, and the analysis decides). Without klap it compiles to nothing but
// a PTX comment (its memory clobber keeps the compiler from moving memory accesses across it).
#ifdef __CUDACC__
static __device__ __forceinline__ void klap_prologue_end(void) { asm volatile("// klap_prologue_end" ::: "memory"); }
#endif
