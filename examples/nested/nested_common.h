// Host side shared by every variant of the nested benchmark: options, input generation, CPU reference,
// the warm-up / time / check loop and the output lines.
//
// Pattern: P parent threads; parent i owns deg[i] items, deg uniform in [0, 2*avg] (fixed seed), items of
// parent i are contiguous from off[i] (exclusive prefix sum of deg); every item gets out[item] += 1
// (64-bit counters). Child blocks have 32 threads.
//
// A variant defines
//   static void variant_setup(const NestedInput &in);   // allocate its own buffers once (may be empty)
//   static void variant_launch(const NestedInput &in);  // launch the parent grid (no synchronization)
// and main() calls nested_main(argc, argv, "<variant>", variant_setup, variant_launch).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef unsigned long long nested_counter_t;  // the per-item counter (8 bytes of read-modify-write per item)

constexpr int kChildBlock = 32;  // threads per child block, in every variant

#define NESTED_CK(call)                                                                                   \
  do {                                                                                                    \
    cudaError_t nested_err_ = (call);                                                                     \
    if (nested_err_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "CUDA error %s (%s) from %s at %s:%d\n", cudaGetErrorName(nested_err_),             \
              cudaGetErrorString(nested_err_), #call, __FILE__, __LINE__);                                \
      exit(2);                                                                                            \
    }                                                                                                     \
  } while (0)

struct NestedInput {
  int parents = 10000;
  int avg = 1000;
  int parent_block = 256;
  int reps = 7;
  unsigned long long seed = 12345;

  int parent_grid = 0;         // ceil(parents / parent_block)
  long long items = 0;         // sum of deg
  std::vector<int> deg;        // per parent
  std::vector<long long> off;  // per parent, exclusive prefix sum of deg

  // Device copies.
  int *d_deg = nullptr;
  long long *d_off = nullptr;
  nested_counter_t *d_out = nullptr;  // items counters
};

static void nested_usage(const char *prog, FILE *f) {
  fprintf(f,
          "usage: %s [--parents P] [--avg A] [--parent-block B] [--reps N] [--seed S]\n"
          "  P parent threads (default 10000); parent i owns deg[i] items, deg uniform in [0, 2*A]\n"
          "  (default A 1000); B threads per parent block, a multiple of 32, at most 1024 (default 256);\n"
          "  N timed repetitions after one untimed warm-up (default 7); S the input seed (default 12345).\n",
          prog);
}

static long long nested_parse_int(const char *prog, const char *name, const char *v, long long lo, long long hi) {
  char *end = nullptr;
  long long x = strtoll(v, &end, 10);
  if (end == v || *end != '\0' || x < lo || x > hi) {
    fprintf(stderr, "%s: bad value '%s' for %s (expected an integer in [%lld, %lld])\n", prog, v, name, lo, hi);
    nested_usage(prog, stderr);
    exit(2);
  }
  return x;
}

static void nested_parse_args(int argc, char **argv, NestedInput &in) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      nested_usage(argv[0], stdout);
      exit(0);
    }
    std::string value;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", argv[0], a.c_str());
        nested_usage(argv[0], stderr);
        exit(2);
      }
      value = argv[++i];
    }
    const char *v = value.c_str();
    if (a == "--parents")
      in.parents = (int)nested_parse_int(argv[0], "--parents", v, 1, 1 << 28);
    else if (a == "--avg")
      in.avg = (int)nested_parse_int(argv[0], "--avg", v, 0, 1 << 20);
    else if (a == "--parent-block")
      in.parent_block = (int)nested_parse_int(argv[0], "--parent-block", v, 32, 1024);
    else if (a == "--reps")
      in.reps = (int)nested_parse_int(argv[0], "--reps", v, 1, 1000000);
    else if (a == "--seed")
      in.seed = (unsigned long long)nested_parse_int(argv[0], "--seed", v, 0, (1LL << 62));
    else {
      fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a.c_str());
      nested_usage(argv[0], stderr);
      exit(2);
    }
  }
  if (in.parent_block % 32 != 0) {
    fprintf(stderr, "%s: --parent-block must be a multiple of 32\n", argv[0]);
    exit(2);
  }
}

