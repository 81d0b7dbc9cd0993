"""The whole job, one stage after another; each returns its result and none writes into an earlier one's.

discover (``discover``, ``word_index``) -> index (``index``) -> analyse (``analyse``, with the
slice of the parent's ``__init__``: ``slice``) -> verdict (``verdict``) -> rewrite (``rewrite``)
-> check (``check``) -> the project's tests with ``--test`` (``gate``) -> verdict again, with
any refusal as input -> risk (``risk``) -> report
(``report``, ``report_md``) ->
emit (``emit``). ``decouple verify`` (``gpu/``) runs later, on a GPU machine.
"""

from __future__ import annotations

import re
import sys
import time

from . import report
from .console import display_path
from .discover import Tree
from .emit import emit, unified_diff
from .errors import UnsafeError, UsageError
from .index import ClassInfo, Index
from .lookup import lookup
from .model import ClassAnalysis, Decision, Emitted, Former, Knowledge, ModulePatch, Refusal, Result
from .options import Options
from .rules.verdict_already_decoupled import ID as ALREADY_DECOUPLED, former_parent

# The stages from analyse to check are imported where they run: a warm run (a cached result)
# needs none of them, and their imports (libcst, pyflakes) cost more than the rest of such a run.


def select(index: Index, classes: tuple[str, ...], parent_spec: str | None,
           markers: bool = True) -> list[tuple[ClassInfo, ClassInfo | None]]:
    """The (class, parent) pairs to analyse, in a stable order (a ``Former`` parent: nothing to do)."""
    parent = lookup(index, parent_spec) if parent_spec else None
    out: list[tuple[ClassInfo, ClassInfo | None]] = []
    if classes:
        out = [(cls, given_parent(index, cls, parent, markers)) for cls in (lookup(index, c) for c in classes)]
    else:
        subs = index.subclasses(parent)
        # The subclasses this tool decoupled from P: the check after --write names them as --class would.
        former = [c for c in decoupled_from(index, parent) if c not in subs]
        if not subs and not former and markers:
            raise UsageError(f"no subclass of {parent.name} found under {display_path(index.tree.root)}, nor a class "
                             f"whose marker says it was decoupled from it; check --parent, or name the class with --class "
                             f"(a class decoupled with --no-markers has no trace of it: check with --no-markers too)")
        out = sorted([(c, parent) for c in subs] + [(c, Former(parent.name)) for c in former], key=lambda p: (p[0].file, p[0].line))
    seen, uniq = set(), []
    for cls, p in out:
        if cls.qualname not in seen:
            seen.add(cls.qualname)
            uniq.append((cls, p))
    return uniq


def decoupled_from(index: Index, parent: ClassInfo) -> list[ClassInfo]:
    """The classes whose marker comment says this tool decoupled them from ``parent`` and that no
    longer inherit it directly."""
    name = re.escape(parent.name)
    marker = re.compile(rf"decouple: (?:inlined from {name}\.__init__\b|decoupled from {name}\b)")
    out = []
    for rel in index.tree.grep(marker, words=(parent.name,)):
        mod = index.module(rel)
        for cls in mod.classes.values() if mod is not None else ():
            if former_parent(cls) == parent.name and isinstance(given_parent(index, cls, parent), Former):
                out.append(cls)
    return out


