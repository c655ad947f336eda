// Pattern: a child kernel that reads blockIdx.x, gridDim.x and blockDim.x only
// inside __noinline__ device functions (so they cannot be folded into the
// kernel), including a grid-stride loop bounded by gridDim.x * blockDim.x.
// One of those helpers (globalId) is also called by the host-launched parent,
// where it must keep returning the parent's own indices. Child grid and block
// sizes differ per parent thread.
#include "check.cuh"

#include <vector>

constexpr int N = 128;  // parent threads
constexpr int PB = 64;  // parent block size

struct Rec {
  unsigned long long sumGid;  // sum of the child's global thread ids
  unsigned long long cover;   // grid-stride loop: sum of j + 1 over [0, len)
  unsigned threads;
  unsigned maxBlock;  // largest blockIdx.x seen
  unsigned gdim;      // gridDim.x seen (max)
  unsigned bdim;      // blockDim.x seen (max)
  unsigned bad;       // threads whose helpers disagreed with the launch
  unsigned pad;
};

__device__ __noinline__ unsigned globalId() {
  return blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __noinline__ unsigned gridThreads() { return gridDim.x * blockDim.x; }
__device__ __noinline__ unsigned blockNo() { return blockIdx.x; }
__device__ __noinline__ void stamp(Rec *r) {
  atomicMax(&r->maxBlock, blockIdx.x);
  atomicMax(&r->gdim, gridDim.x);
  atomicMax(&r->bdim, blockDim.x);
}

__device__ __host__ inline unsigned childGrid(int i) { return 1 + i % 5; }
__device__ __host__ inline unsigned childBlock(int i) { return 32 * (1 + (i / 5) % 4); }
__device__ __host__ inline unsigned coverLen(int i) { return 100 + 7 * i; }

__global__ void child(Rec *recs, int p, unsigned len, unsigned wantGrid,
                      unsigned wantBlock) {
  Rec *r = &recs[p];
  unsigned g = globalId();
  atomicAdd(&r->sumGid, (unsigned long long)g);
  atomicAdd(&r->threads, 1u);
  stamp(r);
  if (gridThreads() != wantGrid * wantBlock || blockNo() >= wantGrid ||
      g >= wantGrid * wantBlock)
    atomicAdd(&r->bad, 1u);
  for (unsigned j = g; j < len; j += gridThreads())
    atomicAdd(&r->cover, (unsigned long long)j + 1);
}

__global__ void parent(Rec *recs, unsigned *parentIds, int n) {
  unsigned i = globalId();  // the parent's own index, through the same helper
  if (i < (unsigned)n) {
    atomicAdd(&parentIds[i], 1u);
    child<<<childGrid(i), childBlock(i)>>>(recs, i, coverLen(i), childGrid(i),
                                           childBlock(i));
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);

  Rec *dRecs;
  unsigned *dIds;
  CK(cudaMalloc(&dRecs, N * sizeof(Rec)));
  CK(cudaMalloc(&dIds, N * sizeof(unsigned)));
  CK(cudaMemset(dRecs, 0, N * sizeof(Rec)));
  CK(cudaMemset(dIds, 0, N * sizeof(unsigned)));

  parent<<<N / PB, PB>>>(dRecs, dIds, N);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<Rec> recs(N);
  std::vector<unsigned> ids(N);
  CK(cudaMemcpy(recs.data(), dRecs, N * sizeof(Rec), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ids.data(), dIds, N * sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned long long totalThreads = 0, checksum = 0;
  for (int i = 0; i < N; ++i) {
    const Rec &r = recs[i];
    unsigned long long T = (unsigned long long)childGrid(i) * childBlock(i);
    unsigned long long L = coverLen(i);
    totalThreads += r.threads;
    checksum += r.sumGid + r.cover + r.maxBlock + r.gdim + r.bdim;
    if (ids[i] != 1)
      mismatch("parent index %d seen %u times", i, ids[i]);
    if (r.threads != T)
      mismatch("parent %d: %u child threads (want %llu)", i, r.threads, T);
    if (r.sumGid != T * (T - 1) / 2)
      mismatch("parent %d: sum of global ids %llu (want %llu)", i, r.sumGid,
               T * (T - 1) / 2);
    if (r.cover != L * (L + 1) / 2)
      mismatch("parent %d: grid-stride cover %llu (want %llu)", i, r.cover,
               L * (L + 1) / 2);
    if (r.maxBlock != childGrid(i) - 1)
      mismatch("parent %d: max blockIdx.x %u (want %u)", i, r.maxBlock,
               childGrid(i) - 1);
    if (r.gdim != childGrid(i) || r.bdim != childBlock(i))
      mismatch("parent %d: gridDim.x %u blockDim.x %u (want %u %u)", i, r.gdim,
               r.bdim, childGrid(i), childBlock(i));
    if (r.bad != 0)
      mismatch("parent %d: %u child threads saw wrong indices", i, r.bad);
  }

  std::printf("child_threads=%llu\n", totalThreads);
  std::printf("checksum=%llu\n", checksum);

  CK(cudaFree(dRecs));
  CK(cudaFree(dIds));
  return finish();
}
