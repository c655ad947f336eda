// Pattern: every launch of a child has one configuration over its scope (grid, block and dynamic shared
// memory computed from the parent's parameters, not from its thread), so klap's aggregated child finds a
// block's record by dividing by the first record's blocks instead of searching (remark KLAP200: "one
// configuration over the scope"). Three shapes read from a by-value struct, 1-D, 2-D and 3-D grids and
// blocks, launched from divergent code (two threads of three), each child block exchanging words through its
// dynamic shared memory across a barrier; then a recursive kernel whose grid size it passes on unchanged
// (uniform in its aggregated form too); and a child of one-warp blocks, which `auto` coarsens (a block runs
// several aggregated blocks, finding each one's record by the division). Each child thread writes a hash of
// its coordinates and of its neighbour's word; the host checks every slot and every count.
#include "check.cuh"

#include <vector>

constexpr int PG = 30, PB = 96;  // parent blocks and threads
constexpr int N = PG * PB;

struct Config {
  unsigned gx, gy, gz, bx, by, bz;
  unsigned smem;  // bytes: one word per child thread
};
constexpr int CONFIGS = 3;
const Config kConfigs[CONFIGS] = {
    {7, 1, 1, 128, 1, 1, 128 * 4},
    {3, 2, 1, 8, 4, 1, 32 * 4},
    {1, 2, 3, 4, 2, 5, 40 * 4},
};

__device__ __host__ inline bool launches(int i) { return i % 3 != 1; }
__device__ __host__ inline unsigned long long childThreads(Config c) {
  return (unsigned long long)c.gx * c.gy * c.gz * c.bx * c.by * c.bz;
}
__device__ __host__ inline unsigned mix(unsigned h, unsigned v) { return hashOf(h ^ (v + 0x9e3779b9u + (h << 6))); }
// What child thread t of block (x, y, z) of parent i writes, its neighbour in the block having written `next`.
__device__ __host__ inline unsigned wordOf(unsigned i, unsigned block, unsigned thread) {
  return mix(mix(i, block), thread);
}

__global__ void child(unsigned *out, unsigned *count, unsigned i) {
  extern __shared__ unsigned words[];
  unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned per = blockDim.x * blockDim.y * blockDim.z;
  unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  words[thread] = wordOf(i, block, thread);
  __syncthreads();
  unsigned next = words[(thread + 1) % per];
  out[(unsigned long long)block * per + thread] = mix(words[thread], next);
  atomicAdd(count, 1u);
}

// The one-warp child: `leafBlocks(c)` blocks of 32 threads for every fifth parent.
__device__ __host__ inline unsigned leafBlocks(Config c) { return c.gx + c.gz; }
__device__ __host__ inline bool launchesLeaf(int i) { return i % 5 == 0; }
__global__ void leaf(unsigned *out, unsigned i) {
  unsigned t = blockIdx.x * 32 + threadIdx.x;
  out[t] = wordOf(i, blockIdx.x + 1000 * gridDim.x, threadIdx.x);
}

__global__ void parent(unsigned *out, unsigned *count, unsigned *leafOut, Config c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (launchesLeaf(i))
    leaf<<<leafBlocks(c), 32>>>(leafOut + (unsigned long long)i * 32 * leafBlocks(c), i);
  if (!launches(i))
    return;
  child<<<dim3(c.gx, c.gy, c.gz), dim3(c.bx, c.by, c.bz), c.smem>>>(out + (unsigned long long)i * childThreads(c),
                                                                     count + i, i);
}

// The recursive part: each thread at depth d > 0 with a lane divisible by 8 launches `g` blocks of 32 threads
// at depth d - 1; every thread adds a hash of its path into its depth's sum and counts itself.
constexpr int DEPTH = 3, REC_GRID = 3;
__global__ void rec(unsigned long long *sum, unsigned *ran, int depth, int g, unsigned tag) {
  unsigned me = mix(tag, blockIdx.x * 32 + threadIdx.x);
  atomicAdd(&sum[depth], (unsigned long long)me);
  atomicAdd(&ran[depth], 1u);
  if (depth > 0 && threadIdx.x % 8 == 0)
    rec<<<g, 32>>>(sum, ran, depth - 1, g, me);
}

static void recReference(std::vector<unsigned long long> &sum, std::vector<unsigned> &ran, int depth, int blocks,
                         unsigned tag) {
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 32; ++t) {
      unsigned me = mix(tag, b * 32 + t);
      sum[depth] += me;
      ran[depth] += 1;
      if (depth > 0 && t % 8 == 0)
        recReference(sum, ran, depth - 1, REC_GRID, me);
    }
}

