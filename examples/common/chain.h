// The link count of the promotion benchmarks' CDP chains (los, pd, pt, sc, unq, upd), shared by their headers.
#pragma once

#include "common.h"

// Kernels of the CDP chain that ran. A link lost without an error (clang 22's own lowering drops fire-and-forget and
// tail launches; klap-normalize or nvcc make them run) is reported as a failed launch, not only as a wrong result.
__device__ int g_links_run;

__device__ inline void chain_link_ran() { atomicAdd(&g_links_run, 1); }

inline void chain_links_reset() {
  int zero = 0;
  CK(cudaMemcpyToSymbol(g_links_run, &zero, sizeof zero));
}

inline void chain_links_check(long long links) {
  int ran = 0;
  CK(cudaMemcpyFromSymbol(&ran, g_links_run, sizeof ran));
  if (ran != links)
    die("the chain ran %d of its %lld kernels and no device launch reported an error: a launch was lost (clang 22 "
        "without klap drops fire-and-forget and tail launches)",
        ran, links);
}
