// Relational hash join (SPAWN's JOIN): the build relation R is hashed into 2^bits buckets on the GPU (count, scan,
// scatter), then every tuple of the probe relation S looks for the R tuples with its key in its bucket: one parent
// thread per probe tuple, with a child grid over the bucket (join.cu) or a loop (join_flat.cu). Every pair (r, s)
// with equal keys is a match; each probe tuple gets its match count and the sum of join_term over its matches.
// Keys lie in [0, 2^domain_bits). "uniform" draws them uniformly; "gauss" draws a fraction `hot` of them from a
// narrow gaussian at the middle of the domain instead, so the few buckets that hold those keys are huge and the
// probes that land there have many matches.
#pragma once

#include "../common/children.h"

#include <cmath>

constexpr int kParentBlock = 256;
constexpr int kChildBlock = 128;
constexpr int kScanBlock = 1024;
constexpr int kProbeBatch = 1 << 18;  // probe tuples per parent grid of the CDP version

// Fibonacci hashing: the top `bits` bits of the key times 2^32 / golden ratio, so that neighbouring keys (the
// gaussian's) land in different buckets.
__host__ __device__ inline uint32_t join_bucket(uint32_t key, int bits) { return (key * 2654435769u) >> (32 - bits); }

// What a match adds to its probe's sum; sums wrap modulo 2^64, so any order of adding gives the same value.
__host__ __device__ inline unsigned long long join_term(uint32_t r_pay, uint32_t s_pay) {
  return (unsigned long long)r_pay * (2ull * s_pay + 1);
}

struct JoinDev {
  const uint32_t *r_key, *r_pay;  // R in bucket order
  const int *start;               // bucket b is r_key[start[b] .. start[b + 1])
  const uint32_t *s_key, *s_pay;
  unsigned *count;                // per probe tuple: matches
  unsigned long long *sum;        // per probe tuple: sum of join_term over its matches
  int bits;
};

__global__ void join_count(const uint32_t *key, int n, int bits, int *bucket_count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bucket_count[join_bucket(key[i], bits)], 1);
}

// One block: each thread sums a contiguous range of buckets, the block scans the range sums, then each thread
// writes its range's exclusive prefix sums (the bucket starts, and the scatter's cursors).
__global__ void join_scan(const int *bucket_count, int buckets, int *start, int *cursor) {
  __shared__ int part[kScanBlock];
  int per = (buckets + kScanBlock - 1) / kScanBlock, lo = threadIdx.x * per, hi = min(lo + per, buckets);
  int mine = 0;
  for (int b = lo; b < hi; b++) mine += bucket_count[b];
  part[threadIdx.x] = mine;
  __syncthreads();
  for (int d = 1; d < kScanBlock; d *= 2) {
    int add = threadIdx.x >= d ? part[threadIdx.x - d] : 0;
    __syncthreads();
    part[threadIdx.x] += add;
    __syncthreads();
  }
  int at = part[threadIdx.x] - mine;
  for (int b = lo; b < hi; b++) {
    start[b] = cursor[b] = at;
    at += bucket_count[b];
  }
  if (threadIdx.x == kScanBlock - 1) start[buckets] = part[threadIdx.x];
}

// The order within a bucket depends on the atomics; no result depends on it.
__global__ void join_scatter(const uint32_t *key, const uint32_t *pay, int n, int bits, int *cursor, uint32_t *r_key,
                             uint32_t *r_pay) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int at = atomicAdd(&cursor[join_bucket(key[i], bits)], 1);
  r_key[at] = key[i];
  r_pay[at] = pay[i];
}

// Probes every tuple of S (defined by each variant).
void join_probe(const JoinDev &d, int n_s);

struct Relation {
  std::vector<uint32_t> key, pay;
};

struct JoinKeys {
  bool gauss;
  int domain_bits;
  double hot, sigma;
};

inline uint32_t join_draw_key(Rng &rng, const JoinKeys &k) {
  uint32_t domain = 1u << k.domain_bits;
  auto uniform01 = [&] { return (double)(rng.next() >> 11) * 0x1p-53; };  // [0, 1)
  if (k.gauss && uniform01() < k.hot) {  // Box-Muller
    double z = std::sqrt(-2.0 * std::log(1.0 - uniform01())) * std::cos(6.283185307179586 * uniform01());
    double x = std::floor(domain / 2.0 + k.sigma * z + 0.5);
    return (uint32_t)std::min(std::max(x, 0.0), domain - 1.0);
  }
  return (uint32_t)(rng.next() >> (64 - k.domain_bits));
}

inline Relation join_relation(int n, Rng &rng, const JoinKeys &k) {
  Relation r;
  r.key.resize(n);
  r.pay.resize(n);
  for (int i = 0; i < n; i++) {
    r.key[i] = join_draw_key(rng, k);
    r.pay[i] = (uint32_t)rng.next();
  }
  return r;
}

