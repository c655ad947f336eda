#!/usr/bin/env python3
"""Runs the fuzz programs built by fuzz/build.sh on a GPU and compares every mode's case lines with
the untransformed (`none`) build's. Called by scripts/gpu-fuzz.sh, which documents the options.

A program that hangs in a case (it reports `case <id> HANG` after FUZZ_CASE_TIMEOUT seconds, or is
killed by the outer timeout) or loses its CUDA context is run again from the next case, so one bad
case does not hide the rest.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

CASE = re.compile(r"^case (\d+)-(\d+) (.*)$")


def ranges(indices):
    """[1,2,3,7] -> ['1-3', '7']: the program's case arguments."""
    out, start, prev = [], None, None
    for i in indices:
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            out.append("%d-%d" % (start, prev) if prev > start else "%d" % start)
            start = prev = i
    if start is not None:
        out.append("%d-%d" % (start, prev) if prev > start else "%d" % start)
    return out


def case_indices(binary):
    """The indices of the cases a program holds (`--present`; a program generated with some cases only,
    `gen.py --chains-only` or `--case`, keeps each case's index), or 0 to `--count` for a program older
    than `--present`."""
    p = subprocess.run([binary, "--present"], capture_output=True, text=True, timeout=60)
    if p.returncode == 0 and p.stdout.strip():
        return [int(v) for v in p.stdout.split()]
    p = subprocess.run([binary, "--count"], capture_output=True, text=True, timeout=60)
    return list(range(int(p.stdout.strip())))


def run_program(binary, indices, timeout, case_timeout, log, prefix=()):
    """{case index: result text} for every case of `indices`: the program's line after the case id, or
    HANG, TIMEOUT, CRASH rc=N, NOT-RUN."""
    results = {}
    remaining = list(indices)
    env = dict(os.environ, FUZZ_CASE_TIMEOUT=str(case_timeout))
    while remaining:
        cmd = list(prefix) + [binary] + ranges(remaining)
        start = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
            stdout, rc = p.stdout, p.returncode
            stderr = p.stderr
        except subprocess.TimeoutExpired as e:
            stdout = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            rc = None
        log.write("$ %s  (%.1f s, rc=%s)\n%s%s" % (" ".join(cmd), time.time() - start, rc, stdout, stderr))
        before = len(results)
        for line in stdout.splitlines():
            m = CASE.match(line)
            if m and int(m.group(2)) in remaining:
                results[int(m.group(2))] = m.group(3).strip()
        remaining = [i for i in remaining if i not in results]
        if not remaining:
            break
        setup = [line for line in stdout.splitlines() if line.startswith("setup ERROR")]
        if setup:  # no case can run
            for i in remaining:
                results[i] = setup[0].replace("setup ", "SETUP-")
            break
        if rc == 0:
            for i in remaining:
                results[i] = "NOT-RUN"
            break
        if rc is None:
            results[remaining[0]] = "TIMEOUT"
        elif len(results) == before:
            results[remaining[0]] = "CRASH rc=%d" % rc
        # Otherwise the program stopped after a case it reported (a hang, a lost context): go on.
        remaining = [i for i in remaining if i not in results]
    return results


def is_checksum(result):
    return re.match(r"^[0-9a-f]{16} ", result) is not None


def run_alone(binary, index, runs, case_timeout, log):
    """The results of `runs` runs of one case alone (a fresh process each)."""
    out = []
    env = dict(os.environ, FUZZ_CASE_TIMEOUT=str(case_timeout))
    for _ in range(runs):
        try:
            p = subprocess.run([binary, str(index)], capture_output=True, text=True, timeout=case_timeout + 60, env=env)
            stdout, rc = p.stdout, p.returncode
        except subprocess.TimeoutExpired:
            stdout, rc = "", None
        log.write("$ %s %d  (alone, rc=%s)\n%s" % (binary, index, rc, stdout))
        texts = [m.group(3).strip() for m in map(CASE.match, stdout.splitlines()) if m and int(m.group(2)) == index]
        out.append(texts[0] if texts else ("TIMEOUT" if rc is None else "CRASH rc=%d" % rc))
    return out


