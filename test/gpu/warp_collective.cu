// Pattern: children whose threads talk through warp collectives only (no
// __syncthreads, no shared memory): __shfl_down_sync, __shfl_sync,
// __ballot_sync, __reduce_add_sync, __activemask() and __syncwarp(). A child
// run inside the launching warp instead of launched must give exactly what a
// real launch gives, lane numbers, partial warps and 2-D thread ids included.
// Five parts, each with its own parent kernel and CPU reference:
//   join       1-D children of ceil(n/128) blocks of 128 (n = 0..1500 per
//              parent thread): match count by __reduce_add_sync, 64-bit sum
//              by a __shfl_down_sync loop, lane 0 adds both to the parent
//              thread's slot. Parents: divergent launch (n == 0 in some
//              lanes), early return (the last warp partial, the last block
//              partly idle).
//   partial    child blocks of 20, 48 or 80 threads (the last warp of each
//              block partial): __activemask(), __ballot_sync,
//              __reduce_add_sync, __shfl_sync and __syncwarp on the active
//              mask; results depend on the lane and on blockIdx.x.
//   grid2d     2-D grids of 2-D blocks: __shfl_sync broadcasts from lane 0 of
//              each warp (and, width 16, of each half warp) a value computed
//              from threadIdx.y and blockIdx.y; one result per child thread.
//   converged  every lane of every parent warp launches (even warps into the
//              NULL stream, odd warps into cudaStreamFireAndForget): an
//              exchange through global memory ordered by __syncwarp(),
//              __ballot_sync and a 64-bit __shfl_down_sync sum broadcast by
//              __shfl_sync.
//   loop       the same child, 1..3 launches per parent thread from a loop,
//              into cudaStreamFireAndForget.
//   byval      a child taking a struct by value (a char and a short in it),
//              summing within its warp.
// Every output slot is checked, including those no child thread may write.
// Note: clang 22 lowers a device-side <<<>>> to the V1 launch entry point,
// which on CUDA 13 loses launches into cudaStreamFireAndForget (see
// streams.cu): a plain clang build FAILs the converged and loop parts; build it
// with -mllvm -klap-normalize (the plugin at any granularity, `none` included).
#include "check.cuh"

#include <vector>

constexpr unsigned FULL = 0xffffffffu;

__device__ __host__ inline unsigned mix(unsigned a, unsigned b) {
  unsigned h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u);
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return h;
}

// ---------------------------------------------------------------- join
constexpr int N1 = 1000;  // parent threads (31 full warps and one of 8)
constexpr int PB1 = 256;  // parent block size (last block: 232 threads)
constexpr int JB = 128;   // child block size
constexpr int MAXN1 = 1500;

__device__ __host__ inline int joinProbe(int i) { return i % 8; }
__device__ __host__ inline int joinKey(int i, int t) {
  return (int)(mix(2 + i, t) % 8);
}
__device__ __host__ inline unsigned joinVal(int i, int t) {
  return mix(3 + i, t) >> 1;
}

static int joinLen(int i) {
  if (i == 5)
    return JB;  // exactly one block
  if (i == 6)
    return MAXN1;
  if (i == 7)
    return JB + 1;  // a second block with one working thread
  if (i == 8)
    return 32;
  unsigned h = mix(1, i);
  if (i >= 64 && i < 96)
    return 1 + (int)((h >> 8) % MAXN1);  // a warp where every lane launches
  switch (h % 4) {
  case 0:
    return 0;  // no launch
  case 1:
    return 1 + (int)((h >> 8) % 40);  // a small child
  default:
    return (int)((h >> 8) % (MAXN1 + 1));  // 0..1500
  }
}

__global__ void joinChild(const int *keys, const unsigned *vals, int n,
                          int probe, unsigned *cnt, unsigned long long *sum,
                          unsigned *launches) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  // Threads past n take part in the collectives with nothing.
  bool match = t < n && keys[t] == probe;
  unsigned c = __reduce_add_sync(FULL, match ? 1u : 0u);
  unsigned long long s =
      match ? (unsigned long long)vals[t] * (unsigned)(t + 1) : 0ull;
  for (int off = 16; off > 0; off /= 2)
    s += __shfl_down_sync(FULL, s, off);
  if (threadIdx.x % 32 == 0 && c != 0) {
    atomicAdd(cnt, c);
    atomicAdd(sum, s);
  }
  if (t == 0)
    atomicAdd(launches, 1u);
}

