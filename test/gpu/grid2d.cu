// Pattern: child launches with 2-D grids and 2-D/3-D blocks
// (`dim3 g(gx, gy), b(bx, by, bz)`), shapes differing per parent thread. Each
// child thread reads x, y and z of blockIdx, threadIdx, blockDim and gridDim
// and stores them at a slot derived from its own coordinates; the host checks
// every slot, including those no thread may write.
#include "check.cuh"

#include <vector>

constexpr int N = 40;      // parent threads
constexpr int PB = 20;     // parent block size
constexpr int MAXT = 192;  // most threads of one child: 6 blocks x 32
constexpr int W = 3;       // words per child thread

struct Shape {
  unsigned gx, gy, bx, by, bz;
};

__device__ __host__ inline Shape shapeOf(int i) {
  const unsigned bs[6][3] = {{8, 1, 1}, {4, 4, 1}, {2, 3, 5},
                             {8, 2, 2}, {1, 1, 32}, {3, 3, 3}};
  Shape s;
  s.gx = 1 + i % 3;
  s.gy = 1 + (i / 3) % 2;
  s.bx = bs[i % 6][0];
  s.by = bs[i % 6][1];
  s.bz = bs[i % 6][2];
  return s;
}

__global__ void child(unsigned *out) {
  unsigned blockLinear = blockIdx.z * gridDim.y * gridDim.x +
                         blockIdx.y * gridDim.x + blockIdx.x;
  unsigned threadLinear =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned idx =
      blockLinear * (blockDim.x * blockDim.y * blockDim.z) + threadLinear;
  unsigned *w = out + idx * W;
  w[0] = blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16 | threadIdx.x << 24;
  w[1] = threadIdx.y | threadIdx.z << 8 | blockDim.x << 16 | blockDim.y << 24;
  w[2] = blockDim.z | gridDim.x << 8 | gridDim.y << 16 | gridDim.z << 24;
}

__global__ void parent(unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Shape s = shapeOf(i);
    dim3 g(s.gx, s.gy), b(s.bx, s.by, s.bz);
    child<<<g, b>>>(out + i * MAXT * W);
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);

  const int S = N * MAXT * W;
  std::vector<unsigned> want(S, 0xffffffffu);
  unsigned long long wantThreads = 0;
  for (int i = 0; i < N; ++i) {
    Shape s = shapeOf(i);
    for (unsigned by_ = 0; by_ < s.gy; ++by_)
      for (unsigned bx_ = 0; bx_ < s.gx; ++bx_)
        for (unsigned tz = 0; tz < s.bz; ++tz)
          for (unsigned ty = 0; ty < s.by; ++ty)
            for (unsigned tx = 0; tx < s.bx; ++tx) {
              unsigned blockLinear = by_ * s.gx + bx_;
              unsigned threadLinear = (tz * s.by + ty) * s.bx + tx;
              unsigned idx = blockLinear * (s.bx * s.by * s.bz) + threadLinear;
              unsigned *w = &want[(i * MAXT + idx) * W];
              w[0] = bx_ | by_ << 8 | 0u << 16 | tx << 24;
              w[1] = ty | tz << 8 | s.bx << 16 | s.by << 24;
              w[2] = s.bz | s.gx << 8 | s.gy << 16 | 1u << 24;
              ++wantThreads;
            }
  }

  unsigned *dOut;
  CK(cudaMalloc(&dOut, S * sizeof(unsigned)));
  CK(cudaMemset(dOut, 0xff, S * sizeof(unsigned)));

  parent<<<N / PB, PB>>>(dOut, N);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<unsigned> out(S);
  CK(cudaMemcpy(out.data(), dOut, S * sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned long long checksum = 0, written = 0;
  for (int k = 0; k < S; ++k) {
    checksum = checksum * 31 + out[k];
    if (k % W == 0 && out[k] != 0xffffffffu)
      ++written;
    if (out[k] != want[k])
      mismatch("parent %d thread slot %d word %d: %08x (want %08x)",
               k / (MAXT * W), (k / W) % MAXT, k % W, out[k], want[k]);
  }

  std::printf("child_threads=%llu (want %llu)\n", written, wantThreads);
  std::printf("checksum=%llu\n", checksum);

  CK(cudaFree(dOut));
  return finish();
}
