// sssp, flat version: each frontier vertex's thread relaxes its edges itself.
#include "sssp.h"

__global__ void sssp_parent_flat(SsspDev d, int count, int round) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int v = d.frontier[i];
  unsigned dv = d.dist[v];
  for (int e = d.off[v]; e < d.off[v + 1]; e++)
    sssp_relax(d.adj[e], dv + (unsigned)d.wt[e], d.dist, d.next, d.next_count, d.stamp, round);
}

void sssp_round(const SsspDev &d, int count, int round) {
  sssp_parent_flat<<<blocks_for(count, kParentBlock), kParentBlock>>>(d, count, round);
  CK_LAUNCH(sssp_parent_flat);
}

int main(int argc, char **argv) { return sssp_main(argc, argv, false); }
