"""The whole job, in order: select classes, analyse, (rewrite, check), emit."""

from __future__ import annotations

import sys
from pathlib import Path

from . import report
from .analyse import Analyzer, ClassAnalysis
from .discover import Tree
from .errors import EXIT_OK, EXIT_UNSAFE, UsageError
from .index import ClassInfo, Index


def select(index: Index, classes: list[str], parent_spec: str | None) -> list[tuple[ClassInfo, ClassInfo | None]]:
    """The (class, parent) pairs to analyse, in a stable order."""
    parent = index.lookup(parent_spec) if parent_spec else None
    out: list[tuple[ClassInfo, ClassInfo | None]] = []
    if classes:
        for spec in classes:
            cls = index.lookup(spec)
            out.append((cls, parent))
    else:
        subs = index.subclasses(parent)
        if not subs:
            raise UsageError(f"no subclass of {parent.name} found under {index.tree.root}")
        out = [(c, parent) for c in subs]
    seen, uniq = set(), []
    for cls, p in out:
        if cls.qualname not in seen:
            seen.add(cls.qualname)
            uniq.append((cls, p))
    return uniq


def analyse_all(tree: Tree, classes: list[str], parent: str | None, base: str | None) -> tuple[Index, list[ClassAnalysis]]:
    index = Index(tree)
    pairs = select(index, classes, parent)
    analyzer = Analyzer(index)
    analyses = []
    for cls, p in pairs:
        analyses.append(analyzer.analyse(cls, p, base))
    return index, analyses


def run_pipeline(tree: Tree, args, out: Path | None) -> int:
    index, analyses = analyse_all(tree, args.classes, args.parent, args.base)
    rep = report.build(tree.root, analyses)
    if out is not None:
        report.write(out, rep)
    for a in analyses:
        print(f"{a.cls.name}: {a.decision}: {a.reason}", file=sys.stderr)
    if any(a.decision == "unsafe" for a in analyses):
        return EXIT_UNSAFE
    return EXIT_OK
