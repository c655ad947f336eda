// sssp, CDP version: each frontier vertex launches a child grid that relaxes its edges.
#include "sssp.h"

__global__ void sssp_child(const int *nbr, const int *wt, int deg, unsigned dv, unsigned *dist, int *next,
                           int *next_count, int *stamp, int round) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < deg) sssp_relax(nbr[i], dv + (unsigned)wt[i], dist, next, next_count, stamp, round);
}

__global__ void sssp_parent(SsspDev d, int count, int round) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int v = d.frontier[i];
  int begin = d.off[v], deg = d.off[v + 1] - begin;
  if (deg > 0) {
    sssp_child<<<blocks_for(deg, kChildBlock), kChildBlock>>>(d.adj + begin, d.wt + begin, deg, d.dist[v], d.dist,
                                                              d.next, d.next_count, d.stamp, round);
    CDP_CHECK_LAUNCH();
  }
}

void sssp_round(const SsspDev &d, int count, int round) {
  sssp_parent<<<blocks_for(count, kParentBlock), kParentBlock>>>(d, count, round);
  CK_LAUNCH(sssp_parent);
}

int main(int argc, char **argv) { return sssp_main(argc, argv, true); }
