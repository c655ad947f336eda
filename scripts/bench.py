#!/usr/bin/env python3
"""Runs the benchmark binaries of every variant side by side and prints (and records) a table.

Usage: scripts/bench.py BINROOT DATADIR OUTDIR [--reps N] [--only bfs,sp]
BINROOT holds one folder per variant (e.g. none/ warp/ block/ grid/ flat/ nvcc/), each with one
binary per benchmark (flat binaries may be named <bench>_flat). Every binary prints `time_ms X` per
rep, `CHECK PASS`, and a `RESULT ...` line that must be the same in every variant.
Writes OUTDIR/bench.csv and OUTDIR/bench.json; prints the table with speedups over the `none`
variant (plain CDP, untransformed) last.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

INPUTS = {
    "gc": "bcsstk13.mtx",
    "mstf": "rmat12.sym.gr",
    "mstv": "rmat12.sym.gr",
    "sssp": "rmat12.sym.gr",
    "sp": "random-42000-10000-3.cnf",
}


def run(binary, bench, datadir, reps, timeout):
    cmd = [binary, "--reps", str(reps)]
    if bench in INPUTS:
        cmd += ["--input", os.path.join(datadir, INPUTS[bench])]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timeout after {timeout}s", "times": [], "result": None}
    times = [float(l.split()[1]) for l in p.stdout.splitlines() if l.startswith("time_ms ")]
    result = next((l for l in p.stdout.splitlines() if l.startswith("RESULT ")), None)
    ok = p.returncode == 0 and "CHECK PASS" in p.stdout and bool(times)
    error = None if ok else (p.stdout + p.stderr).strip().splitlines()[-3:]
    return {"ok": ok, "error": error, "times": times, "result": result}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binroot")
    ap.add_argument("datadir")
    ap.add_argument("outdir")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    variants = sorted(d for d in os.listdir(args.binroot) if os.path.isdir(os.path.join(args.binroot, d)))
    order = ["none", "nvcc", "warp", "block", "grid", "flat"]
    variants.sort(key=lambda v: order.index(v) if v in order else len(order))
    benches = sorted({f.removesuffix("_flat") for v in variants for f in os.listdir(os.path.join(args.binroot, v))})
    if args.only:
        benches = [b for b in benches if b in args.only.split(",")]
    rows = []
    for bench in benches:
        for v in variants:
            folder = os.path.join(args.binroot, v)
            binary = next((os.path.join(folder, n) for n in (bench, bench + "_flat") if os.path.exists(os.path.join(folder, n))), None)
            if not binary:
                continue
            r = run(binary, bench, args.datadir, args.reps, args.timeout)
            t = r["times"]
            rows.append({
                "bench": bench, "variant": v, "ok": r["ok"], "result": r["result"], "error": r["error"],
                "median_ms": statistics.median(t) if t else None, "min_ms": min(t) if t else None,
                "max_ms": max(t) if t else None, "reps": len(t),
            })
            print(f"ran {bench} {v}: {'ok' if r['ok'] else 'FAILED ' + str(r['error'])}", flush=True)
    # Results must agree with the untransformed CDP build.
    for row in rows:
        ref = next((r for r in rows if r["bench"] == row["bench"] and r["variant"] == "none"), None)
        row["same_result"] = ref is not None and ref["result"] is not None and row["result"] == ref["result"]
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "bench.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(args.outdir, "bench.csv"), "w") as f:
        f.write("bench,variant,median_ms,min_ms,max_ms,reps,check,same_result_as_cdp\n")
        for r in rows:
            f.write(f"{r['bench']},{r['variant']},{r['median_ms']},{r['min_ms']},{r['max_ms']},{r['reps']},{r['ok']},{r['same_result']}\n")
    print()
    print(f"{'bench':6} {'variant':7} {'median ms':>10} {'min':>9} {'max':>9} {'vs cdp':>8}  check")
    speedups = {}
    for r in rows:
        ref = next((x for x in rows if x["bench"] == r["bench"] and x["variant"] == "none"), None)
        sp = ""
        if ref and ref["median_ms"] and r["median_ms"]:
            s = ref["median_ms"] / r["median_ms"]
            speedups.setdefault(r["variant"], []).append(s)
            sp = f"{s:.2f}x"
        check = "PASS" if r["ok"] and r["same_result"] else ("PASS*" if r["ok"] else "FAIL")
        med = f"{r['median_ms']:.3f}" if r["median_ms"] is not None else "-"
        mn = f"{r['min_ms']:.3f}" if r["min_ms"] is not None else "-"
        mx = f"{r['max_ms']:.3f}" if r["max_ms"] is not None else "-"
        print(f"{r['bench']:6} {r['variant']:7} {med:>10} {mn:>9} {mx:>9} {sp:>8}  {check}")
    print()
    for v, s in speedups.items():
        geo = statistics.geometric_mean(s)
        print(f"geomean speedup over untransformed CDP, {v}: {geo:.2f}x ({len(s)} benchmarks)")
    print("(PASS*: checked against the CPU but RESULT differs from the untransformed build)")
    return 0 if all(r["ok"] and r["same_result"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
