#!/usr/bin/env python3
"""Compare the patches of a `real_world.py --no-tests` run (NEW_DIR) with the judged ones of the
first stress campaign, by digest: same, changed, new, lost (those to judge again).

    python benchmarks/compare_digests.py NEW_DIR
    python benchmarks/compare_digests.py NEW_DIR --old benchmarks/results/real-world-stress/final-642d10e/no-tests

With --old DIR: every JSON under DIR (recursively) is a judged run; a library's candidates are
the union of its files there (spreads, c2- runs), and every JSON under NEW_DIR is compared
with that union.
"""
import glob
import gzip
import json
import os
import sys
from pathlib import Path

old_dir = str(Path(__file__).resolve().parent / "results" / "real-world-stress")
new_dir = sys.argv[1]
union_dir = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--old" else None
def load(path):
    # the older campaigns' folders hold NAME.json.gz (compressed to keep the working tree small)
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    return d["library"], {c["qualname"]: (c.get("patch_sha256") if c.get("has_patch") else None, c.get("decision")) for c in d["candidates"]}
pairs = []
if union_dir:
    judged: dict = {}
    for f in sorted(glob.glob(f"{union_dir}/**/*.json", recursive=True) + glob.glob(f"{union_dir}/**/*.json.gz", recursive=True)):
        lib, cands = load(f)
        judged.setdefault(lib, {}).update(cands)
    new_files = sorted(glob.glob(f"{new_dir}/**/*.json", recursive=True))
for f in [] if union_dir else sorted(glob.glob(f"{new_dir}/*.json")):
    lib = os.path.basename(f)[:-5]
    o = f"{old_dir}/{lib}.json"
    if os.path.exists(o): pairs.append((o, f))
for o_sub, n_sub in [] if union_dir else [("docutils.json", "docutils-0/docutils.json"), ("docutils-offset25/docutils.json", "docutils-0.25/docutils.json"),
                     ("docutils-offset50/docutils.json", "docutils-0.5/docutils.json"), ("docutils-offset75/docutils.json", "docutils-0.75/docutils.json")]:
    if os.path.exists(f"{new_dir}/{n_sub}"): pairs.append((f"{old_dir}/{o_sub}", f"{new_dir}/{n_sub}"))
tot = {"same": 0, "changed": 0, "new": 0, "lost": 0, "old_patches": 0}
changed = []
if union_dir:
    pairs = [(None, f) for f in new_files if json.load(open(f)).get("candidates")]
for o, n in pairs:
    lib, new = load(n)
    old = judged.get(lib, {}) if union_dir else load(o)[1]
    for q in sorted(set(old) | set(new)):
        a = old.get(q, (None, None))[0]; b = new.get(q, (None, None))[0]
        if q not in new or q not in old:
            continue
        if a: tot["old_patches"] += 1
        if a and b and a == b: tot["same"] += 1
        elif a and b: tot["changed"] += 1; changed.append((lib, q, "changed"))
        elif b and not a: tot["new"] += 1; changed.append((lib, q, "new"))
        elif a and not b: tot["lost"] += 1; changed.append((lib, q, f"lost ({new[q][1]})"))
print(tot)
for c in changed: print(*c)