__global__ void joinParent(const int *keys, const unsigned *vals,
                           const int *base, const int *len, int count,
                           unsigned *cnt, unsigned long long *sum,
                           unsigned *launches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  int n = len[i];
  if (n > 0)
    joinChild<<<(n + JB - 1) / JB, JB>>>(keys + base[i], vals + base[i], n,
                                         joinProbe(i), cnt + i, sum + i,
                                         launches);
}

static void runJoin() {
  std::vector<int> len(N1), base(N1);
  int total = 0;
  for (int i = 0; i < N1; ++i) {
    len[i] = joinLen(i);
    base[i] = total;
    total += len[i];
  }
  std::vector<int> keys(total);
  std::vector<unsigned> vals(total);
  std::vector<unsigned> wantCnt(N1, 0);
  std::vector<unsigned long long> wantSum(N1, 0);
  unsigned wantLaunches = 0;
  for (int i = 0; i < N1; ++i) {
    if (len[i] > 0)
      ++wantLaunches;
    for (int t = 0; t < len[i]; ++t) {
      keys[base[i] + t] = joinKey(i, t);
      vals[base[i] + t] = joinVal(i, t);
      if (keys[base[i] + t] == joinProbe(i)) {
        ++wantCnt[i];
        wantSum[i] += (unsigned long long)vals[base[i] + t] * (unsigned)(t + 1);
      }
    }
  }

  int *dKeys, *dBase, *dLen;
  unsigned *dVals, *dCnt, *dLaunches;
  unsigned long long *dSum;
  CK(cudaMalloc(&dKeys, total * sizeof(int)));
  CK(cudaMalloc(&dVals, total * sizeof(unsigned)));
  CK(cudaMalloc(&dBase, N1 * sizeof(int)));
  CK(cudaMalloc(&dLen, N1 * sizeof(int)));
  CK(cudaMalloc(&dCnt, N1 * sizeof(unsigned)));
  CK(cudaMalloc(&dSum, N1 * sizeof(unsigned long long)));
  CK(cudaMalloc(&dLaunches, sizeof(unsigned)));
  CK(cudaMemcpy(dKeys, keys.data(), total * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dVals, vals.data(), total * sizeof(unsigned),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dBase, base.data(), N1 * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dLen, len.data(), N1 * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dCnt, 0, N1 * sizeof(unsigned)));
  CK(cudaMemset(dSum, 0, N1 * sizeof(unsigned long long)));
  CK(cudaMemset(dLaunches, 0, sizeof(unsigned)));

  joinParent<<<(N1 + PB1 - 1) / PB1, PB1>>>(dKeys, dVals, dBase, dLen, N1, dCnt,
                                            dSum, dLaunches);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned> cnt(N1);
  std::vector<unsigned long long> sum(N1);
  unsigned launches;
  CK(cudaMemcpy(cnt.data(), dCnt, N1 * sizeof(unsigned),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(sum.data(), dSum, N1 * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&launches, dLaunches, sizeof(unsigned),
                cudaMemcpyDeviceToHost));

  unsigned long long matches = 0, total64 = 0;
  for (int i = 0; i < N1; ++i) {
    matches += cnt[i];
    total64 += sum[i];
    if (cnt[i] != wantCnt[i] || sum[i] != wantSum[i])
      mismatch("join parent %d (n %d): count %u sum %llu (want %u %llu)", i,
               len[i], cnt[i], sum[i], wantCnt[i], wantSum[i]);
  }
  if (launches != wantLaunches)
    mismatch("join launches %u (want %u)", launches, wantLaunches);
  std::printf("join: launches=%u keys=%d matches=%llu sum=%llu\n", launches,
              total, matches, total64);

  CK(cudaFree(dKeys));
  CK(cudaFree(dVals));
  CK(cudaFree(dBase));
  CK(cudaFree(dLen));
  CK(cudaFree(dCnt));
  CK(cudaFree(dSum));
  CK(cudaFree(dLaunches));
}

// Runs `launch(out, launches)` over `want.size()` output words first filled with 0xff, then checks every
// word (`words` per child thread, `most` thread slots per parent) and the launch count, and prints
// "<name>: launches=L checksum=C".
template <class Launch>
static void runWords(const char *name, const std::vector<unsigned> &want, unsigned wantLaunches, int words,
                     int most, Launch launch) {
  const int S = (int)want.size();
  unsigned *dOut, *dLaunches;
  CK(cudaMalloc(&dOut, S * sizeof(unsigned)));
  CK(cudaMalloc(&dLaunches, sizeof(unsigned)));
  CK(cudaMemset(dOut, 0xff, S * sizeof(unsigned)));
  CK(cudaMemset(dLaunches, 0, sizeof(unsigned)));

  launch(dOut, dLaunches);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned> out(S);
  unsigned launches;
  CK(cudaMemcpy(out.data(), dOut, S * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&launches, dLaunches, sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned long long checksum = checksumWords(out.data(), want.data(), S, [&](size_t i) {
    int k = (int)i;
    mismatch("%s parent %d thread slot %d word %d: %08x (want %08x)", name, k / (most * words), (k / words) % most,
             k % words, out[k], want[k]);
  });
  if (launches != wantLaunches)
    mismatch("%s launches %u (want %u)", name, launches, wantLaunches);
  std::printf("%s: launches=%u checksum=%llu\n", name, launches, checksum);

  CK(cudaFree(dOut));
  CK(cudaFree(dLaunches));
}

// ---------------------------------------------------------------- partial
constexpr int N2 = 300;     // parent threads
constexpr int PB2 = 128;    // parent block size (last block: 44 threads)
constexpr int MAXT2 = 320;  // most threads of one child: 4 blocks x 80
constexpr int W2 = 4;       // words per child thread

__device__ __host__ inline bool partialLaunches(int i) { return i % 7 != 3; }
__device__ __host__ inline int partialBlock(int i) {
  return i % 3 == 0 ? 48 : i % 3 == 1 ? 80 : 20;
}
__device__ __host__ inline int partialGrid(int i) { return 1 + (i / 3) % 4; }
__device__ __host__ inline unsigned partialArg(int i) { return 3u * i + 1; }
__device__ __host__ inline bool partialPred(unsigned lane, unsigned b,
                                            unsigned v) {
  return (lane * 7 + b * 3 + v) % 5 < 2;
}

__global__ void partialChild(unsigned *out, unsigned v, unsigned *launches) {
  // At the kernel's entry every lane of the warp is active: the lanes of the
  // block's last warp past blockDim.x do not exist.
  unsigned am = __activemask();
  unsigned lane = threadIdx.x % 32;
  unsigned b = blockIdx.x;
  bool pred = partialPred(lane, b, v);
  unsigned bal = __ballot_sync(am, pred);
  unsigned red = __reduce_add_sync(am, lane * (b + 1) + v);
  int hi = 31 - __clz(am);  // highest existing lane
  unsigned bc = __shfl_sync(am, lane * 3 + b * 5 + v, hi);
  __syncwarp(am);
  unsigned rank = pred ? (unsigned)__popc(bal & ((1u << lane) - 1)) : 0xffu;
  unsigned *w = out + (b * blockDim.x + threadIdx.x) * W2;
  w[0] = am;
  w[1] = bal;
  w[2] = red;
  w[3] = rank | bc << 8;
  if (b == 0 && threadIdx.x == 0)
    atomicAdd(launches, 1u);
}

__global__ void partialParent(unsigned *out, int n, unsigned *launches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && partialLaunches(i))
    partialChild<<<partialGrid(i), partialBlock(i)>>>(
        out + (size_t)i * MAXT2 * W2, partialArg(i), launches);
}

static void runPartial() {
  const int S = N2 * MAXT2 * W2;
  std::vector<unsigned> want(S, 0xffffffffu);
  unsigned wantLaunches = 0;
  for (int i = 0; i < N2; ++i) {
    if (!partialLaunches(i))
      continue;
    ++wantLaunches;
    unsigned bs = (unsigned)partialBlock(i), v = partialArg(i);
    for (unsigned b = 0; b < (unsigned)partialGrid(i); ++b)
      for (unsigned t = 0; t < bs; ++t) {
        unsigned lane = t % 32, first = t - lane;
        unsigned lanes = bs - first < 32 ? bs - first : 32;
        unsigned am = lanes == 32 ? FULL : (1u << lanes) - 1;
        unsigned bal = 0, red = 0;
        for (unsigned l = 0; l < lanes; ++l) {
          if (partialPred(l, b, v))
            bal |= 1u << l;
          red += l * (b + 1) + v;
        }
        unsigned hi = lanes - 1;
        unsigned bc = hi * 3 + b * 5 + v;
        unsigned below = bal & ((1u << lane) - 1);
        unsigned rank = partialPred(lane, b, v)
                            ? (unsigned)__builtin_popcount(below)
                            : 0xffu;
        unsigned *w = &want[((size_t)i * MAXT2 + b * bs + t) * W2];
        w[0] = am;
        w[1] = bal;
        w[2] = red;
        w[3] = rank | bc << 8;
      }
  }

  runWords("partial", want, wantLaunches, W2, MAXT2, [](unsigned *dOut, unsigned *dLaunches) {
    partialParent<<<(N2 + PB2 - 1) / PB2, PB2>>>(dOut, N2, dLaunches);
  });
}

// ---------------------------------------------------------------- grid2d
constexpr int N3 = 100;     // parent threads
constexpr int PB3 = 64;     // parent block size (last block: 36 threads)
constexpr int MAXT3 = 864;  // most threads of one child: 3 x 3 blocks x 96
constexpr int W3 = 2;       // words per child thread

struct Shape {
  unsigned gx, gy, bx, by;
};

__device__ __host__ inline bool gridLaunches(int i) { return i % 5 != 4; }
__device__ __host__ inline Shape gridShape(int i) {
  // Every block a whole number of warps: full-mask collectives.
  const unsigned bs[4][2] = {{16, 4}, {8, 4}, {32, 3}, {4, 8}};
  Shape s;
  s.gx = 1 + i % 3;
  s.gy = 1 + (i / 3) % 3;
  s.bx = bs[i % 4][0];
  s.by = bs[i % 4][1];
  return s;
}
__device__ __host__ inline unsigned gridRowValue(unsigned ty, unsigned by,
                                                 unsigned bx, unsigned p) {
  return (ty + 1) * 1000 + by * 37 + bx * 5 + p;
}
__device__ __host__ inline unsigned gridLaneValue(unsigned tx, unsigned ty,
                                                  unsigned bx) {
  return tx * 131 + ty * 7 + bx;
}

__global__ void gridChild(unsigned *out, unsigned p, unsigned *launches) {
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned bx = blockIdx.x, by = blockIdx.y;
  unsigned b0 = __shfl_sync(FULL, gridRowValue(ty, by, bx, p), 0);
  unsigned b1 = __shfl_sync(FULL, gridLaneValue(tx, ty, bx), 0, 16);
  unsigned tid = ty * blockDim.x + tx;
  unsigned idx = (by * gridDim.x + bx) * (blockDim.x * blockDim.y) + tid;
  out[idx * W3] = b0 + (tid << 16);
  out[idx * W3 + 1] = b1;
  if (bx == 0 && by == 0 && tid == 0)
    atomicAdd(launches, 1u);
}

__global__ void gridParent(unsigned *out, int n, unsigned *launches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && gridLaunches(i)) {
    Shape s = gridShape(i);
    dim3 g(s.gx, s.gy), b(s.bx, s.by);
    gridChild<<<g, b>>>(out + (size_t)i * MAXT3 * W3, (unsigned)i, launches);
  }
}

static void runGrid2d() {
  const int S = N3 * MAXT3 * W3;
  std::vector<unsigned> want(S, 0xffffffffu);
  unsigned wantLaunches = 0;
  for (int i = 0; i < N3; ++i) {
    if (!gridLaunches(i))
      continue;
    ++wantLaunches;
    Shape s = gridShape(i);
    unsigned threads = s.bx * s.by;
    for (unsigned by = 0; by < s.gy; ++by)
      for (unsigned bx = 0; bx < s.gx; ++bx)
        for (unsigned tid = 0; tid < threads; ++tid) {
          unsigned first = tid - tid % 32;      // lane 0 of the warp
          unsigned half = first + (tid & 16);   // lane 0 of the half warp
          unsigned b0 = gridRowValue(first / s.bx, by, bx, (unsigned)i);
          unsigned b1 = gridLaneValue(half % s.bx, half / s.bx, bx);
          unsigned idx = (by * s.gx + bx) * threads + tid;
          unsigned *w = &want[((size_t)i * MAXT3 + idx) * W3];
          w[0] = b0 + (tid << 16);
          w[1] = b1;
        }
  }

  runWords("grid2d", want, wantLaunches, W3, MAXT3, [](unsigned *dOut, unsigned *dLaunches) {
    gridParent<<<(N3 + PB3 - 1) / PB3, PB3>>>(dOut, N3, dLaunches);
  });
}

// ---------------------------------------------------- converged and loop
constexpr int N4A = 256;    // converged parent threads: 4 blocks of 64
constexpr int PB4A = 64;
constexpr int N4B = 200;    // loop parent threads
constexpr int PB4B = 64;    // (last block: 8 threads)
constexpr int MAXK = 3;     // most launches per loop parent thread
constexpr int MAXT4 = 128;  // most threads of one child: 2 blocks x 64
constexpr int SLOTS4 = N4A + N4B * MAXK;

__device__ __host__ inline unsigned warpValue(unsigned key, unsigned t) {
  return mix(key, t) & 0xffffu;
}
// Converged parent thread i: slot i.
__device__ __host__ inline int convGrid(int i) { return 1 + i % 2; }
__device__ __host__ inline int convBlock(int i) {
  return 32 * (1 + (i / 2) % 2);
}
__device__ __host__ inline unsigned convKey(int i) { return 1000u + i; }
// Loop parent thread i, launch k: slot N4A + i * MAXK + k.
__device__ __host__ inline int loopTrips(int i) { return 1 + i % MAXK; }
__device__ __host__ inline int loopGrid(int i, int k) {
  return 1 + (i + k) % 2;
}
__device__ __host__ inline int loopBlock(int k) { return 32 * (1 + k % 2); }
__device__ __host__ inline unsigned loopKey(int i, int k) {
  return 5000u + i * MAXK + k;
}

// blockDim.x is a multiple of 32: every warp is full.
__global__ void warpChild(unsigned long long *out, unsigned *scratch,
                          unsigned key, unsigned *launches) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  unsigned v = warpValue(key, t);
  scratch[t] = v;
  __syncwarp();
  unsigned u = scratch[t ^ 5];  // another lane of the same warp
  unsigned bal = __ballot_sync(FULL, v & 1);
  unsigned long long s = (unsigned long long)v * v * (t + 1);
  for (int off = 16; off > 0; off /= 2)
    s += __shfl_down_sync(FULL, s, off);
  unsigned long long ws = __shfl_sync(FULL, s, 0);
  out[2 * t] = (unsigned long long)u << 32 | bal;
  out[2 * t + 1] = ws + lane;
  if (t == 0)
    atomicAdd(launches, 1u);
}

