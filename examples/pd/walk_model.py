#!/usr/bin/env python3
"""A sequential model of the in-place walk of slide.h (pd, upd), checking that every element is read before it is
overwritten: chunks in the walk's order, tiles within a chunk in the same order, each tile read whole before any of it
is written (the barrier). Random shapes, pads, chunk and tile sizes; pad shifts of many chunks included.
Run: python3 examples/pd/walk_model.py [--wrong-direction]   (the second form must fail: it walks padding upwards)"""
import random
import sys


def walk(kind, rows, cols, pad, chunk, tile, up):
    pitch = cols + pad
    buf = [None] * (rows * pitch)
    if kind == "pd":
        n = rows * cols
        for i in range(len(buf)):
            buf[i] = ("m", i // cols, i % cols) if i < n else ("junk", i)
    else:
        n = rows * pitch
        for i in range(n):
            r, c = divmod(i, pitch)
            buf[i] = ("m", r, c) if c < cols else ("junk", i)
    links = (n + chunk - 1) // chunk
    for k in (range(links - 1, -1, -1) if up else range(links)):
        first, end = k * chunk, min(n, (k + 1) * chunk)
        tiles = list(range(first, end, tile))
        for t in (reversed(tiles) if up else tiles):
            values = {i: buf[i] for i in range(t, min(end, t + tile))}
            for i, x in values.items():
                if kind == "pd":
                    r, c = divmod(i, cols)
                    buf[r * pitch + c] = x
                    if c == cols - 1:
                        for p in range(1, pad + 1):
                            buf[r * pitch + c + p] = 0
                else:
                    r, c = divmod(i, pitch)
                    if c < cols:
                        buf[r * cols + c] = x
    for r in range(rows):
        for c in range(pitch if kind == "pd" else cols):
            at = r * pitch + c if kind == "pd" else r * cols + c
            want = ("m", r, c) if c < cols else 0
            if buf[at] != want:
                return f"{kind} rows={rows} cols={cols} pad={pad} chunk={chunk} tile={tile}: [{at}] = {buf[at]}, want {want}"
    return None


def main():
    wrong = "--wrong-direction" in sys.argv[1:]
    random.seed(1)
    cases = 0
    for _ in range(3000):
        rows, cols, pad = random.randint(1, 40), random.randint(1, 40), random.randint(0, 30)
        tile = random.choice([1, 2, 3, 8, 16, 64])
        chunk = random.choice([1, 2, 5, tile, 3 * tile, 100, 10**6])
        for kind in ("pd", "upd"):
            up = (kind == "pd") != wrong
            err = walk(kind, rows, cols, pad, chunk, tile, up)
            if err:
                print("FAIL", err)
                return 1
            cases += 1
    print(f"PASS {cases} walks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
