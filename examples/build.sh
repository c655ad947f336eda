#!/usr/bin/env bash
# Builds every benchmark (each examples/NAME/ folder with a bench.json) for sm_90 with clang and the project's
# CUDA tree.
#   examples/build.sh OUTDIR [extra clang flags...]          CDP versions  NAME/NAME.cu      -> OUTDIR/NAME
#   examples/build.sh OUTDIR --flat [extra clang flags...]   flat versions NAME/NAME_flat.cu -> OUTDIR/NAME_flat
# KLAP_BENCHES="bfs sp" limits the set; scripts/klap-clang++ compiles (with
# scripts/klap-flags, the one list of CUDA flags; KLAP_CLANG, KLAP_CUDA_PATH, KLAP_ARCH override).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [--flat] [extra clang flags...]" >&2
  exit 2
fi
out="$1"
shift
suffix=""
if [ "${1:-}" = "--flat" ]; then
  suffix="_flat"
  shift
fi
benches=()
if [ -n "${KLAP_BENCHES:-}" ]; then
  for b in $KLAP_BENCHES; do
    [ -f "$here/$b/bench.json" ] || { echo "build.sh: examples/$b/bench.json not found: $b is not a benchmark" >&2; exit 2; }
    benches+=("$b")
  done
else
  for spec in "$here"/*/bench.json; do
    [ -f "$spec" ] && benches+=("$(basename "$(dirname "$spec")")")
  done
fi
if [ ${#benches[@]} -eq 0 ]; then
  echo "build.sh: no benchmark to build (no examples/*/bench.json)" >&2
  exit 2
fi
mkdir -p "$out"
for b in "${benches[@]}"; do
  src="$here/$b/$b$suffix.cu"
  [ -f "$src" ] || { echo "build.sh: no benchmark source $src" >&2; exit 2; }
  echo "build.sh: $b$suffix" >&2
  "$root/scripts/klap-clang++" --no-klap -O2 "$src" -o "$out/$b$suffix" "$@"
done
