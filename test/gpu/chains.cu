// Pattern: chains of one-block kernels that launch themselves for the next piece of the work (KLAP's promotion
// shape), in the forms promotion into a loop (docs/promotion.md) must keep:
//   rows   the host launches the first link with blocks of two rows: the launching thread of each row
//          (threadIdx.x == 0) starts a chain of its own, of one-row links (the loop launches as written there);
//   blocks the host launches the first link as a grid of three blocks: each block starts a chain of one-block
//          grids, whose links see blockIdx 0 (the loop launches as written there too);
//   slow   a chain of 200 links of about 10 us each, more than klap's loop runs before it hands a chain of
//          slow links over to pools at `auto`;
//   tail   a chain in the tail stream whose next link reads what this one wrote.
// Each link records its carried value and the order it ran in; the host checks every chain link by link.
#include "check.cuh"

constexpr int ROWS_LINKS = 9;
constexpr int ROWS_BLOCK = 64;
constexpr int SLOW_LINKS = 200;
constexpr int SLOW_BLOCK = 128;
constexpr int TAIL_LINKS = 40;
constexpr int TAIL_BLOCK = 96;

__device__ unsigned g_order;  // links run so far, all chains

// Chain `chain` link `link`: records the carried value and its turn, launches the next link with one row.
__global__ void rows_link(unsigned long long *seen, unsigned *turn, int chain, int link, unsigned long long carried) {
  __shared__ unsigned long long part[ROWS_BLOCK * 2];
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  part[t] = carried + t;
  __syncthreads();
  const int row = threadIdx.y;
  const int c = chain + row;  // a first link of two rows holds two chains
  if (threadIdx.x == 0) {
    unsigned long long sum = 0;
    for (int k = 0; k < (int)blockDim.x; ++k)
      sum += part[row * blockDim.x + k];
    seen[c * ROWS_LINKS + link] = sum;
    turn[c * ROWS_LINKS + link] = atomicAdd(&g_order, 1u);
    if (link + 1 < ROWS_LINKS)
      rows_link<<<1, ROWS_BLOCK, 0, cudaStreamFireAndForget>>>(seen, turn, c, link + 1, sum % 1000 + link);
  }
}

constexpr int GRID_LINKS = 7;
constexpr int GRID_BLOCKS = 3;

// Chain `chain + blockIdx.x`: a first link of several blocks starts one chain per block; the later links are
// one-block grids, where blockIdx.x is 0 and gridDim.x 1.
__global__ void grid_link(unsigned long long *seen, int chain, int link, unsigned long long carried) {
  const int c = chain + (int)blockIdx.x;
  if (threadIdx.x == 0) {
    const unsigned long long v = carried * 3 + c + 100ull * gridDim.x;
    seen[c * GRID_LINKS + link] = v;
    if (link + 1 < GRID_LINKS)
      grid_link<<<1, ROWS_BLOCK, 0, cudaStreamFireAndForget>>>(seen, c, link + 1, v % 977);
  }
}

__host__ __device__ inline unsigned long long rowsSum(unsigned long long carried, int row) {
  unsigned long long s = 0;
  for (int k = 0; k < ROWS_BLOCK; ++k)
    s += carried + row * ROWS_BLOCK + k;
  return s;
}

// About 10 us of dependent arithmetic a thread, then thread 0 launches the next link with the block's result.
// `salt` is read-only, so that a pool's links could overlap their reads of it (what lets `auto` hand the
// chain over to pools).
__global__ void slow_link(const unsigned *__restrict__ salt, unsigned long long *seen, int link, unsigned carried) {
  __shared__ unsigned folded;
  if (threadIdx.x == 0)
    folded = 0;
  __syncthreads();
  unsigned x = carried + threadIdx.x + salt[threadIdx.x % 4];
  for (int k = 0; k < 4000; ++k)
    x = x * 1664525u + 1013904223u;
  atomicXor(&folded, x);
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned r = folded;
    seen[link] = ((unsigned long long)atomicAdd(&g_order, 1u) << 32) | r;
    if (link + 1 < SLOW_LINKS)
      slow_link<<<1, SLOW_BLOCK, 0, cudaStreamFireAndForget>>>(salt, seen, link + 1, r);
  }
}

constexpr unsigned SALT[4] = {3, 141, 59, 26};

inline unsigned slowResult(unsigned carried) {
  unsigned r = 0;
  for (int t = 0; t < SLOW_BLOCK; ++t) {
    unsigned x = carried + t + SALT[t % 4];
    for (int k = 0; k < 4000; ++k)
      x = x * 1664525u + 1013904223u;
    r ^= x;
  }
  return r;
}

// Each link adds its index to the running prefix in `acc`, which the next link (tail-launched: after this
// grid completes) reads back.
__global__ void tail_link(int *acc, int link) {
  __shared__ int before;
  if (threadIdx.x == 0)
    before = link == 0 ? 0 : acc[link - 1];
  __syncthreads();
  if (threadIdx.x == 0) {
    acc[link] = before + link + 1;
    if (link + 1 < TAIL_LINKS)
      tail_link<<<1, TAIL_BLOCK, 0, cudaStreamTailLaunch>>>(acc, link + 1);
  }
}

