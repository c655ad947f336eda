// Pattern: one scope holding many more launches than its first chunk: each parent thread launches in a loop
// whose trip count differs per thread (0 to MAXK), so that a scope's chunk, sized for one record per lane of
// the scope at its first registration, fills and chains a new one twice as large, again and again, up to the
// chunk's largest size (64 small or 8 large slabs), where it keeps chaining chunks of that size
// (docs/aggregation.md, "Memory"; runtime/register.cu, scope_current). Two parents:
//   grid   64 blocks of 128 threads, up to 40 launches each (about 164,000 in one grid scope at grid and auto);
//   block  16 blocks of 1,024 threads, up to 24 launches each (about 12,000 in one block's scope: at block
//          granularity, and at auto, which gathers per block where blocks have 1,024 threads).
// Warp 2 of each parent never launches, warp 3 launches MAXK times in every lane, lane 0 of warp 5 alone
// launches MAXK times. The child runs a loop (so auto launches it rather than running it in its parent,
// KLAP305) and adds into its own slot; the host checks every slot, the unused ones included.
#include "check.cuh"

#include <vector>

__device__ __host__ inline int tripsOf(int i, int maxk) {
  int lane = i % 32, warp = (i / 32) % 8;
  if (warp == 2)
    return 0;
  if (warp == 3)
    return maxk;
  if (warp == 5)
    return lane == 0 ? maxk : 0;
  return (int)(hashOf((unsigned)i) % (unsigned)(maxk + 1));
}
__device__ __host__ inline int childBlocks(int k) { return 1 + k % 2; }
__device__ __host__ inline int childThreads(int i, int k) { return 32 * (1 + (i + k) % 2); }
__device__ __host__ inline int repsOf(int k) { return 1 + k % 3; }
__device__ __host__ inline unsigned argOf(int i, int k) { return hashOf((unsigned)(i * 64 + k)) | 1u; }

__global__ void child(unsigned long long *sum, int slot, unsigned arg, int reps) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < reps; ++j)
    atomicAdd(&sum[slot], (unsigned long long)arg * (g + 1) + j);
}

__global__ void parent(unsigned long long *sum, int maxk) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = tripsOf(i, maxk);
  for (int k = 0; k < t; ++k)
    child<<<childBlocks(k), childThreads(i, k)>>>(sum, i * maxk + k, argOf(i, k), repsOf(k));
}

static void runPart(const char *name, int blocks, int threads, int maxk) {
  const int n = blocks * threads, slots = n * maxk;
  std::vector<unsigned long long> want(slots, 0);
  long long launches = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < tripsOf(i, maxk); ++k) {
      ++launches;
      unsigned total = (unsigned)(childBlocks(k) * childThreads(i, k));
      unsigned long long s = 0;
      for (unsigned g = 0; g < total; ++g)
        for (int j = 0; j < repsOf(k); ++j)
          s += (unsigned long long)argOf(i, k) * (g + 1) + j;
      want[i * maxk + k] = s;
    }
  unsigned long long *sum;
  CK(cudaMalloc(&sum, slots * sizeof(unsigned long long)));
  CK(cudaMemset(sum, 0, slots * sizeof(unsigned long long)));
  parent<<<blocks, threads>>>(sum, maxk);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> got(slots);
  CK(cudaMemcpy(got.data(), sum, slots * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  unsigned long long checksum = 0;
  long long ran = 0;
  for (int s = 0; s < slots; ++s) {
    checksum = checksum * 31 + got[s];
    ran += got[s] != 0;
    if (got[s] != want[s])
      mismatch("%s: parent %d launch %d: %llu (want %llu)", name, s / maxk, s % maxk, got[s], want[s]);
  }
  std::printf("%s: launches=%lld ran=%lld checksum=%llu\n", name, launches, ran, checksum);
  CK(cudaFree(sum));
}

int main() {
  setPendingLaunchLimit(1 << 18);
  runPart("grid", 64, 128, 40);
  runPart("block", 16, 1024, 24);
  return finish();
}
