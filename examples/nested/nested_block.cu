// nested, hand-written aggregation at block granularity: thread 0 of every parent block launches one
// aggregated child on behalf of the block's parents (see nested_agg.h for the record layout and the search).
#include "nested_agg.h"

static unsigned *g_incl;  // one entry per parent thread slot (parent_grid * parent_block)
static AggRec *g_recs;    // likewise

__global__ void parent_block(const int *__restrict__ deg, const long long *__restrict__ off,
                             nested_counter_t *out, int parents, unsigned *incl, AggRec *recs) {
  __shared__ unsigned warp_sum[32];
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  const int d = p < parents ? deg[p] : 0;  // threads past the end take part with no items
  const unsigned nb = (unsigned)(d + 31) / 32;

  // Inclusive scan over the block: within each warp, then over the warp totals.
  unsigned s = nb;
#pragma unroll
  for (int k = 1; k < 32; k <<= 1) {
    unsigned t = __shfl_up_sync(0xffffffffu, s, k);
    if (lane >= k) s += t;
  }
  if (lane == 31) warp_sum[warp] = s;
  __syncthreads();
  if (warp == 0) {
    unsigned w = lane < nwarps ? warp_sum[lane] : 0;
#pragma unroll
    for (int k = 1; k < 32; k <<= 1) {
      unsigned t = __shfl_up_sync(0xffffffffu, w, k);
      if (lane >= k) w += t;
    }
    warp_sum[lane] = w;
  }
  __syncthreads();
  if (warp > 0) s += warp_sum[warp - 1];
  const unsigned total = warp_sum[nwarps - 1];
  if (total == 0) return;  // block-uniform

  incl[p] = s;
  if (nb != 0) recs[p] = AggRec{off[p], d, s - nb};
  __threadfence();  // every thread's records are visible to the child thread 0 launches
  __syncthreads();
  if (threadIdx.x == 0) {
    const int base = p;  // thread 0's slot is the block's first
    agg_child<<<total, 32>>>(out, incl + base, recs + base, (int)blockDim.x);
  }
}

static void variant_setup(const NestedInput &in) {
  size_t slots = (size_t)in.parent_grid * in.parent_block;
  NESTED_CK(cudaMalloc(&g_incl, sizeof(unsigned) * slots));
  NESTED_CK(cudaMalloc(&g_recs, sizeof(AggRec) * slots));
}

static void variant_launch(const NestedInput &in) {
  parent_block<<<in.parent_grid, in.parent_block>>>(in.d_deg, in.d_off, in.d_out, in.parents, g_incl, g_recs);
}

int main(int argc, char **argv) { return nested_main(argc, argv, "block", variant_setup, variant_launch); }