def recheck(args, ref, modes, findings, ref_broken, out):
    """Reruns the cases that did not end alone: a hang that the reference shows too, alone, is the
    platform's (BENCHMARKS.md, 2026-11-26: untransformed CDP programs with tail launches hang in the
    driver's device runtime on an H200), one that only a klap build shows is a klap bug."""
    print("  each case that did not end, alone, %d runs per mode (checksum runs / runs):" % args.recheck)
    with open(os.path.join(out, "fuzz-recheck.log"), "w") as log:
        for cid, prog, row in ref_broken + findings:
            stuck = [m for m in modes if m in row and not is_checksum(row[m].split(" (")[0])]
            if not stuck:
                continue
            index = int(cid.split("-")[1])
            want = None
            ok = {}  # mode: runs that gave the reference's checksum
            for mode in [ref] + [m for m in stuck if m != ref]:
                texts = run_alone(os.path.join(args.root, mode, prog), index, args.recheck, args.case_timeout, log)
                good = [t for t in texts if is_checksum(t)]
                if mode == ref and good:
                    want = good[0]
                ok[mode] = sum(1 for t in good if want is None or t == want)
            if ok[ref] < args.recheck:
                verdict = "also the reference"
            elif any(n < args.recheck for m, n in ok.items() if m != ref):
                verdict = "klap builds only"
            else:
                verdict = "not again"
            counts = ", ".join("%s %d/%d" % (m, n, args.recheck) for m, n in ok.items())
            print("    case %s: %s: %s" % (cid, counts, verdict), flush=True)


def sanitizer_path():
    for cand in (shutil.which("compute-sanitizer"), "/usr/local/cuda/bin/compute-sanitizer"):
        if cand and os.path.exists(cand):
            return cand
    return None


