#!/usr/bin/env bash
# Generates BINARIES random CDP programs of CASES cases each (fuzz/gen.py, seeds SEED, SEED+1, ...,
# SEED+BINARIES-1) into OUTROOT/src/, and builds each in every mode into OUTROOT/<mode>/fuzz_<seed>,
# klap's remarks beside it (fuzz_<seed>.remarks); then prints the share of launch sites each mode
# aggregated (fuzz/remarks.py). A mode is the plugin at that granularity (`none`: normalize only),
# `promote-FORM`: granularity none with launch promotion in that form (basic, aggregate, overlap, all,
# loop), GRANULARITY-gr: grid or auto with grid reuse taking whole child grids (Free Launch's T2),
# GRANULARITY-grN: taking N blocks of one at a time (T1), GRANULARITY-grs: choosing between the two as each
# grid is taken (Free Launch's selector, -klap-grid-reuse-select), or `nvcc`: the program built by nvcc, a second
# reference that owes nothing to clang or klap. A klap mode may end in options that the opt-in
# policies add, each after a `+`: `br` block reuse (-klap-block-reuse), `spawn` SPAWN's controller,
# `ser` serialization beside a granularity other than auto (-klap-serialize: `none+ser` is it alone),
# `poolN` a record pool of N MiB (-klap-pool-size=N: `auto+pool1` runs short nearly everywhere),
# `sw` serialization by the launching warp, `cN` every aggregated child coarsened by N where it can be
# (-klap-coarsen=N -klap-coarsen-sm-threads=0), `O0` the program built at -O0: `auto+br+spawn`.
# A build that fails is reported at the end (a crash of the pass is a finding too) and the others go on.
# A binary newer than its source, the plugin and the build settings is kept. The binaries are
# stripped and packed into OUTROOT.tar.xz for the trip to the GPU machine (a 100-case program is
# megabytes of SASS per mode; scripts/gpu-fuzz.sh unpacks the pack when OUTROOT did not come along).
# Usage: fuzz/build.sh OUTROOT BINARIES CASES SEED
# Environment: KLAP_PLUGIN (default <repo>/target/release/libklap.so), MODES (default
# "none warp block grid"), JOBS (compiles at once, default 1), KLAP_CLANG (default clang++-22),
# KLAP_CUDA_PATH (default <repo>/.toolchain/cuda), KLAP_ARCH (default sm_90), FUZZ_CFLAGS (more clang
# flags for every build, e.g. -O0 or "-mllvm -klap-trace"), FUZZ_CHAINS_ONLY=1 (each program only its
# seed's chain cases: `gen.py --chains-only`; a seed without one gets no program).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 OUTROOT BINARIES CASES SEED" >&2
  exit 2
fi
out="$1" binaries="$2" cases="$3" seed="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
export root
plugin="${KLAP_PLUGIN:-$root/target/release/libklap.so}"
modes="${MODES:-none warp block grid}"
export KLAP_CLANG="${KLAP_CLANG:-clang++-22}" KLAP_CUDA_PATH="${KLAP_CUDA_PATH:-$root/.toolchain/cuda}" KLAP_ARCH="${KLAP_ARCH:-sm_90}"
if [ ! -f "$plugin" ]; then
  echo "$0: no plugin at $plugin (run \`make build\`, or set KLAP_PLUGIN)" >&2
  exit 2
fi
export KLAP_PLUGIN="$plugin" FUZZ_CFLAGS="${FUZZ_CFLAGS:-}"

mkdir -p "$out/src"
# Rewritten when the settings change, so that binaries built otherwise are built again.
settings="$KLAP_PLUGIN|$FUZZ_CFLAGS|$KLAP_CLANG|$KLAP_CUDA_PATH|$KLAP_ARCH"
export STAMP="$out/build-settings"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$settings" ]; then
  printf '%s\n' "$settings" > "$STAMP"
fi
jobs=()
packed=()
programs=0
for ((b = 0; b < binaries; b++)); do
  s=$((seed + b))
  src="$out/src/fuzz_$s.cu"
  # Exit status 3: --chains-only found no chain case (gen.py's NO_CHAIN_CASE); any other failure stops.
  python3 "$here/gen.py" --seed "$s" --cases "$cases" ${FUZZ_CHAINS_ONLY:+--chains-only} -o "$src.new" || {
    rc=$?
    [ "$rc" -eq 3 ] || exit "$rc"
    continue
  }
  programs=$((programs + 1))
  # Rewritten only when it changed, so that its binaries can be kept.
  if cmp -s "$src.new" "$src"; then rm "$src.new"; else mv "$src.new" "$src"; fi
  for m in $modes; do
    mkdir -p "$out/$m"
    jobs+=("$m" "$src" "$out/$m/fuzz_$s")
    packed+=("$m/fuzz_$s")
  done