inline int join_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: join [--reps N] [--keys uniform|gauss] [--r N] [--s N] [--bucket-bits B] [--domain-bits D]\n"
              "            [--hot F] [--sigma X] [--seed S]\n"
              "  joins R (default 4194304 tuples) with S (default 1048576) on keys in [0, 2^D) (default D 24)\n"
              "  through 2^B buckets (default B 13); keys uniform, or with gauss a fraction F (default 0.125) of\n"
              "  them from a gaussian of deviation X (default 64) at the middle of the domain\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string keys = opt.str("--keys", "uniform");
  int n_r = (int)opt.num("--r", 1 << 22, 1, 1 << 26);
  int n_s = (int)opt.num("--s", 1 << 20, 1, 1 << 24);
  int bits = (int)opt.num("--bucket-bits", 13, 1, 24);
  JoinKeys k{keys == "gauss", (int)opt.num("--domain-bits", 24, 1, 31), opt.real("--hot", 0.125, 0.0, 1.0),
             opt.real("--sigma", 64.0, 0.0, 1e9)};
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();
  if (keys != "uniform" && keys != "gauss") die("--keys %s: expected uniform or gauss", keys.c_str());

  Rng rng(seed);
  Relation r = join_relation(n_r, rng, k), s = join_relation(n_s, rng, k);
  int buckets = 1 << bits;
  std::vector<int> bucket_size(buckets, 0);
  for (uint32_t key : r.key) bucket_size[join_bucket(key, bits)]++;
  // The reference: per key, how many R tuples have it and the sum of their payloads; a probe's sum is then
  // (2 s_pay + 1) times its key's payload sum (join_term distributes over the sum modulo 2^64).
  std::vector<std::pair<uint32_t, uint32_t>> sorted(n_r);
  for (int i = 0; i < n_r; i++) sorted[i] = {r.key[i], r.pay[i]};
  std::sort(sorted.begin(), sorted.end());
  std::vector<unsigned> ref_count(n_s);
  std::vector<unsigned long long> ref_sum(n_s);
  unsigned long long ref_matches = 0;
  for (int i = 0; i < n_s; i++) {
    auto lo = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(s.key[i], 0u));
    unsigned long long pay_sum = 0;
    unsigned c = 0;
    for (auto it = lo; it != sorted.end() && it->first == s.key[i]; ++it, c++) pay_sum += it->second;
    ref_count[i] = c;
    ref_sum[i] = join_term(1, s.pay[i]) * pay_sum;
    ref_matches += c;
  }
  int largest = *std::max_element(bucket_size.begin(), bucket_size.end());
  printf("# join %s: %s keys in [0, 2^%d)%s, R %d tuples, S %d tuples, %d buckets (largest %d), %llu matches\n",
         cdp ? "cdp" : "flat", keys.c_str(), k.domain_bits,
         k.gauss ? strf(" (%.3f of them gaussian, deviation %g)", k.hot, k.sigma).c_str() : "", n_r, n_s, buckets,
         largest, ref_matches);
  ChildGrids children;  // one child per probe tuple whose bucket is not empty, over the bucket
  for (int i = 0; i < n_s; i++)
    if (int n = bucket_size[join_bucket(s.key[i], bits)]) children.add(blocks_for(n, kChildBlock), kChildBlock);
  children.print();

  if (cdp) reserve_device_launches(std::min<size_t>(children.launches(), kProbeBatch));  // one batch at a time
  DevArray<uint32_t> in_key, in_pay, r_key(n_r), r_pay(n_r), s_key, s_pay;
  in_key.upload(r.key);
  in_pay.upload(r.pay);
  s_key.upload(s.key);
  s_pay.upload(s.pay);
  DevArray<int> bucket_count(buckets), start(buckets + 1), cursor(buckets);
  DevArray<unsigned> count(n_s);
  DevArray<unsigned long long> sum(n_s);
  JoinDev d{r_key.get(), r_pay.get(), start.get(), s_key.get(), s_pay.get(), count.get(), sum.get(), bits};

  std::vector<unsigned> got_count;
  std::vector<unsigned long long> got_sum;
  BenchHooks h;
  h.reset = [&] {
    count.fill_bytes(0xff);  // a probe never written cannot pass the check
    sum.fill_bytes(0xff);
  };
  h.run = [&] {
    CK(cudaMemsetAsync(bucket_count.get(), 0, buckets * sizeof(int)));
    join_count<<<blocks_for(n_r, kParentBlock), kParentBlock>>>(in_key.get(), n_r, bits, bucket_count.get());
    CK_LAUNCH(join_count);
    join_scan<<<1, kScanBlock>>>(bucket_count.get(), buckets, start.get(), cursor.get());
    CK_LAUNCH(join_scan);
    join_scatter<<<blocks_for(n_r, kParentBlock), kParentBlock>>>(in_key.get(), in_pay.get(), n_r, bits,
                                                                  cursor.get(), r_key.get(), r_pay.get());
    CK_LAUNCH(join_scatter);
    join_probe(d, n_s);
  };
  h.check = [&]() -> std::string {
    got_count = count.download();
    got_sum = sum.download();
    for (int i = 0; i < n_s; i++)
      if (got_count[i] != ref_count[i] || got_sum[i] != ref_sum[i])
        return strf("probe %d (key %u): gpu %u matches, sum %llu; cpu %u, %llu", i, s.key[i], got_count[i],
                    got_sum[i], ref_count[i], ref_sum[i]);
    return "";
  };
  h.result = [&] {
    unsigned long long matches = 0, checksum = 0;
    int matched = 0;
    for (int i = 0; i < n_s; i++) {
      matches += got_count[i];
      matched += got_count[i] > 0;
      checksum += got_sum[i];
    }
    return strf("matches=%llu probes_matched=%d checksum=%016llx", matches, matched, checksum);
  };
  return bench_run("join", reps, h);
}
