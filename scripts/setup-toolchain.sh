#!/usr/bin/env bash
# Installs what klap needs to build and test on a fresh Debian 12 machine, without a GPU:
# LLVM 22 and CMake from Debian's packages and a CUDA 13.0 tree from PyPI wheels at .toolchain/cuda.
# Idempotent: a second run only checks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cuda="$root/.toolchain/cuda"

need_apt=()
for tool in clang++-22 opt-22 llvm-config-22 FileCheck-22; do
  command -v "$tool" >/dev/null 2>&1 || need_apt=(clang-22 llvm-22-dev llvm-22-tools libpolly-22-dev)
done
[ -e /usr/lib/llvm-22/lib/libPolly.a ] || need_apt=(clang-22 llvm-22-dev llvm-22-tools libpolly-22-dev)
# For cmake/klap.cmake and its test (test/e2e/cmake-example.test).
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "klap setup: installing ${need_apt[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# FileCheck is not on PATH under that name in Debian's packages.
[ -x /usr/lib/llvm-22/bin/FileCheck ] || { echo "klap setup: FileCheck missing from llvm-22-tools" >&2; exit 1; }

if [ ! -x "$cuda/bin/ptxas" ] || [ ! -e "$cuda/lib/libcudadevrt.a" ] || [ ! -d "$cuda/nvvm/libdevice" ]; then
  echo "klap setup: installing the CUDA 13.0 tree into $cuda" >&2
  stage="$root/.toolchain/wheels"
  rm -rf "$stage" "$cuda"
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$stage" \
    'nvidia-cuda-nvcc==13.0.*' 'nvidia-cuda-runtime==13.0.*' 'nvidia-cuda-crt==13.0.*' \
    'nvidia-cuda-cccl==13.0.*' 'nvidia-nvvm==13.0.*' 'nvidia-curand==10.*'
  mv "$stage/nvidia/cu13" "$cuda"
  rm -rf "$stage"
  # clang reads the CUDA version from version.json; the wheels ship none.
  printf '{ "cuda" : { "name" : "CUDA SDK", "version" : "13.0.0" } }\n' > "$cuda/version.json"
  # clang looks for libdevice at nvvm/libdevice and for lib64 as well as lib.
  [ -e "$cuda/lib64" ] || ln -s lib "$cuda/lib64"
fi
echo "klap setup: LLVM $(llvm-config-22 --version), CUDA tree at $cuda" >&2
