// Stream compaction (KLAP Table I "sc"): copies the nonzero elements of an int array, in their order, to the front of
// the output. --fraction of the generated elements are nonzero. See compact.h for the chunked form both versions share.
#pragma once

#include "compact.h"

struct Sc {
  static constexpr const char *kName = "sc";
  static constexpr const char *kCountName = "kept";
  static constexpr const char *kUsage =
      "usage: sc [--reps N] [--size N] [--chunk N] [--fraction F] [--seed S]\n"
      "  copies the nonzero elements of N random ints (default 204800, a fraction F of them nonzero, default 0.5)\n"
      "  to the front of the output; the CDP version takes them in a chain of kernels of one 512-thread block,\n"
      "  one per chunk of --chunk elements (default 8192)\n";

  __host__ __device__ static bool keep(const int *, int, int x) { return x != 0; }
  __host__ __device__ static void place(int *out, int, int x, bool kept, int, int kept_before) {
    if (kept) out[kept_before] = x;
  }
  static std::vector<int> generate(int n, double fraction, uint64_t seed) {
    Rng rng(seed);
    std::vector<int> v(n);
    for (int &x : v) x = rng.unit() < fraction ? 1 + (int)(rng.next() >> 34) : 0;
    return v;
  }
};
