// sp, CDP version: each variable's thread launches a child grid over the variable's occurrences.
#include "sp.h"

__global__ void sp_child(const int *occ, int deg, const int *lit, const float *eta, float *ratio) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < deg) ratio[occ[k]] = sp_ratio(occ, deg, k, lit, eta);
}

__global__ void sp_parent(SpDev d, int vars) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vars) return;
  int begin = d.var_off[v], deg = d.var_off[v + 1] - begin;
  if (deg > 0) {
    sp_child<<<blocks_for(deg, kChildBlock), kChildBlock>>>(d.occ + begin, deg, d.lit, d.eta, d.ratio);
    CDP_CHECK_LAUNCH();
  }
}

void sp_variable_step(const SpDev &d, int vars) {
  sp_parent<<<blocks_for(vars, kParentBlock), kParentBlock>>>(d, vars);
  CK_LAUNCH(sp_parent);
}

int main(int argc, char **argv) { return sp_main(argc, argv, true); }
