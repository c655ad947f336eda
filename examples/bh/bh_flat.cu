// bh, flat version: every body's thread writes its interaction list and sums it itself.
#include "bh.h"

__global__ void bh_force_flat(BhDev d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= d.n) return;
  const int len = bh_list(d, i);
  const int *list = d.lists + (size_t)i * d.list_cap;
  long long a[3] = {0, 0, 0};
  for (int k = 0; k < len; k++) bh_pull(d.nodes, d.x, d.y, d.z, d.n, d.eps2, i, list[k], a);
  for (int c = 0; c < 3; c++) d.acc[3 * i + c] = a[c];
}

void bh_force(const BhDev &d) {
  bh_force_flat<<<blocks_for(d.n, kParentBlock), kParentBlock>>>(d);
  CK_LAUNCH(bh_force_flat);
}

int main(int argc, char **argv) { return bh_main(argc, argv, false); }
