// pd, flat version: one block per tile of 8192 elements in a single kernel, the tiles taken from the last to the
// first, each writing once the tile above it has been read (slide.h). --chunk only sets the CDP version's chain (and
// the CHILDREN line).
#include "pd.h"

static void pd_run_flat(const SlideDev &d) {
  slide_flat<Padding><<<blocks_for(d.n, kTile), kBlock>>>(d.buf, d.cols, d.pad, d.n, d.next_place, d.ready);
  CK_LAUNCH(slide_flat<Padding>);
}

int main(int argc, char **argv) { return slide_main<Padding>(argc, argv, "pd", pd_run_flat, false); }
