// Pattern: a child with two adjacent `short` arguments, launched into the tail stream. clang's vectorizer
// writes both with one `<2 x i16>` store; before klap split such a store into its elements the launch was
// unrecognized and stayed in the V1 form, which CUDA 13 drops for tail launches (found by the fuzzer).
#include "check.cuh"

#include <vector>

constexpr int PG = 4;
constexpr int PB = 64;
constexpr int N = PG * PB;
constexpr int CB = 32;

__global__ void child(int *out, short a, short b) { out[threadIdx.x] = a * 1000 + b + (int)threadIdx.x; }

__global__ void parent(int *out, unsigned u) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  child<<<1, CB, 0, cudaStreamTailLaunch>>>(out + CB * g, (short)(u + 53u), (short)(g + 70u));
}

int main() {
  setPendingLaunchLimit(4096);
  int *d;
  CK(cudaMalloc(&d, N * CB * sizeof(int)));
  CK(cudaMemset(d, 0, N * CB * sizeof(int)));
  const unsigned u = 7;
  parent<<<PG, PB>>>(d, u);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<int> out(N * CB);
  CK(cudaMemcpy(out.data(), d, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int g = 0; g < N; ++g)
    for (int t = 0; t < CB; ++t) {
      int want = (short)(u + 53u) * 1000 + (short)(g + 70u) + t;
      int got = out[g * CB + t];
      sum += got;
      if (got != want)
        mismatch("out[%d][%d] = %d (want %d)", g, t, got, want);
    }
  std::printf("sum=%lld\n", sum);
  CK(cudaFree(d));
  return finish();
}