done

# One build: MODE SRC BIN. Prints FAILED lines for the summary.
build_one() {
  local mode="$1" src="$2" bin="$3"
  if [ "$bin" -nt "$src" ] && [ "$bin" -nt "$KLAP_PLUGIN" ] && [ "$bin" -nt "$STAMP" ]; then
    return 0
  fi
  echo "build $mode $(basename "$src")" >&2
  rm -f "$bin"
  if [ "$mode" = nvcc ]; then
    if ! "$KLAP_CUDA_PATH/bin/nvcc" -gencode arch="${KLAP_ARCH/sm_/compute_}",code="$KLAP_ARCH" -rdc=true -O2 "$src" -o "$bin" -lcudadevrt 2> "$bin.remarks"; then
      echo "FAILED $mode $src (see $bin.remarks)"
      return 0
    fi
    strip "$bin"
    return 0
  fi
  local base="${mode%%+*}" option extra=()
  local klap_mode=(-mllvm -klap-granularity="$base")
  case "$base" in
    promote-*) klap_mode=(-mllvm -klap-granularity=none -mllvm -klap-promote="${base#promote-}") ;;
    *-gr) klap_mode=(-mllvm -klap-granularity="${base%-gr}" -mllvm -klap-grid-reuse) ;;
    *-grs) klap_mode=(-mllvm -klap-granularity="${base%-grs}" -mllvm -klap-grid-reuse-select) ;;
    *-gr[0-9]*) klap_mode=(-mllvm -klap-granularity="${base%-gr*}" -mllvm -klap-grid-reuse-blocks="${base##*-gr}") ;;
  esac
  if [ "$base" != "$mode" ]; then
    local options="${mode#*+}"
    for option in ${options//+/ }; do
      case "$option" in
        br) klap_mode+=(-mllvm -klap-block-reuse) ;;
        spawn) klap_mode+=(-mllvm -klap-spawn) ;;
        ser) klap_mode+=(-mllvm -klap-serialize) ;;
        pool[0-9]*) klap_mode+=(-mllvm -klap-pool-size="${option#pool}") ;;
        sw) klap_mode+=(-mllvm -klap-serialize-warp) ;;
        c[0-9]*) klap_mode+=(-mllvm -klap-coarsen="${option#c}" -mllvm -klap-coarsen-sm-threads=0) ;;
        O0) extra+=(-O0) ;;
        *) echo "FAILED $mode $src (unknown mode option '$option': br, spawn, ser, sw, cN, poolN or O0)"; return 0 ;;
      esac
    done
  fi
  # The flags of scripts/klap-flags (through the wrapper), the plugin named by KLAP_PLUGIN.
  if ! KLAP_PLUGIN="$KLAP_PLUGIN" "$root/scripts/klap-clang++" -O2 -fverify-intermediate-code \
      "${klap_mode[@]}" -Rpass=klap -Rpass-missed=klap -Rpass-analysis=klap $FUZZ_CFLAGS "${extra[@]}" \
      "$src" -o "$bin" 2> "$bin.remarks"; then
    echo "FAILED $mode $src (see $bin.remarks)"
    return 0
  fi
  strip "$bin"
}
export -f build_one

failed=$(printf '%s\n' "${jobs[@]}" | xargs -d '\n' -n 3 -P "${JOBS:-1}" bash -c 'build_one "$@"' _)
python3 "$here/remarks.py" "$out" $modes
present=()
for p in "${packed[@]}"; do
  [ -f "$out/$p" ] && present+=("$p")
done
tar -C "$out" -cf - "${present[@]}" | xz -6 -T"${JOBS:-1}" > "$out.tar.xz"
echo "built $programs programs of $cases cases in modes: $modes, into $out (packed: $out.tar.xz," \
  "$(du -k "$out.tar.xz" | cut -f1) KiB)" >&2
if [ -n "$failed" ]; then
  echo "$failed" >&2
  exit 1
fi
