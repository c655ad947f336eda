// pd, CDP version: a chain of single-block kernels, one per chunk of the matrix from the last chunk to the first,
// the producer-consumer form KLAP's promotion targets. Each link moves its chunk's elements up to their padded
// places, then one thread launches the link for the chunk below.
//
// Stream: cudaStreamTailLaunch. The next link writes over elements that this link, and links before it, read: the
// dependence is through memory, not a value. A tail launch starts the next link only once this grid has completed,
// so every read of this link comes before every write of the next, whatever thread launched it and whenever.
// (Fire-and-forget, launched after a barrier that follows the last read, would order them too.)
#include "pd.h"

__global__ void pd_chain(int *buf, int cols, int pad, int n, int chunk, int chunk_index) {
  const int first = chunk_index * chunk, end = min(n, first + chunk);
  slide_chunk<Padding>(buf, cols, pad, first, end);
  if (threadIdx.x == 0) {
    chain_link_ran();
    if (chunk_index > 0) {
      pd_chain<<<1, kBlock, 0, cudaStreamTailLaunch>>>(buf, cols, pad, n, chunk, chunk_index - 1);
      CDP_CHECK_LAUNCH();
    }
  }
}

static void pd_run(const SlideDev &d) {
  pd_chain<<<1, kBlock>>>(d.buf, d.cols, d.pad, d.n, d.chunk, (int)blocks_for(d.n, d.chunk) - 1);
  CK_LAUNCH(pd_chain);
}

int main(int argc, char **argv) { return slide_main<Padding>(argc, argv, "pd", pd_run, true); }