__global__ void convergedParent(unsigned long long *out, unsigned *scratch,
                                unsigned *launches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = out + (size_t)i * MAXT4 * 2;
  unsigned *sc = scratch + (size_t)i * MAXT4;
  if ((i / 32) % 2 == 0)  // the same for the whole warp
    warpChild<<<convGrid(i), convBlock(i)>>>(o, sc, convKey(i), launches);
  else
    warpChild<<<convGrid(i), convBlock(i), 0, cudaStreamFireAndForget>>>(
        o, sc, convKey(i), launches + 1);
}

__global__ void loopParent(unsigned long long *out, unsigned *scratch, int n,
                           unsigned *launches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < loopTrips(i); ++k) {
    size_t slot = N4A + (size_t)i * MAXK + k;
    warpChild<<<loopGrid(i, k), loopBlock(k), 0, cudaStreamFireAndForget>>>(
        out + slot * MAXT4 * 2, scratch + slot * MAXT4, loopKey(i, k),
        launches);
  }
}

static void wantWarpChild(std::vector<unsigned long long> &want, int slot,
                          int grid, int block, unsigned key) {
  unsigned total = (unsigned)(grid * block);
  for (unsigned t = 0; t < total; ++t) {
    unsigned lane = t % 32, first = t - lane;
    unsigned bal = 0;
    unsigned long long s = 0;
    for (unsigned l = 0; l < 32; ++l) {
      unsigned v = warpValue(key, first + l);
      if (v & 1)
        bal |= 1u << l;
      s += (unsigned long long)v * v * (first + l + 1);
    }
    unsigned u = warpValue(key, t ^ 5);
    want[((size_t)slot * MAXT4 + t) * 2] = (unsigned long long)u << 32 | bal;
    want[((size_t)slot * MAXT4 + t) * 2 + 1] = s + lane;
  }
}