def unpack(args):
    """The programs came as ROOT.tar.xz (fuzz/build.sh's pack): unpacks it into ROOT, or into a
    temporary folder where ROOT cannot be written."""
    pack = args.root.rstrip("/") + ".tar.xz"
    if not os.path.exists(pack):
        return
    try:
        os.makedirs(args.root, exist_ok=True)
        dest = args.root
        with open(os.path.join(dest, ".unpacking"), "w"):
            pass
        os.remove(os.path.join(dest, ".unpacking"))
    except OSError:
        dest = tempfile.mkdtemp(prefix="klap-fuzz-")
    with tarfile.open(pack, "r:xz") as t:
        try:
            t.extractall(dest, filter="data")
        except TypeError:  # a Python without extraction filters
            t.extractall(dest)
    print("unpacked %s into %s" % (pack, dest))
    args.root = dest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".gpu/fuzz")
    ap.add_argument("--modes", help="the reference first (default: none, then every other mode folder)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per program run")
    ap.add_argument("--case-timeout", type=float, default=20.0, help="seconds per case")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each program in each mode")
    ap.add_argument("--memcheck", type=int, default=0, help="cases per program to run under memcheck")
    ap.add_argument("--recheck", type=int, default=0,
                    help="run each case that did not end (in any mode, the reference too) alone this many times "
                         "in the reference and in the modes it failed in")
    ap.add_argument("--out", default=os.environ.get("OUT") or "")
    args = ap.parse_args()

    if not os.path.isdir(os.path.join(args.root, "none")):
        unpack(args)
    if args.modes:
        modes = args.modes.split()
    else:
        known = ["none", "warp", "block", "grid", "nvcc"]
        present = [d for d in sorted(os.listdir(args.root)) if d not in ("src", "results")
                   and os.path.isdir(os.path.join(args.root, d))] if os.path.isdir(args.root) else []
        modes = [m for m in known if m in present] + [m for m in present if m not in known]
    ref = modes[0] if modes else "none"
    out = args.out or os.path.join(args.root, "results")
    os.makedirs(out, exist_ok=True)
    refdir = os.path.join(args.root, ref)
    if not os.path.isdir(refdir):
        print("no programs: neither %s nor %s.tar.xz" % (refdir, args.root.rstrip("/")))
        return 2
    programs = sorted(f for f in os.listdir(refdir)
                      if os.access(os.path.join(refdir, f), os.X_OK) and not f.endswith(".remarks"))
    if not programs:
        print("no programs in %s" % refdir)
        return 2

    # results[mode][program] = list (one per repeat) of {case: text}
    results = {m: {} for m in modes}
    indices = {}  # program -> the indices of its cases
    with open(os.path.join(out, "fuzz-runs.log"), "w") as log:
        for prog in programs:
            indices[prog] = case_indices(os.path.join(refdir, prog))
            for mode in modes:
                path = os.path.join(args.root, mode, prog)
                runs = []
                start = time.time()
                for _ in range(args.repeat):
                    if not os.path.exists(path):
                        runs.append({i: "MISSING" for i in indices[prog]})
                        continue
                    runs.append(run_program(path, indices[prog], args.timeout, args.case_timeout, log))
                results[mode][prog] = runs
                bad = sum(1 for i in indices[prog] if not is_checksum(runs[0].get(i, "")))
                print("%-6s %-16s %d cases, %.1f s%s" % (mode, prog, len(indices[prog]), time.time() - start,
                                                         ", %d without a checksum" % bad if bad else ""),
                      flush=True)

    total = sum(len(v) for v in indices.values())
    same = {m: 0 for m in modes[1:]}
    findings = []      # (case id, {mode: text}) where some mode disagrees with the reference
    ref_broken = []    # cases the reference itself did not finish, or finished differently across runs
    for prog in programs:
        seed = prog.split("_")[-1]
        for i in indices[prog]:
            cid = "%s-%d" % (seed, i)
            ref_texts = {run.get(i, "NOT-RUN") for run in results[ref][prog]}
            want = results[ref][prog][0].get(i, "NOT-RUN")
            row = {ref: want}
            if len(ref_texts) > 1 or not is_checksum(want):
                ref_broken.append((cid, prog, {ref: " | ".join(sorted(ref_texts))}))
                continue
            differs = False
            for mode in modes[1:]:
                texts = [run.get(i, "NOT-RUN") for run in results[mode][prog]]
                if all(t == want for t in texts):
                    same[mode] += 1
                else:
                    differs = True
                    bad = [t for t in texts if t != want]
                    row[mode] = "%s (%d of %d runs)" % (bad[0], len(bad), len(texts))
            if differs:
                findings.append((cid, prog, row))

    print()
    print("fuzz: %d programs, %d cases, modes %s, reference %s, %d run(s) each" %
          (len(programs), total, " ".join(modes), ref, args.repeat))
    for mode in modes[1:]:
        print("  %-6s identical to %s: %d of %d" % (mode, ref, same[mode], total - len(ref_broken)))
    if ref_broken:
        print("  the reference (%s) did not give one checksum in %d cases:" % (ref, len(ref_broken)))
        for cid, _, row in ref_broken[:20]:
            print("    case %s: %s" % (cid, row[ref]))
    if findings:
        print("  differing, hanging or failing cases: %d" % len(findings))
        for cid, _, row in findings[:50]:
            kinds = []
            for mode in modes[1:]:
                if mode in row:
                    word = row[mode].split()[0]
                    kinds.append("%s=%s" % (mode, word if not is_checksum(row[mode]) else "DIFF"))
            print("    case %s: %s" % (cid, " ".join(kinds)))
        if len(findings) > 50:
            print("    ... %d more in the mismatch file" % (len(findings) - 50))
    with open(os.path.join(out, "fuzz-mismatches.txt"), "w") as f:
        for cid, prog, row in ref_broken + findings:
            f.write("case %s (%s)\n" % (cid, prog))
            for mode in modes:
                if mode in row:
                    f.write("  %-6s %s\n" % (mode, row[mode]))
                else:
                    f.write("  %-6s same\n" % mode)
    print("  mismatches written to %s" % os.path.join(out, "fuzz-mismatches.txt"))

    if args.recheck > 0:
        recheck(args, ref, modes, findings, ref_broken, out)

    memcheck_errors = 0
    if args.memcheck > 0:
        sanitizer = sanitizer_path()
        if sanitizer is None:
            print("memcheck: compute-sanitizer not found")
            return 2
        mdir = os.path.join(out, "memcheck")
        os.makedirs(mdir, exist_ok=True)
        for prog in programs:
            held = indices[prog]
            step = max(1, len(held) // args.memcheck)
            sample = held[::step][:args.memcheck]
            for mode in modes:
                path = os.path.join(args.root, mode, prog)
                cmd = [sanitizer, "--tool", "memcheck", "--error-exitcode", "99", path] + [str(i) for i in sample]
                env = dict(os.environ, FUZZ_CASE_TIMEOUT=str(max(args.case_timeout, 120.0)))
                try:
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout * 4, env=env)
                    text, rc = p.stdout + p.stderr, p.returncode
                except subprocess.TimeoutExpired:
                    text, rc = "timed out\n", None
                with open(os.path.join(mdir, "%s.%s.txt" % (mode, prog)), "w") as f:
                    f.write(" ".join(cmd) + "\n" + text)
                m = re.search(r"ERROR SUMMARY: (\d+) error", text)
                errors = int(m.group(1)) if m else -1
                if errors != 0 or rc not in (0,):
                    memcheck_errors += 1
                print("memcheck %-6s %-16s cases %s: %s (rc=%s)" %
                      (mode, prog, ",".join(map(str, sample)),
                       "%d errors" % errors if errors >= 0 else "no summary", rc), flush=True)
    return 1 if findings or ref_broken or memcheck_errors else 0


if __name__ == "__main__":
    sys.exit(main())
