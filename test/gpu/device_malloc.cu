// Pattern: device-side cudaMalloc and cudaFree per thread, which klap aggregates per warp
// (transform/malloc.rs, runtime/malloc.cu): each thread allocates, writes, reads back and frees.
// - rounds: 4096 threads of 9 sizes each take up to 16 KiB, twenty rounds over a 256 MiB heap: memory
//   that a free did not give back would run the heap out (errors counted);
// - reverse: two allocations per thread, freed one lane at a time from lane 31 down, the second before
//   the first in odd lanes, so that an aggregate's parts come back in every order;
// - in_loop: allocations in a loop whose trip count differs by lane;
// - alone: allocations that klap's runtime makes alone (one lane of a warp, a 65 MiB part, a size no
//   device has), a free of null, and allocations klap leaves as written (their pointer is stored to
//   memory) freed by a later kernel with the device runtime's cudaFree;
// - child: allocations in a child kernel that a parent launches (the aggregated child variant).
// Every pointer must be 16-byte aligned. The output is the same in every mode.
#include "check.cuh"

#include <vector>

constexpr int ROUNDS = 20;
constexpr int THREADS = 4096, BLOCK = 256;

// The ints thread t allocates in round r: 1 to 4096.
__host__ __device__ inline int ints_for(int t, int r) { return 1 + ((t * 7 + r * 13) % 9) * 512; }

struct Tally {
  unsigned long long sum; // of what every thread read back
  unsigned errors;        // failed allocations or frees
  unsigned misaligned;    // pointers not 16-byte aligned
};

__device__ void record(Tally *tally, unsigned long long sum, bool ok, const void *p) {
  atomicAdd(&tally->sum, sum);
  if (!ok)
    atomicAdd(&tally->errors, 1u);
  if ((unsigned long long)p % 16 != 0)
    atomicAdd(&tally->misaligned, 1u);
}

__global__ void rounds(Tally *tally, int r) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = ints_for(t, r);
  int *p = nullptr;
  cudaError_t err = cudaMalloc((void **)&p, n * sizeof(int));
  unsigned long long sum = 0;
  if (err == cudaSuccess) {
    for (int i = 0; i < n; ++i)
      p[i] = t + i;
    for (int i = 0; i < n; ++i)
      sum += p[i];
    err = cudaFree(p);
  }
  record(tally, sum, err == cudaSuccess, p);
}

__global__ void reverse(Tally *tally) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  long *a = nullptr, *b = nullptr;
  cudaError_t ea = cudaMalloc((void **)&a, (lane + 1) * sizeof(long));
  cudaError_t eb = cudaMalloc((void **)&b, 8 * sizeof(long));
  bool ok = ea == cudaSuccess && eb == cudaSuccess;
  unsigned long long sum = 0;
  if (ok) {
    for (int i = 0; i <= lane; ++i)
      a[i] = t * 100 + i;
    for (int i = 0; i < 8; ++i)
      b[i] = t - i;
    for (int i = 0; i <= lane; ++i)
      sum += a[i];
    for (int i = 0; i < 8; ++i)
      sum += b[i];
    for (int k = 31; k >= 0; --k) {
      if (lane != k)
        continue;
      if (lane % 2) {
        ok = cudaFree(b) == cudaSuccess && ok;
        ok = cudaFree(a) == cudaSuccess && ok;
      } else {
        ok = cudaFree(a) == cudaSuccess && ok;
        ok = cudaFree(b) == cudaSuccess && ok;
      }
    }
  }
  record(tally, sum, ok, a);
  record(tally, 0, true, b);
}

__global__ void in_loop(Tally *tally) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long sum = 0;
  bool ok = true;
  for (int r = 0; r < 1 + t % 5; ++r) {
    int *p;
    if (cudaMalloc((void **)&p, (r + 1) * 64 * sizeof(int)) != cudaSuccess) {
      ok = false;
      break;
    }
    for (int i = 0; i < (r + 1) * 64; ++i)
      p[i] = r + i;
    sum += p[r] + p[(r + 1) * 64 - 1];
    if ((unsigned long long)p % 16 != 0)
      atomicAdd(&tally->misaligned, 1u);
    ok = cudaFree(p) == cudaSuccess && ok;
  }
  record(tally, sum, ok, nullptr);
}

// The error each case gave: lone lane, large part, huge size, free of null; -1 where not reached.
__global__ void alone(Tally *tally, int *errors, int **kept) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  if (lane == 0) {
    int *p = nullptr;
    cudaError_t err = cudaMalloc((void **)&p, 100 * sizeof(int));
    unsigned long long sum = 0;
    if (err == cudaSuccess) {
      for (int i = 0; i < 100; ++i)
        p[i] = i;
      for (int i = 0; i < 100; ++i)
        sum += p[i];
      err = cudaFree(p);
    }
    if (t == 0)
      errors[0] = err;
    record(tally, sum, err == cudaSuccess, p);
  }
  if (t < 32) {
    // Lane 5 asks for 65 MiB, its warp-mates for 1 KiB; lane 9 for a size no device has.
    size_t bytes = lane == 5 ? (size_t)65 << 20 : lane == 9 ? (size_t)1 << 50 : 1024;
    char *p = nullptr;
    cudaError_t err = cudaMalloc((void **)&p, bytes);
    if (lane == 9) {
      errors[2] = err == cudaSuccess ? 0 : 1;
    } else {
      unsigned long long sum = 0;
      if (err == cudaSuccess) {
        p[0] = (char)lane;
        p[bytes - 1] = 1;
        sum = p[0] + p[bytes - 1];
        err = cudaFree(p);
      }
      if (lane == 5)
        errors[1] = err;
      record(tally, sum, err == cudaSuccess, p);
    }
    char *q = nullptr;
    cudaError_t eq = cudaMalloc((void **)&q, 32);
    // The free of null in even lanes, of the allocation in odd ones: one cudaFree takes both.
    cudaError_t ef = cudaFree(lane % 2 ? q : nullptr);
    if (lane == 0)
      errors[3] = ef;
    record(tally, 0, eq == cudaSuccess && (lane % 2 == 0 || ef == cudaSuccess), q);
    if (lane % 2 == 0)
      cudaFree(q);
  }
  // Stored to memory: left as written, and freed by free_kept.
  int *k = nullptr;
  if (cudaMalloc((void **)&k, 48) == cudaSuccess)
    k[0] = t;
  kept[t] = k;
}

