#!/usr/bin/env bash
# Generates BINARIES random CDP programs of CASES cases each (fuzz/gen.py, seeds SEED, SEED+1, ...,
# SEED+BINARIES-1) into OUTROOT/src/, and builds each in every mode into OUTROOT/<mode>/fuzz_<seed>,
# klap's remarks beside it (fuzz_<seed>.remarks); then prints the share of launch sites each mode
# aggregated (fuzz/remarks.py). A mode is the plugin at that granularity (`none`: normalize only).
# A build that fails is reported at the end (a crash of the pass is a finding too) and the others go on.
# A binary newer than its source and the plugin is kept. The binaries are stripped and packed into
# OUTROOT.tar.xz for the trip to the GPU machine (a 100-case program is megabytes of SASS per mode;
# scripts/gpu-fuzz.sh unpacks the pack when OUTROOT itself did not come along).
# Usage: fuzz/build.sh OUTROOT BINARIES CASES SEED
# Environment: KLAP_PLUGIN (default <repo>/target/release/libklap.so), MODES (default
# "none warp block grid"), JOBS (compiles at once, default 1), CLANG (default clang++-22),
# CUDA_PATH (default <repo>/.toolchain/cuda), GPU_ARCH (default sm_90).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 OUTROOT BINARIES CASES SEED" >&2
  exit 2
fi
out="$1" binaries="$2" cases="$3" seed="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
plugin="${KLAP_PLUGIN:-$root/target/release/libklap.so}"
modes="${MODES:-none warp block grid}"
export CLANG="${CLANG:-clang++-22}" CUDA_PATH="${CUDA_PATH:-$root/.toolchain/cuda}" GPU_ARCH="${GPU_ARCH:-sm_90}"
if [ ! -f "$plugin" ]; then
  echo "$0: no plugin at $plugin (run \`make build\`, or set KLAP_PLUGIN)" >&2
  exit 2
fi
export KLAP_PLUGIN="$plugin"

mkdir -p "$out/src"
jobs=()
packed=()
for ((b = 0; b < binaries; b++)); do
  s=$((seed + b))
  src="$out/src/fuzz_$s.cu"
  python3 "$here/gen.py" --seed "$s" --cases "$cases" -o "$src.new"
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
  if [ "$bin" -nt "$src" ] && [ "$bin" -nt "$KLAP_PLUGIN" ]; then
    return 0
  fi
  echo "build $mode $(basename "$src")" >&2
  rm -f "$bin"
  if ! "$CLANG" -x cuda --cuda-path="$CUDA_PATH" --cuda-gpu-arch="$GPU_ARCH" -fgpu-rdc --offload-new-driver \
      -O2 -Wno-unknown-cuda-version -fverify-intermediate-code \
      -fpass-plugin="$KLAP_PLUGIN" -mllvm -klap-granularity="$mode" \
      -Rpass=klap -Rpass-missed=klap -Rpass-analysis=klap \
      "$src" -o "$bin" -L"$CUDA_PATH/lib" -lcudart_static -ldl -lrt -lpthread \
      -Xoffload-linker "$CUDA_PATH/lib/libcudadevrt.a" 2> "$bin.remarks"; then
    echo "FAILED $mode $src (see $bin.remarks)"
    return 0
  fi
  strip "$bin"
}
export -f build_one

failed=$(printf '%s\n' "${jobs[@]}" | xargs -d '\n' -n 3 -P "${JOBS:-1}" bash -c 'build_one "$@"' _)
python3 "$here/remarks.py" "$out" $modes
if [ -n "$failed" ]; then
  echo "$failed" >&2
  exit 1
fi
tar -C "$out" -cf - "${packed[@]}" | xz -6 -T"${JOBS:-1}" > "$out.tar.xz"
echo "built $binaries programs of $cases cases in modes: $modes, into $out (packed: $out.tar.xz," \
  "$(du -k "$out.tar.xz" | cut -f1) KiB)" >&2
