// Pattern: one parent kernel launching two different child kernels with
// different parameter lists (sizes and alignments differ: pointers, int,
// float, long long, short). Some parent threads launch only the first, some
// only the second, some both, some neither.
#include "check.cuh"

#include <vector>

constexpr int N = 200;  // parent threads
constexpr int PB = 64;  // parent block size (last block: 8 threads)
constexpr int AW = 16;  // ints per parent in A
constexpr int BW = 64;  // doubles per parent in B

__device__ __host__ inline int aLen(int i) { return i % AW + 1; }
__device__ __host__ inline float bScale(int i) { return 0.5f * (float)(i % 7); }
__device__ __host__ inline long long bOff(int i) { return (long long)i << 33; }
__device__ __host__ inline short bTag(int i) { return (short)(-i); }

__device__ __host__ inline double bValue(float scale, long long off, short tag,
                                         int t) {
  return (double)scale * t + (double)off + tag;
}

__global__ void childA(int *dst, int n, int base) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    dst[t] = base + t * t;
}

__global__ void childB(double *dst, float scale, long long off, short tag) {
  int t = threadIdx.x;
  dst[t] = bValue(scale, off, tag, t);
}

__global__ void parent(int *a, double *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i % 2 == 0) {
      int len = aLen(i);
      childA<<<(len + 7) / 8, 8>>>(a + i * AW, len, i * 100);
    }
    if (i % 3 != 0)
      childB<<<1, BW>>>(b + i * BW, bScale(i), bOff(i), bTag(i));
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<int> wantA(N * AW, -1);
  std::vector<double> wantB(N * BW, 0.0);
  int launchesA = 0, launchesB = 0;
  for (int i = 0; i < N; ++i) {
    if (i % 2 == 0) {
      ++launchesA;
      for (int t = 0; t < aLen(i); ++t)
        wantA[i * AW + t] = i * 100 + t * t;
    }
    if (i % 3 != 0) {
      ++launchesB;
      for (int t = 0; t < BW; ++t)
        wantB[i * BW + t] = bValue(bScale(i), bOff(i), bTag(i), t);
    }
  }

  int *dA;
  double *dB;
  CK(cudaMalloc(&dA, N * AW * sizeof(int)));
  CK(cudaMalloc(&dB, N * BW * sizeof(double)));
  CK(cudaMemset(dA, 0xff, N * AW * sizeof(int)));  // -1 everywhere
  CK(cudaMemset(dB, 0, N * BW * sizeof(double)));

  parent<<<(N + PB - 1) / PB, PB>>>(dA, dB, N);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<int> a(N * AW);
  std::vector<double> b(N * BW);
  CK(cudaMemcpy(a.data(), dA, N * AW * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), dB, N * BW * sizeof(double), cudaMemcpyDeviceToHost));

  long long sumA = 0;
  double sumB = 0;
  for (int k = 0; k < N * AW; ++k) {
    sumA += a[k];
    if (a[k] != wantA[k])
      mismatch("A[parent %d][%d] = %d (want %d)", k / AW, k % AW, a[k],
               wantA[k]);
  }
  for (int k = 0; k < N * BW; ++k) {
    sumB += b[k];
    if (b[k] != wantB[k])
      mismatch("B[parent %d][%d] = %.17g (want %.17g)", k / BW, k % BW, b[k],
               wantB[k]);
  }

  std::printf("launchesA=%d launchesB=%d\n", launchesA, launchesB);
  std::printf("sumA=%lld sumB=%.1f\n", sumA, sumB);

  CK(cudaFree(dA));
  CK(cudaFree(dB));
  return finish();
}
