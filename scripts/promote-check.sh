#!/usr/bin/env bash
# GPU check of kernel launch promotion on KLAP's six chain benchmarks (examples/PROMOTION.md).
# Usage: scripts/promote-check.sh OUTDIR [build|run|all]   (default all)
#   build  compiles each benchmark in each mode (MODES, default "none basic aggregate"): at granularity
#          none (klap-normalize only: the chain as written), at promote=basic and at promote=aggregate
#          (promotion with aggregation, pools of 128 links; both at granularity none), and as asked at
#          overlap (basic with the prologue before the wait), all (aggregation and overlap: PAO), loop (the
#          block runs the next link itself), auto and auto-loop, into OUTDIR/<mode>; all-pN is all with pools
#          of N links (-klap-promote-pool=N)
#   run    runs every build on every size of its bench.json (configs and sweep), 3 reps, 120 s each, and
#          prints one line per run: `OK|FAIL mode bench args [median time_ms]`; exits non-zero if one failed
# A run passes when it exits 0 and prints `CHECK PASS` (the GPU result equals the CPU reference, and every
# link of the chain ran); a hang (a promoted child waiting for a parent that never releases it) is a
# timeout, so a FAIL. At aggregate, a pool's blocks that wait for a link that never releases them hang the
# same way.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: $0 OUTDIR [build|run|all]}"
what="${2:-all}"
benches=(los pd pt sc unq upd)
read -r -a modes <<<"${MODES:-none basic aggregate}"
flags_for() {
  case "$1" in
    none) echo "-mllvm -klap-granularity=none" ;;
    basic) echo "-mllvm -klap-granularity=none -mllvm -klap-promote=basic" ;;
    aggregate) echo "-mllvm -klap-granularity=none -mllvm -klap-promote=aggregate" ;;
    overlap) echo "-mllvm -klap-granularity=none -mllvm -klap-promote=overlap" ;;
    all) echo "-mllvm -klap-granularity=none -mllvm -klap-promote=all" ;;
    auto) echo "-mllvm -klap-granularity=auto" ;;
    loop) echo "-mllvm -klap-granularity=none -mllvm -klap-promote=loop" ;;
    auto-loop) echo "-mllvm -klap-granularity=auto -mllvm -klap-promote=loop" ;;
    all-p*) echo "-mllvm -klap-granularity=none -mllvm -klap-promote=all -mllvm -klap-promote-pool=${1#all-p}" ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
  esac
}
if [ "$what" = build ] || [ "$what" = all ]; then
  for m in "${modes[@]}"; do
    mkdir -p "$out/$m"
    for b in "${benches[@]}"; do
      # shellcheck disable=SC2046
      "$root/scripts/klap-clang++" -O2 "$root/examples/$b/$b.cu" -o "$out/$m/$b" $(flags_for "$m")
    done
  done
fi
if [ "$what" = run ] || [ "$what" = all ]; then
  failed=0
  for b in "${benches[@]}"; do
    mapfile -t sizes < <(python3 -c '
import json, sys
spec = json.load(open(sys.argv[1]))
for c in spec.get("configs", []): print(c.get("args", ""))
for a in spec.get("sweep", []): print(a)' "$root/examples/$b/bench.json")
    for args in "${sizes[@]}"; do
      for m in "${modes[@]}"; do
        # shellcheck disable=SC2086
        if log="$(timeout 120 "$out/$m/$b" --reps 3 $args 2>&1)" && grep -q '^CHECK PASS' <<<"$log"; then
          t="$(grep '^time_ms' <<<"$log" | awk '{print $2}' | sort -n | sed -n 2p)"
          echo "OK   $m $b $args ${t:+median_ms=$t}"
        else
          failed=1
          echo "FAIL $m $b $args: $( (grep -iE 'error|fail|lost' <<<"$log" || tail -n 2 <<<"$log") | head -n 3 | tr '\n' ' ')"
        fi
      done
    done
  done
  exit $failed
fi
