// Pattern: children that use __syncthreads() with static and dynamic shared
// memory. Per parent thread the child block size (32, 64 or 128), the grid
// size (1..3) and the dynamic shared memory size (block size + 0..52 words)
// differ. Every child thread reaches every barrier (no early exit); the
// barriers separate writes and reads of other threads' shared-memory words
// and a tree reduction.
#include "check.cuh"

#include <vector>

constexpr int N = 96;     // parent threads
constexpr int PB = 48;    // parent block size
constexpr int MAXB = 128; // largest child block
constexpr int MAXG = 3;   // largest child grid

__device__ __host__ inline unsigned childBlock(int p) { return 32u << (p % 3); }
__device__ __host__ inline unsigned childGrid(int p) { return 1 + (p / 3) % MAXG; }
__device__ __host__ inline unsigned extraWords(int p) { return 16 * (p % 4) + p % 5; }
__device__ __host__ inline unsigned saltOf(int p) { return 1000003u * (unsigned)p + 17; }

__device__ __host__ inline unsigned stVal(unsigned t, unsigned salt) {
  return (t * 2654435761u) ^ salt;
}
__device__ __host__ inline unsigned dynVal(unsigned t, unsigned salt, unsigned b) {
  return t + salt + 5 * b;
}
__device__ __host__ inline unsigned extraVal(unsigned k, unsigned salt) {
  return 3 * k + salt;
}

__global__ void child(unsigned *out, int p, unsigned extra, unsigned salt) {
  __shared__ unsigned st[MAXB];
  extern __shared__ unsigned dyn[];  // blockDim.x + extra words
  unsigned t = threadIdx.x, B = blockDim.x;

  st[t] = stVal(t, salt);
  dyn[t] = dynVal(t, salt, blockIdx.x);
  for (unsigned k = t; k < extra; k += B)
    dyn[B + k] = extraVal(k, salt);
  __syncthreads();

  // Read words written by other threads.
  unsigned v = st[(t + 1) % B] + 7u * dyn[B - 1 - t];
  if (t == 0)
    for (unsigned k = 0; k < extra; ++k)
      v += dyn[B + k];
  __syncthreads();  // all reads of st done before it is overwritten

  st[t] = v;
  __syncthreads();
  for (unsigned s = B / 2; s > 0; s >>= 1) {
    if (t < s)
      st[t] += st[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[p * MAXG + blockIdx.x] = st[0];
}

__global__ void parent(unsigned *out, int n) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) {
    unsigned B = childBlock(p);
    size_t smem = (B + extraWords(p)) * sizeof(unsigned);
    child<<<childGrid(p), B, smem>>>(out, p, extraWords(p), saltOf(p));
  }
}

static unsigned blockResult(int p, unsigned b) {
  unsigned B = childBlock(p), extra = extraWords(p), salt = saltOf(p);
  unsigned total = 0;
  for (unsigned t = 0; t < B; ++t) {
    unsigned v = stVal((t + 1) % B, salt) + 7u * dynVal(B - 1 - t, salt, b);
    if (t == 0)
      for (unsigned k = 0; k < extra; ++k)
        v += extraVal(k, salt);
    total += v;
  }
  return total;
}

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<unsigned> want(N * MAXG, 0xffffffffu);
  for (int p = 0; p < N; ++p)
    for (unsigned b = 0; b < childGrid(p); ++b)
      want[p * MAXG + b] = blockResult(p, b);

  unsigned *dOut;
  CK(cudaMalloc(&dOut, N * MAXG * sizeof(unsigned)));
  CK(cudaMemset(dOut, 0xff, N * MAXG * sizeof(unsigned)));

  parent<<<N / PB, PB>>>(dOut, N);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned> out(N * MAXG);
  CK(cudaMemcpy(out.data(), dOut, N * MAXG * sizeof(unsigned),
                cudaMemcpyDeviceToHost));

  unsigned long long checksum = 0;
  int blocks = 0;
  for (int k = 0; k < N * MAXG; ++k) {
    if (out[k] != 0xffffffffu) {
      checksum += out[k];
      ++blocks;
    }
    if (out[k] != want[k])
      mismatch("parent %d block %d: %u (want %u)", k / MAXG, k % MAXG, out[k],
               want[k]);
  }

  std::printf("child_blocks=%d\n", blocks);
  std::printf("checksum=%llu\n", checksum);

  CK(cudaFree(dOut));
  return finish();
}