// splitmix64: small, fast and the same on every platform.
static inline unsigned long long nested_rng_next(unsigned long long &state) {
  unsigned long long z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static void nested_generate(NestedInput &in) {
  unsigned long long state = in.seed;
  unsigned long long range = 2ULL * (unsigned long long)in.avg + 1;  // deg in [0, 2*avg]
  in.deg.resize(in.parents);
  in.off.resize(in.parents);
  long long sum = 0;
  for (int i = 0; i < in.parents; i++) {
    in.deg[i] = (int)(nested_rng_next(state) % range);
    in.off[i] = sum;
    sum += in.deg[i];
  }
  in.items = sum;
  in.parent_grid = (in.parents + in.parent_block - 1) / in.parent_block;
}

// CPU reference: every item of every parent gets one increment.
static std::vector<nested_counter_t> nested_reference(const NestedInput &in) {
  std::vector<nested_counter_t> ref((size_t)in.items, 0);
  for (int i = 0; i < in.parents; i++)
    for (int j = 0; j < in.deg[i]; j++) ref[(size_t)(in.off[i] + j)] += 1;
  return ref;
}

// Copies out back, compares it with the reference, exits 1 on a mismatch; returns the sum of out.
static unsigned long long nested_check(const NestedInput &in, const std::vector<nested_counter_t> &ref,
                                       std::vector<nested_counter_t> &host_out, const char *when) {
  if (in.items > 0)
    NESTED_CK(cudaMemcpy(host_out.data(), in.d_out, sizeof(nested_counter_t) * (size_t)in.items,
                         cudaMemcpyDeviceToHost));
  unsigned long long sum = 0;
  long long bad = 0, first_bad = -1;
  for (size_t k = 0; k < (size_t)in.items; k++) {
    sum += host_out[k];
    if (host_out[k] != ref[k]) {
      if (first_bad < 0) first_bad = (long long)k;
      bad++;
    }
  }
  if (bad > 0) {
    // Name the parent of the first wrong item to help debugging.
    long long parent = std::upper_bound(in.off.begin(), in.off.end(), first_bad) - in.off.begin() - 1;
    while (parent > 0 && in.deg[parent] == 0) parent--;
    printf("CHECK FAIL %s: %lld of %lld items wrong; first item %lld (parent %lld, deg %d) got %llu want %llu\n",
           when, bad, in.items, first_bad, parent, in.deg[(size_t)parent], host_out[(size_t)first_bad],
           ref[(size_t)first_bad]);
    fflush(stdout);
    exit(1);
  }
  return sum;
}

template <typename Setup, typename Launch>
static int nested_main(int argc, char **argv, const char *variant, Setup setup, Launch launch) {
  NestedInput in;
  nested_parse_args(argc, argv, in);
  nested_generate(in);
  std::vector<nested_counter_t> ref = nested_reference(in);
  std::vector<nested_counter_t> host_out((size_t)in.items);

  NESTED_CK(cudaSetDevice(0));
  // CDP2 keeps every pending device-side launch in a fixed buffer with no overflow: plain CDP can have one
  // pending launch per parent thread, so make room for all of them (and some).
  NESTED_CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, (size_t)in.parents + 4096));

  NESTED_CK(cudaMalloc(&in.d_deg, sizeof(int) * (size_t)in.parents));
  NESTED_CK(cudaMalloc(&in.d_off, sizeof(long long) * (size_t)in.parents));
  NESTED_CK(cudaMalloc(&in.d_out, sizeof(nested_counter_t) * (size_t)std::max<long long>(in.items, 1)));
  NESTED_CK(cudaMemcpy(in.d_deg, in.deg.data(), sizeof(int) * (size_t)in.parents, cudaMemcpyHostToDevice));
  NESTED_CK(cudaMemcpy(in.d_off, in.off.data(), sizeof(long long) * (size_t)in.parents, cudaMemcpyHostToDevice));
  setup((const NestedInput &)in);

  printf("# nested %s: parents=%d avg=%d parent_block=%d parent_grid=%d items=%lld reps=%d seed=%llu\n", variant,
         in.parents, in.avg, in.parent_block, in.parent_grid, in.items, in.reps, in.seed);

  cudaEvent_t start, stop;
  NESTED_CK(cudaEventCreate(&start));
  NESTED_CK(cudaEventCreate(&stop));
  unsigned long long sum = 0;
  for (int rep = -1; rep < in.reps; rep++) {  // rep -1 is the untimed warm-up
    NESTED_CK(cudaMemset(in.d_out, 0, sizeof(nested_counter_t) * (size_t)std::max<long long>(in.items, 1)));
    NESTED_CK(cudaDeviceSynchronize());
    NESTED_CK(cudaEventRecord(start));
    launch((const NestedInput &)in);
    NESTED_CK(cudaGetLastError());
    NESTED_CK(cudaEventRecord(stop));
    NESTED_CK(cudaDeviceSynchronize());
    float ms = 0.0f;
    NESTED_CK(cudaEventElapsedTime(&ms, start, stop));
    char when[32];
    if (rep < 0)
      snprintf(when, sizeof when, "warm-up");
    else
      snprintf(when, sizeof when, "rep %d", rep);
    sum = nested_check(in, ref, host_out, when);
    if (rep >= 0) printf("time_ms %.4f\n", ms);
  }
  printf("RESULT nested P=%d avg=%d sum=%llu\n", in.parents, in.avg, sum);

  NESTED_CK(cudaEventDestroy(start));
  NESTED_CK(cudaEventDestroy(stop));
  NESTED_CK(cudaFree(in.d_deg));
  NESTED_CK(cudaFree(in.d_off));
  NESTED_CK(cudaFree(in.d_out));
  return 0;
}