int main() {
  setPendingLaunchLimit(1 << 15);
  unsigned long long checksum = 0, threads = 0;
  for (int k = 0; k < CONFIGS; ++k) {
    Config c = kConfigs[k];
    unsigned long long per = childThreads(c), total = per * N;
    unsigned long long leafTotal = (unsigned long long)N * 32 * leafBlocks(c);
    std::vector<unsigned> want(total, 0xffffffffu), got(total), gotCount(N);
    std::vector<unsigned> wantLeaf(leafTotal, 0xffffffffu), gotLeaf(leafTotal);
    for (int i = 0; i < N - 5; ++i)
      if (launchesLeaf(i))
        for (unsigned b = 0; b < leafBlocks(c); ++b)
          for (unsigned t = 0; t < 32; ++t)
            wantLeaf[(unsigned long long)i * 32 * leafBlocks(c) + b * 32 + t] = wordOf(i, b + 1000 * leafBlocks(c), t);
    for (int i = 0; i < N - 5; ++i) {
      if (!launches(i))
        continue;
      unsigned blockThreads = c.bx * c.by * c.bz;
      for (unsigned block = 0; block < c.gx * c.gy * c.gz; ++block)
        for (unsigned t = 0; t < blockThreads; ++t)
          want[i * per + block * blockThreads + t] =
              mix(wordOf(i, block, t), wordOf(i, block, (t + 1) % blockThreads));
    }
    unsigned *out, *count, *leafOut;
    CK(cudaMalloc(&out, total * sizeof(unsigned)));
    CK(cudaMalloc(&count, N * sizeof(unsigned)));
    CK(cudaMalloc(&leafOut, leafTotal * sizeof(unsigned)));
    CK(cudaMemset(out, 0xff, total * sizeof(unsigned)));
    CK(cudaMemset(count, 0, N * sizeof(unsigned)));
    CK(cudaMemset(leafOut, 0xff, leafTotal * sizeof(unsigned)));
    parent<<<PG, PB>>>(out, count, leafOut, c, N - 5);  // the last five parents return at once
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), out, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gotCount.data(), count, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gotLeaf.data(), leafOut, leafTotal * sizeof(unsigned), cudaMemcpyDeviceToHost));
    checksum = checksum * 31 + checksumWords(gotLeaf.data(), wantLeaf.data(), leafTotal, [&](size_t w) {
      mismatch("config %d, leaf word %zu: %08x (want %08x)", k, w, gotLeaf[w], wantLeaf[w]);
    });
    checksum = checksum * 31 + checksumWords(got.data(), want.data(), total, [&](size_t w) {
      mismatch("config %d, word %zu: %08x (want %08x)", k, w, got[w], want[w]);
    });
    for (int i = 0; i < N; ++i) {
      unsigned w = i < N - 5 && launches(i) ? (unsigned)per : 0;
      threads += gotCount[i];
      if (gotCount[i] != w)
        mismatch("config %d, parent %d: %u child threads ran (want %u)", k, i, gotCount[i], w);
    }
    CK(cudaFree(out));
    CK(cudaFree(count));
    CK(cudaFree(leafOut));
  }
  std::printf("child_threads=%llu\n", threads);
  std::printf("checksum=%llu\n", checksum);

  std::vector<unsigned long long> wantSum(DEPTH + 1, 0), gotSum(DEPTH + 1);
  std::vector<unsigned> wantRan(DEPTH + 1, 0), gotRan(DEPTH + 1);
  recReference(wantSum, wantRan, DEPTH, 2, 7u);
  unsigned long long *sum;
  unsigned *ran;
  CK(cudaMalloc(&sum, (DEPTH + 1) * sizeof(unsigned long long)));
  CK(cudaMalloc(&ran, (DEPTH + 1) * sizeof(unsigned)));
  CK(cudaMemset(sum, 0, (DEPTH + 1) * sizeof(unsigned long long)));
  CK(cudaMemset(ran, 0, (DEPTH + 1) * sizeof(unsigned)));
  rec<<<2, 32>>>(sum, ran, DEPTH, REC_GRID, 7u);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(gotSum.data(), sum, (DEPTH + 1) * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotRan.data(), ran, (DEPTH + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int d = DEPTH; d >= 0; --d) {
    std::printf("depth %d: threads=%u sum=%llu\n", d, gotRan[d], gotSum[d]);
    if (gotRan[d] != wantRan[d] || gotSum[d] != wantSum[d])
      mismatch("depth %d: %u threads, sum %llu (want %u, %llu)", d, gotRan[d], gotSum[d], wantRan[d], wantSum[d]);
  }
  CK(cudaFree(sum));
  CK(cudaFree(ran));
  return finish();
}
