#!/usr/bin/env bash
# Builds every test/gpu/*.cu into OUTDIR/<name> for sm_90 with relocatable
# device code and the device runtime (CUDA dynamic parallelism).
# Usage: test/gpu/build.sh OUTDIR [extra clang flags...]
# The extra flags are appended to each compile, e.g.
#   test/gpu/build.sh out -fpass-plugin=build/klap.so -mllvm -klap-...
# Environment: CLANG (default clang++-22), CUDA_PATH (default
# <repo>/.toolchain/cuda), GPU_ARCH (default sm_90).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [extra clang flags...]" >&2
  exit 2
fi
out="$1"
shift

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
clang="${CLANG:-clang++-22}"
cuda="${CUDA_PATH:-$root/.toolchain/cuda}"
arch="${GPU_ARCH:-sm_90}"

mkdir -p "$out"
n=0
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  echo "build $name" >&2
  "$clang" -x cuda --cuda-path="$cuda" --cuda-gpu-arch="$arch" -fgpu-rdc \
    --offload-new-driver -O2 -Wno-unknown-cuda-version "$src" \
    -o "$out/$name" -L"$cuda/lib" -lcudart_static -ldl -lrt -lpthread \
    -Xoffload-linker "$cuda/lib/libcudadevrt.a" "$@"
  n=$((n + 1))
done
echo "built $n programs into $out" >&2
