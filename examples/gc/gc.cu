// gc, CDP version: each vertex's thread launches a child grid that compares the vertex's color with its
// neighbours'.
#include "gc.h"

__global__ void gc_detect_child(const int *nbr, int deg, int v, int cv, const int *color, int *conflict) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < deg) gc_check(nbr[i], v, cv, color, conflict);
}

__global__ void gc_detect_parent(GcDev d, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int begin = d.off[v], deg = d.off[v + 1] - begin;
  d.conflict[v] = 0;  // written before the launch, so the child sees it
  if (deg > 0) {
    gc_detect_child<<<blocks_for(deg, kChildBlock), kChildBlock>>>(d.adj + begin, deg, v, d.color[v], d.color,
                                                                   d.conflict);
    CDP_CHECK_LAUNCH();
  }
}

void gc_detect(const GcDev &d, int n) {
  gc_detect_parent<<<blocks_for(n, kParentBlock), kParentBlock>>>(d, n);
  CK_LAUNCH(gc_detect_parent);
}

int main(int argc, char **argv) { return gc_main(argc, argv, true); }
