// mstf, flat version: find and verify both loop over each vertex's edges in the vertex's thread.
#include "../common/mst.h"

void mst_find(const MstDev &d, int n) { mst_find_flat_launch(d, n); }
void mst_verify(const MstDev &d, int n) { mst_verify_flat_launch(d, n); }

int main(int argc, char **argv) { return mst_main(argc, argv, "mstf", MstChildStep::find, false); }
