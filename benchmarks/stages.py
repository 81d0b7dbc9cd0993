#!/usr/bin/env python3
"""Where a cold run's work goes, stage by stage: each stage's seconds and share of the whole.

    python benchmarks/stages.py [ROOT] [--repeats 5] [--check]

ROOT defaults to the pinned SGLang release, with its two default classes. Each repeat is a
new process (nothing cached in memory: pyflakes' and the typing's memos start empty) that
runs the pipeline's ``compute`` on a new ``Tree``, as ``decouple --output DIR --no-cache``
does (``--check``: as ``decouple --check``, which neither formats nor assesses risks), in
one process: the worker processes are turned off, so that every second of work is counted
once, in one stage. A real run spreads the word index and the scans over two cores; this
script measures the work, ``ab_cold.py`` the wall time.

Time goes to the innermost stage running (a stage called inside another is taken out of
it). The stages, by the functions that start them:

* start-up: a new process importing what a run imports (measured apart);
* discover and word index: listing the tree, reading, hashing and tokenising every file;
* parse: reading, decoding, ``ast.parse`` and the walk of every module the analysis opens;
* receiver typing: ``Flow`` and ``Types`` (what a receiver may hold), less the parses they start;
* slice: the parent's ``__init__`` sliced to what the class needs;
* analysis, rest: finding the classes, the searches of the tree, the rules, the verdicts;
* libcst parse: the modules to rewrite;
* rewrite: the libcst transform of the class and the import fixes (their pyflakes passes
  count as check);
* check: pyflakes on the original and the patched text, and the post-conditions;
* format: the changed lines through the target's formatter (DC610) and the comment review;
* risk: what the dropped statements did that others may read;
* report: report.json's content and the diff.

Prints a Markdown table (medians of --repeats) for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# (stage, "module:qualified.name") for each function that starts a stage.
STAGES = [
    ("discover and word index", "codemod.discover:Tree.open"),
    ("discover and word index", "codemod.word_index:WordIndex.__init__"),
    ("parse", "codemod.index:Index._parse"),
    ("parse", "codemod.index:ModuleInfo._walked.func"),
    ("parse", "codemod.discover:Tree.read"),
    ("receiver typing", "codemod.receiver_typing.typing_flow:Flow.classify"),
    ("receiver typing", "codemod.receiver_typing.typing_flow:Flow.plainly_shown"),
    ("receiver typing", "codemod.receiver_typing.typing_flow:Flow.hasattr_decided"),
    ("receiver typing", "codemod.receiver_typing.type_exprs:Types.query"),
    ("slice", "codemod.slice:slice_parent_init"),
    ("slice", "codemod.slice:init_providers"),
    ("analysis, rest", "codemod.pipeline:analyse_all"),
    ("libcst parse", "codemod.cst_util:Located.parse"),
    ("rewrite", "codemod.rewrite:rewrite_module"),
    ("check", "codemod.check:findings"),
    ("check", "codemod.check:check_file"),
    ("check", "codemod.postconditions:check_module"),
    ("format", "codemod.rules.rewrite_format:apply"),
    ("format", "codemod.rules.rewrite_flag_comments:find"),
    ("risk", "codemod.risk:assess"),
    ("report", "codemod.report:build"),
    ("report", "codemod.emit:unified_diff"),
]
ORDER = ["start-up", "discover and word index", "parse", "receiver typing", "slice", "analysis, rest",
         "libcst parse", "rewrite", "check", "format", "risk", "report"]


def _instrument(spent: dict[str, float]) -> None:
    """Wrap each stage's functions so that time goes to the innermost stage running."""
    stack: list[list] = []  # [stage, start of its current slice]

    def enter(stage: str) -> None:
        now = time.perf_counter()
        if stack:
            outer = stack[-1]
            spent[outer[0]] = spent.get(outer[0], 0.0) + now - outer[1]
        stack.append([stage, now])

    def leave() -> None:
        now = time.perf_counter()
        stage, start = stack.pop()
        spent[stage] = spent.get(stage, 0.0) + now - start
        if stack:
            stack[-1][1] = now

    for stage, target in STAGES:
        mod_name, _, path = target.partition(":")
        owner = importlib.import_module(mod_name)
        *outer, name = path.split(".")
        if name == "func":  # a cached_property: wrap the function it caches
            *outer, name = outer
            holder = owner
            for part in outer:
                holder = getattr(holder, part)
            prop = holder.__dict__[name]
            prop.func = _wrapped(prop.func, stage, enter, leave)
            continue
        holder = owner
        for part in outer:
            holder = getattr(holder, part)
        raw = holder.__dict__[name] if isinstance(holder, type) else getattr(holder, name)
        if isinstance(raw, classmethod):
            setattr(holder, name, classmethod(_wrapped(raw.__func__, stage, enter, leave)))
            continue
        wrapped = _wrapped(raw, stage, enter, leave)
        setattr(holder, name, wrapped)
        # Modules that imported the function by name hold the original: rebind those too.
        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("codemod") and mod.__dict__.get(name) is raw:
                setattr(mod, name, wrapped)


