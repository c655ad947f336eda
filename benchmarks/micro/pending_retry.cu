// What a device launch refused for want of room waits for, in plain CDP (no klap): every block's thread 0
// launches one child of `child_blocks` 32-thread blocks and, where the device runtime refuses it, tries
// again after `sleep_ns`, at most `tries` times. Counts the launches made, the refusals (a null parameter
// buffer, or an error from the launch itself) and those given up, and the child blocks that ran.
// Build: scripts/klap-clang++ --no-klap -O2 benchmarks/micro/pending_retry.cu -o pending_retry
// Run:   pending_retry BLOCKS CHILD_BLOCKS TRIES SLEEP_NS     (e.g. 8000 256 100000 1000)
// With more blocks than the device runtime's 2,048 pending launches and the GPU holds at once, the
// blocks whose thread waits fill the GPU and the children that would make room never start
// (runtime/launch.cu, docs/aggregation.md "Never losing a launch").
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

struct Counters {
  unsigned made, null_buffer, refused, given_up, ran;
  unsigned long long longest_wait_ns;
};

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ void spin(unsigned long long ns) {
  for (unsigned long long end = now_ns() + ns; now_ns() < end;)
    ;
}

__global__ void child(Counters *c, unsigned long long spin_ns) {
  spin(spin_ns);
  if (threadIdx.x == 0)
    atomicAdd(&c->ran, 1);
}

__global__ void parent(Counters *c, unsigned long long spin_ns, int child_blocks, int tries, int sleep_ns) {
  spin(spin_ns);
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  unsigned long long start = now_ns();
  for (int t = 0;; ++t) {
    void *buf = cudaGetParameterBufferV2((void *)child, dim3(child_blocks), dim3(32), 0);
    if (!buf) {
      atomicAdd(&c->null_buffer, 1);
    } else {
      *(Counters **)buf = c;
      *(unsigned long long *)((char *)buf + 8) = 2000;
      if (cudaLaunchDeviceV2(buf, 0) == cudaSuccess) {
        atomicAdd(&c->made, 1);
        atomicMax(&c->longest_wait_ns, now_ns() - start);
        return;
      }
      atomicAdd(&c->refused, 1);
    }
    if (t == tries) {
      atomicAdd(&c->given_up, 1);
      return;
    }
    __nanosleep(sleep_ns);
  }
}

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s BLOCKS CHILD_BLOCKS TRIES SLEEP_NS\n", argv[0]);
    return 2;
  }
  int blocks = atoi(argv[1]), child_blocks = atoi(argv[2]), tries = atoi(argv[3]), sleep_ns = atoi(argv[4]);
  Counters *c;
  if (cudaMalloc(&c, sizeof *c))
    return 2;
  for (int rep = 0; rep < 2; ++rep) {
    cudaMemset(c, 0, sizeof *c);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    parent<<<blocks, 256>>>(c, 20000, child_blocks, tries, sleep_ns);
    cudaEventRecord(b);
    cudaError_t err = cudaDeviceSynchronize();
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    Counters h;
    cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("blocks %d child_blocks %d tries %d sleep %d: %s made %u null_buffer %u refused %u given_up %u "
                "ran %u/%u longest_wait %.2f ms, %.2f ms\n",
                blocks, child_blocks, tries, sleep_ns, cudaGetErrorString(err), h.made, h.null_buffer, h.refused,
                h.given_up, h.ran, blocks * child_blocks, h.longest_wait_ns / 1e6, ms);
  }
}
