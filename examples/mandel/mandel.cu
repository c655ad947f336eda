// mandel, CDP version: a rectangle that must be split launches a child grid of kSubdiv x kSubdiv blocks, one per
// sub-rectangle, recursively.
#include "mandel.h"

// Block b of the grid takes the b-th rectangle, in row-major order, of a per_row x per_row grid of rectangles of
// the given side whose top-left corner is (x0, y0).
__global__ void mandel_grid(MandelParams p, int x0, int y0, int per_row, int side, int depth) {
  int rx = x0 + (int)(blockIdx.x % per_row) * side, ry = y0 + (int)(blockIdx.x / per_row) * side;
  if (mandel_rect(p, rx, ry, side, depth) && threadIdx.x == 0) {
    mandel_grid<<<kSubdiv * kSubdiv, kBlock>>>(p, rx, ry, kSubdiv, side / kSubdiv, depth + 1);
    CDP_CHECK_LAUNCH();
  }
}

void mandel_render(const MandelParams &p, int init, const MandelLists &) {
  mandel_grid<<<init * init, kBlock>>>(p, 0, 0, init, p.size / init, 0);
  CK_LAUNCH(mandel_grid);
}

int main(int argc, char **argv) { return mandel_main(argc, argv, true); }
