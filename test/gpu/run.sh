#!/usr/bin/env bash
# Runs the programs built by build.sh from BINDIR, one per test/gpu/*.cu, each
# under `timeout 60`. Prints `== <name>` and the program's output for each,
# then `N passed, N failed`. A program passes when it exits 0 and its last
# line is PASS. Exits 1 if any failed.
# Usage: test/gpu/run.sh BINDIR
# KLAP_GPU_TEST_DIR: the folder of the programs' sources, as build.sh took it (default test/gpu).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BINDIR" >&2
  exit 2
fi
bin="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

passed=0
failed=0
for src in "${KLAP_GPU_TEST_DIR:-$here}"/*.cu; do
  name="$(basename "$src" .cu)"
  echo "== $name"
  if [ ! -x "$bin/$name" ]; then
    echo "FAIL missing binary $bin/$name"
    failed=$((failed + 1))
    continue
  fi
  rc=0
  output="$(timeout 60 "$bin/$name" 2>&1)" || rc=$?
  if [ -n "$output" ]; then
    printf '%s\n' "$output"
  fi
  if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$output" | tail -n 1)" = PASS ]; then
    passed=$((passed + 1))
  else
    if [ "$rc" -eq 124 ]; then
      echo "FAIL timed out after 60 s"
    elif [ "$rc" -ne 0 ]; then
      echo "FAIL exit status $rc"
    else
      echo "FAIL last line is not PASS"
    fi
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
