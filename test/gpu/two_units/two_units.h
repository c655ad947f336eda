// What the two translation units of test/gpu/two_units share.
#pragma once

constexpr int kParents = 300;   // parent threads, one launch each
constexpr int kRowWidth = 40;   // ints per parent's row
constexpr int kParentBlock = 64;

__host__ __device__ inline int row_len(int i) { return i % kRowWidth + 1; }
__host__ __device__ inline int row_value(int base, int t) { return base + 3 * t; }

// Defined in child.cu: a kernel launched from parent.cu, which only declares it.
__global__ void fill_row(int *row, int len, int base);
