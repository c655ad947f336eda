// The device runtime's shared-memory protocols under compute-sanitizer's racecheck, which checks
// nothing in a program with device-side launches (a race planted in a host-launched parent of a CDP
// program went unreported). So here the host does what the device runtime would: parents register
// launches into block and grid scopes (the runtime's code, included without its launching part), and
// the host launches each chunk's aggregated child, whose blocks find their records the runtime's way.
// Records ask for 32- or 64-thread blocks, so the children also mask threads beyond a record's block.
// Prints PASS when every record's threads ran exactly once; run it under racecheck and synccheck.
#define KLAP_RT_NO_LAUNCH
#include "../../runtime/klap_rt.cu"

#include <cstdio>
#include <cstdlib>
#include <vector>

// What the pass defines in a module it aggregates in.
extern "C" {
__device__ char klap_pool[32 << 20];
__device__ u64 klap_pool_bytes = 32 << 20;
__device__ u32 klap_trace = 0;
__device__ u32 klap_spawn = 0;
}

struct Args {
  int parent, threads;
};

constexpr int kBlocks = 8, kThreads = 128, kParents = kBlocks * kThreads;

__host__ __device__ int blocks_of(int p) { return p % 3; }                  // 0: no launch (divergent)
__host__ __device__ int threads_of(int p) { return p % 5 == 0 ? 64 : 32; }  // two block sizes

__device__ void register_launch(Scope *s, int *lost) {
  int p = blockIdx.x * blockDim.x + threadIdx.x, nb = blocks_of(p);
  if (nb == 0)
    return;
  char *tagged = __klap_scope_register(s, 0, nb, 1, 1, threads_of(p), 1, 1, 0);
  if (!tagged) {
    atomicAdd(lost, 1);
    return;
  }
  Args *a = (Args *)__klap_record_args(tagged);
  a->parent = p;
  a->threads = nb * threads_of(p);
  __klap_record_written();
}

// As __klap_scope_launch takes it, once the scope's exit count is complete.
__device__ Chunk *scope_head(Scope *s) {
  fence();
  return load_chunk(&s->head[0]);
}

__global__ void block_parent(Chunk **chunks, int *lost) {
  Scope *s = __klap_block_enter(1, sizeof(Args), 0, 0, 0, 0, 0, 0, 0);
  register_launch(s, lost);
  if (__klap_scope_exit(s, blockDim.x))
    chunks[blockIdx.x] = scope_head(s);
}

__global__ void grid_parent(Chunk **chunks, int *lost) {
  Scope *s = __klap_grid_enter(1, sizeof(Args), 0, 0, 0, 0, 0, 0, 0);
  register_launch(s, lost);
  if (__klap_scope_exit(s, (u64)gridDim.x * blockDim.x)) {
    chunks[0] = scope_head(s);
    __klap_grid_release(s);
  }
}

__global__ void aggregated_child(Chunk *c, int *ran) {
  const Args *a = (const Args *)__klap_child_enter(c, 0);
  if (!a)
    return;
  int i = __klap_ctaid_x() * __klap_ntid_x() + __klap_tid_x();
  if (i < a->threads)
    atomicAdd(&ran[a->parent], 1);
  __klap_child_exit();
}

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Launches the aggregated child of every chunk of the chains `heads`, as __klap_launch_chunk would.
static int launch_chains(const std::vector<Chunk *> &heads, int *ran) {
  int launches = 0;
  for (Chunk *c : heads) {
    while (c) {
      Chunk h;
      CK(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
      u32 records = (u32)(h.counter >> 32), blocks = (u32)h.counter;
      if (records > h.capacity) {
        std::printf("FAIL: chunk overfull (%u records, capacity %u)\n", records, h.capacity);
        std::exit(1);
      }
      if (records) {
        h.blocks = blocks;
        h.group = (records + DONE_COUNTERS - 1) / DONE_COUNTERS;
        CK(cudaMemcpy(c, &h, sizeof h, cudaMemcpyHostToDevice));
        aggregated_child<<<blocks, h.max_threads>>>(c, ran);
        CK(cudaGetLastError());
        ++launches;
      }
      c = h.next;
    }
  }
  CK(cudaDeviceSynchronize());
  return launches;
}

static int check(const char *scope, int *ran, int *lost) {
  std::vector<int> got(kParents);
  int lost_h = 0;
  CK(cudaMemcpy(got.data(), ran, sizeof(int) * kParents, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&lost_h, lost, sizeof lost_h, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int p = 0; p < kParents; ++p) {
    int want = blocks_of(p) * threads_of(p);
    if (got[p] != want && bad++ == 0)
      std::printf("FAIL %s scope: parent %d ran %d threads (want %d)\n", scope, p, got[p], want);
  }
  if (lost_h)
    std::printf("FAIL %s scope: %d launches got no record\n", scope, lost_h);
  return bad + lost_h;
}

int main() {
  int *ran, *lost;
  Chunk **chunks;
  CK(cudaMalloc(&ran, sizeof(int) * kParents));
  CK(cudaMalloc(&lost, sizeof(int)));
  CK(cudaMalloc(&chunks, sizeof(Chunk *) * kBlocks));
  int failures = 0;
  for (int grid = 0; grid < 2; ++grid) {
    CK(cudaMemset(ran, 0, sizeof(int) * kParents));
    CK(cudaMemset(lost, 0, sizeof(int)));
    CK(cudaMemset(chunks, 0, sizeof(Chunk *) * kBlocks));
    if (grid)
      grid_parent<<<kBlocks, kThreads>>>(chunks, lost);
    else
      block_parent<<<kBlocks, kThreads>>>(chunks, lost);
    CK(cudaGetLastError());
    std::vector<Chunk *> heads(grid ? 1 : kBlocks);
    CK(cudaMemcpy(heads.data(), chunks, sizeof(Chunk *) * heads.size(), cudaMemcpyDeviceToHost));
    int launches = launch_chains(heads, ran);
    std::printf("%s scope: %d aggregated launches\n", grid ? "grid" : "block", launches);
    failures += check(grid ? "grid" : "block", ran, lost);
  }
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
