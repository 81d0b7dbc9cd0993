#!/usr/bin/env python3
"""Where a cold run's time goes, stage by stage, in one process (medians of --repeats).

    python benchmarks/phases.py [ROOT] [--repeats 5]

ROOT defaults to the pinned SGLang release. Each repeat starts from nothing (no cache, a
new Tree and Index). Stages, as the CLI runs them:

* word index: read, hash and tokenise every file (in worker processes on a big tree);
* analysis: find the classes, slice the parent, search the tree for uses and type checks
  (every other class's search runs in a worker process);
* rewrite and check: libcst rewrite of the module, import fixes, pyflakes.

Also measured, as floors: tokenising the whole tree in this one process, parsing with
``ast`` every file the analysis parsed, and the analysis and rewrite run again with every file
already read, tokenised and parsed (by ``ast`` and libcst): what would be left of a run if
reading, tokenising and parsing cost nothing, as with a compiled front end; and the start of a
new process that imports what a run imports.
"""

from __future__ import annotations

import argparse
import ast
import gc
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from codemod import pipeline  # noqa: E402
from codemod.discover import DEFAULT_CLASSES, Tree, fetch_release  # noqa: E402
from codemod.verdict import would_decouple  # noqa: E402
from codemod.word_index import words_in  # noqa: E402


def one_run(root: Path):
    out = {}
    t0 = time.perf_counter()
    tree = Tree.open(root)
    tree.word_index
    t1 = time.perf_counter()
    index = pipeline.Index(tree)
    analyses = pipeline.analyse_all(index, DEFAULT_CLASSES, None, None)
    t2 = time.perf_counter()
    patches, _ = pipeline.build_patches(index, [a for a in analyses if would_decouple(a)])
    t3 = time.perf_counter()
    out["word index"], out["analysis"], out["rewrite and check"], out["total"] = t1 - t0, t2 - t1, t3 - t2, t3 - t0
    return out, tree, index, patches


def parse_free(tree: Tree) -> tuple[float, list[str]]:
    """Analysis, rewrite and check again, on ``tree`` (its word index built), with every file's
    text, ``ast`` and libcst tree handed over ready-made: the cost no front end can remove.
    Also returns the patched texts, which must be the ordinary run's."""
    import libcst

    from codemod import scan_worker
    from codemod.index import ModuleInfo

    # Every module either process would parse: one untimed run in this process alone.
    with mock.patch.object(scan_worker, "PARALLEL_FROM", float("inf")):
        index = pipeline.Index(tree)
        analyses = pipeline.analyse_all(index, DEFAULT_CLASSES, None, None)
    parsed = {rel: m for rel, m in index._modules.items() if m is not None}
    for rel in tree.files:  # every file read, decoded and kept: prefilter peeks take kept texts
        tree.text(rel)
    rewritten = {m.text for a in analyses if would_decouple(a) for m in (a.cls.module, a.parent.module)}
    csts = {text: libcst.parse_module(text) for text in rewritten}

    def ready(self, rel):
        m = parsed.get(rel)
        if m is None:
            return real_parse(self, rel)
        return ModuleInfo(m.name, rel, m.tree, m.text, m.is_package)

    real_parse, real_cst = pipeline.Index._parse, libcst.parse_module
    with mock.patch.object(pipeline.Index, "_parse", ready), \
            mock.patch.object(libcst, "parse_module", lambda text, *a, **k: csts.get(text) or real_cst(text, *a, **k)):
        t0 = time.perf_counter()
        index2 = pipeline.Index(tree)
        analyses = pipeline.analyse_all(index2, DEFAULT_CLASSES, None, None)
        patches, _ = pipeline.build_patches(index2, [a for a in analyses if would_decouple(a)])
        return time.perf_counter() - t0, [p.after for p in patches]


def floors(root: Path, parsed: list[str]) -> dict[str, float]:
    files = sorted(root.rglob("*.py"))
    t0 = time.perf_counter()
    for p in files:
        words_in(p.read_bytes())
    t1 = time.perf_counter()
    for rel in parsed:
        ast.parse((root / rel).read_bytes())
    t2 = time.perf_counter()
    return {"floor: tokenise every file, one process": t1 - t0, f"floor: ast.parse of the {len(parsed)} files this process's analysis parsed": t2 - t1}


def startup() -> float:
    import subprocess

    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import codemod.cli, codemod.pipeline, codemod.rewrite, codemod.check"], cwd=REPO, check=True)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    root = Path(args.root).resolve() if args.root else fetch_release(quiet=True)
    gc.disable()  # as the CLI runs
    rows: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        gc.collect()  # the previous repeat's trees, outside the timings
        got, tree, index, patches = one_run(root)
        parsed = [rel for rel, m in index._modules.items() if m is not None]
        got.update(floors(root, parsed))
        del index
        gc.collect()
        seconds, after = parse_free(tree)
        if after != [p.after for p in patches]:
            sys.exit("phases.py: the run with ready-made parses patched differently; its time would not be comparable")
        got["floor: analysis, rewrite and check, with every file already read, tokenised and parsed"] = seconds
        got["floor: a new process importing what a run imports"] = startup()
        for k, v in got.items():
            rows.setdefault(k, []).append(v)
        del tree, patches
    print(f"| stage (median of {args.repeats}) | seconds |")
    print("|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {statistics.median(v):.2f} |")
    return 0


if __name__ == "__main__":
    from codemod.errors import UsageError

    try:
        sys.exit(main())
    except UsageError as exc:
        sys.exit(f"phases.py: {exc}")
