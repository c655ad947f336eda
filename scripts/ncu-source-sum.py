#!/usr/bin/env python3
"""Where a kernel's instructions come from, by source file and line: sums "Instructions Executed" and the
warp-state samples of an ncu source page (`ncu --section SourceCounters --section WarpStateStats -o R ...`,
then `ncu -i R.ncu-rep --page source --csv --print-source cuda,sass > FILE.csv`), the program built with
-gline-tables-only by a plugin whose runtime has line tables too (`KLAP_RUNTIME_LINE_TABLES=1 cargo build
--release`), so that klap's runtime (runtime/*.cu) shows apart from the program's code. ncu lists a line's totals under each function that has the line
(a parent and its aggregated variant share their code's lines), so each line counts once, at its most.
Usage: scripts/ncu-source-sum.py FILE.csv [LINES]"""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
path = header = None
by_line, samples = collections.Counter(), collections.Counter()
for r in rows:
    if not r:
        continue
    if r[0] == "File Path":
        path = r[1].split("/")[-1]
        continue
    if r[0] == "Function Name":
        continue
    if r[0] == "Line No":
        header = r
        continue
    if header is None or not r[0].strip():
        continue
    try:
        executed = float(r[header.index("Instructions Executed")].replace(",", "") or 0)
        sampled = float(r[header.index("Warp Stall Sampling (All Samples)")].replace(",", "") or 0)
    except (ValueError, IndexError):
        continue
    by_line[(path, r[0])] = max(by_line[(path, r[0])], executed)
    samples[(path, r[0])] = max(samples[(path, r[0])], sampled)
by_file, file_samples = collections.Counter(), collections.Counter()
for (f, line), n in by_line.items():
    by_file[f] += n
    file_samples[f] += samples[(f, line)]
total = sum(by_file.values())
print("warp instructions executed: %.0f" % total)
for f, n in by_file.most_common():
    print("  %-34s %12.0f %5.1f%%  stall samples %8.0f" % (f, n, 100 * n / total, file_samples[f]))
for (f, line), n in by_line.most_common(top):
    print("  %s:%s %12.0f" % (f, line, n))
