// upd, CDP version: a chain of single-block kernels, one per chunk of the padded matrix from the first chunk to the
// last, the producer-consumer form KLAP's promotion targets. Each link moves its chunk's elements down to their
// unpadded places, then one thread launches the link for the chunk above.
//
// Stream: cudaStreamTailLaunch. The next link writes over elements that this link, and links before it, read: the
// dependence is through memory, not a value. A tail launch starts the next link only once this grid has completed,
// so every read of this link comes before every write of the next, whatever thread launched it and whenever.
// (Fire-and-forget, launched after a barrier that follows the last read, would order them too.)
#include "upd.h"

__global__ void upd_chain(int *buf, int cols, int pad, int n, int chunk, int chunk_index) {
  const int first = chunk_index * chunk, end = min(n, first + chunk);
  slide_chunk<Unpadding>(buf, cols, pad, first, end);
  if (threadIdx.x == 0) {
    chain_link_ran();
    if (end < n) {
      upd_chain<<<1, kBlock, 0, cudaStreamTailLaunch>>>(buf, cols, pad, n, chunk, chunk_index + 1);
      CDP_CHECK_LAUNCH();
    }
  }
}

static void upd_run(const SlideDev &d) {
  upd_chain<<<1, kBlock>>>(d.buf, d.cols, d.pad, d.n, d.chunk, 0);
  CK_LAUNCH(upd_chain);
}

int main(int argc, char **argv) { return slide_main<Unpadding>(argc, argv, "upd", upd_run, true); }
