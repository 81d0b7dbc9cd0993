"""``decouple scan``, second pass and output: the full analysis of the classes at the top of
the estimate (``scan.estimate``), then the table in one of three formats, or ``--check``'s findings.

The full analysis is a normal run's (``pipeline.compute``, with its cache, ``cache.RunCache``):
the verdict of a row is the one ``decouple ROOT --class C --check`` gives (for a class whose
parent is not its first base, ``--parent P``; for a parent that inherits its ``__init__``,
``--base`` the base of the ancestor that defines it).
"""

from __future__ import annotations

import gc
import json
import os
import sys
from dataclasses import dataclass

from .. import config
from ..console import check_line, counted, display_path
from ..discover import Tree
from ..dropped_work import size_text
from ..errors import EXIT_CHANGES, EXIT_OK, DecoupleError, UsageError
from ..interrupt import TICK, at, forking, ignoring_ctrl_c, in_child, wait_for
from ..model import ReadLog
from ..options import Options
from ..pipeline import Progress
from .estimate import Estimate, Plan, estimate_files, plan, rank
from .replaced import find as replaced_find
from .replaced import rank as replaced_rank
from .replaced import render as render_replaced


@dataclass
class Row:
    estimate: Estimate
    verdict: str | None = None  # decouple, decline, unsafe, error; None: not analysed
    reason: str = ""
    rule: str = ""
    # The full analysis' statement counts (report.json's init_reuse), where it ran: it keeps what the
    # sketch cannot see (validations, uses elsewhere in the tree), and the row says what that run's
    # own report says. The score stays the estimate's, which ranked the row.
    init_reuse: dict | None = None

    @property
    def skipped(self) -> tuple[int, int]:
        """(statements skipped, statements of the parent's ``__init__``)."""
        if self.init_reuse:
            total = self.init_reuse["statements_total"]
            return total - self.init_reuse["statements_kept"], total
        return self.estimate.skipped, self.estimate.init_statements

    def as_dict(self) -> dict:
        skipped, total = self.skipped
        return {**self.estimate.as_dict(), "skipped": skipped, "init_statements": total,
                "estimated_skipped": self.estimate.skipped, "verdict": self.verdict, "reason": self.reason, "rule": self.rule}


def selected(estimates: list[Estimate], top: int, min_saving: int | None) -> list[Estimate]:
    """The rows the full analysis runs on: the first ``top`` by score, and any scoring ``min_saving`` or more."""
    return [e for i, e in enumerate(estimates) if i < top or (min_saving is not None and e.score >= min_saving)]


def job(e: Estimate) -> tuple[str, str | None, str | None]:
    """The normal run that judges a row: (--class, --parent, --base); --parent only when the
    parent is not the class's first base, the one a run takes by default."""
    return e.cls, (None if e.first_base and e.base is None else e.parent), e.base


