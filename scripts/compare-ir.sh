#!/usr/bin/env bash
# Compares the IR two builds of the plugin emit: every test/ lit input that runs a klap pass (its
# -passes=... as its RUN line gives it), and every GPU test and example program compiled device-only at
# each granularity. For refactorings that must not change what klap emits.
# Usage: scripts/compare-ir.sh OLD_PLUGIN NEW_PLUGIN [OUTDIR]   (exit 1 if any output differs)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
old="$1" new="$2" out="${3:-$(mktemp -d)}"
mkdir -p "$out"
cuda="${KLAP_CUDA_PATH:-$root/.toolchain/cuda}"
same=0 differ=0
# compare NAME COMMAND...: runs COMMAND with PLUGIN (a word of its own or inside one) replaced by each
# plugin, stdout to OUTDIR/NAME.{old,new}. Arguments stay words: nothing is parsed by a shell again.
compare() {
  local name="$1"; shift
  "${@//PLUGIN/$old}" >"$out/$name.old" 2>/dev/null
  "${@//PLUGIN/$new}" >"$out/$name.new" 2>/dev/null
  if cmp -s "$out/$name.old" "$out/$name.new"; then same=$((same + 1)); else differ=$((differ + 1)); echo "differs: $name"; fi
}
while IFS= read -r f; do
  n=0
  while IFS= read -r passes; do
    n=$((n + 1))
    compare "$(echo "${f#$root/}" | tr / _)-$n" opt-22 -load-pass-plugin=PLUGIN "$passes" "$f" -S -o -
  done < <(grep -o -- "-passes='[^']*'" "$f" | sort -u | grep klap | tr -d "'")
done < <(find "$root/test" -name '*.ll' | sort)
# KLAP_COMPARE_PROGRAMS="a.cu b.cu" limits the programs.
for src in ${KLAP_COMPARE_PROGRAMS:-"$root"/test/gpu/*.cu "$root"/examples/*/*.cu}; do
  case "$src" in *_flat.cu|*/nested/*) continue ;; esac
  for g in none warp block grid auto; do
    compare "$(basename "$src" .cu)-$g" clang++-22 -x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_90 -fgpu-rdc \
      --cuda-device-only -O2 -Wno-unknown-cuda-version -emit-llvm -S -fpass-plugin=PLUGIN -mllvm -klap-granularity=$g \
      -I"$root/examples/common" "$src" -o -
  done
done
echo "compare-ir: $same identical, $differ different (outputs in $out)"
[ "$differ" = 0 ]