def given_parent(index: Index, cls: ClassInfo, parent: ClassInfo | None, markers: bool = True) -> ClassInfo | Former | None:
    """The parent to analyse ``cls`` against when ``--parent`` names it (None: its own first base).

    A class the tool decoupled from the parent is already decoupled (a ``Former`` parent), so
    the check CI runs after ``--write``, with the same arguments, passes: its marker says so, or,
    under ``--no-markers`` (a patch that leaves no trace), the parent is nowhere in its MRO. Any
    other parent that is not a direct base is bad input: nothing the run could say about it
    answers what was asked, and a check that passed on it would check nothing."""
    if parent is None or any(index._same_class(b, parent) for b in cls.bases):
        return parent
    in_mro = any(index._same_class(q, parent) for q in index.ancestors(cls))
    if former_parent(cls) == parent.name or not (markers or in_mro):
        return Former(parent.name)
    bases = ", ".join(b.rsplit(".", 1)[-1] for b in cls.bases) or "object"
    same_name = [b for b in cls.bases if b.rsplit(".", 1)[-1] == parent.name]
    if same_name:  # a base spelled like the parent that is another class, or one the index cannot follow
        raise UsageError(f"{cls.name}'s base {same_name[0]} is not {parent.qualname} as far as the tree shows "
                         f"(its bases: {bases}); pass --parent as module:Name for the base it names")
    if in_mro:
        raise UsageError(f"{cls.name} does not inherit {parent.name} directly (its bases: {bases}); "
                         f"--parent names a direct base of each --class")
    raise UsageError(f"{cls.name} does not inherit {parent.name} (its bases: {bases}); --parent names a direct base "
                     f"of each --class (a class decoupled with --no-markers has no trace of it: check with --no-markers too)")


