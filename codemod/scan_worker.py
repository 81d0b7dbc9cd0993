"""Scan every other class in a forked worker process, for ``pipeline.analyse_all``.

Searching the tree for the uses of a parent's members is most of a run, and each class's
search depends only on that class (``Analyzer.scan`` starts from a fresh ``ClassState``).
So a worker forked after the word index scans half of the classes while this process
analyses the others, and this process then replays the worker's scans (``Scanned``): the
report is the one a single process would write. The worker takes the classes with the
largest parents (by source lines, a proxy for the members to search for), this process the
smaller ones: it has work of its own to do while it waits (``WorkerScans.busy``).
"""

from __future__ import annotations

import multiprocessing
import os

from .analyse import Analyzer
from .discover import Tree
from .interrupt import at, forking, in_child, wait_for
from .model import Scanned

PARALLEL_FROM = 1000  # files in the tree; below this a worker costs more than it saves


def scan_in_worker(analyzer: Analyzer, pairs, base) -> "WorkerScans":
    """Scan half of the classes (the 1st, 3rd, ... by the size of their parent, largest first)
    in a forked process, while this one analyses the others; this process then replays those
    scans instead of running them.

    Each class's scan starts from the same state in either process (a fresh state and the
    class's own preparation), so the results are those of a run in one process. A class
    whose scan fails in the worker is simply analysed here, as if alone.
    """
    tree = analyzer.index.tree
    if len(pairs) < 2 or len(tree.files) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return WorkerScans(None, None, set(), tree)
    # The word index is finished here, before the fork: a child cannot join the processes that
    # build it (they are its parent's), and would scan nothing while this process scans everything.
    tree.word_index  # noqa: B018 - a cached property, built on first access
    by_size = sorted(range(len(pairs)), key=lambda i: (-_lines(pairs[i][1]), i))
    theirs = sorted(by_size[0::2])
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    # A forked child inherits the analyzer as it is: nothing is pickled on the way in.
    proc = ctx.Process(target=_worker_scans, args=(send, receive, analyzer, pairs, base, theirs), daemon=True)
    with forking():
        proc.start()
    send.close()
    return WorkerScans(proc, receive, set(theirs), tree)


def _lines(cls) -> int:
    if cls is None:  # no parent found: the class is settled without a search
        return 0
    node = cls.node
    return (getattr(node, "end_lineno", None) or node.lineno) - node.lineno


class WorkerScans:
    """The worker's scans by class number, waited for when one of them is first asked for."""

    def __init__(self, proc, receive, theirs: set[int], tree: Tree):
        self.proc, self.receive, self.theirs, self.tree = proc, receive, theirs, tree
        self.scans: dict[int, Scanned] | None = None

    def busy(self) -> bool:
        """Whether the worker is still scanning (nothing has come back yet)."""
        return self.proc is not None and self.scans is None and not self.receive.poll()

    def get(self, i: int) -> Scanned | None:
        if i in self.theirs and self.scans is None:
            self.scans = {}
            try:
                wait_for(self.receive.poll)
                scans, reads = self.receive.recv()
            except (EOFError, OSError):  # the worker died or could not send: analyse here instead
                return None
            self.scans = scans
            # What the worker read is what this run depends on (for the warm-run cache).
            self.tree.reads.merge(reads)
        return (self.scans or {}).get(i)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.receive.close()
            if self.proc.is_alive():
                self.proc.terminate()
            self.proc.join()


def _worker_scans(send, receive, analyzer: Analyzer, pairs, base, indices: list[int]) -> None:  # pragma: no cover - the child
    in_child()
    # Whatever happens here (the main process stopped reading, a scan failed), the worker says
    # nothing and the main process does the work: it leaves at once, and never by an exception.
    try:
        receive.close()  # the read end: a send to a main process that has gone fails instead of waiting for ever
        tree = analyzer.index.tree
        at(tree.test_hook, "scan-worker", in_worker=True)
        analyzer.progress = None
        out = {}
        for i in indices:
            cls, p = pairs[i]
            try:
                st = analyzer.prepare(cls, p, base)
                if not st.a.nothing_to_do:
                    out[i] = analyzer.scan(st)
            except Exception:
                pass  # analysed again in the parent, which reports the error in class order
        send.send((out, tree.reads))
        send.close()
    finally:
        os._exit(0)
