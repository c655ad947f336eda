// Pattern: recursive quicksort, the classic CDP program, in two forms. `thread`: a kernel of one thread
// partitions its range three ways and launches itself for the two outer parts, each into a stream it
// creates (non-blocking) and destroys, down to a depth limit or a short range, which it sorts alone.
// `block`: a kernel of one block partitions its range with shared-memory counters into a scratch buffer,
// and its thread 0 launches the two outer parts the same way; a short range is sorted by the block in
// shared memory (odd-even transposition, a barrier a step). The sorted arrays do not depend on the order
// in which the launches ran, so every build prints the same checksums.
#include "check.cuh"

#include <algorithm>
#include <vector>

constexpr int N = 12000;      // keys of each form
constexpr int MAX_DEPTH = 14; // CDP nests at most 24 levels
constexpr int THREAD_LEAF = 24;
constexpr int BLOCK = 128;      // threads of the block form
constexpr int BLOCK_LEAF = 256; // the block form's shared-memory sort
constexpr unsigned KEYS = 3000; // values repeat: the middle part of a partition is often not empty

__device__ __host__ inline unsigned keyOf(int i) { return hashOf(i) % KEYS; }

__device__ inline unsigned medianOf3(unsigned a, unsigned b, unsigned c) {
  return max(min(a, b), min(max(a, b), c));
}

__device__ void sortAlone(unsigned *a, int lo, int hi) {
  for (int i = lo + 1; i < hi; ++i) {
    unsigned v = a[i];
    int j = i - 1;
    for (; j >= lo && a[j] > v; --j)
      a[j + 1] = a[j];
    a[j + 1] = v;
  }
}

__global__ void sortByThread(unsigned *a, unsigned *tmp, int lo, int hi, int depth);
__global__ void sortByBlock(unsigned *a, unsigned *tmp, int lo, int hi, int depth);

// The two outer parts [lo, lt) and [gt, hi), each of more than one key, each launched into a stream of its own.
template <void (*Kernel)(unsigned *, unsigned *, int, int, int)>
__device__ void launchParts(unsigned *a, unsigned *tmp, int lo, int lt, int gt, int hi, int depth, int threads) {
  cudaStream_t left, right;
  cudaStreamCreateWithFlags(&left, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&right, cudaStreamNonBlocking);
  if (lt - lo > 1)
    Kernel<<<1, threads, 0, left>>>(a, tmp, lo, lt, depth + 1);
  if (hi - gt > 1)
    Kernel<<<1, threads, 0, right>>>(a, tmp, gt, hi, depth + 1);
  cudaStreamDestroy(left);
  cudaStreamDestroy(right);
}

__global__ void sortByThread(unsigned *a, unsigned *tmp, int lo, int hi, int depth) {
  if (depth >= MAX_DEPTH || hi - lo <= THREAD_LEAF) {
    sortAlone(a, lo, hi);
    return;
  }
  unsigned pivot = medianOf3(a[lo], a[lo + (hi - lo) / 2], a[hi - 1]);
  // [lo, lt) below the pivot, [lt, i) equal, [gt, hi) above.
  int lt = lo, i = lo, gt = hi;
  while (i < gt) {
    unsigned v = a[i];
    if (v < pivot) {
      a[i++] = a[lt];
      a[lt++] = v;
    } else if (v > pivot) {
      a[i] = a[--gt];
      a[gt] = v;
    } else {
      ++i;
    }
  }
  launchParts<sortByThread>(a, tmp, lo, lt, gt, hi, depth, 1);
}

__global__ void sortByBlock(unsigned *a, unsigned *tmp, int lo, int hi, int depth) {
  __shared__ unsigned keys[BLOCK_LEAF];
  __shared__ int below, equal, above;
  int n = hi - lo;
  if (n <= BLOCK_LEAF || depth >= MAX_DEPTH) {
    if (n > BLOCK_LEAF) { // the depth limit on a long range: one thread sorts it
      if (threadIdx.x == 0)
        sortAlone(a, lo, hi);
      return;
    }
    for (int k = threadIdx.x; k < n; k += blockDim.x)
      keys[k] = a[lo + k];
    __syncthreads();
    for (int step = 0; step < n; ++step) {
      for (int k = 2 * threadIdx.x + (step & 1); k + 1 < n; k += 2 * blockDim.x)
        if (keys[k] > keys[k + 1]) {
          unsigned t = keys[k];
          keys[k] = keys[k + 1];
          keys[k + 1] = t;
        }
      __syncthreads();
    }
    for (int k = threadIdx.x; k < n; k += blockDim.x)
      a[lo + k] = keys[k];
    return;
  }
  unsigned pivot = medianOf3(a[lo], a[lo + n / 2], a[hi - 1]);
  if (threadIdx.x == 0)
    below = equal = above = 0;
  __syncthreads();
  for (int k = lo + threadIdx.x; k < hi; k += blockDim.x) {
    unsigned v = a[k];
    if (v < pivot)
      tmp[lo + atomicAdd(&below, 1)] = v;
    else if (v > pivot)
      tmp[hi - 1 - atomicAdd(&above, 1)] = v;
    else
      atomicAdd(&equal, 1);
  }
  __syncthreads();
  int lt = lo + below, gt = hi - above;
  for (int k = lo + threadIdx.x; k < hi; k += blockDim.x)
    a[k] = k >= lt && k < gt ? pivot : tmp[k];
  __syncthreads(); // every write of the block before thread 0's launches
  if (threadIdx.x == 0)
    launchParts<sortByBlock>(a, tmp, lo, lt, gt, hi, depth, blockDim.x);
}

static std::vector<unsigned> sortOnGpu(bool byBlock) {
  std::vector<unsigned> keys(N);
  for (int i = 0; i < N; ++i)
    keys[i] = keyOf(i);
  unsigned *a = nullptr, *tmp = nullptr;
  CK(cudaMalloc(&a, sizeof(unsigned) * N));
  CK(cudaMalloc(&tmp, sizeof(unsigned) * N));
  CK(cudaMemcpy(a, keys.data(), sizeof(unsigned) * N, cudaMemcpyHostToDevice));
  if (byBlock)
    sortByBlock<<<1, BLOCK>>>(a, tmp, 0, N, 0);
  else
    sortByThread<<<1, 1>>>(a, tmp, 0, N, 0);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(keys.data(), a, sizeof(unsigned) * N, cudaMemcpyDeviceToHost));
  CK(cudaFree(a));
  CK(cudaFree(tmp));
  return keys;
}

int main() {
  setPendingLaunchLimit(1 << 14);
  std::vector<unsigned> want(N);
  for (int i = 0; i < N; ++i)
    want[i] = keyOf(i);
  std::sort(want.begin(), want.end());
  const char *names[] = {"thread", "block"};
  for (int form = 0; form < 2; ++form) {
    std::vector<unsigned> got = sortOnGpu(form == 1);
    unsigned long long checksum = checksumWords(got.data(), want.data(), N, [&](size_t k) {
      mismatch("%s form, key %zu: %u, want %u", names[form], k, got[k], want[k]);
    });
    std::printf("%s quicksort of %d keys: checksum %llu\n", names[form], N, checksum);
  }
  return finish();
}
