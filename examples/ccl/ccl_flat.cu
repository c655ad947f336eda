// ccl, flat version: the host walks the merge levels and launches, per level, one grid that does what the two
// parent threads' children do in ccl.cu: its first kChildBlocks blocks merge across the vertical borders, the
// other kChildBlocks across the horizontal ones. Stream order stands in for the tail launch.
#include "ccl.h"

__global__ void ccl_merge_flat(const unsigned char *img, int *label, int n, int level) {
  int dir = blockIdx.x / kChildBlocks;
  int tid = (blockIdx.x % kChildBlocks) * blockDim.x + threadIdx.x;
  ccl_merge_borders(img, label, n, level, dir, tid, kChildBlocks * blockDim.x);
}

void ccl_merge_levels(const unsigned char *img, int *label, int n, cudaStream_t stream) {
  for (int level = 0; level < ccl_levels(n); level++) {
    ccl_merge_flat<<<kParentThreads * kChildBlocks, kChildBlock, 0, stream>>>(img, label, n, level);
    CK_LAUNCH(ccl_merge_flat);
  }
}

int main(int argc, char **argv) { return ccl_main(argc, argv, false); }
