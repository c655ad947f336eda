// What a kernel that may launch, but does not, costs per host launch against one that cannot. Build:
// scripts/klap-clang++ --no-klap -O2 benchmarks/micro/may_launch_cost.cu -o may_launch_cost
#include <cstdio>
#include <cuda_runtime.h>
__global__ void child(int *p) { p[threadIdx.x] += 1; }
__global__ void plain(int *p, int n, int flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
__global__ void may_launch(int *p, int n, int flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
  if (flag && i == 0) child<<<1, 32>>>(p);
}
template <class K> float run(K k, int *p, int reps, bool sync_each) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int r = 0; r < 10; r++) k<<<4, 1024>>>(p, 4096, 0);
  cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int r = 0; r < reps; r++) { k<<<4, 1024>>>(p, 4096, 0); if (sync_each) cudaDeviceSynchronize(); }
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  return ms * 1000 / reps;
}
int main() {
  int *p; cudaMalloc(&p, 4096 * sizeof(int)); cudaMemset(p, 0, 4096 * sizeof(int));
  for (int pass = 0; pass < 3; pass++) {
    printf("pass %d: back-to-back plain %.2f us may_launch %.2f us | synced plain %.2f us may_launch %.2f us\n", pass,
           run(plain, p, 2000, false), run(may_launch, p, 2000, false), run(plain, p, 500, true), run(may_launch, p, 500, true));
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
