// Pattern (fuzz case 3301-0, streams there): a noinline device function launches children whose warps
// reduce (serialized at auto, their reductions folded: KLAP321) in a loop whose trip count differs by thread,
// and the kernel then calls into the device runtime in some threads of each warp, in a loop that clang
// unrolls: events created and destroyed (parent<Events>), a launch into cudaStreamPerThread, which klap
// leaves as written (parent<PerThreadLaunch>), or a launch of a child that reads %tid in inline assembly,
// which aggregation leaves as written (KLAP211, parent<RefusedLaunch>). At auto the warps whose lanes were
// inside those calls while their warp-mates ran the serialized children stopped for good (H200, thirty-third
// and thirty-fourth sessions; with streams, thirty-second session). klap keeps serialization out of such
// kernels (KLAP323). What this program checks: each child warp's reductions added once into its launch's
// counter.
#include "check.cuh"

#include <algorithm>
#include <vector>

constexpr int PB = 96;           // parent block size (three warps)
constexpr int PZ = 2;            // parent blocks, along z
constexpr int N = PB * PZ;       // parent threads, one counter each
constexpr int SHARED = N;        // the counter of the launch every parent thread makes
constexpr int ROOT = N + 1;      // the parents' own reductions
constexpr int PER_THREAD = N + 2; // the launches into cudaStreamPerThread
constexpr int REFUSED = N + 3;    // the launches of leaf<true>
constexpr int COUNTERS = N + 4;

enum RuntimeCall { Events, PerThreadLaunch, RefusedLaunch };

__device__ __host__ inline unsigned leafValue(int i, int slot) { return hashOf(31u * (unsigned)i + (unsigned)slot); }

// Adds, per warp, the sum of its threads' low halves and the largest of their high bits into out[slot].
template <bool kAsmIndex>
__global__ void leaf(unsigned long long *out, int n, int slot) {
  unsigned tx = threadIdx.x;
  if constexpr (kAsmIndex)  // no aggregated variant can remap this read (KLAP211)
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tx));
  int t = threadIdx.y * blockDim.x + (int)tx;
  int i = blockIdx.x * blockDim.x * blockDim.y + t;
  bool on = i < n;
  unsigned v = on ? leafValue(i, slot) : 0u;
  unsigned sum = __reduce_add_sync(0xffffffffu, v & 0xffffu);
  unsigned top = __reduce_max_sync(0xffffffffu, v >> 7);
  if (tx % 32 == 0)  // lane 0: every launch's blocks are whole warps wide
    atomicAdd(&out[slot], (unsigned long long)sum + top);
}

// One copy per parent (kCall unused): KLAP323 keeps the launches of a device function any keeping kernel calls.
template <RuntimeCall kCall>
__device__ __noinline__ void launchSome(unsigned long long *out, const int *in, int g) {
  for (int k = 0; k < in[g] % 3; ++k)
    leaf<false><<<4, 32, 0, cudaStreamFireAndForget>>>(out, 100 + 7 * k, g);
  leaf<false><<<1, 64>>>(out, 1 + g % 50, g);
}

template <RuntimeCall kCall>
__global__ void parent(unsigned long long *out, const int *in) {
  int g = blockIdx.z * blockDim.x + threadIdx.x;
  unsigned s = __reduce_add_sync(0xffffffffu, (unsigned)g);
  if (threadIdx.x % 32 == 0)
    atomicAdd(&out[ROOT], (unsigned long long)s);
  launchSome<kCall>(out, in, g);
  leaf<false><<<3, dim3(32, 2), 0, cudaStreamFireAndForget>>>(out, 150, SHARED);
  for (int k = 0; k < 3; ++k) {
    if ((k + g) % 3 == 1)
      continue;
    if (threadIdx.x < 27) {
      if constexpr (kCall == Events) {
        cudaEvent_t e;
        cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        cudaEventDestroy(e);
      } else if constexpr (kCall == PerThreadLaunch) {
        leaf<false><<<2, 64, 0, cudaStreamPerThread>>>(out, 90, PER_THREAD);
      } else {
        leaf<true><<<2, 64>>>(out, 90, REFUSED);
      }
    }
  }
}

// What one launch of leaf adds to its counter.
static unsigned long long leafSum(int grid, int block, int n, int slot) {
  unsigned long long total = 0;
  for (int w = 0; w < grid * block / 32; ++w) {
    unsigned long long sum = 0;
    unsigned top = 0;
    for (int lane = 0; lane < 32; ++lane) {
      int i = w * 32 + lane;
      unsigned v = i < n ? leafValue(i, slot) : 0u;
      sum += v & 0xffffu;
      top = std::max(top, v >> 7);
    }
    total += sum + top;
  }
  return total;
}

int main() {
  setPendingLaunchLimit(1 << 12);
  std::vector<int> host_in(N);
  for (int g = 0; g < N; ++g)
    host_in[g] = (int)(hashOf((unsigned)g) % 1000u);
  unsigned long long *out = nullptr;
  int *in = nullptr;
  CK(cudaMalloc(&out, sizeof(unsigned long long) * COUNTERS));
  CK(cudaMalloc(&in, sizeof(int) * N));
  CK(cudaMemset(out, 0, sizeof(unsigned long long) * COUNTERS));
  CK(cudaMemcpy(in, host_in.data(), sizeof(int) * N, cudaMemcpyHostToDevice));
  parent<Events><<<dim3(1, 1, PZ), PB>>>(out, in);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  parent<PerThreadLaunch><<<dim3(1, 1, PZ), PB>>>(out, in);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  parent<RefusedLaunch><<<dim3(1, 1, PZ), PB>>>(out, in);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> got(COUNTERS);
  CK(cudaMemcpy(got.data(), out, sizeof(unsigned long long) * COUNTERS, cudaMemcpyDeviceToHost));
  std::vector<unsigned long long> want(COUNTERS, 0);
  for (int run = 0; run < 3; ++run)  // the three parents
    for (int g = 0; g < N; ++g) {
      for (int k = 0; k < host_in[g] % 3; ++k)
        want[g] += leafSum(4, 32, 100 + 7 * k, g);
      want[g] += leafSum(1, 64, 1 + g % 50, g);
      want[SHARED] += leafSum(3, 64, 150, SHARED);
      want[ROOT] += (unsigned long long)g;
      for (int k = 0; k < 3; ++k)
        if (run > 0 && (k + g) % 3 != 1 && g % PB < 27)
          want[run == 1 ? PER_THREAD : REFUSED] += leafSum(2, 64, 90, run == 1 ? PER_THREAD : REFUSED);
    }
  unsigned long long checksum = 0;
  for (int c = 0; c < COUNTERS; ++c) {
    checksum = checksum * 1000003ull + got[c];
    if (got[c] != want[c])
      mismatch("counter %d: %llu, want %llu", c, got[c], want[c]);
  }
  std::printf("counters' checksum: %016llx\n", checksum);
  CK(cudaFree(out));
  CK(cudaFree(in));
  return finish();
}
