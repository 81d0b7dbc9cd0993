#!/usr/bin/env python3
"""Compare the patches of a `real_world.py --no-tests` run (NEW_DIR) with the judged ones of the
first stress campaign, by digest: same, changed, new, lost (those to judge again).

    python benchmarks/compare_digests.py NEW_DIR
"""
import glob
import json
import os
import sys
from pathlib import Path

old_dir = str(Path(__file__).resolve().parent / "results" / "real-world-stress")
new_dir = sys.argv[1]
def load(path):
    d = json.load(open(path))
    return d["library"], {c["qualname"]: (c.get("patch_sha256") if c.get("has_patch") else None, c.get("decision")) for c in d["candidates"]}
pairs = []
for f in sorted(glob.glob(f"{new_dir}/*.json")):
    lib = os.path.basename(f)[:-5]
    o = f"{old_dir}/{lib}.json"
    if os.path.exists(o): pairs.append((o, f))
for o_sub, n_sub in [("docutils.json", "docutils-0/docutils.json"), ("docutils-offset25/docutils.json", "docutils-0.25/docutils.json"),
                     ("docutils-offset50/docutils.json", "docutils-0.5/docutils.json"), ("docutils-offset75/docutils.json", "docutils-0.75/docutils.json")]:
    if os.path.exists(f"{new_dir}/{n_sub}"): pairs.append((f"{old_dir}/{o_sub}", f"{new_dir}/{n_sub}"))
tot = {"same": 0, "changed": 0, "new": 0, "lost": 0, "old_patches": 0}
changed = []
for o, n in pairs:
    lib, old = load(o); _, new = load(n)
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
