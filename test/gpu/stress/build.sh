#!/usr/bin/env bash
# Builds the stress programs of this folder at each granularity given, into OUTDIR/<mode>/<name>,
# through scripts/klap-clang++ (the plugin of target/release, or KLAP_PLUGIN; `none` still runs klap's
# normalization, which streams_scaled needs). Run `cargo build --release` first.
# Usage: test/gpu/stress/build.sh OUTDIR [MODE...]   (default modes: warp block grid none)
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [MODE...]" >&2
  exit 2
fi
out="$1"
shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(warp block grid none)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

for m in "${modes[@]}"; do
  mkdir -p "$out/$m"
  for src in "$here"/*.cu; do
    name="$(basename "$src" .cu)"
    echo "build $m/$name" >&2
    "$root/scripts/klap-clang++" -O2 -mllvm -klap-granularity="$m" "$src" -o "$out/$m/$name"
  done
done