def _wrapped(fn, stage, enter, leave):
    def run(*args, **kwargs):
        enter(stage)
        try:
            return fn(*args, **kwargs)
        finally:
            leave()

    run.__wrapped__ = fn
    return run


def one(root: str, check: bool) -> dict[str, float]:
    """One run in this process; seconds by stage."""
    sys.path.insert(0, str(REPO))
    import codemod.pipeline as pipeline  # noqa: F401 - imports every stage's module first
    import codemod.risk  # noqa: F401
    import codemod.rules.rewrite_flag_comments  # noqa: F401
    import codemod.rules.rewrite_format  # noqa: F401
    from codemod import scan_worker, word_index
    from codemod.cli import build_parser
    from codemod.discover import DEFAULT_CLASSES, Tree
    from codemod.options import Options

    scan_worker.PARALLEL_FROM = word_index.PARALLEL_FROM = float("inf")  # one process: work counted once
    spent: dict[str, float] = {}
    _instrument(spent)
    select = [a for c in DEFAULT_CLASSES for a in ("--class", c)]
    args = build_parser().parse_args([root, *select, "--no-cache", *(["--check"] if check else ["--output", "/dev/null"])])
    options = Options.from_args(args)
    gc.disable()  # as the CLI runs
    t0 = time.perf_counter()
    tree = Tree.open(options.root)
    result = pipeline.compute(tree, options)
    total = time.perf_counter() - t0
    if not result.changes:
        sys.exit("stages.py: the run decoupled nothing; its stages would not be a run's")
    spent["total"] = total
    spent["unattributed"] = total - sum(v for k, v in spent.items() if k != "total")
    return spent


def startup() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import codemod.cli, codemod.pipeline, codemod.rewrite, codemod.check, codemod.verdict"],
                   cwd=REPO, check=True)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", help="the tree (default: the pinned SGLang release)")
    ap.add_argument("--repeats", type=int, default=5, help="runs, each in a new process (default 5); medians are reported")
    ap.add_argument("--check", action="store_true", help="as decouple --check (no format, no risks) instead of a full patch run")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single run, JSON on stdout
    args = ap.parse_args(argv)
    if args.root is None:
        sys.path.insert(0, str(REPO))
        from codemod.discover import fetch_release

        args.root = str(fetch_release(quiet=True))
    if args.one:
        print(json.dumps(one(args.root, args.check)))
        return 0
    rows: dict[str, list[float]] = {}
    for i in range(args.repeats):
        rows.setdefault("start-up", []).append(startup())
        cmd = [sys.executable, __file__, args.root, "--one"] + (["--check"] if args.check else [])
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"stages.py: a run failed: {res.stderr.strip()[-400:]}")
        for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items():
            rows.setdefault(k, []).append(v)
        print(f"run {i + 1}/{args.repeats} done", file=sys.stderr, flush=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    whole = med["total"] + med["start-up"]
    print(f"\n{'decouple --check' if args.check else 'full patch run'} on {args.root}, one process, "
          f"medians of {args.repeats}\n")
    print("| stage | seconds | share |")
    print("|---|---|---|")
    for k in ORDER + ["unattributed"]:
        if k in med:
            print(f"| {k} | {med[k]:.2f} | {med[k] / whole:.0%} |")
    print(f"| **total** (start-up included) | {whole:.2f} | 100% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
