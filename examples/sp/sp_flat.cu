// sp, flat version: each variable's thread handles the variable's occurrences itself.
#include "sp.h"

__global__ void sp_parent_flat(SpDev d, int vars) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vars) return;
  int begin = d.var_off[v], deg = d.var_off[v + 1] - begin;
  for (int k = 0; k < deg; k++) d.ratio[d.occ[begin + k]] = sp_ratio(d.occ + begin, deg, k, d.lit, d.eta);
}

void sp_variable_step(const SpDev &d, int vars) {
  sp_parent_flat<<<blocks_for(vars, kParentBlock), kParentBlock>>>(d, vars);
  CK_LAUNCH(sp_parent_flat);
}

int main(int argc, char **argv) { return sp_main(argc, argv, false); }
