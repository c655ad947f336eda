// upd, flat version: one block per tile of 8192 elements in a single kernel, the tiles taken from the first to the
// last, each writing once the tile below it has been read (../pd/slide.h). --chunk only sets the CDP version's chain
// (and the CHILDREN line).
#include "upd.h"

static void upd_run_flat(const SlideDev &d) {
  slide_flat<Unpadding><<<blocks_for(d.n, kTile), kBlock>>>(d.buf, d.cols, d.pad, d.n, d.next_place, d.ready);
  CK_LAUNCH(slide_flat<Unpadding>);
}

int main(int argc, char **argv) { return slide_main<Unpadding>(argc, argv, "upd", upd_run_flat, false); }
