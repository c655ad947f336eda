#!/usr/bin/env bash
# On the GPU machine, from the repository root: runs the fuzz programs `make fuzz-bins` built into
# .gpu/fuzz/<mode>/ (every program in every mode, each run under a timeout), compares each mode's
# `case <seed>-<i> ...` lines with the `none` build's, and prints a summary: cases run, cases
# identical per mode, and each differing, hanging or failing case with its modes. The mismatches
# go to $OUT/fuzz-mismatches.txt ($OUT set) or .gpu/fuzz/results/, with the full log of every run.
# Exits 1 if any case differs, hangs or fails, or the reference did not run cleanly.
#
# Usage: scripts/gpu-fuzz.sh [options]
#   --root DIR          the built programs (default .gpu/fuzz)
#   --modes "M..."      modes to run, the reference first (default: none, then every other mode
#                       built: warp block grid, and nvcc when `make fuzz-bins MODES=...` built it)
#   --repeat N          run each program N times per mode; a case must agree in every run (default 1)
#   --memcheck N        also run N sampled cases of each program under compute-sanitizer memcheck
#   --recheck N         run each case that did not end alone, N times, in the reference and in the modes
#                       it failed in, and say whether the reference hangs too (the platform's hang: on an
#                       H200, untransformed cases with tail launches hung in the driver now and then) or
#                       only klap builds do (a klap bug)
#   --case-timeout S    seconds before a case counts as hung (default 20)
#   --timeout S         seconds for one program run (default 300)
#   --out DIR           where results go (default $OUT, else DIR/results)
# A case that hangs or loses the CUDA context ends its program; the program is run again from
# the next case. To look at one case: <program> <index> (e.g. .gpu/fuzz/grid/fuzz_1 17), or
# regenerate it alone: python3 fuzz/gen.py --seed <seed> --case <index>.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec python3 "$here/fuzz/gpu_fuzz.py" "$@"
