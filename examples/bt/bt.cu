// bt, CDP version: each line's thread launches a child grid that computes the line's vertices.
#include "bt.h"

__global__ void bt_child(BezierLine *lines, int l, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) lines[l].vertex_pos[idx] = bt_point(lines[l], idx, n);
}

__global__ void bt_parent(BezierLine *lines, int n_lines) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= n_lines) return;
  int n = bt_tess_points(lines[l]);
  lines[l].n_vertices = n;
  bt_child<<<blocks_for(n, kChildBlock), kChildBlock>>>(lines, l, n);
  CDP_CHECK_LAUNCH();
}

void bt_tessellate(BezierLine *lines, int n_lines) {
  bt_parent<<<blocks_for(n_lines, kParentBlock), kParentBlock>>>(lines, n_lines);
  CK_LAUNCH(bt_parent);
}

int main(int argc, char **argv) { return bt_main(argc, argv, true); }