int main() {
  setPendingLaunchLimit(4096);
  unsigned long long *seen, *slow;
  unsigned *turn, *salt;
  int *acc;
  CK(cudaMalloc(&seen, 2 * ROWS_LINKS * sizeof *seen));
  CK(cudaMalloc(&turn, 2 * ROWS_LINKS * sizeof *turn));
  CK(cudaMalloc(&slow, SLOW_LINKS * sizeof *slow));
  CK(cudaMalloc(&acc, TAIL_LINKS * sizeof *acc));
  CK(cudaMalloc(&salt, sizeof SALT));
  CK(cudaMemcpy(salt, SALT, sizeof SALT, cudaMemcpyHostToDevice));
  CK(cudaMemset(seen, 0, 2 * ROWS_LINKS * sizeof *seen));
  CK(cudaMemset(slow, 0, SLOW_LINKS * sizeof *slow));
  CK(cudaMemset(acc, 0, TAIL_LINKS * sizeof *acc));

  // rows: the first link has two rows, the rest one.
  rows_link<<<1, dim3(ROWS_BLOCK, 2)>>>(seen, turn, 0, 0, 7);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  unsigned long long hs[2 * ROWS_LINKS];
  unsigned ht[2 * ROWS_LINKS];
  CK(cudaMemcpy(hs, seen, sizeof hs, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ht, turn, sizeof ht, cudaMemcpyDeviceToHost));
  for (int c = 0; c < 2; ++c) {
    unsigned long long carried = 7;
    for (int l = 0; l < ROWS_LINKS; ++l) {
      // The first link's row c sums its own row; later links have one row, the chain's.
      const unsigned long long want = rowsSum(carried, l == 0 ? c : 0);
      if (hs[c * ROWS_LINKS + l] != want)
        mismatch("rows chain %d link %d: %llu, want %llu", c, l, hs[c * ROWS_LINKS + l], want);
      if (l > 0 && ht[c * ROWS_LINKS + l] <= ht[c * ROWS_LINKS + l - 1])
        mismatch("rows chain %d link %d ran before the link that launched it", c, l);
      carried = want % 1000 + l;
    }
  }
  std::printf("rows: 2 chains of %d links\n", ROWS_LINKS);

  unsigned long long *gseen;
  CK(cudaMalloc(&gseen, GRID_BLOCKS * GRID_LINKS * sizeof *gseen));
  CK(cudaMemset(gseen, 0, GRID_BLOCKS * GRID_LINKS * sizeof *gseen));
  grid_link<<<GRID_BLOCKS, ROWS_BLOCK>>>(gseen, 0, 0, 5);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  unsigned long long hg[GRID_BLOCKS * GRID_LINKS];
  CK(cudaMemcpy(hg, gseen, sizeof hg, cudaMemcpyDeviceToHost));
  for (int c = 0; c < GRID_BLOCKS; ++c) {
    unsigned long long carried = 5;
    for (int l = 0; l < GRID_LINKS; ++l) {
      const unsigned long long want = carried * 3 + c + 100ull * (l == 0 ? GRID_BLOCKS : 1);
      if (hg[c * GRID_LINKS + l] != want)
        mismatch("blocks chain %d link %d: %llu, want %llu", c, l, hg[c * GRID_LINKS + l], want);
      carried = want % 977;
    }
  }
  std::printf("blocks: %d chains of %d links\n", GRID_BLOCKS, GRID_LINKS);

  slow_link<<<1, SLOW_BLOCK>>>(salt, slow, 0, 1);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  unsigned long long hslow[SLOW_LINKS];
  CK(cudaMemcpy(hslow, slow, sizeof hslow, cudaMemcpyDeviceToHost));
  unsigned carried = 1;
  for (int l = 0; l < SLOW_LINKS; ++l) {
    const unsigned want = slowResult(carried);
    if ((unsigned)hslow[l] != want)
      mismatch("slow link %d: %u, want %u", l, (unsigned)hslow[l], want);
    if (l > 0 && (hslow[l] >> 32) <= (hslow[l - 1] >> 32))
      mismatch("slow link %d ran before the link that launched it", l);
    carried = want;
  }
  std::printf("slow: %d links\n", SLOW_LINKS);

  tail_link<<<1, TAIL_BLOCK>>>(acc, 0);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  int hacc[TAIL_LINKS];
  CK(cudaMemcpy(hacc, acc, sizeof hacc, cudaMemcpyDeviceToHost));
  for (int l = 0, want = 0; l < TAIL_LINKS; ++l) {
    want += l + 1;
    if (hacc[l] != want)
      mismatch("tail link %d: %d, want %d", l, hacc[l], want);
  }
  std::printf("tail: %d links, last %d\n", TAIL_LINKS, hacc[TAIL_LINKS - 1]);
  return finish();
}
