// Sequence alignment, candidate checking (after SPAWN's SA, HPCA'17). A seeded random reference genome, reads
// sampled from it with a few substitutions, and for every read a list of candidate locations in the reference (what
// a seed index would hand over): the read's true origin among others, their number drawn from a power law, so most
// reads have a few and some have tens of thousands. Each candidate is checked by counting the read's mismatches
// against the reference at that location; per read the best candidate (fewest mismatches, then lowest location)
// and the number of candidates within --max-mismatches are kept. One parent thread per read: sa.cu launches a child
// grid over the candidates of a read that has more than --threshold of them (a child thread per candidate) and
// checks the others itself; sa_flat.cu checks every candidate in the parent thread.
#pragma once

#include "../common/children.h"

constexpr int kParentBlock = 256;
constexpr int kChildBlock = 128;
constexpr int kBasesPerWord = 16;  // 2 bits per base
constexpr unsigned long long kNoCandidate = ~0ull;

struct SaDev {
  const uint32_t *ref;     // packed reference, one word of padding at the end
  const uint32_t *reads;   // read r is words [r * read_words, (r + 1) * read_words)
  const int *cand_off;     // read r's candidates are cand_pos[cand_off[r] .. cand_off[r + 1])
  const int *cand_pos;
  int read_words, max_mismatches, threshold;
  unsigned long long *best;  // per read: (mismatches << 32) | location of the best candidate
  int *hits;                 // per read: candidates with at most max_mismatches mismatches
};

