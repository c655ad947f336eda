// Pattern (fuzz case 1953-8): a quarter of the parent's threads return at once; the rest of each warp then
// calls into CUDA's device runtime (a stream created and destroyed, unused) around launches in a loop whose
// trip count differs per thread (serialized or aggregated at auto), beside a launch that no thread reaches
// (thread 0 of every block returned). At auto the threads that returned waited at the kernel's one exit for the
// rest of their warp, which never came back from the device runtime: the program hung (klap gives each
// return its own exit where the kernel makes such a call, aggregate.rs). This reduction ran right with the
// plugin before that fix too (H200, twentieth session); the case itself, which hung, is
// `python3 fuzz/gen.py --seed 1953 --cases 20` (case 8). What this program checks: every child thread of
// the pattern counted once, none of the unreached launch's.
#include "check.cuh"

#include <vector>

constexpr int PB = 96;       // parent block size (three warps)
constexpr int PG = 2;        // parent blocks
constexpr int N = PB * PG;   // parent threads, one counter each
constexpr int UNREACHED = 4; // counters of the launch no thread reaches

// Counts its threads that do not return, into out[slot].
__global__ void leaf(int *out, int slot) {
  int t = blockIdx.x * blockDim.x * blockDim.y * blockDim.z +
          (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  if (t % 4 == 2)
    return;
  atomicAdd(&out[slot], 1);
}

__global__ void parent(int *out, const int *in) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g % 4 == 0)
    return;
  if (in[g] % 3 == 0) {
    for (int k = 0; k < g % 3; ++k)
      if (threadIdx.x == 0)  // thread 0 of each block returned above
        leaf<<<1 + g % 4, dim3(4, 2, 2)>>>(out, N + k % UNREACHED);
  }
  cudaStream_t unused;
  cudaStreamCreateWithFlags(&unused, cudaStreamNonBlocking);
  for (int k = 0; k < g % 4; ++k)
    leaf<<<2, 32 * (1 + threadIdx.x % 3)>>>(out, g);
  cudaStreamDestroy(unused);
}

int main() {
  setPendingLaunchLimit(1 << 12);
  std::vector<int> host_in(N);
  for (int i = 0; i < N; ++i)
    host_in[i] = 7 * i + 3;
  int *out = nullptr, *in = nullptr;
  CK(cudaMalloc(&out, sizeof(int) * (N + UNREACHED)));
  CK(cudaMalloc(&in, sizeof(int) * N));
  CK(cudaMemset(out, 0, sizeof(int) * (N + UNREACHED)));
  CK(cudaMemcpy(in, host_in.data(), sizeof(int) * N, cudaMemcpyHostToDevice));
  parent<<<PG, PB>>>(out, in);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<int> got(N + UNREACHED);
  CK(cudaMemcpy(got.data(), out, sizeof(int) * got.size(), cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int g = 0; g < N + UNREACHED; ++g) {
    int want = 0;
    if (g < N && g % 4 != 0) {
      int threads = 2 * 32 * (1 + (g % PB) % 3);
      want = (g % 4) * (threads - threads / 4);
    }
    sum += got[g];
    if (got[g] != want)
      mismatch("counter %d: %d, want %d", g, got[g], want);
  }
  std::printf("children's threads counted: %lld\n", sum);
  CK(cudaFree(out));
  CK(cudaFree(in));
  return finish();
}
