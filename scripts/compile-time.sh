#!/usr/bin/env bash
# How much of clang's -O2 time klap's passes take, per program: each CDP program of examples/ compiled
# device-only with -ftime-report at the given granularity; klap's share is its pipeline pass plus its launch
# analysis (user+system) over clang's whole compile time (the largest "Total Execution Time" reported).
# Usage: scripts/compile-time.sh [granularity] [PLUGIN]   (default auto, target/release/libklap.so)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
g="${1:-auto}"
plugin="${2:-$root/target/release/libklap.so}"
cuda="${KLAP_CUDA_PATH:-$root/.toolchain/cuda}"
printf '%-10s %10s %10s %8s\n' program klap_s clang_s share
for src in "$root"/examples/*/*.cu; do
  case "$src" in *_flat.cu|*/nested/*|*/cmake/*) continue ;; esac
  name="$(basename "$src" .cu)"
  [ "$name" = "$(basename "$(dirname "$src")")" ] || [ "$name" = hello ] || continue
  report="$(clang++-22 -x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_90 -fgpu-rdc -Wno-unknown-cuda-version \
    --cuda-device-only -c -O2 -fpass-plugin="$plugin" -mllvm -klap-granularity="$g" -ftime-report \
    -I"$root/examples/common" "$src" -o /dev/null 2>&1)"
  # A timing line's values: user, system, user+system, wall, each with its share in parentheses.
  read -r klap total < <(python3 -c '
import re, sys
text = sys.stdin.read()
values = lambda line: [float(v) for v in re.findall(r"([0-9]+\.[0-9]+)\s*\(", line)]
klap = sum(values(l)[2] for l in text.splitlines() if re.search(r"Klap(PipelinePass|LaunchAnalysis|PrinterPass)", l))
totals = [float(m) for m in re.findall(r"Total Execution Time: ([0-9.]+)", text)]
print(f"{klap:.4f} {max(totals, default=0):.4f}")' <<<"$report")
  printf '%-10s %10s %10s %7.2f%%\n' "$name" "$klap" "$total" "$(awk -v k="$klap" -v t="$total" 'BEGIN {print (t > 0 ? 100 * k / t : 0)}')"
done
