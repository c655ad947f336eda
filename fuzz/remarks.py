#!/usr/bin/env python3
"""What klap did with the launch sites of the fuzz programs: reads the remarks fuzz/build.sh kept
(OUTROOT/<mode>/*.remarks, from -Rpass=klap -Rpass-missed=klap -Rpass-analysis=klap) and prints, per
mode, how many sites were aggregated and why the others were left as written (docs/remarks.md), and
how many launch promotion took (and whether with overlap).

A site is a source location (file:line:column) with any klap launch remark; a site the optimizer
copied (an unrolled loop) counts once, as aggregated if any copy was. Then, from the `// site:` tags
fuzz/gen.py writes beside each launch (stream, child kind, grid and block dimensions, and what the
site is under: device function, loop, branch, lone-thread condition, recursion), the share of each
kind of site that each mode aggregated.

Usage: remarks.py OUTROOT [MODE...]   (modes default to none warp block grid)
"""

import os
import re
import sys
from collections import Counter

REMARK = re.compile(r"^(.*?):(\d+):(\d+): remark: .*\[(KLAP\d+)\]")
# Remarks that say a site stays as written (the aggregation's own, and the analysis' unrecognized).
LEFT = {"KLAP101", "KLAP102", "KLAP103", "KLAP104", "KLAP105", "KLAP106", "KLAP107", "KLAP108",
        "KLAP109", "KLAP201", "KLAP202", "KLAP203", "KLAP205", "KLAP206", "KLAP208", "KLAP211",
        "KLAP212", "KLAP301", "KLAP302", "KLAP303", "KLAP304"}
AGGREGATED, SERIALIZED = "KLAP200", "KLAP300"
# Launch promotion (docs/promotion.md): promoted (basic, with aggregation, into a loop), and whether a promoted
# link's prologue overlaps the link before.
PROMOTED = ("KLAP400", "KLAP412", "KLAP418")
OVERLAP, NO_OVERLAP = "KLAP415", "KLAP416"


def sites_of(folder):
    """{(source path, line, column): set of remark IDs} over every .remarks file in folder."""
    sites = {}
    files = sorted(f for f in os.listdir(folder) if f.endswith(".remarks")) if os.path.isdir(folder) else []
    for name in files:
        with open(os.path.join(folder, name), errors="replace") as f:
            for line in f:
                m = REMARK.match(line)
                if m:
                    key = (m.group(1), int(m.group(2)), int(m.group(3)))
                    sites.setdefault(key, set()).add(m.group(4))
    return sites


SOURCES = {}


def tags_of(root, site):
    """The `// site:` tags on a site's source line, as ['stream=faf', 'under=loop', ...]."""
    path, line, _ = site
    if not os.path.exists(path):
        path = os.path.join(root, "src", os.path.basename(path))
    if path not in SOURCES:
        try:
            with open(path, errors="replace") as f:
                SOURCES[path] = f.read().split("\n")
        except OSError:
            SOURCES[path] = []
    lines = SOURCES[path]
    if line > len(lines) or "// site: " not in lines[line - 1]:
        return []
    tags = []
    for item in lines[line - 1].split("// site: ")[1].split():
        key, _, value = item.partition("=")
        tags += ["%s=%s" % (key, v) for v in value.split(",")]
    return tags


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    modes = sys.argv[2:] or ["none", "warp", "block", "grid"]
    print("%-15s %6s %11s %6s  %s" % ("mode", "sites", "aggregated", "share", "left as written (by remark), and notes"))
    by_tag = {}  # tag -> mode -> [aggregated, sites]
    shown = []
    promotion = []  # a line per mode where launch promotion took sites
    for mode in modes:
        sites = sites_of(os.path.join(root, mode))
        if not sites:
            print("%-15s (no klap remarks)" % mode)
            continue
        aggregated = sum(1 for ids in sites.values() if AGGREGATED in ids)
        serialized = sum(1 for ids in sites.values() if SERIALIZED in ids and AGGREGATED not in ids)
        reasons = Counter()
        for ids in sites.values():
            if AGGREGATED in ids or SERIALIZED in ids:
                continue
            left = sorted(ids & LEFT)
            reasons[left[0] if left else "no-remark"] += 1
        notes = Counter()
        for ids in sites.values():
            for rid in ("KLAP204",):
                if rid in ids:
                    notes[rid] += 1
        detail = ", ".join("%s %d" % kv for kv in sorted(reasons.items()))
        if serialized:
            detail = "serialized instead (KLAP300) %d; %s" % (serialized, detail)
        if notes:
            detail += "; aggregated elsewhere than asked: " + ", ".join(
                "%s %d" % kv for kv in sorted(notes.items()))
        ids_here = Counter(i for site_ids in sites.values() for i in site_ids)
        if any(ids_here[i] for i in PROMOTED + (OVERLAP, NO_OVERLAP)):
            promotion.append("%-15s promoted %s; overlap %d, not %d" % (
                mode, ", ".join("%s %d" % (i, ids_here[i]) for i in PROMOTED), ids_here[OVERLAP], ids_here[NO_OVERLAP]))
        share = 100.0 * aggregated / len(sites) if sites else 0.0
        print("%-15s %6d %11d %5.1f%%  %s" % (mode, len(sites), aggregated, share, detail))
        if aggregated or serialized:
            shown.append(mode)
            for site, ids in sites.items():
                for tag in tags_of(root, site):
                    cell = by_tag.setdefault(tag, {}).setdefault(mode, [0, 0])
                    cell[0] += AGGREGATED in ids or SERIALIZED in ids
                    cell[1] += 1
    if promotion:
        print()
        print("launch promotion (sites with the remark):")
        for line in promotion:
            print("  " + line)
    if by_tag and shown:
        print()
        print("aggregated (or serialized) / sites, by kind of site:")
        print("%-24s" % "" + "".join("%14s" % m for m in shown))
        for tag in sorted(by_tag):
            row = "".join("%14s" % ("%d/%d" % tuple(by_tag[tag].get(m, [0, 0]))) for m in shown)
            print("%-24s%s" % (tag, row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
