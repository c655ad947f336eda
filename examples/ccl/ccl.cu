// ccl, CDP version: a parent of 1 block x 2 threads per merge level, each thread launching the child grid for one
// border direction. The original parent looped over the levels and waited for each level's children with
// device-side cudaDeviceSynchronize, which CDP2 does not have; here thread 0 instead tail-launches the next level's
// parent, which starts only once this grid and every grid it launched have finished: the same order, no wait.
// The chain nests one level deeper per merge level: at most 10 for --size 16384, under CDP's limit of 24.
#include "ccl.h"

__global__ void ccl_merge(const unsigned char *img, int *label, int n, int level, int dir) {
  ccl_merge_borders(img, label, n, level, dir, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}

__global__ void ccl_merge_level(const unsigned char *img, int *label, int n, int level) {
  // The two directions' unions commute, so neither child needs to wait for the other.
  ccl_merge<<<kChildBlocks, kChildBlock, 0, cudaStreamFireAndForget>>>(img, label, n, level, threadIdx.x);
  CDP_CHECK_LAUNCH();
  if (threadIdx.x == 0 && (kTile << (level + 1)) < n) {
    ccl_merge_level<<<1, kParentThreads, 0, cudaStreamTailLaunch>>>(img, label, n, level + 1);
    CDP_CHECK_LAUNCH();
  }
}

// The host stream's next kernel (ccl_final) waits for the whole chain: a grid is complete only when everything it
// launched, tail launches included, is.
void ccl_merge_levels(const unsigned char *img, int *label, int n, cudaStream_t stream) {
  if (ccl_levels(n) == 0) return;
  ccl_merge_level<<<1, kParentThreads, 0, stream>>>(img, label, n, 0);
  CK_LAUNCH(ccl_merge_level);
}

int main(int argc, char **argv) { return ccl_main(argc, argv, true); }