static void runWarpParents() {
  const int S = SLOTS4 * MAXT4 * 2;
  std::vector<unsigned long long> want(S, ~0ull);
  unsigned wantConvNull = 0, wantConvFaf = 0, wantLoop = 0;
  for (int i = 0; i < N4A; ++i) {
    wantWarpChild(want, i, convGrid(i), convBlock(i), convKey(i));
    if ((i / 32) % 2 == 0)
      ++wantConvNull;
    else
      ++wantConvFaf;
  }
  for (int i = 0; i < N4B; ++i)
    for (int k = 0; k < loopTrips(i); ++k) {
      wantWarpChild(want, N4A + i * MAXK + k, loopGrid(i, k), loopBlock(k),
                    loopKey(i, k));
      ++wantLoop;
    }

  unsigned long long *dOut;
  unsigned *dScratch, *dLaunches;
  CK(cudaMalloc(&dOut, S * sizeof(unsigned long long)));
  CK(cudaMalloc(&dScratch, SLOTS4 * MAXT4 * sizeof(unsigned)));
  CK(cudaMalloc(&dLaunches, 3 * sizeof(unsigned)));
  CK(cudaMemset(dOut, 0xff, S * sizeof(unsigned long long)));
  CK(cudaMemset(dScratch, 0, SLOTS4 * MAXT4 * sizeof(unsigned)));
  CK(cudaMemset(dLaunches, 0, 3 * sizeof(unsigned)));

  convergedParent<<<N4A / PB4A, PB4A>>>(dOut, dScratch, dLaunches);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  loopParent<<<(N4B + PB4B - 1) / PB4B, PB4B>>>(dOut, dScratch, N4B,
                                                 dLaunches + 2);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned long long> out(S);
  unsigned launches[3];
  CK(cudaMemcpy(out.data(), dOut, S * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(launches, dLaunches, 3 * sizeof(unsigned),
                cudaMemcpyDeviceToHost));

  if (launches[1] == 0 && launches[2] == 0)
    mismatch("no fire-and-forget child ran: clang's V1 device-launch lowering "
             "loses launches into this stream (build through klap-normalize, "
             "which emits the V2 form)");
  unsigned long long convSum = 0, loopSum = 0;
  const int split = N4A * MAXT4 * 2;
  for (int k = 0; k < S; ++k) {
    unsigned long long &sum = k < split ? convSum : loopSum;
    sum = sum * 31 + out[k];
    if (out[k] != want[k]) {
      int slot = k / (MAXT4 * 2);
      if (slot < N4A)
        mismatch("converged parent %d thread %d word %d: %016llx (want "
                 "%016llx)",
                 slot, (k / 2) % MAXT4, k % 2, out[k], want[k]);
      else
        mismatch("loop parent %d launch %d thread %d word %d: %016llx (want "
                 "%016llx)",
                 (slot - N4A) / MAXK, (slot - N4A) % MAXK, (k / 2) % MAXT4,
                 k % 2, out[k], want[k]);
    }
  }
  if (launches[0] != wantConvNull || launches[1] != wantConvFaf)
    mismatch("converged launches %u NULL + %u fire-and-forget (want %u + %u)",
             launches[0], launches[1], wantConvNull, wantConvFaf);
  if (launches[2] != wantLoop)
    mismatch("loop launches %u (want %u)", launches[2], wantLoop);
  std::printf("converged: launches=%u+%u checksum=%llu\n", launches[0],
              launches[1], convSum);
  std::printf("loop: launches=%u checksum=%llu\n", launches[2], loopSum);

  CK(cudaFree(dOut));
  CK(cudaFree(dScratch));
  CK(cudaFree(dLaunches));
}

// ---------------------------------------------------------------- byval
// A child that takes a struct by value (with a char and a short: bytes that are not whole words) and sums
// within its warp: the lanes that run another lane's child take that lane's struct.
struct Knobs {
  unsigned salt;
  int count;
  char tag;
  short step;
};
constexpr int N5 = 320;   // parent threads (10 warps)
constexpr int PB5 = 160;  // parent block size
constexpr int MAXT5 = 96; // most threads of one child: 3 blocks x 32

__device__ __host__ inline int byvalBlocks(int p) { return 1 + p % 3; }

__global__ void byvalChild(unsigned long long *out, Knobs k, int slot) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = t < k.count ? mix(k.salt + (unsigned)k.tag, (unsigned)(t * k.step)) : 0u;
  unsigned sum = __reduce_add_sync(FULL, v & 0xffffu);
  unsigned first = __shfl_sync(FULL, v, 0);
  out[slot * MAXT5 + t] = (unsigned long long)sum << 32 | (first ^ (unsigned)k.tag);
}

