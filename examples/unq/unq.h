// Unique (KLAP Table I "unq"): copies the first element of every run of equal consecutive elements of an int array,
// in order, to the front of the output (what thrust::unique keeps). An element starts a new run with probability
// --fraction. The chunked form both versions share is in ../sc/compact.h; the count carried from chunk to chunk is
// that of runs started before it. An element's predicate reads the element before it, across chunk borders too.
#pragma once

#include "../sc/compact.h"

struct Unq {
  static constexpr const char *kName = "unq";
  static constexpr const char *kCountName = "unique";
  static constexpr const char *kUsage =
      "usage: unq [--reps N] [--size N] [--chunk N] [--fraction F] [--seed S]\n"
      "  keeps the first element of each run of equal consecutive values among N random ints (default 204800;\n"
      "  each starts a new run with probability F, default 0.5); the CDP version takes them in a chain of kernels\n"
      "  of one 512-thread block, one per chunk of --chunk elements (default 8192)\n";

  __host__ __device__ static bool keep(const int *in, int i, int x) { return i == 0 || x != in[i - 1]; }
  __host__ __device__ static void place(int *out, int, int x, bool kept, int, int kept_before) {
    if (kept) out[kept_before] = x;
  }
  static std::vector<int> generate(int n, double fraction, uint64_t seed) {
    Rng rng(seed);
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) {
      if (i > 0 && rng.unit() >= fraction) {
        v[i] = v[i - 1];
        continue;
      }
      int x;
      do x = (int)(rng.next() >> 33);
      while (i > 0 && x == v[i - 1]);
      v[i] = x;
    }
    return v;
  }
};
