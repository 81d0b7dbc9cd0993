"""The whole job, in order: select classes, analyse, rewrite, check, emit."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import report
from .analyse import Analyzer, ClassAnalysis
from .check import check_file
from .discover import Tree
from .emit import atomic_write, clear_outputs, git_dirty, unified_diff, write_outputs
from .errors import EXIT_CHANGES, EXIT_OK, EXIT_UNSAFE, UnsafeError, UsageError
from .index import ClassInfo, Index
from .scan_worker import scan_in_worker


def select(index: Index, classes: list[str], parent_spec: str | None) -> list[tuple[ClassInfo, ClassInfo | None]]:
    """The (class, parent) pairs to analyse, in a stable order."""
    parent = index.lookup(parent_spec) if parent_spec else None
    out: list[tuple[ClassInfo, ClassInfo | None]] = []
    if classes:
        out = [(index.lookup(spec), parent) for spec in classes]
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


class Progress:
    """A one-line progress bar on stderr, only on a terminal and only once a run passes a second."""

    def __init__(self):
        self.start = time.monotonic()
        self.shown = False
        self.on = sys.stderr.isatty()

    def __call__(self, done: int, total: int, what: str):
        if not self.on or time.monotonic() - self.start < 1.0:
            return
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files: {what}\033[K")
        sys.stderr.flush()
        self.shown = True

    def close(self):
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def analyse_all(tree: Tree, classes: list[str], parent: str | None, base: str | None,
                all_uses: bool = False) -> tuple[Index, list[ClassAnalysis]]:
    index = Index(tree)
    progress = Progress()
    analyzer = Analyzer(index, progress, all_uses)
    try:
        pairs = select(index, classes, parent)
        done: dict[int, ClassAnalysis | Exception] = {}
        with scan_in_worker(analyzer, pairs, base) as worker:
            # This process analyses its own classes first, then replays the worker's. (Parsing
            # the modules to rewrite while waiting for the worker saved 0.1 s on SGLang, but took
            # the two processes together past 400 MB: the rewrite parses them after the worker.)
            for i in (i for i in range(len(pairs)) if i not in worker.theirs):
                done[i] = _attempt(analyzer.analyse, *pairs[i], base)
            for i in sorted(worker.theirs):
                done[i] = _attempt(analyzer.analyse, *pairs[i], base, worker.get(i))
        # Classes are independent; an error surfaces as it would in class order.
        for i in range(len(pairs)):
            if isinstance(done[i], Exception):
                raise done[i]
        return index, [done[i] for i in range(len(pairs))]
    finally:
        progress.close()


def _attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # re-raised by the caller in class order
        return exc


def build_patches(index: Index, analyses: list[ClassAnalysis]):
    """Rewrite each module holding a decoupled class; every patched file must pass the checks."""
    from .rewrite import rewrite_module

    by_module: dict[str, list[ClassAnalysis]] = {}
    for a in analyses:
        if a.decision == "decouple":
            by_module.setdefault(a.cls.file, []).append(a)
    patches = []
    for rel, group in sorted(by_module.items()):
        try:
            patch = rewrite_module(index, group)
        except UnsafeError as exc:
            for a in group:
                a.decision, a.reason = "unsafe", f"the rewrite was refused: {exc}"
            continue
        problem = check_file(patch.before, patch.after, rel, patch.imports_kept)
        if problem:
            for a in group:
                a.decision, a.reason = "unsafe", f"the patched file failed the checks: {problem}"
            continue
        patch.encoding = index.tree.encodings.get(rel, "utf-8")
        patches.append(patch)
    return patches


def emitted_tests(tree: Tree, analyses: list[ClassAnalysis], patches) -> list:
    """One new test file per patched module, as a patch that creates it."""
    from . import __version__
    from .emit_tests import render
    from .rewrite import ModulePatch

    out = []
    for p in patches:
        group = [a for a in analyses if a.cls.file == p.rel and a.decision == "decouple"]
        rel, text = render(tree.root, group, {p.rel: p.after}, __version__)
        if (tree.root / rel).exists():
            raise UsageError(f"--emit-tests: {rel} already exists under ROOT; remove it or run without --emit-tests")
        new = ModulePatch(rel, None, text, {})
        new.encoding = "utf-8"
        out.append(new)
    return out


@dataclass
class Emitted:
    """One file the run would write: what emit needs, and all that the cache keeps."""

    rel: str
    before: str | None  # None: a new file
    after: str
    encoding: str = "utf-8"


@dataclass
class Result:
    """Everything a run decided, independent of the mode it emits in (so it can be cached)."""

    report: dict
    files: list[Emitted]
    diff: str
    summary: list[str]  # "Class: decision: reason", for stderr
    check_lines: list[str]  # "file:line: Class would be decoupled from Parent: why"
    unsafe: bool
    changes: bool

    def to_json(self) -> dict:
        return {**asdict(self), "files": [asdict(f) for f in self.files]}

    @classmethod
    def from_json(cls, data: dict) -> "Result":
        return cls(**{**data, "files": [Emitted(**f) for f in data["files"]]})


def compute(tree: Tree, args) -> Result:
    index, analyses = analyse_all(tree, args.classes, args.parent, args.base, getattr(args, "all_uses", False))
    patches = [] if args.analyse_only else build_patches(index, analyses)
    unsafe = any(a.decision == "unsafe" for a in analyses)
    if unsafe:
        patches = []  # all or nothing: never emit half of a refactor
    if patches and getattr(args, "emit_tests", False):
        patches += emitted_tests(tree, analyses, patches)
    extra = {}
    for p in patches:
        for name, plan in p.plans.items():
            extra.setdefault(name, []).extend(plan.inlined)
            extra[name].extend(f"import kept although unused here: `{k}` (re-exported, or imported from this module elsewhere)" for k in p.imports_kept)
        if p.imports_added or p.imports_removed:
            for name in p.plans:
                extra.setdefault(name, []).extend(
                    [f"import added: `{i}`" for i in p.imports_added] + [f"import removed: `{r}`" for r in p.imports_removed]
                )
    rep = report.build(tree.root, analyses)
    for c in rep["classes"]:
        c["inlined"] = extra.get(c["name"], [])
    if patches:
        rep["checks"] = [{"file": p.rel, "result": "parses, compiles, no new pyflakes findings" if p.before is not None else "new regression test (--emit-tests)"} for p in patches]
    return Result(
        report=rep,
        files=[Emitted(p.rel, p.before, p.after, p.encoding) for p in patches],
        diff="".join(unified_diff(p.rel, p.before, p.after) for p in patches),
        summary=[f"{a.cls.name}: {a.decision}: {a.reason}" for a in analyses],
        check_lines=[f"{a.cls.file}:{a.cls.line}: {a.cls.name} would be decoupled from {a.parent.name}: {a.reason}"
                     for a in analyses if a.decision == "decouple"],
        unsafe=unsafe,
        changes=any(a.decision == "decouple" for a in analyses),
    )


def run_pipeline(tree: Tree, args, out: Path | None) -> int:
    from . import cache

    result = None if args.no_cache else cache.load(tree, args)
    if result is not None:
        print("decouple: reused the previous run's result (no file it depends on changed)", file=sys.stderr)
    else:
        if not args.no_cache:
            from .word_index import snapshot_path

            tree.index_snapshot = snapshot_path(tree.root)
        result = compute(tree, args)
        if not args.no_cache:
            cache.store(tree, args, result)
    try:
        return emit(tree, args, out, result)
    finally:
        from .word_index import write_pending

        write_pending()


def emit(tree: Tree, args, out: Path | None, result: Result) -> int:
    for line in result.summary:
        print(line, file=sys.stderr)
    if args.check:
        for line in result.check_lines:
            print(line)
        if args.diff:
            sys.stdout.write(result.diff)
        if result.unsafe:
            return EXIT_UNSAFE
        return EXIT_CHANGES if result.changes else EXIT_OK
    if args.diff:
        sys.stdout.write(result.diff)
        return EXIT_UNSAFE if result.unsafe else EXIT_OK
    if args.write:
        dirty = git_dirty(tree.root, [f.rel for f in result.files])
        if dirty and not args.force:
            raise UsageError(f"uncommitted changes in {', '.join(dirty)}; commit them or pass --force")
        # Only the kill test sets this: it widens the window between two files' replacements.
        pause = float(os.environ.get("DECOUPLE_TEST_WRITE_PAUSE", "0") or 0)
        for i, f in enumerate(result.files):
            if i and pause:
                time.sleep(pause)
            path = tree.root / f.rel
            if f.before is None:
                path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, f.after.encode(f.encoding), mode=path.stat().st_mode & 0o7777 if path.exists() else 0o644)
    if out is not None:
        try:
            clear_outputs(out)
            if result.files:
                write_outputs(out, result.files, result.diff)
            report.write(out, result.report)
        except OSError as exc:
            raise UsageError(f"cannot write to {out}: {exc.strerror or exc}") from None
    return EXIT_UNSAFE if result.unsafe else EXIT_OK
