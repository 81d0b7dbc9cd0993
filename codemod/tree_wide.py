"""Answers that depend on the tree's files alone, kept on the tree for every index of the run.

Some searches of the whole tree are the same whichever class asks (the classes that abstract
classes register, DC114). One run's indexes share them: the scan's full analyses each have an
index of their own, in processes forked after the scan's main process made the answers
(``scan.report.Judges``).

What proves an answer taken the same as one made: it is made on a fresh index of its own, with no
budget, so nothing of the asking index reaches it; what making it read and could not parse is kept
with it (every file it needs is read afresh, so that log is whole), and every index that takes the
answer takes those on too, as if it had made it: the warm cache's dependencies (``Tree.reads``) and
DC306's unparsable files (``Index.syntax_errors``).

Known limits: an answer must be plain data (names), never nodes, which belong to the modules of the
index that parsed them; a module the asking index had parsed already is parsed again to make the
answer (a few, once per run).
"""

from __future__ import annotations

from .index import Index
from .model import ReadLog


def answer(index, key: str, fn):
    """``fn(an index)``, once per run and tree (``Tree.answers``), taken into ``index``."""
    return index.once(key, lambda: _take(index, key, fn))


def _take(index, key: str, fn):
    made = index.tree.answers.get(key)
    if made is None:
        made = index.tree.answers[key] = _apart(index, fn)
    value, read, errors = made
    index.tree.reads.merge(read)
    for rel, error in errors.items():
        index.syntax_errors.setdefault(rel, error)
    return value


def _apart(index, fn):
    """(``fn``'s answer, what it read, the files it could not parse), on an index of its own."""
    tree = index.tree
    apart = Index(tree)
    kept, tree.reads = tree.reads, ReadLog()
    try:
        value = fn(apart)
        read = tree.reads
    finally:
        tree.reads = kept
    for rel, mod in apart._modules.items():
        index._modules.setdefault(rel, mod)  # parsed anyway: as ``Index.once`` would have left them
    return value, read, apart.syntax_errors
