#!/usr/bin/env bash
# Runs each stress program in BINDIR RUNS times (default 20), each run under `timeout TIMEOUT`
# (default 20 s), with the program's arguments ARGS (default: none, i.e. 3,000 parent threads of up
# to 12 launches). Prints one line per program: `<name>: P passed, F failed, H hung of RUNS`, with the
# output of the first failed run; then `TOTAL: ...`. A hang is a run that timed out (exit status 124).
# Exits 1 if any run failed or hung.
# Usage: test/gpu/stress/loop.sh BINDIR [RUNS] [TIMEOUT] [ARGS...]
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BINDIR [RUNS] [TIMEOUT] [ARGS...]" >&2
  exit 2
fi
bin="$1"
runs="${2:-20}"
limit="${3:-20}"
shift $(($# < 3 ? $# : 3))
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

all_passed=0 all_failed=0 all_hung=0
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  passed=0 failed=0 hung=0 first=""
  if [ ! -x "$bin/$name" ]; then
    echo "$name: missing binary $bin/$name"
    all_failed=$((all_failed + runs))
    continue
  fi
  for ((r = 1; r <= runs; ++r)); do
    rc=0
    output="$(timeout "$limit" "$bin/$name" "$@" 2>&1)" || rc=$?
    if [ "$rc" -eq 124 ]; then
      hung=$((hung + 1))
      [ -n "$first" ] || first="run $r: timed out after $limit s"$'\n'"$output"
    elif [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$output" | tail -n 1)" = PASS ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      [ -n "$first" ] || first="run $r: exit status $rc"$'\n'"$output"
    fi
  done
  echo "$name: $passed passed, $failed failed, $hung hung of $runs"
  [ -z "$first" ] || printf '  first bad %s\n' "$first" | sed '2,$s/^/  /'
  all_passed=$((all_passed + passed)) all_failed=$((all_failed + failed)) all_hung=$((all_hung + hung))
done
echo "TOTAL: $all_passed passed, $all_failed failed, $all_hung hung"
[ "$all_failed" -eq 0 ] && [ "$all_hung" -eq 0 ]
