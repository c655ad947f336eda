// Pattern: launches inside device functions (kept out of line) that several kernels call, each kernel
// differently: a launch in a device function joins the scope of the kernel running it (KLAP214), and the
// kernels that run the same device functions must start their scopes with the same groups, whichever of them
// runs a launch. `spawn` launches `leaf` into the NULL stream, `spawnFF` launches `leaf` into the
// fire-and-forget stream, `twice` calls `spawn` twice. Kernels:
//   one    128-thread blocks: half the threads call `spawn`, a third launch `leaf` themselves as well;
//   two    calls `spawn` in a loop (0 to 5 times per thread) and `spawnFF` once in odd lanes;
//   three  1,024-thread blocks (auto gathers per block there), `twice` from divergent code.
// Kernels one and two run at the same time, in two host streams. Each leaf of n threads (1 to 2,000, below
// and above serialization's thresholds at auto) adds a value per thread below n to its launch's slot; the
// host checks every slot.
// Note: clang 22 lowers a device-side <<<>>> to the V1 launch entry point, which CUDA 13 refuses for
// cudaStreamFireAndForget (streams.cu): a plain clang build without the plugin FAILs; klap's normalization
// (every granularity, `none` included) makes it run.
#include "check.cuh"

#include <vector>

constexpr int MAXL = 8;  // most launches per parent thread

__device__ __host__ inline int sizeOf(unsigned key) {
  unsigned h = hashOf(key);
  return h % 4 == 0 ? 1 + (int)(h >> 8) % 2000 : 1 + (int)(h >> 8) % 40;
}
__device__ __host__ inline unsigned long long leafSum(unsigned key, int n) {
  unsigned long long s = 0;
  for (int t = 0; t < n; ++t)
    s += (unsigned long long)(key | 1u) * (unsigned)(t + 1);
  return s;
}

__global__ void leaf(unsigned long long *slot, unsigned key, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    atomicAdd(slot, (unsigned long long)(key | 1u) * (unsigned)(t + 1));
}

__device__ __noinline__ void spawn(unsigned long long *slots, int i, int k, unsigned tag) {
  unsigned key = tag * 1000003u + (unsigned)(i * MAXL + k);
  int n = sizeOf(key);
  leaf<<<(n + 127) / 128, 128>>>(slots + i * MAXL + k, key, n);
}
__device__ __noinline__ void spawnFF(unsigned long long *slots, int i, int k, unsigned tag) {
  unsigned key = tag * 1000003u + (unsigned)(i * MAXL + k);
  int n = sizeOf(key);
  leaf<<<(n + 63) / 64, 64, 0, cudaStreamFireAndForget>>>(slots + i * MAXL + k, key, n);
}
__device__ __noinline__ void twice(unsigned long long *slots, int i, unsigned tag) {
  spawn(slots, i, 0, tag);
  spawn(slots, i, 1, tag);
}

// What each kernel's thread i launches: (k, stream) pairs, the host's reference too.
__device__ __host__ inline bool oneSpawns(int i) { return i % 2 == 0; }
__device__ __host__ inline bool oneDirect(int i) { return i % 3 == 0; }
__device__ __host__ inline int twoTrips(int i) { return (int)(hashOf((unsigned)i + 77u) % 6); }
__device__ __host__ inline bool threeTwice(int i) { return hashOf((unsigned)i * 3u) % 5 < 2; }

__global__ void one(unsigned long long *slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (oneSpawns(i))
    spawn(slots, i, 0, 1);
  if (oneDirect(i)) {
    unsigned key = 1u * 1000003u + (unsigned)(i * MAXL + 1);
    int m = sizeOf(key);
    leaf<<<(m + 31) / 32, 32>>>(slots + i * MAXL + 1, key, m);
  }
}

__global__ void two(unsigned long long *slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int trips = twoTrips(i);
  for (int k = 0; k < trips; ++k)
    spawn(slots, i, k, 2);
  if (i % 2)
    spawnFF(slots, i, MAXL - 1, 2);
}

__global__ void three(unsigned long long *slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threeTwice(i))
    twice(slots, i, 3);
}

struct Part {
  const char *name;
  int blocks, threads, n;
  unsigned tag;
};

static std::vector<unsigned long long> reference(const Part &p) {
  std::vector<unsigned long long> want((size_t)p.blocks * p.threads * MAXL, 0);
  auto add = [&](int i, int k) {
    unsigned key = p.tag * 1000003u + (unsigned)(i * MAXL + k);
    want[i * MAXL + k] += leafSum(key, sizeOf(key));
  };
  for (int i = 0; i < p.n; ++i) {
    if (p.tag == 1) {
      if (oneSpawns(i))
        add(i, 0);
      if (oneDirect(i))
        add(i, 1);
    } else if (p.tag == 2) {
      for (int k = 0; k < twoTrips(i); ++k)
        add(i, k);
      if (i % 2)
        add(i, MAXL - 1);
    } else if (threeTwice(i)) {
      add(i, 0);
      add(i, 1);
    }
  }
  return want;
}

int main() {
  setPendingLaunchLimit(1 << 16);
  const Part parts[3] = {{"one", 24, 128, 24 * 128 - 9, 1}, {"two", 40, 96, 40 * 96, 2}, {"three", 6, 1024, 6 * 1024 - 100, 3}};
  unsigned long long *slots[3];
  cudaStream_t streams[2];
  for (int p = 0; p < 3; ++p) {
    size_t bytes = (size_t)parts[p].blocks * parts[p].threads * MAXL * sizeof(unsigned long long);
    CK(cudaMalloc(&slots[p], bytes));
    CK(cudaMemset(slots[p], 0, bytes));
  }
  for (int s = 0; s < 2; ++s)
    CK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
  one<<<parts[0].blocks, parts[0].threads, 0, streams[0]>>>(slots[0], parts[0].n);
  CK_LAUNCH();
  two<<<parts[1].blocks, parts[1].threads, 0, streams[1]>>>(slots[1], parts[1].n);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  three<<<parts[2].blocks, parts[2].threads>>>(slots[2], parts[2].n);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  for (int p = 0; p < 3; ++p) {
    std::vector<unsigned long long> want = reference(parts[p]), got(want.size());
    CK(cudaMemcpy(got.data(), slots[p], got.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    unsigned long long checksum = 0;
    long long launched = 0;
    for (size_t s = 0; s < got.size(); ++s) {
      checksum = checksum * 31 + got[s];
      launched += want[s] != 0;
      if (got[s] != want[s])
        mismatch("%s: thread %zu launch %zu: %llu (want %llu)", parts[p].name, s / MAXL, s % MAXL, got[s], want[s]);
    }
    std::printf("%s: launches=%lld checksum=%llu\n", parts[p].name, launched, checksum);
    CK(cudaFree(slots[p]));
  }
  for (int s = 0; s < 2; ++s)
    CK(cudaStreamDestroy(streams[s]));
  return finish();
}
