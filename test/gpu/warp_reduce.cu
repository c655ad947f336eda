// Pattern: children whose threads talk within their warp only to reduce, and
// whose lane 0 then adds the warp's results to the parent's slots (atomics):
// __reduce_add_sync, __reduce_max_sync, __reduce_min_sync (unsigned),
// __ballot_sync, __any_sync, __all_sync, a 64-bit __shfl_down_sync tree (with
// a constant added in each working lane) and a 32-bit __shfl_xor_sync
// butterfly. klap runs such a child's warps in the launching thread, folding
// each reduction lane by lane (KLAP321), and a child too large for that in the
// launching warp (KLAP308) or launched.
// Two parent grids: 73,728 threads (large enough for warp runs) and 2,000
// (small: the small-grid thresholds). Children of 0 to 3,000 threads (lanes
// past n take part with nothing, so that klap's loop over a warp's lanes may
// stop at n): in blocks of 64 with a signed index; with an unsigned one in
// one-dimensional blocks of 96, and in blocks of 32 x 2, whose two rows of a
// block have the same blockIdx.x * blockDim.x + threadIdx.x (there every lane
// runs: the loop stops at the bound only in one-dimensional blocks).
#include "check.cuh"

#include <algorithm>

constexpr unsigned FULL = 0xffffffffu;
constexpr int CB = 64;
constexpr int SLOTS = 7;

__device__ __host__ inline unsigned childValue(int i, int t) { return hashOf(i * 7919u + (unsigned)t * 31u + 1u); }

__device__ __host__ inline int childLen(int i) {
  unsigned h = hashOf(i + 12345u);
  switch (h % 5) {
  case 0:
    return 0;
  case 1:
    return 1 + (int)((h >> 8) % 40);
  case 2:
  case 3:
    return 40 + (int)((h >> 8) % 1000);
  default:
    return 1000 + (int)((h >> 8) % 2001);
  }
}

// The child's reductions, given its thread's index t and whether t is below the bound.
__device__ __forceinline__ void reduceWarp(int i, unsigned t, bool on, unsigned *out, unsigned long long *sums) {
  unsigned v = on ? childValue(i, t) : 0u;
  unsigned c = __reduce_add_sync(FULL, on && (v & 3u) == 0 ? 1u : 0u);
  unsigned m = __reduce_max_sync(FULL, v >> 4);
  unsigned mn = __reduce_min_sync(FULL, on ? v : 0xffffffffu);
  unsigned bal = __ballot_sync(FULL, on && (v & 1u));
  int any = __any_sync(FULL, on && v % 97u == 0);
  int all = __all_sync(FULL, !on || (v & 0x80000000u) == 0);
  unsigned long long s = on ? (unsigned long long)v * (t + 1u) + 5ull : 0ull;
  for (int d = 16; d > 0; d /= 2)
    s += __shfl_down_sync(FULL, s, d);
  unsigned x = v ^ (v >> 3);
  for (int d = 1; d < 32; d *= 2)
    x += __shfl_xor_sync(FULL, x, d);
  if (threadIdx.x % 32 == 0) {
    unsigned *o = out + (size_t)i * SLOTS;
    atomicAdd(o, c);
    atomicMax(o + 1, m);
    atomicMin(o + 2, mn);
    atomicAdd(o + 3, (unsigned)__popc(bal));
    atomicAdd(o + 4, (any ? 1u : 0u) + (all ? 0x10000u : 0u));
    atomicAdd(o + 5, x);
    atomicAdd(sums + i, s);
  }
}

__global__ void reduceChild(int i, int n, unsigned *out, unsigned long long *sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  reduceWarp(i, (unsigned)t, t < n, out, sums);
}

__global__ void reduceChildU(int i, unsigned n, unsigned *out, unsigned long long *sums) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  reduceWarp(i, t, t < n, out, sums);
}

__global__ void reduceParent(int count, unsigned *out, unsigned long long *sums) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  int n = childLen(i);
  if (n == 0)
    return;
  if (i % 3 == 0)
    reduceChild<<<(n + CB - 1) / CB, CB>>>(i, n, out, sums);
  else if (i % 3 == 1)
    reduceChildU<<<(n + 95) / 96, 96>>>(i, (unsigned)n, out, sums);
  else
    reduceChildU<<<(n + 31) / 32, dim3(32, 2)>>>(i, (unsigned)n, out, sums);
}

