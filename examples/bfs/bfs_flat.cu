// bfs, flat version: each frontier vertex's thread loops over its neighbours itself.
#include "bfs.h"

__global__ void bfs_parent_flat(BfsDev d, int count, int new_level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int v = d.frontier[i];
  for (int e = d.off[v]; e < d.off[v + 1]; e++) bfs_visit(d.adj[e], d.level, new_level, d.next, d.next_count);
}

void bfs_expand(const BfsDev &d, int count, int new_level) {
  bfs_parent_flat<<<blocks_for(count, kParentBlock), kParentBlock>>>(d, count, new_level);
  CK_LAUNCH(bfs_parent_flat);
}

int main(int argc, char **argv) { return bfs_main(argc, argv, false); }
