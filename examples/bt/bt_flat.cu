// bt, flat version: each line's thread computes the line's vertices itself.
#include "bt.h"

__global__ void bt_parent_flat(BezierLine *lines, int n_lines) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= n_lines) return;
  int n = bt_tess_points(lines[l]);
  lines[l].n_vertices = n;
  for (int idx = 0; idx < n; idx++) lines[l].vertex_pos[idx] = bt_point(lines[l], idx, n);
}

void bt_tessellate(BezierLine *lines, int n_lines) {
  bt_parent_flat<<<blocks_for(n_lines, kParentBlock), kParentBlock>>>(lines, n_lines);
  CK_LAUNCH(bt_parent_flat);
}

int main(int argc, char **argv) { return bt_main(argc, argv, false); }
