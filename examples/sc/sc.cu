// sc, CDP version: a chain of single-block kernels, one per chunk, the producer-consumer form KLAP's promotion
// targets. Each link compacts its chunk at the output offset it was given, then one thread launches the link for the
// next chunk with the offset moved past what this chunk kept.
//
// Stream: cudaStreamFireAndForget. The next link needs only the offset, a launch argument; it reads only the input,
// which nothing writes, and writes output positions this link does not. It need not wait for this grid to complete
// (what cudaStreamTailLaunch would add), so it may start as soon as it is launched. Each link is then a child of the
// one before: the chain is as deep as it is long (../PROMOTION.md says what that means for the nesting limit).
#include "sc.h"

__global__ void sc_chain(const int *__restrict__ in, int *out, int n, int chunk, int first, int kept_before, int *kept_total) {
  const int end = min(n, first + chunk);
  const int kept_after = compact_chunk<Sc>(in, out, n, first, end, kept_before);
  if (threadIdx.x == 0) {
    chain_link_ran();
    if (end < n) {
      sc_chain<<<1, kBlock, 0, cudaStreamFireAndForget>>>(in, out, n, chunk, end, kept_after, kept_total);
      CDP_CHECK_LAUNCH();
    } else {
      *kept_total = kept_after;
    }
  }
}

static void sc_run(const CompactDev &d) {
  sc_chain<<<1, kBlock>>>(d.in, d.out, d.n, d.chunk, 0, 0, d.kept_total);
  CK_LAUNCH(sc_chain);
}

int main(int argc, char **argv) { return compact_main<Sc>(argc, argv, sc_run, true); }
