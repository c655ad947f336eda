// unq, flat version: one block per tile of 8192 elements, in a single kernel; each tile finds its output offset by
// decoupled look-back over the tiles before it. --chunk only sets the CDP version's chain (and the CHILDREN line).
#include "unq.h"

static void unq_run_flat(const CompactDev &d) {
  compact_flat<Unq><<<blocks_for(d.n, kTile), kBlock>>>(d.in, d.out, d.n, d.next_tile, d.status, d.kept_total);
  CK_LAUNCH(compact_flat<Unq>);
}

int main(int argc, char **argv) { return compact_main<Unq>(argc, argv, unq_run_flat, false); }
