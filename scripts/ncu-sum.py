#!/usr/bin/env python3
"""Sums an ncu CSV (`ncu --csv --metrics gpu__time_duration.sum,smsp__inst_executed.sum,
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread PROGRAM`) per program and
per kernel: launches, time, warp instructions, registers, warps active. A CDP program's host-launched
kernel's range covers its device-launched descendants, which ncu does not list on their own.
Usage: scripts/ncu-sum.py FILE.csv"""
import collections
import csv
import sys

SUMMED = ("gpu__time_duration.sum", "smsp__inst_executed.sum")

rows = list(csv.reader(open(sys.argv[1])))
header = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
if header is None:
    print("  no ncu rows")
    sys.exit(0)
h = rows[header]
kernel_at, metric_at, value_at = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
total = collections.Counter()
per_kernel = collections.defaultdict(collections.Counter)
launches = collections.Counter()
seen = set()
for r in rows[header + 1:]:
    if len(r) <= value_at:
        continue
    try:
        value = float(r[value_at].replace(",", ""))
    except ValueError:
        continue
    name, metric = r[kernel_at].split("(")[0], r[metric_at]
    if (r[0], name) not in seen:
        seen.add((r[0], name))
        launches[name] += 1
    if metric in SUMMED:
        total[metric] += value
        per_kernel[name][metric] += value
    else:
        per_kernel[name][metric] = max(per_kernel[name][metric], value)
print("  total: %d launches, %.1f us, %.1f M warp instructions"
      % (len(seen), total[SUMMED[0]] / 1e3, total[SUMMED[1]] / 1e6))
for name, d in sorted(per_kernel.items(), key=lambda x: -x[1][SUMMED[0]])[:4]:
    print("   %-28s x%-4d %9.1f us %9.1f Minst regs %3d warps-active %5.1f%%"
          % (name[:28], launches[name], d[SUMMED[0]] / 1e3, d[SUMMED[1]] / 1e6, d["launch__registers_per_thread"],
             d["sm__warps_active.avg.pct_of_peak_sustained_active"]))
