// Pattern: each parent thread creates a non-blocking stream, launches one child into it and destroys
// it (issue 15, item 3): the launch is ordered after nothing, like fire-and-forget, and klap aggregates
// it (KLAP209). Beside it, a parent whose stream carries two launches in order (the second reads what
// the first wrote): those keep their stream (KLAP201) and must still run in order.
#include "check.cuh"

#include <vector>

constexpr int N = 500;   // parent threads of each pattern
constexpr int PB = 128;  // parent block size
constexpr int W = 24;    // ints per parent

__host__ __device__ inline int len_of(int i) { return i % W + 1; }

__global__ void fill(int *dst, int n, int base) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    dst[t] = base + 7 * t;
}

__global__ void add_one(int *dst, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    dst[t] += 1;
}

// One stream per launch: created, used once, destroyed.
__global__ void parent_single(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    fill<<<(len_of(i) + 7) / 8, 8, 0, s>>>(out + i * W, len_of(i), 100 * i);
    cudaStreamDestroy(s);
  }
}

// One stream, two launches that must run in order.
__global__ void parent_ordered(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    fill<<<(len_of(i) + 7) / 8, 8, 0, s>>>(out + i * W, len_of(i), 100 * i);
    add_one<<<(len_of(i) + 7) / 8, 8, 0, s>>>(out + i * W, len_of(i));
    cudaStreamDestroy(s);
  }
}

int main() {
  setPendingLaunchLimit(1 << 13);
  int *single = nullptr, *ordered = nullptr;
  CK(cudaMalloc(&single, sizeof(int) * N * W));
  CK(cudaMalloc(&ordered, sizeof(int) * N * W));
  CK(cudaMemset(single, 0xff, sizeof(int) * N * W));
  CK(cudaMemset(ordered, 0xff, sizeof(int) * N * W));
  parent_single<<<(N + PB - 1) / PB, PB>>>(single);
  CK_LAUNCH();
  parent_ordered<<<(N + PB - 1) / PB, PB>>>(ordered);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<int> a(N * W), b(N * W);
  CK(cudaMemcpy(a.data(), single, sizeof(int) * a.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), ordered, sizeof(int) * b.size(), cudaMemcpyDeviceToHost));
  long long sa = 0, sb = 0;
  for (int i = 0; i < N; ++i)
    for (int t = 0; t < W; ++t) {
      int want = t < len_of(i) ? 100 * i + 7 * t : -1;
      sa += a[i * W + t];
      sb += b[i * W + t];
      if (a[i * W + t] != want)
        mismatch("single-launch stream, parent %d, element %d: %d, want %d", i, t, a[i * W + t], want);
      if (b[i * W + t] != (t < len_of(i) ? want + 1 : -1))
        mismatch("ordered stream, parent %d, element %d: %d, want %d", i, t, b[i * W + t], t < len_of(i) ? want + 1 : -1);
    }
  std::printf("single-launch streams: checksum %lld\nordered streams: checksum %lld\n", sa, sb);
  CK(cudaFree(single));
  CK(cudaFree(ordered));
  return finish();
}
