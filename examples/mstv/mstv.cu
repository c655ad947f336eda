// mstv, CDP version: in the verify step each vertex launches a child grid over its edges; find is flat.
#include "../common/mst.h"

__global__ void mstv_child(const int *nbr, const int *wt, const int *eid, int deg, int c, unsigned long long mk,
                           const int *comp, int *partner) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < deg) mst_verify_edge(c, nbr[i], wt[i], eid[i], mk, comp, partner);
}

__global__ void mstv_parent(MstDev d, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int c = d.comp[v];
  unsigned long long mk = d.min_key[c];
  int begin = d.off[v], deg = d.off[v + 1] - begin;
  if (mk != kNoEdge && deg > 0) {
    mstv_child<<<blocks_for(deg, kChildBlock), kChildBlock>>>(d.adj + begin, d.wt + begin, d.eid + begin, deg, c,
                                                              mk, d.comp, d.partner);
    CDP_CHECK_LAUNCH();
  }
}

void mst_find(const MstDev &d, int n) { mst_find_flat_launch(d, n); }
void mst_verify(const MstDev &d, int n) {
  mstv_parent<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(mstv_parent);
}

int main(int argc, char **argv) { return mst_main(argc, argv, "mstv", MstChildStep::verify, true); }
