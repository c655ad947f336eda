#!/usr/bin/env bash
# On the GPU machine: builds nvcc's CDP version of the suite there, then runs the suite (every
# variant side by side, with a chart), the input-size sweep, and the nested benchmark against
# hand-written aggregation. Reads the binaries `make bench-bins` built into .gpu/ (carry .gpu).
# Each run writes OUTDIR/{suite,sweep}/section.md: a BENCHMARKS.md section (GPU, driver, date, command, table).
# Usage: scripts/gpu-bench.sh [OUTDIR]   (default: $OUT/bench, or /tmp/klap-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp}/bench}"
mkdir -p "$out" .gpu/bench/nvcc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if command -v nvcc >/dev/null; then
  for b in $(ls .gpu/bench/grid); do
    nvcc -arch=sm_90 -rdc=true -O2 -w -o ".gpu/bench/nvcc/$b" "examples/$b/$b.cu" -lcudadevrt &
  done
  wait
fi
python3 scripts/bench.py .gpu/bench .gpu/data "$out/suite" --reps 7
python3 scripts/bench.py .gpu/bench .gpu/data "$out/sweep" --reps 5 --sweep
REPS=7 examples/nested/bench.sh .gpu/nested/hand .gpu/nested/none .gpu/nested/warp .gpu/nested/block \
  .gpu/nested/grid "$out/nested.csv"
