// Pattern: a chain of one-block links whose launch condition is decided above a join. Each link reads its
// piece of the input (LINKS pieces, the allocation holds no more), returns early where it is the last link,
// else takes one of two paths that join, and its thread 0 launches the link for the next piece. Promoted with
// aggregation and overlap (-klap-promote=all), the launch condition is not known at a link's start
// (docs/promotion.md): a link that published its successor's early arguments though it then returned early
// would let that successor read past the end of the input in its prologue (an invalid global read under
// compute-sanitizer; klap before 2026-11-28 did). Each link writes its piece; the host checks every word.
#include "check.cuh"

#include <vector>

constexpr int BLOCK = 128;
constexpr int LINKS = 60;
constexpr int WORDS = LINKS * BLOCK;

__global__ void link(const unsigned *__restrict__ in, unsigned *out, int i, int n, unsigned carried) {
  __shared__ unsigned first;
  const int k = i * BLOCK + threadIdx.x;
  const unsigned x = in[k];
  if (threadIdx.x == 0)
    first = x;
  __syncthreads();
  if (i + 1 >= n) {
    out[k] = carried ^ x;
    return;
  }
  if (x & 1)
    atomicXor(&out[k], carried + x);
  else
    out[k] = carried * 3 + x;
  if (threadIdx.x == 0)
    link<<<1, BLOCK, 0, cudaStreamFireAndForget>>>(in, out, i + 1, n, carried + first);
}

int main() {
  std::vector<unsigned> in(WORDS);
  for (int k = 0; k < WORDS; ++k)
    in[k] = hashOf(k);
  // The input is allocated last, so that what lies past its end is no other allocation of the program: a read
  // there is one compute-sanitizer reports (or a fault).
  unsigned *out, *d_in;
  CK(cudaMalloc(&out, WORDS * sizeof(unsigned)));
  CK(cudaMemset(out, 0xff, WORDS * sizeof(unsigned)));
  CK(cudaMalloc(&d_in, WORDS * sizeof(unsigned)));
  CK(cudaMemcpy(d_in, in.data(), WORDS * sizeof(unsigned), cudaMemcpyHostToDevice));
  link<<<1, BLOCK>>>(d_in, out, 0, LINKS, 7u);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> got(WORDS);
  CK(cudaMemcpy(got.data(), out, WORDS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<unsigned> want(WORDS);
  unsigned carried = 7u;
  for (int i = 0; i < LINKS; ++i) {
    for (int t = 0; t < BLOCK; ++t) {
      const int k = i * BLOCK + t;
      const unsigned x = in[k];
      want[k] = i + 1 >= LINKS ? carried ^ x : (x & 1) ? 0xffffffffu ^ (carried + x) : carried * 3 + x;
    }
    carried += in[i * BLOCK];
  }
  const unsigned long long sum = checksumWords(got.data(), want.data(), WORDS, [](size_t k) {
    mismatch("word %zu (link %zu)", k, k / BLOCK);
  });
  std::printf("chain of %d links: checksum %llx\n", LINKS, sum);
  CK(cudaFree(d_in));
  CK(cudaFree(out));
  return finish();
}
