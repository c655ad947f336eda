// Stress version of test/gpu/streams.cu for the warp path (issue 15): N parent threads (argument 1,
// default 3,000) each launch in a loop of 0..MAXK trips (argument 2, default 12) into the NULL stream
// and cudaStreamFireAndForget by turns, and one thread in 16 also tail-launches (those with
// threadIdx.x % 32 == 0 before their loop, the others after it). Warp-aggregated NULL-stream and
// fire-and-forget launches in a tail-launching kernel hung intermittently (KLAP205, retired); this
// program is run many times under a timeout (test/gpu/stress/loop.sh). A tail-launched grid may start
// only after all of the parent grid's other work: every tail-launched child checks that all NULL-stream
// and fire-and-forget children have counted. Build it through klap (at least klap-normalize): clang's
// V1 device-launch form loses launches into these streams on CUDA 13 (see streams.cu).
#include "../check.cuh"

#include <cstdlib>
#include <vector>

constexpr int PB = 64;         // parent block size
constexpr int CB = 32;         // child block size
constexpr int TAIL_EVERY = 16; // one tail launch per this many parent threads

struct Counters {
  unsigned long long nullSum;
  unsigned long long fafSum;
  unsigned nullThreads;
  unsigned fafThreads;
  unsigned tailThreads;
  unsigned tailErrors;
};

struct Want {
  unsigned long long nullSum;
  unsigned long long fafSum;
  unsigned nullThreads;
  unsigned fafThreads;
};

__device__ __host__ inline unsigned fafGrid(int i, int k) { return 1 + (i + k) % 2; }
__device__ __host__ inline bool intoNull(int i, int k) { return (i + k) % 2 == 0; }
__device__ __host__ inline int trips(int i, int maxk) {
  return (int)((((unsigned)i * 2246822519u) >> 13) % (unsigned)(maxk + 1));
}

// The children dawdle before they count, so a tail-launched grid that started too early would see
// the counts short.
__global__ void nullChild(Counters *c, int v) {
  __nanosleep(2000 + 500 * (v % 8));
  atomicAdd(&c->nullSum, (unsigned long long)v);
  atomicAdd(&c->nullThreads, 1u);
}

__global__ void fafChild(Counters *c, int v) {
  __nanosleep(2000 + 500 * (v % 5));
  atomicAdd(&c->fafSum, 3ull * (unsigned long long)v);
  atomicAdd(&c->fafThreads, 1u);
}

__global__ void tailChild(Counters *c, Want w) {
  unsigned long long nullSum = atomicAdd(&c->nullSum, 0ull);
  unsigned long long fafSum = atomicAdd(&c->fafSum, 0ull);
  unsigned nullThreads = atomicAdd(&c->nullThreads, 0u);
  unsigned fafThreads = atomicAdd(&c->fafThreads, 0u);
  if (nullSum != w.nullSum || fafSum != w.fafSum || nullThreads != w.nullThreads || fafThreads != w.fafThreads)
    atomicAdd(&c->tailErrors, 1u);
  atomicAdd(&c->tailThreads, 1u);
}

__global__ void parent(Counters *c, Want w, int n, int maxk) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  bool tail = threadIdx.x % TAIL_EVERY == 0;
  bool tailFirst = threadIdx.x % 32 == 0;
  if (tail && tailFirst)
    tailChild<<<1, CB, 0, cudaStreamTailLaunch>>>(c, w);
  int t = trips(i, maxk);
  for (int k = 0; k < t; ++k) {
    int v = i * 16 + k + 1;
    if (intoNull(i, k))
      nullChild<<<1, CB>>>(c, v);
    else
      fafChild<<<fafGrid(i, k), CB, 0, cudaStreamFireAndForget>>>(c, v);
  }
  if (tail && !tailFirst)
    tailChild<<<1, CB, 0, cudaStreamTailLaunch>>>(c, w);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3000;
  int maxk = argc > 2 ? std::atoi(argv[2]) : 12;
  if (n < 1 || maxk < 1 || maxk > 15) {
    std::printf("FAIL usage: %s [parent threads >= 1] [most launches per thread, 1..15]\n", argv[0]);
    return 1;
  }
  setPendingLaunchLimit((size_t)n * (maxk + 1) + 1024);

  Want w = {0, 0, 0, 0};
  unsigned wantTail = 0;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < trips(i, maxk); ++k) {
      unsigned long long v = (unsigned long long)(i * 16 + k + 1);
      if (intoNull(i, k)) {
        w.nullSum += CB * v;
        w.nullThreads += CB;
      } else {
        w.fafSum += 3ull * fafGrid(i, k) * CB * v;
        w.fafThreads += fafGrid(i, k) * CB;
      }
    }
    if (i % PB % TAIL_EVERY == 0)
      wantTail += CB;
  }

  Counters *dC;
  CK(cudaMalloc(&dC, sizeof(Counters)));
  CK(cudaMemset(dC, 0, sizeof(Counters)));
  parent<<<(n + PB - 1) / PB, PB>>>(dC, w, n, maxk);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  Counters c;
  CK(cudaMemcpy(&c, dC, sizeof(Counters), cudaMemcpyDeviceToHost));

  if (c.nullSum != w.nullSum || c.nullThreads != w.nullThreads)
    mismatch("NULL stream: sum %llu threads %u (want %llu %u)", c.nullSum, c.nullThreads, w.nullSum,
             w.nullThreads);
  if (c.fafSum != w.fafSum || c.fafThreads != w.fafThreads)
    mismatch("fire-and-forget: sum %llu threads %u (want %llu %u)", c.fafSum, c.fafThreads, w.fafSum,
             w.fafThreads);
  if (c.tailThreads != wantTail)
    mismatch("tail threads %u (want %u)", c.tailThreads, wantTail);
  if (c.tailErrors != 0)
    mismatch("%u tail-launched threads ran before the other children finished", c.tailErrors);

  std::printf("parents=%d most_launches=%d\n", n, maxk);
  std::printf("null_threads=%u null_sum=%llu\n", c.nullThreads, c.nullSum);
  std::printf("faf_threads=%u faf_sum=%llu\n", c.fafThreads, c.fafSum);
  std::printf("tail_threads=%u tail_errors=%u\n", c.tailThreads, c.tailErrors);
  CK(cudaFree(dC));
  return finish();
}