__host__ __device__ inline int sa_popcount(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

// Mismatching bases between the read and the reference starting at base `pos`: 16 bases per step, the reference
// word assembled from the two words the bases straddle.
__host__ __device__ inline int sa_mismatches(const uint32_t *ref, const uint32_t *read, int read_words, int pos) {
  const uint32_t *at = ref + pos / kBasesPerWord;
  const int shift = 2 * (pos % kBasesPerWord);
  int count = 0;
  for (int w = 0; w < read_words; w++) {
    uint32_t r = shift ? (at[w] >> shift) | (at[w + 1] << (32 - shift)) : at[w];
    uint32_t x = r ^ read[w];
    count += sa_popcount((x | (x >> 1)) & 0x55555555u);
  }
  return count;
}

__host__ __device__ inline unsigned long long sa_key(int mismatches, int pos) {
  return ((unsigned long long)mismatches << 32) | (unsigned)pos;
}

// The parent thread checks candidates [begin, end) of read r itself.
__device__ inline void sa_check_all(const SaDev &d, int r, int begin, int end) {
  const uint32_t *read = d.reads + (size_t)r * d.read_words;
  unsigned long long best = kNoCandidate;
  int hits = 0;
  for (int c = begin; c < end; c++) {
    int pos = d.cand_pos[c], mm = sa_mismatches(d.ref, read, d.read_words, pos);
    best = min(best, sa_key(mm, pos));
    hits += mm <= d.max_mismatches;
  }
  d.best[r] = best;
  d.hits[r] = hits;
}

// Checks every candidate of `count` reads (defined by each variant).
void sa_check(const SaDev &d, int count);

struct SaInput {
  int length = 0, read_words = 0;
  std::vector<uint32_t> ref, reads;
  std::vector<int> origin;           // where each read was sampled
  std::vector<int> cand_off, cand_pos;
};

// Candidate counts follow a Pareto law: floor(min_cand / u^(1 / alpha)) for u uniform in (0, 1], capped.
inline SaInput sa_generate(int n_reads, int read_length, int ref_length, int min_cand, int max_cand, double alpha,
                           uint64_t seed) {
  SaInput in;
  in.length = ref_length;
  in.read_words = read_length / kBasesPerWord;
  Rng rng(seed);
  in.ref.assign(ref_length / kBasesPerWord + 1, 0);
  for (int w = 0; w < ref_length / kBasesPerWord; w++) in.ref[w] = (uint32_t)rng.next();
  auto base_at = [&](int i) { return (in.ref[i / kBasesPerWord] >> (2 * (i % kBasesPerWord))) & 3u; };

  const int last = ref_length - read_length;  // the highest location a read fits at
  in.reads.assign((size_t)n_reads * in.read_words, 0);
  in.origin.resize(n_reads);
  in.cand_off.assign(n_reads + 1, 0);
  for (int r = 0; r < n_reads; r++) {
    int from = (int)rng.below((uint32_t)last + 1);
    in.origin[r] = from;
    uint32_t *read = &in.reads[(size_t)r * in.read_words];
    for (int i = 0; i < read_length; i++) {
      uint32_t b = base_at(from + i);
      if (rng.below(32) == 0) b = (b + 1 + rng.below(3)) & 3u;  // a substitution, 1 base in 32
      read[i / kBasesPerWord] |= b << (2 * (i % kBasesPerWord));
    }
    double u = (double)((rng.next() >> 11) + 1) * 0x1p-53;
    double c = std::floor(min_cand * std::pow(u, -1.0 / alpha));
    int count = (int)std::min<double>(c, max_cand);
    int true_at = (int)rng.below((uint32_t)count);
    for (int k = 0; k < count; k++) in.cand_pos.push_back(k == true_at ? from : (int)rng.below((uint32_t)last + 1));
    if (in.cand_pos.size() >= (size_t)INT_MAX) die("too many candidates for 32-bit offsets");
    in.cand_off[r + 1] = (int)in.cand_pos.size();
  }
  return in;
}

struct SaResult {
  std::vector<unsigned long long> best;
  std::vector<int> hits;
};

inline SaResult sa_cpu(const SaInput &in, int max_mismatches) {
  int n = (int)in.origin.size();
  SaResult res;
  res.best.assign(n, kNoCandidate);
  res.hits.assign(n, 0);
  for (int r = 0; r < n; r++)
    for (int c = in.cand_off[r]; c < in.cand_off[r + 1]; c++) {
      int pos = in.cand_pos[c];
      int mm = sa_mismatches(in.ref.data(), &in.reads[(size_t)r * in.read_words], in.read_words, pos);
      res.best[r] = std::min(res.best[r], sa_key(mm, pos));
      res.hits[r] += mm <= max_mismatches;
    }
  return res;
}

inline int sa_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: sa [--reps N] [--reads N] [--read-length L] [--reference B] [--min-candidates C]\n"
              "          [--max-candidates C] [--alpha A] [--threshold T] [--max-mismatches M] [--seed S]\n"
              "  N reads (default 131072) of L bases (a multiple of 16, default 64) sampled from a random reference\n"
              "  of B bases (default 16777216), 1 base in 32 substituted; each read has min-candidates / u^(1/A)\n"
              "  candidate locations (u uniform; default 4, A 1.2, capped at 65536). A read with more than T\n"
              "  candidates (default 32) launches a child grid over them; a candidate within M mismatches\n"
              "  (default 4) is a hit\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  int n = (int)opt.num("--reads", 131072, 1, 1 << 26);
  int read_length = (int)opt.num("--read-length", 64, kBasesPerWord, 1024);
  int ref_length = (int)opt.num("--reference", 1 << 24, 1024, 1 << 30);
  int min_cand = (int)opt.num("--min-candidates", 4, 1, 1 << 20);
  int max_cand = (int)opt.num("--max-candidates", 65536, 1, 1 << 26);
  double alpha = opt.real("--alpha", 1.2, 0.1, 100.0);
  int threshold = (int)opt.num("--threshold", 32, 0, INT_MAX);
  int max_mm = (int)opt.num("--max-mismatches", 4, 0, 1024);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();
  if (read_length % kBasesPerWord) die("--read-length %d is not a multiple of %d", read_length, kBasesPerWord);
  if (ref_length % kBasesPerWord) die("--reference %d is not a multiple of %d", ref_length, kBasesPerWord);
  if (read_length > ref_length) die("reads longer than the reference");
  if (min_cand > max_cand) die("--min-candidates above --max-candidates");

  SaInput in = sa_generate(n, read_length, ref_length, min_cand, max_cand, alpha, seed);
  SaResult ref = sa_cpu(in, max_mm);
  long long total = in.cand_off[n];
  int most = 0;
  ChildGrids children;
  for (int r = 0; r < n; r++) {
    int count = in.cand_off[r + 1] - in.cand_off[r];
    most = std::max(most, count);
    if (count > threshold) children.add(blocks_for(count, kChildBlock), kChildBlock);
  }
  printf("# sa %s: %d reads of %d bases, reference of %d bases, %lld candidates (max %d per read), threshold %d\n",
         cdp ? "cdp" : "flat", n, read_length, ref_length, total, most, threshold);
  children.print();

  if (cdp) reserve_device_launches(children.launches());  // every launch can be pending at once
  DevArray<uint32_t> dref, dreads;
  DevArray<int> doff, dpos;
  dref.upload(in.ref);
  dreads.upload(in.reads);
  doff.upload(in.cand_off);
  dpos.upload(in.cand_pos);
  DevArray<unsigned long long> best(n);
  DevArray<int> hits(n);
  SaDev d{dref.get(), dreads.get(), doff.get(), dpos.get(), in.read_words, max_mm, threshold, best.get(), hits.get()};

  SaResult got;
  BenchHooks h;
  h.reset = [&] {
    best.fill_bytes(0xff);
    hits.fill_bytes(0);
  };
  h.run = [&] { sa_check(d, n); };
  h.check = [&]() -> std::string {
    got.best = best.download();
    got.hits = hits.download();
    for (int r = 0; r < n; r++)
      if (got.best[r] != ref.best[r] || got.hits[r] != ref.hits[r])
        return strf("read %d: gpu best %d mismatches at %u, %d hits; cpu %d at %u, %d hits", r,
                    (int)(got.best[r] >> 32), (unsigned)got.best[r], got.hits[r], (int)(ref.best[r] >> 32),
                    (unsigned)ref.best[r], ref.hits[r]);
    return "";
  };
  h.result = [&] {
    long long mismatch_sum = 0, hit_sum = 0, at_origin = 0;
    unsigned long long checksum = 0;
    for (int r = 0; r < n; r++) {
      mismatch_sum += (long long)(got.best[r] >> 32);
      hit_sum += got.hits[r];
      at_origin += (int)(unsigned)got.best[r] == in.origin[r];
      checksum += (unsigned long long)(r + 1) * (unsigned)got.best[r];
    }
    return strf("candidates=%lld best_mismatch_sum=%lld at_origin=%lld hits=%lld checksum=%llu", total,
                mismatch_sum, at_origin, hit_sum, checksum);
  };
  return bench_run("sa", reps, h);
}
