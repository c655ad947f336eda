// nested, hand-written aggregation at warp granularity: lane 0 of every parent warp launches one aggregated
// child on behalf of the warp's parents (see nested_agg.h for the record layout and the child's search).
#include "nested_agg.h"

static unsigned *g_incl;  // one entry per parent thread slot (parent_grid * parent_block)
static AggRec *g_recs;    // likewise

__global__ void parent_warp(const int *__restrict__ deg, const long long *__restrict__ off,
                            nested_counter_t *out, int parents, unsigned *incl, AggRec *recs) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const int d = p < parents ? deg[p] : 0;  // threads past the end take part with no items
  const unsigned nb = (unsigned)(d + 31) / 32;
  unsigned s = nb;  // inclusive scan over the warp
#pragma unroll
  for (int k = 1; k < 32; k <<= 1) {
    unsigned t = __shfl_up_sync(0xffffffffu, s, k);
    if (lane >= k) s += t;
  }
  const unsigned total = __shfl_sync(0xffffffffu, s, 31);
  if (total == 0) return;  // warp-uniform
  incl[p] = s;
  if (nb != 0) recs[p] = AggRec{off[p], d, s - nb};
  __threadfence();  // the records of every lane are visible to the child lane 0 launches
  __syncwarp();
  if (lane == 0) {
    const int base = p;  // lane 0's slot is the warp's first
#if NESTED_WARP_OWN_STREAM
    // Launches into the NULL stream by one block run in order; a stream per launch lets the warps of a block
    // run their children concurrently.
    cudaStream_t s0;
    cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking);
    agg_child<<<total, 32, 0, s0>>>(out, incl + base, recs + base, 32);
    cudaStreamDestroy(s0);
#else
    agg_child<<<total, 32>>>(out, incl + base, recs + base, 32);
#endif
  }
}

static void variant_setup(const NestedInput &in) {
  size_t slots = (size_t)in.parent_grid * in.parent_block;
  NESTED_CK(cudaMalloc(&g_incl, sizeof(unsigned) * slots));
  NESTED_CK(cudaMalloc(&g_recs, sizeof(AggRec) * slots));
}

static void variant_launch(const NestedInput &in) {
  parent_warp<<<in.parent_grid, in.parent_block>>>(in.d_deg, in.d_off, in.d_out, in.parents, g_incl, g_recs);
}

int main(int argc, char **argv) { return nested_main(argc, argv, "warp", variant_setup, variant_launch); }
