// Device side shared by the hand-written aggregated variants (warp, block, grid).
//
// An aggregated launch covers n original child launches ("records"). Record j asked for
// nb_j = ceil(count_j / 32) child blocks of 32 threads. The launcher stores, in global memory buffers the host
// allocated once:
//   incl[j]  inclusive prefix sum of nb over the records (non-decreasing; equal neighbours are records with
//            no blocks, which are never chosen);
//   recs[j]  the original child's arguments (start, count) and its first block in the aggregated grid.
// The aggregated child has sum(nb) blocks of 32 threads; block b belongs to the record j with
// incl[j-1] <= b < incl[j], i.e. j = number of entries with incl <= b. Each child block is exactly one warp,
// so the 32 lanes search together: a 32-ary search (one probe per lane, one ballot per step) needs
// ceil(log32 n) steps: 1 for a warp's records, 2 for a block's, 4 for 100000 records.
#pragma once

#include "nested_common.h"

struct __align__(16) AggRec {
  long long start;  // first item of the original child
  int count;        // items of the original child
  unsigned first;   // first block of the original child inside the aggregated grid
};

// Number of entries of incl[0..n) that are <= b, given incl[n-1] > b. Warp-uniform result; all 32 lanes of
// the warp must call it with the same arguments.
__device__ __forceinline__ int agg_find_record(const unsigned *__restrict__ incl, int n, unsigned b) {
  const int lane = threadIdx.x & 31;
  int lo = 0, hi = n - 1;  // the answer lies in [lo, hi]; incl[hi] > b is known
  while (lo < hi) {
    const int step = (hi - lo + 31) >> 5;
    const int probe = lo + lane * step;
    const bool le = probe < hi && __ldg(incl + probe) <= b;
    const int c = __popc(__ballot_sync(0xffffffffu, le));  // probes at or below b form a prefix of the lanes
    if (c == 0) {
      hi = lo;
    } else {
      const int new_hi = min(lo + c * step, hi);
      lo = lo + (c - 1) * step + 1;
      hi = new_hi;
    }
  }
  return lo;
}

// The aggregated child: launched with sum(nb) blocks of exactly 32 threads.
__global__ void __launch_bounds__(32) agg_child(nested_counter_t *__restrict__ out,
                                                const unsigned *__restrict__ incl,
                                                const AggRec *__restrict__ recs, int n) {
  const unsigned b = blockIdx.x;
  const int j = agg_find_record(incl, n, b);
  const AggRec r = recs[j];
  const int i = (int)(b - r.first) * 32 + (int)threadIdx.x;
  if (i < r.count) out[r.start + i] += 1;
}
