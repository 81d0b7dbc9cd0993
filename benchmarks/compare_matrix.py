#!/usr/bin/env python3
"""Compare two release-matrix markdown tables (release_matrix.py --out) row by row, ignoring the
seconds column: same releases, same verdicts and kept counts, same checks and outcome.
    python3 benchmarks/compare_matrix.py docs/release-matrix.md NEW.md   (NEW.md: release_matrix.py --out)"""
import re, sys

def rows(path):
    out, absent, crashes = {}, None, None
    for line in open(path):
        if line.startswith("| ") and not line.startswith("| release") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            cells[6] = ""  # seconds
            out[cells[0]] = cells
        elif line.startswith("Releases checked without the class:"):
            absent = line.split(":", 1)[1].strip().rstrip(".")
        elif line.startswith("Crashes:"):
            crashes = line.strip()
    return out, absent, crashes

(a, aa, ac), (b, ba, bc) = rows(sys.argv[1]), rows(sys.argv[2])
print(f"old: {len(a)} releases with the class, new: {len(b)}; {ac} / {bc}")
print("without the class:", "same" if aa == ba else f"DIFFER: {aa} / {ba}")
n = 0
for v in sorted(set(a) | set(b), key=lambda v: [int(x) if x.isdigit() else x for x in re.split(r"[.]|post", v)]):
    if a.get(v) != b.get(v):
        n += 1
        print(f"DIFF {v}:\n  old: {a.get(v)}\n  new: {b.get(v)}")
print(f"{n} rows differ")
