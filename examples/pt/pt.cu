// pt, CDP version: a chain of single-block kernels, one per chunk, the producer-consumer form KLAP's promotion
// targets. Each link partitions its chunk given the count of negatives before it, then one thread launches the link
// for the next chunk with that count moved past this chunk's negatives.
//
// Stream: cudaStreamFireAndForget. The next link needs only the count, a launch argument; it reads only the input,
// which nothing writes, and writes output positions this link does not. It need not wait for this grid to complete
// (what cudaStreamTailLaunch would add), so it may start as soon as it is launched. Each link is then a child of the
// one before: the chain is as deep as it is long (../PROMOTION.md says what that means for the nesting limit).
#include "pt.h"

__global__ void __launch_bounds__(kBlock) pt_chain(const int *__restrict__ in, int *out, int n, int chunk, int first, int negative_before,
                         int *negative_total) {
  const int end = min(n, first + chunk);
  const int negative_after = compact_chunk<Pt>(in, out, n, first, end, negative_before);
  if (threadIdx.x == 0) {
    chain_link_ran();
    if (end < n) {
      pt_chain<<<1, kBlock, 0, cudaStreamFireAndForget>>>(in, out, n, chunk, end, negative_after, negative_total);
      CDP_CHECK_LAUNCH();
    } else {
      *negative_total = negative_after;
    }
  }
}

static void pt_run(const CompactDev &d) {
  pt_chain<<<1, kBlock>>>(d.in, d.out, d.n, d.chunk, 0, 0, d.kept_total);
  CK_LAUNCH(pt_chain);
}

int main(int argc, char **argv) { return compact_main<Pt>(argc, argv, pt_run, true); }
