// nested, flat: no device-side launches; every parent thread loops over its own items.
#include "nested_common.h"

__global__ void parent_flat(const int *deg, const long long *off, nested_counter_t *out, int parents) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= parents) return;
  int d = deg[p];
  nested_counter_t *o = out + off[p];
  for (int j = 0; j < d; j++) o[j] += 1;
}

static void variant_setup(const NestedInput &) {}

static void variant_launch(const NestedInput &in) {
  parent_flat<<<in.parent_grid, in.parent_block>>>(in.d_deg, in.d_off, in.d_out, in.parents);
}

int main(int argc, char **argv) { return nested_main(argc, argv, "flat", variant_setup, variant_launch); }
