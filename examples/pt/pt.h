// Partition (KLAP Table I "pt"): moves the negative elements of an int array, in their order, to the front of the
// output, and the others to the back in reverse order (the last one first), as a single-pass partition with one
// output array does. --fraction of the generated elements are negative. The chunked form both versions share is in
// ../sc/compact.h; the count carried from chunk to chunk is that of negatives before it (the others before it are
// the rest of the elements before it).
#pragma once

#include "../sc/compact.h"

struct Pt {
  static constexpr const char *kName = "pt";
  static constexpr const char *kCountName = "negative";
  static constexpr const char *kUsage =
      "usage: pt [--reps N] [--size N] [--chunk N] [--fraction F] [--seed S]\n"
      "  partitions N random ints (default 204800, a fraction F of them negative, default 0.5): the negative ones\n"
      "  in order at the front, the others in reverse order at the back; the CDP version takes them in a chain of\n"
      "  kernels of one 512-thread block, one per chunk of --chunk elements (default 8192)\n";

  __host__ __device__ static bool keep(const int *, int, int x) { return x < 0; }
  __host__ __device__ static void place(int *out, int n, int x, bool kept, int i, int kept_before) {
    if (kept)
      out[kept_before] = x;
    else
      out[n - 1 - (i - kept_before)] = x;
  }
  static std::vector<int> generate(int n, double fraction, uint64_t seed) {
    Rng rng(seed);
    std::vector<int> v(n);
    for (int &x : v) {
      const int magnitude = (int)(rng.next() >> 33);  // 0 .. 2^31 - 1
      x = rng.unit() < fraction ? -1 - magnitude : magnitude;
    }
    return v;
  }
};
