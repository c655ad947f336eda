// los, flat version: one block per tile of 256 points, in a single kernel; each tile finds the largest slope before
// it by decoupled look-back over the tiles before it. --chunk only sets the CDP version's chain (and the CHILDREN
// line).
#include "los.h"

__global__ void los_flat(const float *__restrict__ height, unsigned char *visible, int n, int *next_tile,
                         unsigned long long *status) {
  __shared__ int s_tile;
  __shared__ float s_before;
  if (threadIdx.x == 0) s_tile = atomicAdd(next_tile, 1);
  __syncthreads();
  const int tile = s_tile, first = tile * kTile, end = min(n, first + kTile);
  LosTile t;
  const float tile_max = los_tile_load(height, first, end, t);
  if (threadIdx.x == 0) s_before = lookback_max_before(status, tile, tile_max);
  __syncthreads();
  los_tile_store(visible, first, end, t, s_before);
}

static void los_run_flat(const LosDev &d) {
  los_flat<<<blocks_for(d.n, kTile), kBlock>>>(d.height, d.visible, d.n, d.next_tile, d.status);
  CK_LAUNCH(los_flat);
}

int main(int argc, char **argv) { return los_main(argc, argv, los_run_flat, false); }