__global__ void free_kept(Tally *tally, int **kept) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *k = kept[t];
  bool ok = k != nullptr && k[0] == t;
  ok = cudaFree(k) == cudaSuccess && ok;
  record(tally, ok ? 1 : 0, ok, k);
}

__global__ void child(Tally *tally, int parent) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = 1 + (t + parent) % 40;
  int *p = nullptr;
  cudaError_t err = cudaMalloc((void **)&p, n * sizeof(int));
  unsigned long long sum = 0;
  if (err == cudaSuccess) {
    for (int i = 0; i < n; ++i)
      p[i] = parent + i;
    for (int i = 0; i < n; ++i)
      sum += p[i];
    err = cudaFree(p);
  }
  record(tally, sum, err == cudaSuccess, p);
}

__global__ void parent(Tally *tally) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 3 == 0)
    child<<<2, 64>>>(tally, t);
}

static void report(const char *what, Tally *d, unsigned long long want, unsigned allowed_errors = 0) {
  Tally h;
  CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("%s: sum %llu, errors %u, misaligned %u\n", what, h.sum, h.errors, h.misaligned);
  if (h.sum != want)
    mismatch("%s: sum %llu, want %llu", what, h.sum, want);
  if (h.errors != allowed_errors)
    mismatch("%s: %u errors", what, h.errors);
  if (h.misaligned)
    mismatch("%s: %u pointers not 16-byte aligned", what, h.misaligned);
  CK(cudaMemset(d, 0, sizeof h));
}

int main() {
  CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)256 << 20));
  setPendingLaunchLimit(1 << 12);
  Tally *tally;
  CK(cudaMalloc(&tally, sizeof(Tally)));
  CK(cudaMemset(tally, 0, sizeof(Tally)));

  unsigned long long want = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    rounds<<<THREADS / BLOCK, BLOCK>>>(tally, r);
    CK_LAUNCH();
    for (int t = 0; t < THREADS; ++t) {
      unsigned long long n = ints_for(t, r);
      want += n * t + n * (n - 1) / 2;
    }
  }
  CK(cudaDeviceSynchronize());
  report("rounds", tally, want);

  reverse<<<THREADS / BLOCK, BLOCK>>>(tally);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  want = 0;
  for (int t = 0; t < THREADS; ++t) {
    int lane = t % 32;
    for (int i = 0; i <= lane; ++i)
      want += (unsigned long long)(t * 100 + i);
    for (int i = 0; i < 8; ++i)
      want += (unsigned long long)(t - i);
  }
  report("reverse", tally, want);

  in_loop<<<THREADS / BLOCK, BLOCK>>>(tally);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  want = 0;
  for (int t = 0; t < THREADS; ++t)
    for (int r = 0; r < 1 + t % 5; ++r)
      want += (unsigned long long)(r + r) + (unsigned long long)(r + (r + 1) * 64 - 1);
  report("in_loop", tally, want);

  const int ALONE_THREADS = 1024;
  int *errors, **kept;
  CK(cudaMalloc(&errors, 4 * sizeof(int)));
  CK(cudaMalloc(&kept, ALONE_THREADS * sizeof(int *)));
  CK(cudaMemset(errors, 0xff, 4 * sizeof(int)));
  alone<<<ALONE_THREADS / BLOCK, BLOCK>>>(tally, errors, kept);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  int herr[4];
  CK(cudaMemcpy(herr, errors, sizeof herr, cudaMemcpyDeviceToHost));
  std::printf("alone: lone lane %d, 65 MiB %d, huge size failed %d, free of null %d\n", herr[0], herr[1], herr[2], herr[3]);
  // What the device runtime's cudaFree(NULL) returns is printed, not checked: every mode hands null to it.
  if (herr[0] != 0 || herr[1] != 0 || herr[2] != 1)
    mismatch("alone: errors %d %d %d, want 0 0 1", herr[0], herr[1], herr[2]);
  // Lone lanes: 4950 each; the 1 KiB and 65 MiB parts: lane + 1 each (31 lanes but lane 9).
  want = (unsigned long long)(ALONE_THREADS / 32) * 4950;
  for (int lane = 0; lane < 32; ++lane)
    if (lane != 9)
      want += lane + 1;
  report("alone", tally, want);
  free_kept<<<ALONE_THREADS / BLOCK, BLOCK>>>(tally, kept);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  report("kept", tally, ALONE_THREADS);

  parent<<<4, 96>>>(tally);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  want = 0;
  for (int t = 0; t < 4 * 96; ++t) {
    if (t % 3)
      continue;
    for (int c = 0; c < 128; ++c) {
      unsigned long long n = 1 + (c + t) % 40;
      want += n * t + n * (n - 1) / 2;
    }
  }
  report("child", tally, want);
  return finish();
}
