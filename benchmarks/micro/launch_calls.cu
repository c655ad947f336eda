// What a device-side launch's calls cost in the launching thread, step by step: the parameter buffer
// (cudaGetParameterBufferV2, which takes the configuration, or the older cudaGetParameterBuffer, which
// takes only a size), the argument stores, and the launch (cudaLaunchDeviceV2, or cudaLaunchDevice with
// the configuration), then the child's first block's start after the launch returned. Also whether a
// buffer taken early (before the grid's size is known) can be launched later, and what buffers taken
// and never launched do to the launches after them. One parent thread launches 64 children in turn, of 1
// and of 16,384 blocks, into the NULL stream; every time is the GPU's global timer, in ns.
// Build: scripts/klap-clang++ --no-klap -O2 benchmarks/micro/launch_calls.cu -o launch_calls
// (no klap pass: the calls are made here, as klap's runtime makes them, runtime/launch.cu).
#include <algorithm>
#include <cstdio>
#include <vector>

typedef unsigned long long u64;
enum { LAUNCHES = 64, STEPS = 5, UNLAUNCHED = 4096 };
enum Mode { V2 = 0, V1 = 1, V1_EARLY = 2, V1_AFTER_UNLAUNCHED = 3, MODES = 4 };
const char *kModeName[MODES] = {"v2", "v1", "v1-early", "v1-after-unlaunched"};

__device__ u64 now() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Block 0's thread 0 writes its start.
__global__ void child(u64 *start, int i) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    start[i] = now();
}

struct Args {
  u64 *start;
  int i;
};

// steps[i * STEPS + k]: before the buffer, after it, after the stores, after the launch returned; error.
__global__ void parent(int mode, unsigned blocks, u64 *steps, u64 *start) {
  dim3 grid(blocks), block(32);
  void *early[LAUNCHES];
  if (mode == V1_EARLY)
    for (int i = 0; i < LAUNCHES; ++i) {
      u64 t0 = now();
      early[i] = cudaGetParameterBuffer(8, sizeof(Args));
      steps[i * STEPS + 0] = t0;
      steps[i * STEPS + 1] = now();
    }
  if (mode == V1_AFTER_UNLAUNCHED)
    for (int i = 0; i < UNLAUNCHED; ++i)
      if (!cudaGetParameterBuffer(8, sizeof(Args))) {
        steps[4] = 1000 + i;  // the buffers ran out after i
        break;
      }
  for (int i = 0; i < LAUNCHES; ++i) {
    u64 *s = steps + i * STEPS;
    void *buf;
    if (mode == V1_EARLY) {
      buf = early[i];
    } else {
      s[0] = now();
      buf = mode == V2 ? cudaGetParameterBufferV2((void *)child, grid, block, 0)
                       : cudaGetParameterBuffer(8, sizeof(Args));
      s[1] = now();
    }
    if (!buf) {
      s[4] = 2;
      return;
    }
    Args *a = (Args *)buf;
    a->start = start;
    a->i = i;
    s[2] = now();
    int err = mode == V2 ? cudaLaunchDeviceV2(buf, 0) : cudaLaunchDevice((void *)child, buf, grid, block, 0, 0);
    s[3] = now();
    if (err && !s[4])
      s[4] = err;
  }
}

static u64 median(std::vector<u64> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  u64 *steps, *start;
  cudaMalloc(&steps, LAUNCHES * STEPS * sizeof(u64));
  cudaMalloc(&start, LAUNCHES * sizeof(u64));
  printf("%-20s %7s %10s %10s %10s %14s  (ns, medians of %d launches after the first 4)\n", "mode", "blocks",
         "buffer", "stores", "launch", "child-start", LAUNCHES);
  // Buffers taken and never launched last: what they do may stay for the process's life.
  const int order[][2] = {{V2, 1}, {V1, 1}, {V1_EARLY, 1}, {V2, 16384}, {V1, 16384}, {V1_EARLY, 16384},
                          {V1_AFTER_UNLAUNCHED, 1}, {V1_AFTER_UNLAUNCHED, 16384}};
  for (const auto &o : order) {
    int mode = o[0];
    unsigned blocks = (unsigned)o[1];
    for (int rep = 0; rep < 2; ++rep) {  // the first a warm-up
      cudaMemset(steps, 0, LAUNCHES * STEPS * sizeof(u64));
      cudaMemset(start, 0, LAUNCHES * sizeof(u64));
      parent<<<1, 1>>>(mode, blocks, steps, start);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        printf("%-20s %7u CUDA error %s\n", kModeName[mode], blocks, cudaGetErrorString(e));
        return 1;
      }
    }
    std::vector<u64> h(LAUNCHES * STEPS), hs(LAUNCHES);
    cudaMemcpy(h.data(), steps, h.size() * sizeof(u64), cudaMemcpyDeviceToHost);
    cudaMemcpy(hs.data(), start, hs.size() * sizeof(u64), cudaMemcpyDeviceToHost);
    std::vector<u64> buffer, stores, launch, child_start;
    u64 error = 0;
    for (int i = 0; i < LAUNCHES; ++i) {
      const u64 *s = &h[i * STEPS];
      error = error ? error : s[4];
      if (i < 4)
        continue;
      buffer.push_back(s[1] - s[0]);
      stores.push_back(s[2] - std::max(s[1], i ? h[(i - 1) * STEPS + 3] : 0));
      launch.push_back(s[3] - s[2]);
      child_start.push_back(hs[i] > s[3] ? hs[i] - s[3] : 0);
    }
    printf("%-20s %7u %10llu %10llu %10llu %14llu", kModeName[mode], blocks, median(buffer), median(stores),
           median(launch), median(child_start));
    if (error >= 1000)
      printf("  (buffers ran out after %llu unlaunched)", error - 1000);
    else if (error)
      printf("  (error %llu)", error);
    printf("\n");
  }
  return 0;
}