class Judges:
    """Worker processes that each run the normal pipeline on one class at a time.

    Forked before the first pass, while this process holds little more than the word index, and
    again for the full analyses (``judge``): each worker starts small, and frees each class's
    analysis before the next (a run of several classes at once holds all their parses)."""

    def __init__(self, tree: Tree, the_plan: Plan, file: dict, use_cache: bool):
        global _WORK
        _WORK = _Work(tree, the_plan, file, use_cache, _Counter())
        self.pool = None
        self.progress = Progress("parent files")

    def start(self) -> None:
        """Fork the workers, inside the ``try`` whose ``finally`` calls ``close``: a Ctrl-C as
        they start is taken when ``forking`` ends, ``self.pool`` set, so the pool still ends
        them. Only the pool may: a worker ended behind its back can hold the pool's lock, which
        the pool's own clean-up then waits for forever."""
        import multiprocessing

        if "fork" in multiprocessing.get_all_start_methods():
            # Made before the workers fork, while the word index's workers go on.
            _WORK.shares, _WORK.claims = shares(_WORK.plan), _Claims(_WORK.plan.parent_files)
            _WORK.tree.word_index  # noqa: B018 - built once, here, for every worker
            self._fork()

    def _fork(self, one_job_each: bool = False, jobs: int = 0) -> None:
        """``one_job_each``: a fresh process for each of ``jobs`` full analyses, one more at a
        time than there are cores (at most ``jobs``). They are few and unequal (4 to 8 s each on
        the 4x tree of ``benchmarks/scan_scale.py``): with one process per core, the last one
        runs alone while the other cores wait; one more keeps every core busy to the end, the
        system sharing them (the scan there: 0.52 of its CPU time in wall time, from 0.54)."""
        import multiprocessing

        size = min(WORKERS + 1, max(jobs, 1)) if one_job_each else WORKERS
        with forking():
            self.pool = multiprocessing.get_context("fork").Pool(size, initializer=_start_worker,
                                                                 maxtasksperchild=1 if one_job_each else None)

    def estimate(self, replaced: bool = False, ahead: bool = False) -> tuple[list[Estimate], list]:
        """The first pass, its parent files shared out to the workers (``shares``); with ``replaced``, the
        classes that throw away what their parent built too (``replaced.find``), else none. With
        ``ahead`` (several full analyses to come), this process, idle while the workers sketch,
        makes the searches of the whole tree that every analysis makes alike (``tree_wide``)."""
        tree, the_plan, counter = _WORK.tree, _WORK.plan, _WORK.counter
        total = len(the_plan.parent_files)

        def show() -> None:
            self.progress(counter.value, total, "their classes and subclasses sketched")

        if self.pool is None:
            parts = [_estimate_in(tree, the_plan, the_plan.parent_files, replaced, show)]
        else:
            waiting = self.pool.map_async(_estimate_part, [(i, replaced) for i in range(WORKERS)])
            if ahead:
                made_ahead(tree)
            wait_for(lambda tick: show() or waiting.wait(tick) or waiting.ready())
            parts = waiting.get()
        self.progress.close()
        return rank([e for part, _ in parts for e in part]), replaced_rank([f for _, part in parts for f in part])

    def judge(self, estimates: list[Estimate], say) -> list[Row]:
        jobs = [job(e) for e in estimates]
        if self.pool is not None and jobs:
            # Fresh workers for the full analyses: those of the first pass keep the memory its
            # sketches took (freed, not given back), under each analysis's own peak. A fresh one
            # for each analysis, too: what one leaves in cycles goes with its process, with no
            # collection (a second or so each), and the analysis is imported once, here.
            from .. import cache, pipeline  # noqa: F401

            self.close()
            self._fork(one_job_each=True, jobs=len(jobs))
            found = _in_ticks(self.pool.imap(_judge_one, jobs))
        else:
            found = (_collected(_judge_one(j)) for j in jobs)
        rows = []
        progress = Progress("candidates")
        progress.start -= 1.0  # each candidate takes seconds: the line shows from the first
        if estimates:
            progress(0, len(estimates), f"analysing {_short(estimates[0].cls)}")
        for i, (e, verdict) in enumerate(zip(estimates, found), 1):
            rows.append(Row(e, *verdict))
            progress.close()  # cleared before the line that says the verdict
            say(f"[{i}/{len(estimates)}] {_short(e.cls)}: {verdict[0]}")
            if i < len(estimates):
                progress(i, len(estimates), f"analysed; analysing {_short(estimates[i].cls)}")
        progress.close()
        return rows

    def close(self) -> None:
        if self.pool is not None:
            with ignoring_ctrl_c():  # a second Ctrl-C must not leave the pool half ended
                self.pool.terminate()
                self.pool.join()
            self.pool = None


def _in_ticks(results):
    """``results`` (a pool's ``imap``), each waited for in ticks (``interrupt.wait_for``)."""
    import multiprocessing

    while True:
        try:
            yield results.next(TICK)
        except multiprocessing.TimeoutError:
            continue
        except StopIteration:
            return


WORKERS = max(1, min(4, os.cpu_count() or 1))
_WORK: "_Work | None" = None  # what a forked worker inherits


@dataclass
class _Work:
    tree: Tree
    plan: Plan
    file: dict  # [tool.decouple]
    use_cache: bool
    counter: "_Counter"  # parent files done, by every worker
    # With a pool of workers: each worker's parent files (``shares``), and those taken, by every worker.
    shares: list[list[str]] | None = None
    claims: "_Claims | None" = None


def made_ahead(tree: Tree) -> None:
    """The answers every full analysis asks alike (``tree_wide``), made once for the analyses
    forked after this (2 s a search on the 4x tree of ``benchmarks/scan_scale.py``). Only
    searches almost every analysis makes are here: one made for none is work lost."""
    from ..index import Index
    from ..rules import keep_structural_tests

    keep_structural_tests.registrations(Index(tree))


