#!/usr/bin/env bash
# On the GPU machine: runs every program of BINROOT/<mode>/ for each mode and compares each mode's
# output with the reference mode's (the first one named). Usage: scripts/gpu-compare.sh BINROOT ref mode...
# TIMEOUT (default 120) limits each program, in seconds.
set -uo pipefail
root="$1"; shift
ref="$1"
out="${OUT:-/tmp}/gpu-compare"
mkdir -p "$out"
status=0
for mode in "$@"; do
  echo "=== $mode"
  for bin in "$root/$mode"/*; do
    name=$(basename "$bin")
    timeout "${TIMEOUT:-120}" "$bin" > "$out/$mode.$name.txt" 2>&1
    rc=$?
    verdict=$(tail -n 1 "$out/$mode.$name.txt")
    same=""
    if [ "$mode" != "$ref" ]; then
      if cmp -s "$out/$ref.$name.txt" "$out/$mode.$name.txt"; then same="same-as-$ref"; else same="DIFFERS-from-$ref"; status=1; fi
    fi
    printf '%-18s rc=%-3s %-24s %s\n' "$name" "$rc" "$verdict" "$same"
    [ $rc -eq 0 ] || status=1
  done
done
exit $status
