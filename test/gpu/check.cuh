// Shared helpers for the klap GPU tests in this folder (not a test itself).
// Every program prints a few deterministic lines, then PASS (exit 0) or
// FAIL <detail> (exit 1). Nothing printed may depend on timing or on how the
// launches were aggregated, so the transformed and untransformed binaries must
// print byte-identical output.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t ck_err_ = (call);                                              \
    if (ck_err_ != cudaSuccess) {                                              \
      std::printf("FAIL line %d: %s: %s\n", __LINE__, #call,                   \
                  cudaGetErrorString(ck_err_));                                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// After a host-side <<<...>>>: catches configuration errors at once.
#define CK_LAUNCH() CK(cudaGetLastError())

// Room for every device-side launch of the untransformed program.
static inline void setPendingLaunchLimit(size_t n) {
  CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n));
}

// A well-mixed 32-bit hash (the same on host and device), for test data that must not follow a pattern.
__device__ __host__ inline unsigned hashOf(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

static long long g_bad = 0;
static char g_first[256] = "";

// Records one mismatch; the first one is kept for the FAIL line.
__attribute__((format(printf, 1, 2))) static inline void
mismatch(const char *fmt, ...) {
  if (g_bad++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(g_first, sizeof g_first, fmt, ap);
    va_end(ap);
  }
}

// The checksum the programs print of the `n` words `got` (each step times 31 plus the word), and `report(k)`
// for each word k that differs from `want[k]` (it records the mismatch, named as the program likes).
template <class Report>
static inline unsigned long long checksumWords(const unsigned *got, const unsigned *want, size_t n, Report report) {
  unsigned long long checksum = 0;
  for (size_t k = 0; k < n; ++k) {
    checksum = checksum * 31 + got[k];
    if (got[k] != want[k])
      report(k);
  }
  return checksum;
}

// Final verdict and exit status of main.
static inline int finish() {
  if (g_bad == 0) {
    std::printf("PASS\n");
    return 0;
  }
  std::printf("FAIL %lld mismatches, first: %s\n", g_bad, g_first);
  return 1;
}

// Runs `launch` on a device array of `words` words, each 0xffffffff at first, and returns the array once the
// GPU is done.
static inline std::vector<unsigned> runOnWords(size_t words, void (*launch)(unsigned *)) {
  unsigned *d;
  CK(cudaMalloc(&d, words * sizeof(unsigned)));
  CK(cudaMemset(d, 0xff, words * sizeof(unsigned)));
  launch(d);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> h(words);
  CK(cudaMemcpy(h.data(), d, words * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  return h;
}
