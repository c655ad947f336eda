// What grid reuse (Free Launch's T1 and T2: parent blocks that are done take child blocks, instead of a launch)
// could save at most, per generation of children: the time from the first parent block's end to the first
// child block's start, read on the GPU's global timer. Under klap's grid aggregation the children start only
// after the last parent thread's exit and one device launch; a parent block that finished first was idle
// until then, and grid reuse could have run children in it from that moment.
//
// The parent grid: `--blocks` blocks of `--threads` threads; every thread spins `--spin` ns, the blocks of the
// second half `--skew` times as long (an imbalanced grid), then launches one child of `--child-blocks` blocks of
// 32 threads that each spin `--child-spin` ns. Build as any CDP program, e.g.
//   scripts/klap-clang++ -O2 -mllvm -klap-granularity=grid benchmarks/micro/reuse_gap.cu -o reuse_gap
// Prints per rep the times (us, from the parent grid's first block start): the first and last parent thread's
// end (before its launch), the last launch's return, the first and last child block starts, the last child
// block's end; then the medians.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

// Every time is written to an array of its own, one slot a thread or block, and reduced on the host: atomics
// on one word from every thread would queue at that word and be what is measured.
struct Stamps {
  unsigned long long *block_start;  // per parent block
  unsigned long long *parent_end;   // per parent thread, before its launch
  unsigned long long *launch_return; // per parent thread, after its launch returned (under klap: its record written)
  unsigned long long *child_start, *child_end; // per child block
};

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ void spin(unsigned long long ns) {
  unsigned long long end = now_ns() + ns;
  while (now_ns() < end)
    ;
}

__global__ void child(Stamps s, long long first, unsigned long long child_spin) {
  unsigned long long start = now_ns();
  spin(child_spin);
  if (threadIdx.x == 0) {
    s.child_start[first + blockIdx.x] = start;
    s.child_end[first + blockIdx.x] = now_ns();
  }
}

__global__ void parent(Stamps s, unsigned long long spin_ns, int skew, int child_blocks, unsigned long long child_spin) {
  if (threadIdx.x == 0)
    s.block_start[blockIdx.x] = now_ns();
  spin(blockIdx.x >= gridDim.x / 2 ? spin_ns * skew : spin_ns);
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  s.parent_end[t] = now_ns();
  child<<<child_blocks, 32>>>(s, t * child_blocks, child_spin);
  s.launch_return[t] = now_ns();
}

static long arg(int argc, char **argv, const char *name, long fallback) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], name))
      return atol(argv[i + 1]);
  return fallback;
}

typedef unsigned long long u64;

static std::vector<u64> fetch(const u64 *d, size_t n) {
  std::vector<u64> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(u64), cudaMemcpyDeviceToHost);
  return h;
}

int main(int argc, char **argv) {
  int blocks = (int)arg(argc, argv, "--blocks", 264), threads = (int)arg(argc, argv, "--threads", 256);
  long spin_ns = arg(argc, argv, "--spin", 20000), skew = arg(argc, argv, "--skew", 4);
  int child_blocks = (int)arg(argc, argv, "--child-blocks", 1);
  long child_spin = arg(argc, argv, "--child-spin", 2000);
  int reps = (int)arg(argc, argv, "--reps", 7);
  size_t parents = (size_t)blocks * threads, children = parents * child_blocks;
  Stamps s;
  if (cudaMalloc(&s.block_start, blocks * sizeof(u64)) || cudaMalloc(&s.parent_end, parents * sizeof(u64)) ||
      cudaMalloc(&s.launch_return, parents * sizeof(u64)) || cudaMalloc(&s.child_start, children * sizeof(u64)) ||
      cudaMalloc(&s.child_end, children * sizeof(u64)))
    return 2;
  const char *names[] = {"first_parent_end", "last_parent_end", "last_launch_return", "first_child_start",
                         "last_child_start", "last_child_end"};
  std::vector<double> cols[6];
  for (int r = -1; r < reps; r++) {
    // A child block that never ran leaves its slot at ~0: counted as lost.
    cudaMemset(s.child_start, 0xff, children * sizeof(u64));
    parent<<<blocks, threads>>>(s, spin_ns, (int)skew, child_blocks, child_spin);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      printf("CUDA error: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 2;
    }
    if (r < 0)
      continue;
    auto bs = fetch(s.block_start, blocks), pe = fetch(s.parent_end, parents), lr = fetch(s.launch_return, parents);
    auto cs = fetch(s.child_start, children), ce = fetch(s.child_end, children);
    u64 t0 = *std::min_element(bs.begin(), bs.end());
    size_t lost = std::count(cs.begin(), cs.end(), ~0ull);
    if (lost) {
      printf("rep %d: %zu of %zu child blocks never ran\n", r, lost, children);
      return 1;
    }
    u64 v[6] = {*std::min_element(pe.begin(), pe.end()), *std::max_element(pe.begin(), pe.end()),
                *std::max_element(lr.begin(), lr.end()), *std::min_element(cs.begin(), cs.end()),
                *std::max_element(cs.begin(), cs.end()), *std::max_element(ce.begin(), ce.end())};
    printf("rep %d", r);
    for (int k = 0; k < 6; k++) {
      cols[k].push_back((v[k] - t0) / 1e3);
      printf(" %s %.1f", names[k], cols[k].back());
    }
    printf("\n");
  }
  auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  printf("median");
  for (int k = 0; k < 6; k++)
    printf(" %s %.1f", names[k], median(cols[k]));
  printf(" gap_after_last_parent %.1f idle_of_first_block %.1f\n", median(cols[3]) - median(cols[1]),
         median(cols[3]) - median(cols[0]));
  return 0;
}
