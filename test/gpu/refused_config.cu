// Pattern: launches the device runtime refuses (a block z above 64, a grid of no blocks, a block of 2,048
// threads), read from memory so that only the run-time checks see them, beside small launches it accepts.
// As written the refused ones fail and their children never run; klap must make them as written (not
// serialize them, not aggregate them), so that each parent thread's cudaGetLastError and every child's
// count print the same transformed and untransformed. Not one for compute-sanitizer: its memcheck reports the
// refused launches' argument writes in the untransformed build too (the device runtime hands out a parameter
// buffer beyond its allocations for a configuration it refuses; 128 errors at none and at auto, H200, 2026-11-27).
#include "check.cuh"

#include <vector>

constexpr int PG = 4;
constexpr int PB = 64;
constexpr int N = PG * PB;
constexpr int KINDS = 5;

struct Config {
  unsigned gx, bx, by, bz;
};

__global__ void child(int *count, int p) { atomicAdd(&count[p], 1); }

__global__ void parent(const Config *cfg, int *count, int *err) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  Config c = cfg[p % KINDS];
  child<<<dim3(c.gx + p % 2), dim3(c.bx, c.by, c.bz)>>>(count, p);
  err[p] = (int)cudaGetLastError();
}

int main() {
  setPendingLaunchLimit(4096);
  // Refused: block z 128, no blocks (gx 0 and p even), 2,048 threads; accepted: 1 or 2 blocks of 32 and of 4 x 4.
  const Config host_cfg[KINDS] = {{1, 1, 1, 128}, {0, 32, 1, 1}, {1, 64, 32, 1}, {1, 32, 1, 1}, {1, 4, 4, 1}};
  Config *cfg;
  int *count, *err;
  CK(cudaMalloc(&cfg, sizeof host_cfg));
  CK(cudaMemcpy(cfg, host_cfg, sizeof host_cfg, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&count, N * sizeof(int)));
  CK(cudaMalloc(&err, N * sizeof(int)));
  CK(cudaMemset(count, 0, N * sizeof(int)));
  CK(cudaMemset(err, 0xff, N * sizeof(int)));
  parent<<<PG, PB>>>(cfg, count, err);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<int> hc(N), he(N);
  CK(cudaMemcpy(hc.data(), count, N * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(he.data(), err, N * sizeof(int), cudaMemcpyDeviceToHost));
  long long threads[KINDS] = {}, failed[KINDS] = {};
  for (int p = 0; p < N; ++p) {
    int k = p % KINDS;
    threads[k] += hc[p];
    failed[k] += he[p] != 0;
    const Config &c = host_cfg[k];
    unsigned blocks = c.gx + p % 2, per_block = c.bx * c.by * c.bz;
    bool refused = blocks == 0 || c.bz > 64 || per_block > 1024;
    int want = refused ? 0 : (int)(blocks * per_block);
    if (hc[p] != want)
      mismatch("parent %d: its child ran %d threads (want %d)", p, hc[p], want);
    if ((he[p] != 0) != refused)
      mismatch("parent %d: cudaGetLastError %d after a launch the runtime %s", p, he[p], refused ? "refuses" : "accepts");
  }
  for (int k = 0; k < KINDS; ++k)
    std::printf("kind %d: %lld child threads, %lld launches failed\n", k, threads[k], failed[k]);
  CK(cudaFree(cfg));
  CK(cudaFree(count));
  CK(cudaFree(err));
  return finish();
}
