#!/usr/bin/env python3
"""Summarise a real_world.py --no-tests results folder and diff it against baseline folder(s).

    python3 benchmarks/compare_runs.py NEW_DIR [BASE_DIR ...]   (benchmarks/recheck_campaign.sh runs it)

NEW_DIR: *.json of real_world.py (one per library). BASE_DIRs: folders of earlier results
(each searched for <lib>.json / <lib>.json.gz, non-recursive); a later BASE_DIR overrides an
earlier one per candidate. Prints per library: candidates run, decisions, patches, tracebacks,
timeouts, input trees changed, patches that did not apply; then every candidate whose decision,
rule, reason or patch digest differs from the baseline, and candidates present on one side only.
Exit 0 always (a report, not a gate).
"""
import collections, gzip, json, re, sys
from pathlib import Path

def load(p):
    return json.load(gzip.open(p) if str(p).endswith(".gz") else open(p))

def norm(s):
    # run-specific paths (work dirs) out of reasons
    return re.sub(r"/tmp/[^\s'\"]*", "<path>", s or "")

def key(c):
    return (c.get("decision"), c.get("rule"), norm(c.get("reason")),
            c.get("patch_sha256") if c.get("has_patch") else None)

new_dir, bases = Path(sys.argv[1]), [Path(b) for b in sys.argv[2:]]
tot = collections.Counter()
diffs = []
for f in sorted(new_dir.glob("*.json")):
    d = load(f)
    lib = d["library"]
    if "setup_error" in d:
        print(f"{lib}: SETUP ERROR {d['setup_error'].splitlines()[0]}"); tot["setup_errors"] += 1; continue
    cands = d.get("candidates", [])
    dec = collections.Counter(c.get("decision") or f"rc{c.get('rc')}" for c in cands)
    row = dict(candidates=len(cands), total=d.get("candidates_total"),
               patches=sum(bool(c.get("has_patch")) for c in cands),
               tracebacks=sum(bool(c.get("traceback")) for c in cands),
               timeouts=sum(bool(c.get("timed_out")) for c in cands),
               input_changed=sum(not c.get("input_unchanged", True) for c in cands),
               not_applied=sum(bool(c.get("has_patch")) and not c.get("patch_applied") for c in cands),
               wall_s=d.get("wall_s", 0))
    for k, v in row.items():
        if k != "total": tot[k] += v
    for k, v in dec.items(): tot["decision:" + str(k)] += v
    rules = collections.Counter(c.get("rule") for c in cands if c.get("decision") == "unsafe")
    print(f"{lib} ({d.get('tool_commit')}): {row} decisions {dict(dec)} unsafe-by-rule {dict(rules)}")
    base = {}
    for b in bases:
        for cand in (b / f"{lib}.json", b / f"{lib}.json.gz"):
            if cand.exists():
                for c in load(cand).get("candidates", []):
                    base[c["qualname"]] = c
    if not bases:
        continue
    if not base:
        print(f"   (no baseline for {lib})"); continue
    newq = {c["qualname"]: c for c in cands}
    for q in sorted(set(base) | set(newq)):
        if q not in newq: diffs.append((lib, q, "only in baseline", "")); continue
        if q not in base: diffs.append((lib, q, "only in new", str(key(newq[q])[:2]))); continue
        a, b = key(base[q]), key(newq[q])
        if a != b:
            what = []
            if a[0] != b[0] or a[1] != b[1]: what.append(f"{a[0]} {a[1]} -> {b[0]} {b[1]}")
            elif a[2] != b[2]: what.append("reason: " + a[2][:150] + "  ->  " + b[2][:150])
            if a[3] != b[3]: what.append(f"patch {str(a[3])[:12]} -> {str(b[3])[:12]}")
            diffs.append((lib, q, "changed", "; ".join(what)))
print("TOTAL", dict(tot))
if bases:
    print(f"DIFFERENCES vs {' + '.join(map(str, bases))}: {len(diffs)}")
    for d in diffs: print("  ", *d)
