// pt, flat version: one block per tile of 8192 elements, in a single kernel; each tile finds the count of negatives
// before it by decoupled look-back over the tiles before it. --chunk only sets the CDP version's chain (and the
// CHILDREN line).
#include "pt.h"

static void pt_run_flat(const CompactDev &d) {
  compact_flat<Pt><<<blocks_for(d.n, kTile), kBlock>>>(d.in, d.out, d.n, d.next_tile, d.status, d.kept_total);
  CK_LAUNCH(compact_flat<Pt>);
}

int main(int argc, char **argv) { return compact_main<Pt>(argc, argv, pt_run_flat, false); }