def _unseen(tree: Tree) -> bool:
    """Whether no earlier run kept a word index of the tree (``--no-cache`` keeps none): then no
    full analysis can come from the run cache, and their shared searches are worth making ahead;
    on a tree seen before (a scan in CI) they would mostly be work lost. Only the cost depends
    on this guess: an analysis without the answer made ahead makes it itself."""
    return tree.word_index.reused == 0


def _start_worker() -> None:  # pragma: no cover - the child
    in_child()
    gc.freeze()  # what it inherited stays out of each collection


def _estimate_part(spec: tuple[int, bool]) -> tuple[list[Estimate], list]:
    i, replaced = spec
    work = _WORK
    if i == 0:
        at(work.tree.test_hook, "scan-pool-worker", in_worker=True)
    return _estimate_in(work.tree, work.plan, in_turn(work.shares, i), replaced, work.counter.add, work.claims.take)


# How much more than the least loaded worker's the one whose files overlap most may take, as a
# share of a worker's average (``shares``). Measured on the 4x tree of ``benchmarks/scan_scale.py``,
# sketches the two workers parse in all: 13,421 in runs of 32 neighbours dealt in turn, 11,804 at 0.05.
SLACK = 0.05


def shares(the_plan: Plan, workers: int = WORKERS) -> list[list[str]]:
    """Each worker's parent files, in the tree's order: each file goes to the worker that already
    has most of the files it needs read (``Plan.files_of``: its subclasses' files, parsed once in
    one worker rather than once in each), unless that worker would then hold SLACK more than
    the one that would hold least, counted in characters of files new to the worker.

    Characters are a poor measure of a parent file's work (the estimates, not only the parses),
    so the shares end unequal: the workers take each other's files from the end (``in_turn``)."""
    held: list[set[str]] = [set() for _ in range(workers)]
    load, out = [0] * workers, [[] for _ in range(workers)]
    size = the_plan.sizes
    for prel in the_plan.parent_files:
        files = the_plan.files_of(prel)
        new = [sum(size.get(rel, 0) for rel in files if rel not in held[w]) for w in range(workers)]
        near = min(range(workers), key=lambda w: (new[w], load[w], w))
        least = min(range(workers), key=lambda w: (load[w] + new[w], w))
        w = near if load[near] + new[near] <= load[least] + new[least] + SLACK * sum(load) / workers else least
        out[w].append(prel)
        held[w] |= files
        load[w] += new[w]
    return out


def in_turn(parts: list[list[str]], i: int) -> list[str]:
    """The order worker ``i`` takes parent files in: its own share first, then the others'
    from their ends, where their own workers reach last."""
    return parts[i] + [rel for j in range(len(parts)) if j != i for rel in reversed(parts[j])]


def _estimate_in(tree: Tree, the_plan: Plan, files: list[str], replaced: bool, done, claim=None) -> tuple[list[Estimate], list]:
    found: list = []

    def each_first_base(index, cls, parent) -> None:
        f = replaced_find(index, cls, parent)
        if f is not None:
            found.append(f)

    return estimate_files(tree, the_plan, files, each_first_base if replaced else None, done, claim), found


class _Counter:
    """The parent files done, by every worker of the pool: a shared integer, made before they fork."""

    def __init__(self):
        import multiprocessing

        self.shared = multiprocessing.get_context("fork").Value("i", 0) \
            if "fork" in multiprocessing.get_all_start_methods() else None
        self.local = 0

    def add(self) -> None:
        if self.shared is None:
            self.local += 1
            return
        with self.shared.get_lock():  # the workers add to it side by side
            self.shared.value += 1

    @property
    def value(self) -> int:
        return self.shared.value if self.shared is not None else self.local


class _Claims:
    """Which parent files a worker has taken (a shared byte each, made before they fork): each
    is done once, by the first worker to reach it."""

    def __init__(self, files: list[str]):
        import multiprocessing

        self.index = {rel: k for k, rel in enumerate(files)}
        self.shared = multiprocessing.get_context("fork").Array("b", max(len(files), 1))

    def take(self, prel: str) -> bool:
        k = self.index[prel]
        with self.shared.get_lock():  # two workers may reach the last files together
            if self.shared[k]:
                return False
            self.shared[k] = 1
            return True


