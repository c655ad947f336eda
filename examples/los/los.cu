// los, CDP version: a chain of single-block kernels, one per chunk, the producer-consumer form KLAP's promotion
// targets. Each link decides the visibility of its chunk's points given the largest slope before the chunk, then
// one thread launches the link for the next chunk with that maximum raised by this chunk's slopes.
//
// Stream: cudaStreamFireAndForget. The next link needs only the maximum, a launch argument; it reads only the
// heights, which nothing writes, and writes flags this link does not. It need not wait for this grid to complete
// (what cudaStreamTailLaunch would add), so it may start as soon as it is launched. Each link is then a child of the
// one before: the chain is as deep as it is long (../PROMOTION.md says what that means for the nesting limit).
#include "los.h"

__global__ void los_chain(const float *__restrict__ height, unsigned char *visible, int n, int chunk, int first, float max_before) {
  const int end = min(n, first + chunk);
  const float max_after = los_chunk(height, visible, first, end, max_before);
  if (threadIdx.x == 0) {
    chain_link_ran();
    if (end < n) {
      los_chain<<<1, kBlock, 0, cudaStreamFireAndForget>>>(height, visible, n, chunk, end, max_after);
      CDP_CHECK_LAUNCH();
    }
  }
}

static void los_run(const LosDev &d) {
  los_chain<<<1, kBlock>>>(d.height, d.visible, d.n, d.chunk, 0, -INFINITY);
  CK_LAUNCH(los_chain);
}

int main(int argc, char **argv) { return los_main(argc, argv, los_run, true); }
