// join, CDP version: each probe tuple's thread launches a child grid over the tuple's bucket.
#include "join.h"

// Lanes past the bucket's end take part with nothing, so that the whole warp can add up its matches.
__global__ void join_child(const uint32_t *key, const uint32_t *pay, int n, uint32_t s_key, uint32_t s_pay,
                           unsigned *count, unsigned long long *sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool match = i < n && key[i] == s_key;
  unsigned long long term = match ? join_term(pay[i], s_pay) : 0;
  unsigned matches = __reduce_add_sync(0xffffffffu, match ? 1u : 0u);
  for (int d = 16; d > 0; d /= 2) term += __shfl_down_sync(0xffffffffu, term, d);
  if (threadIdx.x % 32 == 0 && matches > 0) {
    atomicAdd(count, matches);
    atomicAdd(sum, term);
  }
}

__global__ void join_parent(JoinDev d, int first, int n_s) {
  int i = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_s) return;
  uint32_t key = d.s_key[i];
  uint32_t b = join_bucket(key, d.bits);
  int begin = d.start[b], n = d.start[b + 1] - begin;
  d.count[i] = 0;  // written before the launch, so the child sees it
  d.sum[i] = 0;
  if (n > 0) {
    join_child<<<blocks_for(n, kChildBlock), kChildBlock>>>(d.r_key + begin, d.r_pay + begin, n, key, d.s_pay[i],
                                                            d.count + i, d.sum + i);
    CDP_CHECK_LAUNCH();
  }
}

// In batches: plain CDP could not keep 1,048,576 launches pending at once (cudaErrorLaunchPendingCountExceeded on
// an H100 with the limit set above that). A batch's grid completes, children included, before the next starts.
void join_probe(const JoinDev &d, int n_s) {
  for (int first = 0; first < n_s; first += kProbeBatch) {
    join_parent<<<blocks_for(std::min(kProbeBatch, n_s - first), kParentBlock), kParentBlock>>>(d, first, n_s);
    CK_LAUNCH(join_parent);
  }
}

int main(int argc, char **argv) { return join_main(argc, argv, true); }
