#!/usr/bin/env bash
# Builds the nested benchmark for sm_90 with clang and the project's CUDA tree.
#   examples/nested/build.sh OUTDIR [extra clang flags...]            nested_cdp (extra flags apply, e.g. the
#                                                                     klap plugin) -> OUTDIR/nested_cdp
#   examples/nested/build.sh OUTDIR --others [extra clang flags...]   also the flat and hand-written variants
#                                                                     -> OUTDIR/nested_{flat,warp,block,grid}
# (with --others the extra flags go to nested_cdp only). CLANGXX and KLAP_CUDA_PATH override the compiler and
# the CUDA tree.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [--others] [extra clang flags...]" >&2
  exit 2
fi
out="$1"
shift
others=0
if [ "${1:-}" = "--others" ]; then
  others=1
  shift
fi
cuda="${KLAP_CUDA_PATH:-$root/.toolchain/cuda}"
clang="${CLANGXX:-clang++-22}"
mkdir -p "$out"

build() {  # build SOURCE OUTPUT [extra flags...]
  local src="$1" dst="$2"
  shift 2
  echo "build.sh: $(basename "$dst")" >&2
  "$clang" -x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_90 -fgpu-rdc --offload-new-driver -O2 \
    -Wno-unknown-cuda-version "$src" -o "$dst" \
    -L"$cuda/lib" -lcudart_static -ldl -lrt -lpthread -Xoffload-linker "$cuda/lib/libcudadevrt.a" "$@"
}

build "$here/nested_cdp.cu" "$out/nested_cdp" "$@"
if [ "$others" = 1 ]; then
  for v in flat warp block grid; do
    build "$here/nested_$v.cu" "$out/nested_$v"
  done
fi
