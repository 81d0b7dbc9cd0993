"""Scan every other class in a forked worker process, for ``pipeline.analyse_all``.

Searching the tree for the uses of a parent's members is most of a run, and each class's
search depends only on that class (``Analyzer.scan`` starts from a fresh ``Flow``). So a
worker forked after the word index scans the 2nd, 4th, ... class while this process
analyses the others, and this process then replays the worker's scans (``Scanned``): the
report is the one a single process would write.
"""

from __future__ import annotations

from .analyse import Analyzer, Scanned
from .discover import Tree


PARALLEL_FROM = 1000  # files in the tree; below this a worker costs more than it saves
_WORK = None  # what a forked worker analyses: (analyzer, pairs, base)


def scan_in_worker(analyzer: Analyzer, pairs, base) -> "WorkerScans":
    """Scan every other class (the 2nd, 4th, ...) in a forked process, while this one analyses
    the others; this process then replays those scans instead of running them.

    Each class's scan starts from the same state in either process (a fresh ``Flow`` and
    the class's own preparation), so the results are those of a run in one process. A
    class whose scan fails in the worker is simply analysed here, as if alone.
    """
    global _WORK
    import multiprocessing

    tree = analyzer.index.tree
    if len(pairs) < 2 or len(tree.files) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return WorkerScans(None, set(), tree)
    _WORK = (analyzer, pairs, base)
    try:
        pool = multiprocessing.get_context("fork").Pool(1)
    finally:
        _WORK = None
    theirs = list(range(1, len(pairs), 2))
    ws = WorkerScans(pool, set(theirs), tree)
    ws.pending = pool.apply_async(_worker_scans, (theirs,))
    return ws


class WorkerScans:
    """The worker's scans by class number, waited for when one of them is first asked for."""

    def __init__(self, pool, theirs: set[int], tree: Tree):
        self.pool, self.theirs, self.tree = pool, theirs, tree
        self.pending = None
        self.scans: dict[int, Scanned] = {}

    def get(self, i: int) -> Scanned | None:
        if i in self.theirs and self.pending is not None:
            pending, self.pending = self.pending, None
            try:
                scans, consulted, queried = pending.get()
            except Exception:  # the worker died or could not send: analyse here instead
                return None
            self.scans = scans
            # What the worker read is what this run depends on (for the warm-run cache).
            self.tree.consulted |= consulted
            self.tree.queried |= queried
        return self.scans.get(i)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.terminate()


def _worker_scans(indices: list[int]):
    analyzer, pairs, base = _WORK
    analyzer.progress = None
    out = {}
    for i in indices:
        cls, p = pairs[i]
        try:
            a = analyzer.prepare(cls, p, base)
            if not a.nothing_to_do:
                out[i] = analyzer.scan(a)
        except Exception:
            pass  # analysed again in the parent, which reports the error in class order
    tree = analyzer.index.tree
    return out, tree.consulted, tree.queried
