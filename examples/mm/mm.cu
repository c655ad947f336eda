// mm, CDP version: each row's thread launches a child grid of one thread per dense column.
#include "mm.h"

__global__ void mm_child(const int *col, const float *val, int nnz, const float *b, float *c_row, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) c_row[j] = mm_dot(col, val, nnz, b, m, j);
}

__global__ void mm_parent(MmDev d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int begin = d.off[i], nnz = d.off[i + 1] - begin;
  float *c_row = d.c + (long long)i * d.m;
  if (nnz > 0) {
    mm_child<<<blocks_for(d.m, kChildBlock), kChildBlock>>>(d.col + begin, d.val + begin, nnz, d.b, c_row, d.m);
    CDP_CHECK_LAUNCH();
  } else {
    for (int j = 0; j < d.m; j++) c_row[j] = 0.0f;
  }
}

void mm_multiply(const MmDev &d, int n) {
  mm_parent<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(mm_parent);
}

int main(int argc, char **argv) { return mm_main(argc, argv, true); }
