// The CHILDREN line every benchmark prints once: how many child grids its CDP version launches and how many
// threads (blocks x threads per block) they have, the median and the largest, so that a results table can show how
// uneven the children are (max / median). Programs compute it on the host from the input, so the CDP and the flat
// version print the same line.
#pragma once

#include "common.h"

class ChildGrids {
 public:
  void add(long long blocks, int block_threads) { threads_.push_back(blocks * block_threads); }
  void add_many(long long launches, long long blocks, int block_threads) {
    threads_.insert(threads_.end(), (size_t)launches, blocks * block_threads);
  }
  size_t launches() const { return threads_.size(); }

  // The median of an even count is the upper of the two middle sizes.
  void print() {
    long long median = 0, largest = 0;
    if (!threads_.empty()) {
      auto mid = threads_.begin() + threads_.size() / 2;
      std::nth_element(threads_.begin(), mid, threads_.end());
      median = *mid;
      largest = *std::max_element(threads_.begin(), threads_.end());
    }
    printf("CHILDREN launches=%zu median=%lld max=%lld\n", threads_.size(), median, largest);
  }

 private:
  std::vector<long long> threads_;
};
