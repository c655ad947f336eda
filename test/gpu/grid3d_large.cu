// Pattern: child grids with a large y or z and three-dimensional blocks, aggregated beside each other: an
// aggregated child maps its linear block number back to the record's (x, y, z) and masks the threads beyond
// a record's block, whose shape differs from record to record. grid2d.cu has grids of at most 3 x 2 blocks;
// here the shapes include 1 x 300 x 2, 2 x 1 x 257, 1 x 65,535 x 1 (the largest y a grid may have), 3 x 5 x 7,
// and blocks of 4 x 4 x 4, 1 x 1 x 64, 32 x 2 x 16 (1,024 threads), 7 x 3 x 2 and 1 x 1 x 1. Every parent
// thread launches a shape of its own (some launch twice, into the NULL stream and fire-and-forget); each child
// thread writes one word, a hash of all its coordinates, at the slot its coordinates give, and counts itself.
// The host checks every slot, those no child thread may write included.
// Note: clang 22 lowers a device-side <<<>>> to the V1 launch entry point, which CUDA 13 refuses for
// cudaStreamFireAndForget (streams.cu): a plain clang build without the plugin FAILs; klap's normalization
// (every granularity, `none` included) makes it run.
#include "check.cuh"

#include <vector>

constexpr int PG = 3, PB = 40;  // parent blocks and threads
constexpr int N = PG * PB;
constexpr int SHAPES = 8;

struct Shape {
  unsigned gx, gy, gz, bx, by, bz;
};
__device__ __host__ inline Shape shapeOf(int s) {
  const Shape shapes[SHAPES] = {
      {1, 300, 2, 4, 4, 4},  {2, 1, 257, 1, 1, 64}, {1, 65535, 1, 1, 1, 1}, {3, 5, 7, 7, 3, 2},
      {1, 2, 2, 32, 2, 16},  {1, 1, 600, 2, 1, 3},  {2, 2, 2, 1, 1, 1},     {1, 40, 3, 3, 3, 3},
  };
  return shapes[s];
}
__device__ __host__ inline unsigned long long threadsOf(Shape s) {
  return (unsigned long long)s.gx * s.gy * s.gz * s.bx * s.by * s.bz;
}
// The shape parent i launches, and whether it launches a second (fire-and-forget) one.
__device__ __host__ inline int firstOf(int i) { return (i * 5 + i / 8) % SHAPES; }
__device__ __host__ inline bool twiceOf(int i) { return i % 3 == 1; }
__device__ __host__ inline int secondOf(int i) { return (firstOf(i) + 3) % SHAPES; }

__device__ __host__ inline unsigned coordHash(unsigned tag, unsigned bx, unsigned by, unsigned bz, unsigned tx,
                                              unsigned ty, unsigned tz, Shape s) {
  unsigned h = tag * 0x9e3779b1u;
  const unsigned v[12] = {bx, by, bz, tx, ty, tz, s.gx, s.gy, s.gz, s.bx, s.by, s.bz};
  for (int k = 0; k < 12; ++k) {
    h ^= v[k] + 0x7f4a7c15u + (h << 6) + (h >> 2);
    h *= 0x85ebca6bu;
  }
  return h ^ (h >> 16);
}

__global__ void child(unsigned *out, unsigned *count, unsigned tag) {
  Shape s = {gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z};
  unsigned long long block = ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned long long slot = block * (blockDim.x * blockDim.y * blockDim.z) + thread;
  out[slot] = coordHash(tag, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, s);
  atomicAdd(count, 1u);
}

__global__ void parent(unsigned *out, const unsigned long long *offset, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Shape a = shapeOf(firstOf(i));
  child<<<dim3(a.gx, a.gy, a.gz), dim3(a.bx, a.by, a.bz)>>>(out + offset[2 * i], count + 2 * i, 2 * i);
  if (twiceOf(i)) {
    Shape b = shapeOf(secondOf(i));
    child<<<dim3(b.gx, b.gy, b.gz), dim3(b.bx, b.by, b.bz), 0, cudaStreamFireAndForget>>>(
        out + offset[2 * i + 1], count + 2 * i + 1, 2 * i + 1);
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);
  // Each launch's slots, one after another, with 16 words to spare between them (never written).
  std::vector<unsigned long long> offset(2 * N, 0);
  std::vector<unsigned long long> want_count(2 * N, 0);
  unsigned long long total = 0;
  for (int k = 0; k < 2 * N; ++k) {
    int i = k / 2;
    offset[k] = total;
    if (k % 2 == 0 || twiceOf(i)) {
      want_count[k] = threadsOf(shapeOf(k % 2 ? secondOf(i) : firstOf(i)));
      total += want_count[k] + 16;
    }
  }
  std::vector<unsigned> want(total, 0xffffffffu);
  for (int k = 0; k < 2 * N; ++k) {
    if (want_count[k] == 0)
      continue;
    Shape s = shapeOf(k % 2 ? secondOf(k / 2) : firstOf(k / 2));
    unsigned per = s.bx * s.by * s.bz;
    for (unsigned bz = 0; bz < s.gz; ++bz)
      for (unsigned by = 0; by < s.gy; ++by)
        for (unsigned bx = 0; bx < s.gx; ++bx)
          for (unsigned tz = 0; tz < s.bz; ++tz)
            for (unsigned ty = 0; ty < s.by; ++ty)
              for (unsigned tx = 0; tx < s.bx; ++tx) {
                unsigned long long block = ((unsigned long long)bz * s.gy + by) * s.gx + bx;
                unsigned long long slot = block * per + (tz * s.by + ty) * s.bx + tx;
                want[offset[k] + slot] = coordHash(k, bx, by, bz, tx, ty, tz, s);
              }
  }
  unsigned *out, *count;
  unsigned long long *dOffset;
  CK(cudaMalloc(&out, total * sizeof(unsigned)));
  CK(cudaMalloc(&count, 2 * N * sizeof(unsigned)));
  CK(cudaMalloc(&dOffset, 2 * N * sizeof(unsigned long long)));
  CK(cudaMemset(out, 0xff, total * sizeof(unsigned)));
  CK(cudaMemset(count, 0, 2 * N * sizeof(unsigned)));
  CK(cudaMemcpy(dOffset, offset.data(), 2 * N * sizeof(unsigned long long), cudaMemcpyHostToDevice));
  parent<<<PG, PB>>>(out, dOffset, count, N - 3);  // the last three parents return at once
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  for (int k = 2 * (N - 3); k < 2 * N; ++k)
    if (want_count[k]) {
      for (unsigned long long s = 0; s < want_count[k]; ++s)
        want[offset[k] + s] = 0xffffffffu;
      want_count[k] = 0;
    }
  std::vector<unsigned> got(total), gotCount(2 * N);
  CK(cudaMemcpy(got.data(), out, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotCount.data(), count, 2 * N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long checksum = checksumWords(got.data(), want.data(), total, [&](size_t w) {
    mismatch("word %zu: %08x (want %08x)", w, got[w], want[w]);
  });
  unsigned long long threads = 0;
  for (int k = 0; k < 2 * N; ++k) {
    threads += gotCount[k];
    if (gotCount[k] != want_count[k])
      mismatch("launch %d of parent %d: %u child threads ran (want %llu)", k % 2, k / 2, gotCount[k], want_count[k]);
  }
  std::printf("child_threads=%llu\n", threads);
  std::printf("checksum=%llu\n", checksum);
  CK(cudaFree(out));
  CK(cudaFree(count));
  CK(cudaFree(dOffset));
  return finish();
}
