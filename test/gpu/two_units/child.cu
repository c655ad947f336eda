// The child of test/gpu/two_units (parent.cu launches it from another translation unit): each thread
// writes one value its launch's arguments and its own index decide.
#include "two_units.h"

__global__ void fill_row(int *row, int len, int base) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < len)
    row[t] = row_value(base, t);
}
