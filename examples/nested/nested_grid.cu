// nested, hand-written aggregation at grid granularity: every launching parent thread takes its record index
// and its first child block with one 64-bit atomic on a single counter (records index << 32 | blocks), which
// keeps the records' block ranges in record order; the last parent block to finish launches one aggregated
// child for the whole grid (see nested_agg.h for the record layout and the child's search).
#include "nested_agg.h"

static unsigned *g_ends;            // per record: inclusive end of its block range (at most parents records)
static AggRec *g_recs;              // per record
static unsigned long long *g_next;  // (records handed out) << 32 | (blocks handed out); reset by the last block
static unsigned *g_done;            // parent blocks finished; reset by the last block

__global__ void parent_grid(const int *__restrict__ deg, const long long *__restrict__ off, nested_counter_t *out,
                            int parents, unsigned *ends, AggRec *recs, unsigned long long *next, unsigned *done) {
  __shared__ bool last;
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int d = p < parents ? deg[p] : 0;
  const unsigned nb = (unsigned)(d + 31) / 32;
#if NESTED_GRID_WARP_ATOMIC
  // Alternative: one atomic per warp, lanes take consecutive records (still in block order).
  const int lane = threadIdx.x & 31;
  const unsigned mask = __ballot_sync(0xffffffffu, nb != 0);
  if (mask != 0) {
    unsigned s = nb;
#pragma unroll
    for (int k = 1; k < 32; k <<= 1) {
      unsigned t = __shfl_up_sync(0xffffffffu, s, k);
      if (lane >= k) s += t;
    }
    const unsigned total = __shfl_sync(0xffffffffu, s, 31);
    unsigned long long old = 0;
    if (lane == 0) old = atomicAdd(next, ((unsigned long long)__popc(mask) << 32) | total);
    old = __shfl_sync(0xffffffffu, old, 0);
    if (nb != 0) {
      const unsigned r = (unsigned)(old >> 32) + __popc(mask & ((1u << lane) - 1));
      const unsigned first = (unsigned)old + s - nb;
      ends[r] = first + nb;
      recs[r] = AggRec{off[p], d, first};
    }
  }
#else
  if (nb != 0) {
    const unsigned long long old = atomicAdd(next, (1ull << 32) | nb);
    const unsigned r = (unsigned)(old >> 32), first = (unsigned)old;
    ends[r] = first + nb;
    recs[r] = AggRec{off[p], d, first};
  }
#endif
  __threadfence();  // records are visible before this block counts itself done
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
    const unsigned long long totals = atomicExch(next, 0ull);  // read and reset for the next parent launch
    *done = 0;
    const unsigned nrec = (unsigned)(totals >> 32), nblocks = (unsigned)totals;
    if (nblocks != 0) agg_child<<<nblocks, 32>>>(out, ends, recs, (int)nrec);
  }
}

static void variant_setup(const NestedInput &in) {
  NESTED_CK(cudaMalloc(&g_ends, sizeof(unsigned) * (size_t)in.parents));
  NESTED_CK(cudaMalloc(&g_recs, sizeof(AggRec) * (size_t)in.parents));
  NESTED_CK(cudaMalloc(&g_next, sizeof(unsigned long long)));
  NESTED_CK(cudaMalloc(&g_done, sizeof(unsigned)));
  NESTED_CK(cudaMemset(g_next, 0, sizeof(unsigned long long)));
  NESTED_CK(cudaMemset(g_done, 0, sizeof(unsigned)));
}

static void variant_launch(const NestedInput &in) {
  parent_grid<<<in.parent_grid, in.parent_block>>>(in.d_deg, in.d_off, in.d_out, in.parents, g_ends, g_recs,
                                                   g_next, g_done);
}

int main(int argc, char **argv) { return nested_main(argc, argv, "grid", variant_setup, variant_launch); }
