// join, flat version: each probe tuple's thread scans the tuple's bucket itself.
#include "join.h"

__global__ void join_parent_flat(JoinDev d, int n_s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_s) return;
  uint32_t key = d.s_key[i], s_pay = d.s_pay[i];
  uint32_t b = join_bucket(key, d.bits);
  unsigned matches = 0;
  unsigned long long sum = 0;
  for (int j = d.start[b]; j < d.start[b + 1]; j++)
    if (d.r_key[j] == key) {
      matches++;
      sum += join_term(d.r_pay[j], s_pay);
    }
  d.count[i] = matches;
  d.sum[i] = sum;
}

void join_probe(const JoinDev &d, int n_s) {
  join_parent_flat<<<blocks_for(n_s, kParentBlock), kParentBlock>>>(d, n_s);
  CK_LAUNCH(join_parent_flat);
}

int main(int argc, char **argv) { return join_main(argc, argv, false); }
