#!/usr/bin/env bash
# Builds every test/gpu/*.cu into OUTDIR/<name> for sm_90 with relocatable
# device code and the device runtime (CUDA dynamic parallelism).
# Usage: test/gpu/build.sh OUTDIR [extra clang flags...]
# KLAP_GPU_TEST_DIR: another folder of such programs (test/gpu-limits).
# The extra flags are appended to each compile, e.g.
#   test/gpu/build.sh out -fpass-plugin=build/klap.so -mllvm -klap-...
# Compiles with scripts/klap-clang++ (the flags of scripts/klap-flags; KLAP_CLANG,
# KLAP_CUDA_PATH and KLAP_ARCH override the compiler, the CUDA tree and the arch).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [extra clang flags...]" >&2
  exit 2
fi
out="$1"
shift

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

mkdir -p "$out"
n=0
for src in "${KLAP_GPU_TEST_DIR:-$here}"/*.cu; do
  name="$(basename "$src" .cu)"
  echo "build $name" >&2
  "$root/scripts/klap-clang++" --no-klap -O2 "$src" -o "$out/$name" "$@"
  n=$((n + 1))
done
echo "built $n programs into $out" >&2
