#!/usr/bin/env bash
# Runs the nested benchmark binaries over the anchors' configurations and summarises them.
#   examples/nested/bench.sh BINDIR [BINDIR...] OUTFILE.csv
# Every executable named nested_* in each BINDIR runs once per configuration (timeout 120 s each). Variant =
# the name without "nested_"; a name found in several BINDIRs is labelled DIRNAME/variant.
# Environment: REPS (default 7) timed reps per run; CONFIGS (default
# "10000/1000/256 10000/1000/1024 10000/16/256 100000/16/256 100000/64/256") as parents/avg/parent_block;
# TIMEOUT (default 120); KEEP_LOGS=DIR keeps every run's output there.
# CSV: variant,parents,avg,parent_block,median_ms,min_ms,max_ms,result_ok
# result_ok is 1 when the run exited 0, passed every check and printed the expected RESULT line (this script
# recomputes the input as nested_common.h makes it). Variants of one configuration that print different RESULT
# lines, or a RESULT other than the expected one, give a loud MISMATCH line; failed runs a FAILED line; either
# makes the exit status 1.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BINDIR [BINDIR...] OUTFILE.csv" >&2
  exit 2
fi
args=("$@")
csv="${args[$#-1]}"
dirs=("${args[@]:0:$#-1}")
reps="${REPS:-7}"
configs="${CONFIGS:-10000/1000/256 10000/1000/1024 10000/16/256 100000/16/256 100000/64/256}"
tmo="${TIMEOUT:-120}"
logs="${KEEP_LOGS:-$(mktemp -d)}"
mkdir -p "$logs"

# Collect binaries: label<TAB>path.
bins=()
declare -A seen=()
for d in "${dirs[@]}"; do
  [ -d "$d" ] || { echo "bench.sh: no directory $d" >&2; exit 2; }
  for b in "$d"/nested_*; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    n="$(basename "$b")"
    seen[$n]=$(( ${seen[$n]:-0} + 1 ))
  done
done
for d in "${dirs[@]}"; do
  for b in "$d"/nested_*; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    n="$(basename "$b")"
    v="${n#nested_}"
    if [ "${seen[$n]}" -gt 1 ]; then v="$(basename "$(cd "$d" && pwd)")/$v"; fi
    bins+=("$v"$'\t'"$b")
  done
done
[ ${#bins[@]} -gt 0 ] || { echo "bench.sh: no nested_* binaries in ${dirs[*]}" >&2; exit 2; }

index="$logs/index.tsv"
: >"$index"
k=0
for c in $configs; do
  IFS=/ read -r P A B <<<"$c"
  for e in "${bins[@]}"; do
    v="${e%%$'\t'*}"
    b="${e#*$'\t'}"
    k=$((k + 1))
    log="$logs/run$k.log"
    echo "bench.sh: $v P=$P avg=$A block=$B" >&2
    timeout "$tmo" "$b" --parents "$P" --avg "$A" --parent-block "$B" --reps "$reps" >"$log" 2>&1
    rc=$?
    [ $rc = 124 ] && echo "bench.sh: TIMEOUT after ${tmo}s: $v P=$P avg=$A block=$B" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$P" "$A" "$B" "$rc" "$log" >>"$index"
  done
done

python3 - "$index" "$csv" <<'PY'
import sys, statistics, collections

index, csv_path = sys.argv[1], sys.argv[2]

def expected_sum(parents, avg, seed=12345):
    # Mirrors nested_common.h: splitmix64, deg = next % (2*avg + 1); the sum of out is the number of items.
    m = (1 << 64) - 1
    state, total, rng = seed, 0, 2 * avg + 1
    for _ in range(parents):
        state = (state + 0x9E3779B97F4A7C15) & m
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        z ^= z >> 31
        total += z % rng
    return total

runs = []
for line in open(index):
    v, P, A, B, rc, log = line.rstrip("\n").split("\t")
    times, result, fails = [], None, []
    for l in open(log, errors="replace"):
        if l.startswith("time_ms "):
            times.append(float(l.split()[1]))
        elif l.startswith("RESULT "):
            result = l.strip()
        elif l.startswith("CHECK FAIL"):
            fails.append(l.strip())
    runs.append(dict(v=v, P=int(P), A=int(A), B=int(B), rc=int(rc), log=log, times=times, result=result,
                     fails=fails))

loud = []
by_cfg = collections.OrderedDict()
for r in runs:
    by_cfg.setdefault((r["P"], r["A"], r["B"]), []).append(r)
for (P, A, B), rs in by_cfg.items():
    want = "RESULT nested P=%d avg=%d sum=%d" % (P, A, expected_sum(P, A))
    seen = collections.Counter(r["result"] for r in rs if r["result"])
    if len(seen) > 1:
        loud.append("MISMATCH P=%d avg=%d block=%d: variants printed different RESULT lines: %s"
                    % (P, A, B, "; ".join("%s x%d" % (k, n) for k, n in seen.items())))
    for r in rs:
        ok = r["rc"] == 0 and not r["fails"] and r["result"] == want
        r["ok"] = 1 if ok else 0
        if r["result"] and r["result"] != want:
            loud.append("MISMATCH %s P=%d avg=%d block=%d: printed '%s', expected '%s'"
                        % (r["v"], P, A, B, r["result"], want))
        if r["rc"] != 0 or r["fails"] or not r["result"]:
            why = "timeout" if r["rc"] in (124, 137) else "exit %d" % r["rc"]
            detail = r["fails"][0] if r["fails"] else ""
            if not r["fails"]:
                tail = [l.rstrip() for l in open(r["log"], errors="replace")][-2:]
                detail = " | ".join(tail)
            loud.append("FAILED %s P=%d avg=%d block=%d (%s): %s  [log %s]" % (r["v"], P, A, B, why, detail, r["log"]))

def fmt(x):
    return "%.4f" % x if x is not None else "NA"

with open(csv_path, "w") as f:
    f.write("variant,parents,avg,parent_block,median_ms,min_ms,max_ms,result_ok\n")
    for r in runs:
        t = r["times"]
        r["med"] = statistics.median(t) if t else None
        r["min"] = min(t) if t else None
        r["max"] = max(t) if t else None
        f.write("%s,%d,%d,%d,%s,%s,%s,%d\n" % (r["v"], r["P"], r["A"], r["B"], fmt(r["med"]), fmt(r["min"]),
                                              fmt(r["max"]), r["ok"]))

variants = list(collections.OrderedDict((r["v"], 1) for r in runs))
print()
print("median ms (min-max) over the timed reps; '!' marks a run that failed or mismatched")
hdr = ["P", "avg", "block"] + variants
rows = []
for (P, A, B), rs in by_cfg.items():
    cell = {r["v"]: r for r in rs}
    row = [str(P), str(A), str(B)]
    for v in variants:
        r = cell.get(v)
        if r is None:
            row.append("-")
        elif r["med"] is None:
            row.append("NA!")
        else:
            row.append("%.3f (%.3f-%.3f)%s" % (r["med"], r["min"], r["max"], "" if r["ok"] else "!"))
    rows.append(row)
w = [max(len(x) for x in col) for col in zip(hdr, *rows)]
print("  ".join(h.rjust(n) for h, n in zip(hdr, w)))
for row in rows:
    print("  ".join(x.rjust(n) for x, n in zip(row, w)))
print()
print("CSV written to %s" % csv_path)
if loud:
    print()
    for l in loud:
        print("!!!!! " + l)
    sys.exit(1)
PY
