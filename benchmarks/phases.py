#!/usr/bin/env python3
"""Where a cold run's time goes, stage by stage, in one process (medians of --repeats).

    python benchmarks/phases.py [ROOT] [--repeats 5]

ROOT defaults to the pinned SGLang release. Each repeat starts from nothing (no cache, a
new Tree and Index). Stages, as the CLI runs them:

* word index: read, hash and tokenise every file (in worker processes on a big tree);
* analysis: find the classes, slice the parent, search the tree for uses and type checks
  (every other class's search runs in a worker process);
* rewrite and check: libcst rewrite of the module, import fixes, pyflakes.

Also measured, as floors: tokenising the whole tree in this one process, and parsing with
``ast`` every file the analysis parsed.
"""

from __future__ import annotations

import argparse
import ast
import gc
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from codemod import pipeline  # noqa: E402
from codemod.discover import DEFAULT_CLASSES, Tree, fetch_release  # noqa: E402
from codemod.word_index import words_in  # noqa: E402


def one_run(root: Path) -> tuple[dict[str, float], list[str]]:
    out = {}
    t0 = time.perf_counter()
    tree = Tree.open(root)
    tree.word_index
    t1 = time.perf_counter()
    index, analyses = pipeline.analyse_all(tree, list(DEFAULT_CLASSES), None, None)
    t2 = time.perf_counter()
    pipeline.build_patches(index, analyses)
    t3 = time.perf_counter()
    out["word index"], out["analysis"], out["rewrite and check"], out["total"] = t1 - t0, t2 - t1, t3 - t2, t3 - t0
    parsed = [rel for rel, m in index._modules.items() if m is not None]
    return out, parsed


def floors(root: Path, parsed: list[str]) -> dict[str, float]:
    files = sorted(root.rglob("*.py"))
    t0 = time.perf_counter()
    for p in files:
        words_in(p.read_bytes())
    t1 = time.perf_counter()
    for rel in parsed:
        ast.parse((root / rel).read_bytes())
    t2 = time.perf_counter()
    return {"floor: tokenise every file, one process": t1 - t0, f"floor: ast.parse of the {len(parsed)} files the analysis parsed": t2 - t1}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    root = Path(args.root).resolve() if args.root else fetch_release(quiet=True)
    gc.disable()  # as the CLI runs
    rows: dict[str, list[float]] = {}
    parsed: list[str] = []
    for _ in range(args.repeats):
        gc.collect()  # the previous repeat's trees, outside the timings
        got, parsed = one_run(root)
        for k, v in {**got, **floors(root, parsed)}.items():
            rows.setdefault(k, []).append(v)
    print(f"| stage (median of {args.repeats}) | seconds |")
    print("|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {statistics.median(v):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
