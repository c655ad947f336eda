// hello: the smallest useful CDP program. Each parent thread owns a row of uneven length and launches
// a child grid over it from device code; the host checks every element.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

constexpr int kRows = 256;
constexpr int kRowCapacity = 512;

__global__ void scale_row(int *row, int length, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < length) row[i] = (i + 1) * factor;
}

__global__ void launch_rows(int *data, const int *lengths) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows) return;
  int length = lengths[r];
  // Divergent: rows of length 0 launch nothing.
  if (length > 0) scale_row<<<(length + 63) / 64, 64>>>(data + r * kRowCapacity, length, r % 7 + 1);
}

int main() {
  std::vector<int> lengths(kRows);
  for (int r = 0; r < kRows; ++r) lengths[r] = (r * 37) % kRowCapacity * (r % 5 != 0);
  int *d_data, *d_lengths;
  CHECK(cudaMalloc(&d_data, sizeof(int) * kRows * kRowCapacity));
  CHECK(cudaMalloc(&d_lengths, sizeof(int) * kRows));
  CHECK(cudaMemset(d_data, 0, sizeof(int) * kRows * kRowCapacity));
  CHECK(cudaMemcpy(d_lengths, lengths.data(), sizeof(int) * kRows, cudaMemcpyHostToDevice));
  launch_rows<<<kRows / 128, 128>>>(d_data, d_lengths);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> data(kRows * kRowCapacity);
  CHECK(cudaMemcpy(data.data(), d_data, sizeof(int) * data.size(), cudaMemcpyDeviceToHost));
  long long sum = 0;
  int wrong = 0;
  for (int r = 0; r < kRows; ++r)
    for (int i = 0; i < kRowCapacity; ++i) {
      int expect = i < lengths[r] ? (i + 1) * (r % 7 + 1) : 0;
      wrong += data[r * kRowCapacity + i] != expect;
      sum += data[r * kRowCapacity + i];
    }
  printf("hello: %d rows, sum=%lld, wrong=%d\n", kRows, sum, wrong);
  printf("%s\n", wrong == 0 ? "PASS" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