def _judge_one(spec: tuple[str, str | None, str | None]) -> tuple[str, str, str, dict | None]:
    work = _WORK
    tree, file, use_cache = work.tree, work.file, work.use_cache
    try:
        return _verdict(tree, *spec, file, use_cache)
    except DecoupleError as exc:
        return "error", str(exc), "", None
    except Exception as exc:  # a bug of ours: the row says so, the other rows still get theirs
        return "error", f"internal error: {type(exc).__name__}: {exc}", "", None


def _collected(verdict):
    """In one process (no fork), what an analysis left in cycles goes before the next one."""
    gc.collect()
    return verdict


def _verdict(tree: Tree, cls: str, parent: str | None, base: str | None, file: dict,
             use_cache: bool) -> tuple[str, str, str, dict | None]:
    from ..cache import RunCache
    from ..pipeline import compute

    name = cls.rpartition(":")[2]
    options = Options(root=str(tree.root), classes=(cls,), parent=parent, base=base, check=True, progress=False,
                      no_cache=not use_cache, max_copied_share=float(file.get("max-copied-share", 0.5)),
                      plain_gain=file.get("plain-gain", False), any_gain=file.get("any-gain", False),
                      keep=file.get("keep", "possible"),
                      assume_unused=tuple(q for q in file.get("assume-unused", ()) if q.partition(".")[0] == name))
    cache = RunCache(tree, options) if use_cache else None
    result = cache.load() if cache is not None else None
    if result is None:
        tree.reads = ReadLog()  # what this class's analysis read is what its result depends on
        result = compute(tree, options)
        if cache is not None:
            cache.store(result)
    c = next(c for c in result.report["classes"] if c["qualname"] == cls)
    return c["decision"], c["reason"], c["rule"], c.get("init_reuse")


# ---- output ----------------------------------------------------------------------------

def work_text(e: Estimate) -> str:
    """What an instance stops paying, in a few words."""
    parts = []
    if e.constructions:
        parts.append(f"{len(e.constructions)} built")
    if e.allocations:
        size = f" ({size_text(e.bytes)})" if e.bytes else ""
        parts.append(f"{counted(len(e.allocations), 'allocation')}{size}")
    if e.loops:
        parts.append(counted(e.loops, "loop"))
    if e.calls:
        parts.append(counted(e.calls, "call"))
    if e.writes:
        parts.append(counted(e.writes, "global write"))
    return ", ".join(parts) or "assignments only"


def _short(q: str) -> str:
    return q.rpartition(":")[2]


def _cells(i: int, r: Row) -> list[str]:
    e = r.estimate
    return [str(i), str(e.score), str(e.saving), _short(e.cls), _short(e.parent), "{}/{}".format(*r.skipped), work_text(e),
            f"{len(e.needs)}, {round(100 * e.copied_share)}%", r.verdict or "-"]


HEADER = ["#", "score", "saving", "class", "parent", "skipped", "stops paying", "needs, copied", "verdict"]


NONE = "no class pays for parent __init__ work it does not use\n"


def render_text(rows: list[Row], root, more: int) -> str:
    if not rows:
        return NONE
    table = [HEADER] + [_cells(i, r) for i, r in enumerate(rows, 1)]
    widths = [max(len(line[k]) for line in table) for k in range(len(HEADER))]
    out = []
    for n, line in enumerate(table):
        out.append("  ".join(c.rjust(w) if k < 3 else c.ljust(w) for k, (c, w) in enumerate(zip(line, widths))).rstrip())
        if n:
            r = rows[n - 1]
            pad = " " * (widths[0] + 2)
            out.append(f"{pad}{display_path(root / r.estimate.file)}:{r.estimate.line}")
            if r.reason:
                out.append(f"{pad}{r.reason}")
    if more:
        out.append(f"({counted(more, 'more class', 'more classes')} below the cut: --top or --min-saving to analyse them)")
    return "\n".join(out) + "\n"


