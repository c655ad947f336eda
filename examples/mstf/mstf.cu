// mstf, CDP version: in the find step each vertex launches a child grid over its edges; verify is flat.
#include "../common/mst.h"

__global__ void mstf_child(const int *nbr, const int *wt, const int *eid, int deg, int c, const int *comp,
                           unsigned long long *min_key) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < deg) mst_find_edge(c, nbr[i], wt[i], eid[i], comp, min_key);
}

__global__ void mstf_parent(MstDev d, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int begin = d.off[v], deg = d.off[v + 1] - begin;
  if (deg > 0) {
    mstf_child<<<blocks_for(deg, kChildBlock), kChildBlock>>>(d.adj + begin, d.wt + begin, d.eid + begin, deg,
                                                              d.comp[v], d.comp, d.min_key);
    CDP_CHECK_LAUNCH();
  }
}

void mst_find(const MstDev &d, int n) {
  mstf_parent<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(mstf_parent);
}
void mst_verify(const MstDev &d, int n) { mst_verify_flat_launch(d, n); }

int main(int argc, char **argv) { return mst_main(argc, argv, "mstf", MstChildStep::find, true); }
