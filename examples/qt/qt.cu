// qt, CDP version: a node that splits launches one grid of 4 blocks for its children, recursively.
#include "qt.h"

__global__ void qt_build(QtNode *nodes, int first, QtPoints pts, QtParams prm) {
  int child = qt_split(nodes, first + blockIdx.x, pts, prm);
  if (child >= 0 && threadIdx.x == blockDim.x - 1) {
    qt_build<<<4, blockDim.x>>>(nodes, child, pts, prm);
    CDP_CHECK_LAUNCH();
  }
}

void qt_build_tree(QtNode *nodes, QtPoints pts, QtParams prm) {
  qt_build<<<1, kBlock>>>(nodes, 0, pts, prm);
  CK_LAUNCH(qt_build);
}

int main(int argc, char **argv) { return qt_main(argc, argv, true); }
