#!/usr/bin/env python3
"""A stand-in for a fuzz program (test/e2e/fuzz-recheck.test): `--count`, or case indices and ranges,
printing `case 9-<i> <checksum>` lines as fuzz programs do. Case 1 hangs in the `grid` build every
time; case 2 hangs in the `none` build the first time only (a marker file beside it remembers)."""
import os
import sys

here = os.path.dirname(os.path.abspath(sys.argv[0]))
mode = os.path.basename(here)
if sys.argv[1:] == ["--count"]:
    print(3)
    sys.exit(0)
cases = []
for arg in sys.argv[1:]:
    lo, _, hi = arg.partition("-")
    cases += range(int(lo), int(hi or lo) + 1)
for i in cases:
    marker = os.path.join(here, "hung-once")
    if (i == 1 and mode == "grid") or (i == 2 and mode == "none" and not os.path.exists(marker)):
        if i == 2:
            open(marker, "w").close()
        print("case 9-%d HANG" % i)
        sys.exit(3)
    print("case 9-%d %016x grids=1" % (i, 0xABC + i))
