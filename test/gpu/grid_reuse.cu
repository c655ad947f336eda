// Pattern: child grids that parent blocks which are done may run (klap's -klap-grid-reuse): children whose
// threads meet at barriers and share static and dynamic shared memory, launched by the threads of parent
// grids whose blocks end at different times. Each part checks every child block's result against the CPU:
// - mixed: 150 parent blocks of 128 threads; a slot's child has 128 threads (the parent block's: a
//   parent block can run it), 64 (whole warps: its first two warps can), 48 (part of a warp) or 256 (more
//   than a parent block): the last two are always left to the aggregated launch. Grids of 1 to 3 blocks,
//   every fourth one two-dimensional. Some parent blocks launch many children and others none, and some
//   spin a while first, so that blocks that are done take the children of blocks still running.
// - few: 2 parent blocks whose threads launch 1,000 children in all: the two blocks take most of them, one
//   at a time, while the rest is launched at the grid's end.
// - chain: 600 blocks of 128 threads, each thread launching once: more records than a scope's first chunk
//   holds, so that blocks take records from a chain of chunks.
// - none: the few part's parent without dynamic shared memory, so that no parent block can run a child
//   that asks for some (every child is left to the launch).
#include "check.cuh"

#include <cstring>
#include <vector>

constexpr int PB = 128;  // parent block size
constexpr int MAXG = 3;  // most blocks of a child grid (in x; the y dimension is 1 or 2)
constexpr int MAXB = 2 * MAXG;
constexpr size_t DYN = 128 * sizeof(unsigned);  // the parents' dynamic shared memory

__device__ __host__ inline unsigned mix(unsigned a, unsigned b) { return (a * 2654435761u) ^ (b + 0x9e3779b9u); }

__device__ __host__ inline unsigned childThreads(int slot) {
  const unsigned sizes[4] = {128, 64, 48, 256};
  return sizes[slot % 4];
}
__device__ __host__ inline unsigned gridX(int slot) { return 1 + (slot / 4) % MAXG; }
__device__ __host__ inline unsigned gridY(int slot) { return (slot / 4) % 4 == 3 ? 2 : 1; }
// Dynamic shared memory words of the child: some ask for none, others for up to 128 words.
__device__ __host__ inline unsigned dynWords(int slot) { return (slot / 5) % 3 == 0 ? 0 : 32 * (1 + (slot % 4)); }

// Sums every thread's value over barriers, with static and dynamic shared memory; thread 0 writes the block's.
__global__ void child(unsigned *out, int slot, unsigned salt, unsigned words) {
  __shared__ unsigned st[256];
  __shared__ unsigned acc;
  extern __shared__ unsigned dyn[];
  unsigned t = threadIdx.x, B = blockDim.x;
  unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
  if (t == 0)
    acc = 0;
  st[t] = mix(t, salt + b);
  for (unsigned k = t; k < words; k += B)
    dyn[k] = mix(k, salt);
  __syncthreads();
  unsigned v = st[(t + 1) % B];
  if (words)
    v += 3u * dyn[t % words];
  atomicAdd(&acc, v);
  __syncthreads();
  if (t == 0)
    out[slot * MAXB + b] = acc + 7u * gridDim.x + 11u * gridDim.y;
}

static unsigned childCpu(int slot, unsigned salt, unsigned b) {
  unsigned B = childThreads(slot), words = dynWords(slot), acc = 0;
  for (unsigned t = 0; t < B; ++t) {
    unsigned v = mix((t + 1) % B, salt + b);
    if (words)
      v += 3u * mix(t % words, salt);
    acc += v;
  }
  return acc + 7u * gridX(slot) + 11u * gridY(slot);
}

__device__ inline void launchSlot(unsigned *out, int slot, unsigned salt) {
  child<<<dim3(gridX(slot), gridY(slot)), childThreads(slot), dynWords(slot) * sizeof(unsigned)>>>(out, slot, salt,
                                                                                                    dynWords(slot));
}

// mixed: thread i of the grid launches `per` children where `per` varies by block (0 to 3), after a spin
// whose length varies by block.
__global__ void parentMixed(unsigned *out, unsigned salt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned spin = (blockIdx.x % 5) * 2000;
  unsigned long long start = clock64();
  while (clock64() - start < spin)
    ;
  int per = (blockIdx.x % 7) % 4;
  if (threadIdx.x % 2 == 0)
    for (int k = 0; k < per; ++k)
      launchSlot(out, 3 * i + k, salt);
}

// few and none: each thread launches a share of `slots` children.
__global__ void parentFew(unsigned *out, unsigned salt, int slots) {
  int threads = gridDim.x * blockDim.x;
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < slots; s += threads)
    launchSlot(out, s, salt);
}

// chain: one child a thread.
__global__ void parentChain(unsigned *out, unsigned salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  launchSlot(out, i, salt);
}

// `launched(slot)`: whether the slot's child was launched; every block of its grid must hold its sum, and
// every other word must be untouched.
template <typename F> static void compare(const char *part, const std::vector<unsigned> &got, unsigned salt, F launched) {
  unsigned long long sum = 0;
  int filled = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    int slot = (int)(k / MAXB);
    unsigned b = (unsigned)(k % MAXB);
    bool in = launched(slot) && b < gridX(slot) * gridY(slot);
    unsigned want = in ? childCpu(slot, salt, b) : 0xffffffffu;
    if (got[k] != want)
      mismatch("%s: slot %d block %u: %u (want %u)", part, slot, b, got[k], want);
    if (in) {
      sum += got[k];
      ++filled;
    }
  }
  std::printf("%s: %d child blocks, sum %llu\n", part, filled, sum);
}

constexpr int MIXED_N = 150 * PB - 37;
constexpr int FEW_SLOTS = 1000;
constexpr int CHAIN_BLOCKS = 600;

// With an argument, only the part of that name runs (mixed, few, chain, none).
int main(int argc, char **argv) {
  auto part = [&](const char *name) { return argc < 2 || std::strcmp(argv[1], name) == 0; };
  setPendingLaunchLimit(1 << 17);
  if (part("mixed")) {
    auto got = runOnWords((size_t)3 * MIXED_N * MAXB,
                   [](unsigned *d) { parentMixed<<<(MIXED_N + PB - 1) / PB, PB, DYN>>>(d, 17u, MIXED_N); });
    compare("mixed", got, 17u, [](int slot) {
      int i = slot / 3, k = slot % 3, block = i / PB;
      return i % 2 == 0 && k < (block % 7) % 4;
    });
  }
  if (part("few")) {
    auto got = runOnWords((size_t)FEW_SLOTS * MAXB, [](unsigned *d) { parentFew<<<2, PB, DYN>>>(d, 29u, FEW_SLOTS); });
    compare("few", got, 29u, [](int) { return true; });
  }
  if (part("chain")) {
    auto got = runOnWords((size_t)CHAIN_BLOCKS * PB * MAXB, [](unsigned *d) { parentChain<<<CHAIN_BLOCKS, PB, DYN>>>(d, 31u); });
    compare("chain", got, 31u, [](int) { return true; });
  }
  if (part("none")) {
    auto got = runOnWords((size_t)FEW_SLOTS * MAXB, [](unsigned *d) { parentFew<<<2, PB>>>(d, 37u, FEW_SLOTS); });
    compare("none", got, 37u, [](int) { return true; });
  }
  if (g_bad) {
    std::printf("FAIL %s (%lld mismatches)\n", g_first, g_bad);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
