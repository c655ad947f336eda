// sa, flat version: every read's thread checks all its candidates itself.
#include "sa.h"

__global__ void sa_parent_flat(SaDev d, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) sa_check_all(d, r, d.cand_off[r], d.cand_off[r + 1]);
}

void sa_check(const SaDev &d, int n) {
  sa_parent_flat<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(sa_parent_flat);
}

int main(int argc, char **argv) { return sa_main(argc, argv, false); }
