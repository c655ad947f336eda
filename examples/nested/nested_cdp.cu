// nested, plain CDP: every parent thread with items launches its own child grid (NULL stream) over them.
// This is the source klap transforms; it is plain CUDA on purpose.
#include "nested_common.h"

__global__ void child(nested_counter_t *out, long long start, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[start + i] += 1;
}

__global__ void parent(const int *deg, const long long *off, nested_counter_t *out, int parents) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= parents) return;
  int d = deg[p];
  if (d > 0) child<<<(d + 31) / 32, 32>>>(out, off[p], d);
}

static void variant_setup(const NestedInput &) {}

static void variant_launch(const NestedInput &in) {
  parent<<<in.parent_grid, in.parent_block>>>(in.d_deg, in.d_off, in.d_out, in.parents);
}

int main(int argc, char **argv) { return nested_main(argc, argv, "cdp", variant_setup, variant_launch); }
