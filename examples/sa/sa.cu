// sa, CDP version: a read with more than `threshold` candidates launches a child grid, one thread per candidate;
// the parent thread checks the candidates of the other reads itself.
#include "sa.h"

__global__ void sa_child(SaDev d, int r, int begin, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long key = kNoCandidate;
  int hit = 0;
  if (i < count) {
    int pos = d.cand_pos[begin + i];
    int mm = sa_mismatches(d.ref, d.reads + (size_t)r * d.read_words, d.read_words, pos);
    key = sa_key(mm, pos);
    hit = mm <= d.max_mismatches;
  }
  // One atomic per warp rather than per candidate: every child thread of a read updates the same two words.
  for (int o = 16; o > 0; o >>= 1) {
    key = min(key, __shfl_down_sync(0xffffffffu, key, o));
    hit += __shfl_down_sync(0xffffffffu, hit, o);
  }
  if (threadIdx.x % 32 == 0) {
    if (key != kNoCandidate) atomicMin(&d.best[r], key);
    if (hit) atomicAdd(&d.hits[r], hit);
  }
}

__global__ void sa_parent(SaDev d, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int begin = d.cand_off[r], end = d.cand_off[r + 1];
  if (end - begin > d.threshold) {
    sa_child<<<blocks_for(end - begin, kChildBlock), kChildBlock>>>(d, r, begin, end - begin);
    CDP_CHECK_LAUNCH();
  } else {
    sa_check_all(d, r, begin, end);
  }
}

void sa_check(const SaDev &d, int n) {
  sa_parent<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(sa_parent);
}

int main(int argc, char **argv) { return sa_main(argc, argv, true); }