class Progress:
    """A one-line progress bar on stderr, only on a terminal and only once a run passes a second."""

    def __init__(self, unit: str = "files"):
        self.start = time.monotonic()
        self.shown = False
        self.on = sys.stderr.isatty()
        self.unit = unit  # what ``done`` and ``total`` count

    def __call__(self, done: int, total: int, what: str):
        if not self.on or time.monotonic() - self.start < 1.0:
            return
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {self.unit}: {what}\033[K")
        sys.stderr.flush()
        self.shown = True

    def close(self):
        """Clear the line (before anything else is said on stderr); a later call shows it again."""
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


def analyse_all(index: Index, classes: tuple[str, ...], parent: str | None, base: str | None,
                all_uses: bool = False, markers: bool = True, while_waiting=None,
                knowledge: Knowledge | None = None, runtime: dict | None = None, progress: bool = True) -> list[ClassAnalysis]:
    """The analysis of every selected class (half of the scans in a worker process).

    ``while_waiting``: called with this process's own analyses, and the preparations of the
    worker's, when they are done and the worker is still scanning (work that would otherwise
    wait for the core to be free)."""
    from .analyse import Analyzer
    from .scan_worker import scan_in_worker

    shown = progress
    progress = Progress()
    progress.on = progress.on and shown
    analyzer = Analyzer(index, progress, all_uses, knowledge, runtime=runtime)
    try:
        pairs = select(index, classes, parent, markers)
        done: dict[int, ClassAnalysis | Exception] = {}
        with scan_in_worker(analyzer, pairs, base) as worker:
            # This process analyses its own classes first, then replays the worker's.
            for i in (i for i in range(len(pairs)) if i not in worker.theirs):
                done[i] = _attempt(analyzer.analyse, *pairs[i], base)
            # The worker's classes must be prepared here too before their scans are replayed
            # (the preparation parses the modules of their parents' code, which the worker's
            # parses do not bring back): done while the worker still scans, it waits for nothing.
            prepared = {}
            for i in sorted(worker.theirs):
                if not worker.busy():
                    break
                prepared[i] = _attempt(analyzer.prepare, *pairs[i], base)
            if while_waiting is not None and worker.busy():
                # With the worker's classes prepared, what their rewrite reads is known too. Work
                # done ahead of its time: what fails here is met again, and reported, in its place.
                _attempt(while_waiting, [a for a in done.values() if isinstance(a, ClassAnalysis)]
                         + [st.a for st in prepared.values() if not isinstance(st, Exception)])
            for i in sorted(worker.theirs):
                st = prepared.get(i)
                # A preparation that failed runs again in ``analyse``, which raises in class order.
                st = None if isinstance(st, Exception) else st
                done[i] = _attempt(analyzer.analyse, *pairs[i], base, worker.get(i), st)
        # Classes are independent; an error surfaces as it would in class order.
        for i in range(len(pairs)):
            if isinstance(done[i], Exception):
                raise done[i]
        return [done[i] for i in range(len(pairs))]
    finally:
        progress.close()


def _attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # re-raised by the caller in class order
        return exc


def build_patches(index: Index, candidates: list[ClassAnalysis], markers: bool = True,
                  presented: bool = True, parsed: dict | None = None) -> tuple[list[ModulePatch], dict[int, Refusal]]:
    """Rewrite each module holding a class to decouple, then check it.

    Returns the patches that passed, and the refusals by class (``id`` of its analysis).
    ``parsed``: libcst parses made ahead (``rewrite.parse_ahead``), by module path."""
    from . import postconditions
    from .beside import Beside
    from .check import check_file
    from .rewrite import rewrite_module
    from .scan_worker import PARALLEL_FROM

    fork = len(index.tree.files) >= PARALLEL_FROM  # on a smaller tree the fork costs more than the check
    by_module: dict[str, list[ClassAnalysis]] = {}
    for a in candidates:
        by_module.setdefault(a.cls.file, []).append(a)
    patches, refusals = [], {}
    for rel, group in sorted(by_module.items()):
        try:
            patch = rewrite_module(index, group, markers, presented, parsed)
        except UnsafeError as exc:
            refusals.update({id(a): Refusal(exc.rule, str(exc), "rewrite") for a in group})
            continue
        except SyntaxError as exc:  # the rewritten text no longer parses: a check failure, never a crash
            refusals.update({id(a): Refusal("", f"{rel}: the patched file does not parse: {exc.msg} (line {exc.lineno})", "check") for a in group})
            continue
        # pyflakes runs in a child while this process checks the post-conditions, the longer of
        # the two (``beside``). A post-condition is only asked of a text that pyflakes passes,
        # so what it raises on one that fails is not raised.
        with Beside(check_file, patch.before, patch.after, rel, patch.imports_kept, fork=fork) as flakes:
            try:
                broken, failed = postconditions.check_module(index, group, patch.after), None
            except Exception as exc:  # noqa: BLE001 - raised below, if pyflakes passes the text
                broken, failed = None, exc
            problem = flakes.result()
        if failed is not None and not problem:
            raise failed
        if problem:
            refusals.update({id(a): Refusal("", problem, "check") for a in group})
            continue
        if broken:
            rule, msg = broken[0]
            refusals.update({id(a): Refusal(rule, f"post-condition {rule}: {msg}", "check") for a in group})
            continue
        patch.encoding = index.tree.encodings.get(rel, "utf-8")
        patches.append(patch)
    return patches, refusals


def regression_tests(tree: Tree, decoupled: list[ClassAnalysis], patches: list[ModulePatch]) -> list[ModulePatch]:
    """``--emit-tests``: one new test file per patched module, as a patch that creates it (for SGLang's
    TRTLLM MHA backends, the CUDA test on its attention kit that ``codemod.gpu.sglang_test`` writes)."""
    from .gpu import sglang_test
    from .version import __version__
    from .regression import render

    out = []
    for p in patches:
        group = [a for a in decoupled if a.cls.file == p.rel]
        if sglang_test.applies(tree.root, p.rel, [a.cls.name for a in group]):
            rel, text = sglang_test.render(__version__)  # SGLang's own kind of test: it runs the attention kit on CUDA
        else:
            rel, text = render(tree.root, group, {p.rel: p.after}, __version__)
        if (tree.root / rel).exists():
            raise UsageError(f"--emit-tests: {rel} already exists under ROOT; remove it or run without --emit-tests")
        out.append(ModulePatch(rel, None, text, {}))
    return out


def unparsable_files(index: Index, analyses: list[ClassAnalysis]) -> list[str]:
    """DC306 on each class, once every scan is in (the worker's files too); a warning for each
    file that could not be parsed and bears on no class."""
    from .rules import unsafe_unparsable_file

    refused = set()
    for a in analyses:
        if not a.nothing_to_do:
            refused |= unsafe_unparsable_file.check(index, a)
    return [f"{unsafe_unparsable_file.headline(rel, line, msg)}; it names none of the classes, parents or dropped members, "
            "so the run went on without it" for rel, (line, msg) in sorted(index.syntax_errors.items()) if rel not in refused]


def tested(tree: Tree, options: Options, patches: list[ModulePatch], analyses: list[ClassAnalysis], verdicts, limits):
    """``--test``: the project's tests on copies of ROOT, unpatched and patched; what they said,
    and the verdicts again, with a test that the patch broke as a refusal of every decoupled class."""
    from .gate import gate
    from .rules import verdict_tests_failed
    from .verdict import decide

    tests = gate(tree.root, patches, options.test, options.test_timeout, options.keep_test_copies)
    if tests["broken"]:
        refused = verdict_tests_failed.refusal(tests["broken"])
        verdicts = [decide(a, refused, limits) if v.decision == Decision.DECOUPLE else v for a, v in zip(analyses, verdicts)]
    return tests, verdicts


def compute(tree: Tree, options: Options) -> Result:
    tree.begin_word_index()  # its workers read the tree while this process imports the analysis
    from .verdict import Limits, decide, would_decouple

    limits = Limits.of(options)
    if not options.outside_uses or options.root is None:
        tree.outside = None
    elif tree.outside is None:
        from .outside import outside_tree

        tree.outside = outside_tree(tree)
    index = Index(tree)
    parsed: dict = {}

    def parse_ahead(own: list[ClassAnalysis]) -> None:
        from .rewrite import parse_ahead

        if not options.analyse_only:
            parse_ahead([a for a in own if would_decouple(a, limits)], parsed)

    runtime = traced(index, options) if options.trace else None
    analyses = analyse_all(index, options.classes, options.parent, options.base, options.all_uses, options.markers,
                           while_waiting=parse_ahead, knowledge=options.knowledge, runtime=runtime and runtime.accesses,
                           progress=options.progress)
    first = analyses
    second = _second_pass(index, options, analyses, limits, runtime and runtime.accesses)
    analyses = [second[id(a)][0] if id(a) in second else a for a in analyses]
    warnings = unparsable_files(index, analyses)
    candidates = [a for a in analyses if would_decouple(a, limits)]
    patches, refusals = ([], {}) if options.analyse_only else build_patches(index, candidates, options.markers, options.presented,
                                                                              parsed)
    refused = {a.cls.name for a in candidates if id(a) in refusals}
    back = {id(a) for a in first if id(a) in second and second[id(a)][1] & refused}
    if back:  # a second analysis assumed a class decoupled whose patch is refused: the first stands
        analyses = [a if id(a) in back or id(a) not in second else second[id(a)][0] for a in first]
        candidates = [a for a in analyses if would_decouple(a, limits)]
        patches, refusals = build_patches(index, candidates, options.markers, options.presented, parsed)
    verdicts = [decide(a, refusals.get(id(a)), limits) for a in analyses]
    unsafe = any(v.decision == Decision.UNSAFE for v in verdicts)
    if unsafe:
        patches = []  # all or nothing: never emit half of a refactor
    tests = None
    if patches and options.test:
        tests, verdicts = tested(tree, options, patches, analyses, verdicts, limits)
        if tests["broken"]:
            unsafe, patches = True, []
    if patches and options.emit_tests:
        patches += regression_tests(tree, candidates, patches)
    pairs = list(zip(analyses, verdicts))
    from . import saving
    from .discover import DEFAULT_CONFIGURATION
    from .risk import answer_raising, assess, patched_trees

    risks, memory = {}, None
    if options.presented:
        decoupled = [a for a, v in pairs if v.decision == Decision.DECOUPLE]
        trees = patched_trees(patches) if decoupled else {}
        names = tuple(a.cls.name for a in decoupled)
        risks = {a.cls.name: assess(index, a, trees, names) for a in decoupled}
        answer_raising(index, decoupled, risks)
        memory = saving.configuration(index, DEFAULT_CONFIGURATION[0], DEFAULT_CONFIGURATION[1], decoupled) if decoupled else None
    return Result(
        report=report.build(tree.root, pairs, patches, risks, warnings, tests, runtime and runtime.entry, memory,
                            outside_searched(tree, options)),
        files=[Emitted(p.rel, p.before, p.after, p.encoding) for p in patches],
        diff="".join(unified_diff(p.rel, p.before, p.after) for p in patches),
        # "already decoupled" is its own verdict on the line as in the run's last line, not a decline.
        summary=[f"{a.cls.name}: {v.reason}" if v.rule == ALREADY_DECOUPLED else f"{a.cls.name}: {v.decision}: {v.reason}"
                 for a, v in pairs] or [nothing_left(tree, options)],
        check_lines=[(a.cls.file, a.cls.line, f"{a.cls.name} would be decoupled from {a.parent.name}: {v.reason}")
                     for a, v in pairs if v.decision == Decision.DECOUPLE],
        unsafe=unsafe,
        changes=any(v.decision == Decision.DECOUPLE for v in verdicts),
    )


def outside_searched(tree: Tree, options: Options) -> dict | None:
    """report.json's "outside": the project's files outside ROOT that DC115 searched (or that
    ``--no-outside-uses`` left unread); None when ROOT is not inside a larger project."""
    from .outside import outside_tree

    outside = tree.outside if options.outside_uses else (outside_tree(tree) if options.root is not None else None)
    if outside is None:
        return None
    return {"project": str(outside.root), "files": len(outside.files), "dirs": outside.dirs, "searched": options.outside_uses}


def traced(index: Index, options: Options):
    """``--trace``: the project's tests run once on a copy of ROOT, the selected classes instrumented
    (``runtime_trace``); what they read on instances, for DC120."""
    from .analyse import Analyzer
    from .runtime_trace import targets, trace

    analyzer = Analyzer(index)
    specs = targets(index, select(index, options.classes, options.parent, options.markers),
                    lambda parent: analyzer.chain(parent, options.base))
    return trace(index.tree.root, options.trace, options.test_timeout, specs)


def nothing_left(tree: Tree, options: Options) -> str:
    """The run's line when ``--parent P --no-markers`` finds no subclass of P: every one was
    decoupled by a patch that leaves no trace (DC507's "already decoupled", for the lot)."""
    return (f"{options.parent}: no subclass of it left under {display_path(tree.root)}: nothing to do (a class "
            f"decoupled from it with --no-markers keeps no trace of it)")


def _second_pass(index: Index, options: Options, analyses: list[ClassAnalysis], limits, runtime=None) -> dict:
    """DC153: the classes analysed again without the code that other classes decoupled in this
    run leave behind; ``id`` of a first analysis -> (second analysis, the classes it assumes)."""
    from .analyse import Analyzer
    from .rules import drop_gone_callers
    from .verdict import would_decouple

    def reanalyse(a: ClassAnalysis, gone: dict) -> ClassAnalysis:
        return Analyzer(index, None, options.all_uses, options.knowledge, gone=gone, runtime=runtime).analyse(a.cls, a.parent, options.base)

    return drop_gone_callers.joint(index, [a for a in analyses if would_decouple(a, limits)], reanalyse)


def run_pipeline(session) -> int:
    """The command line's run: ``session`` (a ``session.Session``) gives the result, cached or not."""
    result = session.result()
    if session.reused:
        print("decouple: reused the previous run's result (no file it depends on changed)", file=sys.stderr)
    try:
        return emit(session.tree.root, session.options, result, session.tree.test_hook)
    finally:
        session.close()
