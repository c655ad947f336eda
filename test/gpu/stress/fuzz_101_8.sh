#!/usr/bin/env bash
# Fuzz case 101-8 (hung at grid granularity on an H100, 1 of 1 runs, with the old warp path; identical
# to the untransformed build at warp and auto) and variants of it that each take one suspect away,
# built at none (the reference checksum) and grid, and run many times. Which variants still hang at
# grid tells the hypotheses apart (the report of issue 15's warp branch lists them):
#   base       the case as generated: 5 launch groups in root16, so observe13's tail launch takes the
#              warp path (KLAP204) in a kernel with a grid scope
#   four       count12's launch removed: 4 groups, all in the grid scope, no warp path
#   noobserve  observe13's launch removed instead: 4 groups, no warp path, but count12 (registered
#              after the `if (tid < 25)` branch, by lanes that may arrive in two subsets) kept
#   nosmem     leaf3's per-thread dynamic shared memory made 0
#   nofaf      count12 launched into the NULL stream instead of fire-and-forget (still 5 groups)
#   tailfaf    observe13 (the warp-path launch) into fire-and-forget instead of the tail stream
# With KLAP_PLUGIN_OLD set to a plugin built from main before the warp path's fix (e.g. a5662ce), each
# variant is also built at grid with it (mode gridold), to see the hang reproduce with the old warp path.
# Usage: test/gpu/stress/fuzz_101_8.sh build OUTDIR      (CPU machine; KLAP_PLUGIN as for klap-clang++)
#        test/gpu/stress/fuzz_101_8.sh run OUTDIR [RUNS]  (GPU machine; RUNS default 20, 20 s a run)
# `run` prints per variant and mode `<variant> <mode>: P same, D differing, H hung, E other of RUNS`
# (same: the checksum line equals the variant's none line).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
variants=(base four noobserve nosmem nofaf tailfaf)
modes=(none grid)
[ -z "${KLAP_PLUGIN_OLD:-}" ] || modes+=(gridold)

[ $# -ge 2 ] || { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
cmd="$1" out="$2"

variant_source() { # VARIANT SRC: the variant of the generated case on stdout
  case "$1" in
    base) cat "$2" ;;
    four) grep -v 'count12<<<' "$2" ;;
    noobserve) grep -v 'observe13<<<' "$2" ;;
    nosmem) sed 's/(((unsigned)g >> 0u) % 64u) \* 16u, 0>>>/0u, 0>>>/' "$2" ;;
    nofaf) sed 's/count12<<<1, dim3(8, 2, 2), 0, cudaStreamFireAndForget>>>/count12<<<1, dim3(8, 2, 2), 0, 0>>>/' "$2" ;;
    tailfaf) sed 's/observe13<<<fz_g, fz_b, 0, cudaStreamTailLaunch>>>/observe13<<<fz_g, fz_b, 0, cudaStreamFireAndForget>>>/' "$2" ;;
  esac
}

case "$cmd" in
  build)
    set -e
    mkdir -p "$out/src"
    python3 "$root/fuzz/gen.py" --seed 101 --case 8 -o "$out/src/case.cu"
    for v in "${variants[@]}"; do
      variant_source "$v" "$out/src/case.cu" > "$out/src/$v.cu"
      if [ "$v" != base ] && cmp -s "$out/src/$v.cu" "$out/src/case.cu"; then
        echo "$0: variant $v changed nothing (gen.py's output moved on?)" >&2
        exit 1
      fi
      for m in "${modes[@]}"; do
        echo "build $v $m" >&2
        plugin="${KLAP_PLUGIN:-$root/target/release/libklap.so}" granularity="$m"
        [ "$m" != gridold ] || plugin="$KLAP_PLUGIN_OLD" granularity=grid
        KLAP_PLUGIN="$plugin" "$root/scripts/klap-clang++" -O2 -mllvm -klap-granularity="$granularity" \
          -Rpass=klap -Rpass-missed=klap -Rpass-analysis=klap "$out/src/$v.cu" -o "$out/$v.$m" 2> "$out/$v.$m.remarks"
      done
    done
    ;;
  run)
    runs="${3:-20}"
    for v in "${variants[@]}"; do
      want="$(FUZZ_CASE_TIMEOUT=20 timeout 60 "$out/$v.none" 8 2>&1 | grep '^case 101-8 ')"
      echo "$v none: $want"
      for m in grid gridold; do
        [ -x "$out/$v.$m" ] || continue
        same=0 differ=0 hung=0 other=0
        for ((r = 0; r < runs; ++r)); do
          rc=0
          line="$(FUZZ_CASE_TIMEOUT=20 timeout 60 "$out/$v.$m" 8 2>&1 | grep '^case 101-8 ')" || rc=$?
          case "$line" in
            *HANG*) hung=$((hung + 1)) ;;
            "$want") same=$((same + 1)) ;;
            "case 101-8 "[0-9a-f]*) differ=$((differ + 1)) ;;
            *) other=$((other + 1)) ;;
          esac
        done
        echo "$v $m: $same same, $differ differing, $hung hung, $other other of $runs"
      done
    done
    ;;
  *) echo "usage: $0 build|run OUTDIR [RUNS]" >&2; exit 2 ;;
esac
