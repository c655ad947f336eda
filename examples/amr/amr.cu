// amr, CDP version: a cell that needs refining launches a grid of one block, a thread per sub-cell, recursively.
#include "amr.h"

__global__ void amr_refine(AmrParams p, int level, int parent_x, int parent_y) {
  const int ix = parent_x * p.factor + (int)threadIdx.x % p.factor;
  const int iy = parent_y * p.factor + (int)threadIdx.x / p.factor;
  const AmrCell c = amr_eval(p, level, ix, iy);
  if (c.refine) {
    amr_refine<<<1, p.factor * p.factor>>>(p, level + 1, ix, iy);
    CDP_CHECK_LAUNCH();
  }
  amr_tally(p.stats, level, true, ix, iy, c);
}

__global__ void amr_root(AmrParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, ix = i % p.base, iy = i / p.base;
  const bool active = i < p.base * p.base;
  const AmrCell c = active ? amr_eval(p, 0, ix, iy) : AmrCell{0.0f, false};
  if (c.refine) {
    amr_refine<<<1, p.factor * p.factor>>>(p, 1, ix, iy);
    CDP_CHECK_LAUNCH();
  }
  amr_tally(p.stats, 0, active, ix, iy, c);
}

void amr_run(const AmrParams &p, const std::vector<long long> &) {
  amr_root<<<blocks_for((long long)p.base * p.base, kParentBlock), kParentBlock>>>(p);
  CK_LAUNCH(amr_root);
}

int main(int argc, char **argv) { return amr_main(argc, argv, true); }
