// qt, flat version: the host launches one grid per tree level, a block per node of that level. A level's children
// are allocated while it runs, so they are exactly the nodes allocated after it.
#include "qt.h"

__global__ void qt_level(QtNode *nodes, int first, QtPoints pts, QtParams prm) {
  qt_split(nodes, first + blockIdx.x, pts, prm);
}

void qt_build_tree(QtNode *nodes, QtPoints pts, QtParams prm) {
  int begin = 0, end = 1;
  while (begin < end) {
    qt_level<<<end - begin, kBlock>>>(nodes, begin, pts, prm);
    CK_LAUNCH(qt_level);
    begin = end;
    CK(cudaMemcpy(&end, prm.node_count, sizeof(int), cudaMemcpyDeviceToHost));
    if (end > prm.capacity) die("quadtree node array overflow");
  }
}

int main(int argc, char **argv) { return qt_main(argc, argv, false); }