// One child warp, its lanes' indices first + 0 to 31, folded into o and sum as lane 0 adds them.
static void referenceWarp(int i, int n, unsigned first, unsigned *o, unsigned long long *sum) {
  unsigned c = 0, m = 0, mn = 0xffffffffu, bal = 0, x = 0;
  bool any = false, all = true;
  unsigned long long s = 0;
  for (unsigned l = 0; l < 32; ++l) {
    unsigned t = first + l;
    bool on = t < (unsigned)n;
    unsigned v = on ? childValue(i, (int)t) : 0u;
    c += on && (v & 3u) == 0;
    m = std::max(m, v >> 4);
    mn = std::min(mn, on ? v : 0xffffffffu);
    bal |= (on && (v & 1u)) ? 1u << l : 0u;
    any = any || (on && v % 97u == 0);
    all = all && (!on || (v & 0x80000000u) == 0);
    s += on ? (unsigned long long)v * (t + 1u) + 5ull : 0ull;
    x += v ^ (v >> 3);
  }
  o[0] += c;
  o[1] = std::max(o[1], m);
  o[2] = std::min(o[2], mn);
  o[3] += (unsigned)__builtin_popcount(bal);
  o[4] += (any ? 1u : 0u) + (all ? 0x10000u : 0u);
  o[5] += x;
  *sum += s;
}

static void reference(int i, unsigned *o, unsigned long long *sum) {
  int n = childLen(i);
  o[0] = o[1] = o[3] = o[4] = o[5] = 0;
  o[2] = 0xffffffffu;
  *sum = 0;
  if (n == 0)
    return;
  // The launch's block: its width, its rows (each row's warps see the same indices).
  unsigned width = i % 3 == 0 ? CB : i % 3 == 1 ? 96 : 32, rows = i % 3 == 2 ? 2 : 1;
  unsigned blocks = ((unsigned)n + width - 1) / width;
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned w = 0; w < width; w += 32)
        referenceWarp(i, n, b * width + w, o, sum);
}

static void run(const char *name, int count) {
  unsigned *out;
  unsigned long long *sums;
  CK(cudaMalloc(&out, sizeof(unsigned) * SLOTS * count));
  CK(cudaMalloc(&sums, sizeof(unsigned long long) * count));
  std::vector<unsigned> init((size_t)SLOTS * count, 0);
  for (int i = 0; i < count; ++i) {
    init[(size_t)i * SLOTS + 2] = 0xffffffffu;
    init[(size_t)i * SLOTS + 6] = 0x5a5a5a5au;  // no child writes it
  }
  CK(cudaMemcpy(out, init.data(), sizeof(unsigned) * init.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(sums, 0, sizeof(unsigned long long) * count));
  reduceParent<<<(count + 255) / 256, 256>>>(count, out, sums);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> got(init.size());
  std::vector<unsigned long long> got_sums(count);
  CK(cudaMemcpy(got.data(), out, sizeof(unsigned) * got.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got_sums.data(), sums, sizeof(unsigned long long) * count, cudaMemcpyDeviceToHost));
  unsigned long long checksum = 0;
  for (int i = 0; i < count; ++i) {
    unsigned want[SLOTS];
    unsigned long long want_sum;
    reference(i, want, &want_sum);
    want[6] = 0x5a5a5a5au;
    for (int k = 0; k < SLOTS; ++k) {
      unsigned g = got[(size_t)i * SLOTS + k];
      if (g != want[k])
        mismatch("%s: parent %d slot %d: got %u, want %u", name, i, k, g, want[k]);
      checksum = checksum * 31 + g;
    }
    if (got_sums[i] != want_sum)
      mismatch("%s: parent %d sum: got %llu, want %llu", name, i, got_sums[i], want_sum);
    checksum = checksum * 31 + got_sums[i];
  }
  std::printf("%s: %d parents, checksum %016llx\n", name, count, checksum);
  CK(cudaFree(out));
  CK(cudaFree(sums));
}

int main() {
  setPendingLaunchLimit(1 << 17);
  run("large grid", 73728);
  run("small grid", 2000);
  if (g_bad) {
    std::printf("FAIL %lld mismatches; first: %s\n", g_bad, g_first);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
