// gc, flat version: each vertex's thread compares the vertex's color with its neighbours' itself.
#include "gc.h"

__global__ void gc_detect_flat(GcDev d, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cv = d.color[v];
  d.conflict[v] = 0;
  for (int e = d.off[v]; e < d.off[v + 1]; e++) gc_check(d.adj[e], v, cv, d.color, d.conflict);
}

void gc_detect(const GcDev &d, int n) {
  gc_detect_flat<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(gc_detect_flat);
}

int main(int argc, char **argv) { return gc_main(argc, argv, false); }
