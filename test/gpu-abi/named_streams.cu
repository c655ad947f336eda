// Launches into the two named device streams. With clang 22's V1 lowering on CUDA 13 these children
// never run (no error is reported); klap-normalize's V2 form runs them. Expect 64 + 64 children.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

__global__ void count_child(unsigned *counter, unsigned weight) { atomicAdd(counter, weight); }

__global__ void parent(unsigned *counters) {
  count_child<<<1, 1, 0, cudaStreamFireAndForget>>>(&counters[0], 1u);
  count_child<<<1, 1, 0, cudaStreamTailLaunch>>>(&counters[1], 1u);
}

int main() {
  unsigned *d_counters, counters[2] = {0, 0};
  CHECK(cudaMalloc(&d_counters, sizeof(counters)));
  CHECK(cudaMemset(d_counters, 0, sizeof(counters)));
  parent<<<2, 32>>>(d_counters);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(counters, d_counters, sizeof(counters), cudaMemcpyDeviceToHost));
  printf("fire-and-forget children ran: %u of 64\n", counters[0]);
  printf("tail-launch children ran: %u of 64\n", counters[1]);
  bool ok = counters[0] == 64 && counters[1] == 64;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