def render_markdown(rows: list[Row], more: int) -> str:
    if not rows:
        return NONE
    head = HEADER[:6] + ["file", *HEADER[6:], "reason"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, r in enumerate(rows, 1):
        c = _cells(i, r)
        cells = c[:3] + [f"`{c[3]}`", f"`{c[4]}`", c[5], f"`{r.estimate.file}:{r.estimate.line}`", c[6], c[7],
                         f"**{c[8]}**" if r.verdict == "decouple" else c[8], r.reason]
        out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    if more:
        out.append(f"\n{counted(more, 'more class', 'more classes')} below the cut (`--top`, `--min-saving`).")
    return "\n".join(out) + "\n"


def render_json(rows: list[Row]) -> str:
    return json.dumps([r.as_dict() for r in rows], indent=2) + "\n"


def ignored(row: Row, allow: list[str]) -> bool:
    """Whether ``scan-ignore`` names the row's class: ``Name``, ``module:Name`` or ``module.Name``."""
    q = row.estimate.cls
    return any(a in (_short(q), q, q.replace(":", ".")) for a in allow)


# ---- the command -----------------------------------------------------------------------

def run_scan(args) -> int:
    from ..discover import DEFAULT_PACKAGE, DEFAULT_VERSION, open_tree
    from ..word_index import snapshot_path

    if args.top < 0:
        raise UsageError(f"--top takes a number of classes, 0 or more, got {args.top}")
    if args.min_saving is not None and args.min_saving < 0:
        raise UsageError(f"--min-saving takes a number of points, 0 or more, got {args.min_saving}")
    root, file = config.settle(args.root, args.sglang, DEFAULT_PACKAGE, DEFAULT_VERSION)
    tree = open_tree(root, args.sglang or DEFAULT_VERSION)
    use_cache = not args.no_cache
    if use_cache:
        tree.index_snapshot = snapshot_path(tree.root)
    tree.begin_word_index()

    def say(msg: str) -> None:
        print(f"decouple scan: {msg}", file=sys.stderr, flush=True)

    say(f"estimating what each class pays of its parents' __init__ under {display_path(tree.root)}")
    the_plan = plan(tree)
    say(f"{counted(len(the_plan.defined), 'class', 'classes')} in {counted(len(tree.files), 'file')}, "
        f"{len(the_plan.named)} of them parents of others")
    judges = Judges(tree, the_plan, file, use_cache)
    try:
        judges.start()
        several = args.top > 1 or args.min_saving is not None
        estimates, replaced = judges.estimate(replaced=args.replaced, ahead=several and not args.replaced and _unseen(tree))
        if args.replaced:
            if args.check:
                raise UsageError("--replaced lists findings; --check is for the classes to decouple")
            say(f"{counted(len(replaced), 'class throws', 'classes throw')} away objects their parent's __init__ built")
            sys.stdout.write(render_replaced(replaced, args.top, args.format, tree.root))
            return EXIT_OK
        chosen = selected(estimates, args.top, args.min_saving)
        say(f"{counted(len(estimates), 'class pays', 'classes pay')} for parent work they skip; "
            f"the full analysis runs on {len(chosen)}")
        rows = judges.judge(chosen, say)
    finally:
        judges.close()
        if use_cache:
            tree.write_index_snapshot()
    more = len(estimates) - len(rows)
    if args.check:
        return _check(rows, list(file.get("scan-ignore", ())), tree, say)
    if args.format == "json":
        sys.stdout.write(render_json(rows))
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(rows, more))
    else:
        sys.stdout.write(render_text(rows, tree.root, more))
    return EXIT_OK


def _check(rows: list[Row], allow: list[str], tree: Tree, say) -> int:
    found = [r for r in rows if r.verdict == "decouple" and not ignored(r, allow)]
    for r in found:
        e = r.estimate
        cls, parent, base = job(e)
        command = f"decouple --class {cls}" + (f" --parent {parent}" if parent else "") + (f" --base {base}" if base else "")
        print(check_line("text", tree.root, e.file, e.line,
                         f"{_short(e.cls)} pays for {_short(e.parent)}.__init__ work it does not use "
                         "({} of {} statements: ".format(*r.skipped) + f"{work_text(e)}); "
                         f"`{command}` would decouple it, or add it to scan-ignore"))
    known = sum(1 for r in rows if r.verdict == "decouple") - len(found)
    say(f"{counted(len(found), 'class', 'classes')} to decouple" + (f", {known} in scan-ignore" if known else ""))
    return EXIT_CHANGES if found else EXIT_OK
