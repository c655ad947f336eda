#!/usr/bin/env bash
# Registers, stack and spills of every kernel of a benchmark as the device link sees them (nvlink's
# "Function properties", which count a kernel with everything it calls, and ptxas's spills): what sets
# how many of its blocks a multiprocessor holds. The kernels of klap's runtime and of CUDA's (libcudadevrt) are left out.
# Usage: scripts/kernel-resources.sh NAME [MODE] [extra clang flags...]
#   NAME   a benchmark (examples/NAME/NAME.cu; NAME_flat for its flat version)
#   MODE   none, warp, block, grid or auto (default auto; ignored for a flat version)
# e.g. scripts/kernel-resources.sh mandel auto -mllvm -klap-max-registers=0
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
name="$1"
mode="${2:-auto}"
shift $(( $# > 1 ? 2 : 1 ))
bench="${name%_flat}"
src="$root/examples/$bench/$name.cu"
[ -f "$src" ] || { echo "kernel-resources.sh: no $src" >&2; exit 2; }
plugin=()
if [ "$name" = "$bench" ]; then
  plugin=(-fpass-plugin="${KLAP_PLUGIN:-$root/target/release/libklap.so}" -mllvm -klap-granularity="$mode")
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$root/scripts/klap-clang++" --no-klap -O2 "$src" -o "$tmp/a.out" "${plugin[@]}" "$@" \
  -Xcuda-ptxas -v -Xoffload-linker -v > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
printf '%-5s %-6s %-6s %s\n' regs stack spill kernel
# ptxas: "Compiling entry function 'K'" then its "N bytes stack frame, S bytes spill stores, ..." line.
awk '
  /Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); k = substr($0, RSTART + 1, RLENGTH - 2) }
  /bytes spill stores/ && k != "" { for (i = 1; i <= NF; i++) if ($(i+1) == "bytes" && $(i+2) == "spill" && $(i+3) == "stores,") spill[k] = $i; k = "" }
  /Function properties for/ { match($0, /'"'"'[^'"'"']*'"'"'/); f = substr($0, RSTART + 1, RLENGTH - 2) }
  /used [0-9]+ registers/ && f != "" {
    for (i = 1; i <= NF; i++) { if ($i == "used" && $(i+2) ~ /^registers/) r = $(i+1); if ($(i+1) == "stack,") s = $i }
    regs[f] = r; stack[f] = s; order[++n] = f; f = ""
  }
  END { for (i = 1; i <= n; i++) { f = order[i]; if (f ~ /^__klap_/ || f ~ /^__nv_static_/) continue; printf "%-5s %-6s %-6s %s\n", regs[f], stack[f], (f in spill ? spill[f] : "-"), f } }
' "$tmp/log"
