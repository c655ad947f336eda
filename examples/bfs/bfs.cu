// bfs, CDP version: each frontier vertex launches a child grid over its neighbours.
#include "bfs.h"

__global__ void bfs_child(const int *nbr, int deg, int *level, int new_level, int *next, int *next_count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < deg) bfs_visit(nbr[i], level, new_level, next, next_count);
}

__global__ void bfs_parent(BfsDev d, int count, int new_level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int v = d.frontier[i];
  int begin = d.off[v], deg = d.off[v + 1] - begin;
  if (deg > 0) {
    bfs_child<<<blocks_for(deg, kChildBlock), kChildBlock>>>(d.adj + begin, deg, d.level, new_level, d.next,
                                                             d.next_count);
    CDP_CHECK_LAUNCH();
  }
}

void bfs_expand(const BfsDev &d, int count, int new_level) {
  bfs_parent<<<blocks_for(count, kParentBlock), kParentBlock>>>(d, count, new_level);
  CK_LAUNCH(bfs_parent);
}

int main(int argc, char **argv) { return bfs_main(argc, argv, true); }