__global__ void byvalParent(unsigned long long *out, int n) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  Knobs k{mix(5, p), 20 + p % 70, (char)('a' + p % 26), (short)(1 + p % 7)};
  byvalChild<<<byvalBlocks(p), 32>>>(out, k, p);
}

static void runByval() {
  const int S = N5 * MAXT5;
  std::vector<unsigned long long> want(S, ~0ull);
  for (int p = 0; p < N5; ++p) {
    Knobs k{mix(5, p), 20 + p % 70, (char)('a' + p % 26), (short)(1 + p % 7)};
    for (int b = 0; b < byvalBlocks(p); ++b) {
      unsigned v[32], sum = 0;
      for (int l = 0; l < 32; ++l) {
        int t = b * 32 + l;
        v[l] = t < k.count ? mix(k.salt + (unsigned)k.tag, (unsigned)(t * k.step)) : 0u;
        sum += v[l] & 0xffffu;
      }
      for (int l = 0; l < 32; ++l)
        want[p * MAXT5 + b * 32 + l] = (unsigned long long)sum << 32 | (v[0] ^ (unsigned)k.tag);
    }
  }
  unsigned long long *dOut;
  CK(cudaMalloc(&dOut, S * sizeof(unsigned long long)));
  CK(cudaMemset(dOut, 0xff, S * sizeof(unsigned long long)));
  byvalParent<<<(N5 + PB5 - 1) / PB5, PB5>>>(dOut, N5);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> out(S);
  CK(cudaMemcpy(out.data(), dOut, S * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  unsigned long long checksum = 0;
  for (int i = 0; i < S; ++i) {
    checksum = checksum * 31 + out[i];
    if (out[i] != want[i])
      mismatch("byval parent %d thread %d: %llx (want %llx)", i / MAXT5, i % MAXT5, out[i], want[i]);
  }
  std::printf("byval: checksum=%llu\n", checksum);
  CK(cudaFree(dOut));
}

int main() {
  setPendingLaunchLimit(1 << 15);
  runJoin();
  runPartial();
  runGrid2d();
  runWarpParents();
  runByval();
  return finish();
}
