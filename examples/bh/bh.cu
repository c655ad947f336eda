// bh, CDP version: every body's parent thread writes its interaction list and launches a child grid over it, a
// thread per interaction; each child block adds its sum to the body's acceleration.
#include "bh.h"

__global__ void bh_force_child(BhDev d, int i, int len) {
  __shared__ long long warp_sum[kChildBlock / 32][3];
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  long long a[3] = {0, 0, 0};
  if (k < len) bh_pull(d.nodes, d.x, d.y, d.z, d.n, d.eps2, i, d.lists[(size_t)i * d.list_cap + k], a);
  for (int c = 0; c < 3; c++) {
    for (int o = 16; o > 0; o >>= 1) a[c] += __shfl_down_sync(0xffffffffu, a[c], o);
    if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32][c] = a[c];
  }
  __syncthreads();
  if (threadIdx.x < 3) {
    long long s = 0;
    for (int w = 0; w < (int)blockDim.x / 32; w++) s += warp_sum[w][threadIdx.x];
    atomicAdd((unsigned long long *)&d.acc[3 * i + threadIdx.x], (unsigned long long)s);
  }
}

__global__ void bh_force_parent(BhDev d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= d.n) return;
  const int len = bh_list(d, i);
  if (len > 0) {
    bh_force_child<<<blocks_for(len, kChildBlock), kChildBlock>>>(d, i, len);
    CDP_CHECK_LAUNCH();
  }
}

void bh_force(const BhDev &d) {
  bh_force_parent<<<blocks_for(d.n, kParentBlock), kParentBlock>>>(d);
  CK_LAUNCH(bh_force_parent);
}

int main(int argc, char **argv) { return bh_main(argc, argv, true); }
