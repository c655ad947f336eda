// Two translation units (issue 15, item 2): the parent kernel here launches fill_row, which child.cu
// defines. Built with clang, the launching unit's declaration used to be a plain device function
// (`.extern .func` in its PTX) and nvlink refused the program ("not declared __global__ in all source
// files"); klap-normalize makes it a kernel. Built by `make gpu-bins` (every mode) into
// .gpu/tests/<mode>/two_units; klap at the device link (klap-clang++ --at-link, docs/link-time.md)
// aggregates the launch too: .gpu/tests/<mode>/two_units_at_link. Prints a checksum line, then PASS.
#include "../check.cuh"
#include "two_units.h"

#include <vector>

__global__ void launch_rows(int *rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kParents) {
    int len = row_len(i);
    fill_row<<<(len + 7) / 8, 8>>>(rows + i * kRowWidth, len, 1000 * i);
  }
}

int main() {
  setPendingLaunchLimit(1 << 12);
  int *rows = nullptr;
  CK(cudaMalloc(&rows, sizeof(int) * kParents * kRowWidth));
  CK(cudaMemset(rows, 0xff, sizeof(int) * kParents * kRowWidth));
  launch_rows<<<(kParents + kParentBlock - 1) / kParentBlock, kParentBlock>>>(rows);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<int> got(kParents * kRowWidth);
  CK(cudaMemcpy(got.data(), rows, sizeof(int) * got.size(), cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int i = 0; i < kParents; ++i)
    for (int t = 0; t < kRowWidth; ++t) {
      int want = t < row_len(i) ? row_value(1000 * i, t) : -1;
      int v = got[i * kRowWidth + t];
      sum += v;
      if (v != want)
        mismatch("parent %d, element %d: %d, want %d", i, t, v, want);
    }
  std::printf("rows %d, checksum %lld\n", kParents, sum);
  CK(cudaFree(rows));
  return finish();
}
