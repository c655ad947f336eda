// Pattern: one parent launching into three device streams: the NULL stream,
// cudaStreamFireAndForget and cudaStreamTailLaunch. A tail-launched grid may
// start only after the parent grid and all the work it launched into other
// streams (from any of its threads) have finished, so every tail-launched
// child checks that the counters of all NULL-stream and fire-and-forget
// children of the parent grid are already complete.
// Note: clang 22 lowers a device-side <<<>>> to cudaGetParameterBuffer +
// cudaLaunchDevice (V1), and on CUDA 13 that entry point rejects these two
// streams (cudaErrorInvalidValue, the launch is lost; nvcc uses the V2 entry
// points, which accept them). So a plain clang build of this program FAILs;
// build it with -mllvm -klap-normalize (or the full klap pipeline).
#include "check.cuh"

constexpr int PG = 2;    // parent blocks
constexpr int PB = 64;   // parent block size
constexpr int CB = 32;   // child block size
constexpr int TAIL_EVERY = 16;  // one tail launch per this many parent threads

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

__device__ __host__ inline unsigned fafGrid(int i) { return 1 + i % 2; }

// The NULL-stream and fire-and-forget children dawdle before they count, so a
// tail-launched grid that started too early would see the counts short.
__global__ void nullChild(Counters *c, int i) {
  __nanosleep(20000 + 1000 * (i % 8));
  atomicAdd(&c->nullSum, (unsigned long long)(i + 1));
  atomicAdd(&c->nullThreads, 1u);
}

__global__ void fafChild(Counters *c, int i) {
  __nanosleep(20000 + 1000 * (i % 5));
  atomicAdd(&c->fafSum, 3ull * (unsigned long long)(i + 1));
  atomicAdd(&c->fafThreads, 1u);
}

__global__ void tailChild(Counters *c, Want w) {
  unsigned long long nullSum = atomicAdd(&c->nullSum, 0ull);
  unsigned long long fafSum = atomicAdd(&c->fafSum, 0ull);
  unsigned nullThreads = atomicAdd(&c->nullThreads, 0u);
  unsigned fafThreads = atomicAdd(&c->fafThreads, 0u);
  if (nullSum != w.nullSum || fafSum != w.fafSum ||
      nullThreads != w.nullThreads || fafThreads != w.fafThreads)
    atomicAdd(&c->tailErrors, 1u);
  atomicAdd(&c->tailThreads, 1u);
}

// Threads with threadIdx.x % 32 == 0 tail-launch before their other launches,
// those with threadIdx.x % 32 == 16 after them: either way the tail-launched
// grid waits for all of the parent grid's non-tail work.
__global__ void parent(Counters *c, Want w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool tail = threadIdx.x % TAIL_EVERY == 0;
  bool tailFirst = threadIdx.x % 32 == 0;
  if (tail && tailFirst)
    tailChild<<<1, CB, 0, cudaStreamTailLaunch>>>(c, w);
  nullChild<<<1, CB>>>(c, i);
  fafChild<<<fafGrid(i), CB, 0, cudaStreamFireAndForget>>>(c, i);
  if (tail && !tailFirst)
    tailChild<<<1, CB, 0, cudaStreamTailLaunch>>>(c, w);
}

int main() {
  setPendingLaunchLimit(1 << 15);

  Want w = {0, 0, 0, 0};
  for (int i = 0; i < PG * PB; ++i) {
    w.nullSum += (unsigned long long)CB * (i + 1);
    w.nullThreads += CB;
    w.fafSum += 3ull * fafGrid(i) * CB * (i + 1);
    w.fafThreads += fafGrid(i) * CB;
  }
  const unsigned wantTail = PG * (PB / TAIL_EVERY) * CB;

  Counters *dC;
  CK(cudaMalloc(&dC, sizeof(Counters)));
  CK(cudaMemset(dC, 0, sizeof(Counters)));

  parent<<<PG, PB>>>(dC, w);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  Counters c;
  CK(cudaMemcpy(&c, dC, sizeof(Counters), cudaMemcpyDeviceToHost));

  if (c.nullSum != w.nullSum || c.nullThreads != w.nullThreads)
    mismatch("NULL stream: sum %llu threads %u (want %llu %u)", c.nullSum,
             c.nullThreads, w.nullSum, w.nullThreads);
  if (c.fafThreads == 0 && c.tailThreads == 0)
    mismatch("no fire-and-forget or tail-launched child ran: clang's V1 "
             "device-launch lowering loses launches into these streams "
             "(build through klap-normalize, which emits the V2 form)");
  if (c.fafSum != w.fafSum || c.fafThreads != w.fafThreads)
    mismatch("fire-and-forget: sum %llu threads %u (want %llu %u)", c.fafSum,
             c.fafThreads, w.fafSum, w.fafThreads);
  if (c.tailThreads != wantTail)
    mismatch("tail threads %u (want %u)", c.tailThreads, wantTail);
  if (c.tailErrors != 0)
    mismatch("%u tail-launched threads ran before the other children finished",
             c.tailErrors);

  std::printf("null_threads=%u null_sum=%llu\n", c.nullThreads, c.nullSum);
  std::printf("faf_threads=%u faf_sum=%llu\n", c.fafThreads, c.fafSum);
  std::printf("tail_threads=%u tail_errors=%u\n", c.tailThreads, c.tailErrors);

  CK(cudaFree(dC));
  return finish();
}
