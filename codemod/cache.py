"""A cache of whole runs, so that a warm ``--check`` (CI, pre-commit) costs a stat per file.

A run's result depends only on the files whose text it read and on which
files contain the words it looked files up by (``Tree.reads``, a ``ReadLog``). The cache keeps both, with
each file's size and modification time. A later run with the same arguments and the same
tool reuses the result when, for every file that changed since (by size or mtime):

* its content hash is unchanged (a touch, a fresh checkout: the cache keeps every file's hash,
  which the word index computed anyway); or
* it was not read by the run, and it does not contain any of the words the run looked for
  (so no lookup would have returned it: it cannot hold the classes or the members involved).

Anything else runs the analysis again. Entries live in ``<user cache>/runs/``; a cache that
cannot be written is simply not used.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .discover import Tree
from .fileio import cache_dir, write_cache_file
from .model import Result
from .options import Options
from .word_index import snapshot_path, words_in

KEEP = 64  # cache entries kept


def code_hash() -> str:
    """The tool's own source, every module of the package: a new version (or a local edit)
    never reuses old results."""
    h = hashlib.sha1()
    package = Path(__file__).parent
    for p in sorted(package.rglob("*.py")):
        h.update(p.relative_to(package).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def open_run(tree: Tree, options: Options) -> "RunCache | None":
    """The run's cache entry, or None when the cache is off (``--no-cache``; ``--test`` and
    ``--trace``, whose tests may read what the cache does not watch). The tree's word index is kept with the cache;
    with no result stored for this run, the index starts now, so that its worker processes
    read the tree while the caller imports the pipeline."""
    cache = None if options.no_cache or options.test or options.trace else RunCache(tree, options)
    if cache is not None:
        tree.index_snapshot = snapshot_path(tree.root)
    if cache is None or not cache.path.exists():
        tree.begin_word_index()
    return cache


class RunCache:
    """The cache entry of one run: its key is the tool's code, ROOT and the options."""

    def __init__(self, tree: Tree, options: Options):
        self.tree = tree
        key = json.dumps([code_hash(), str(tree.root), *options.cache_key()])
        self.path = cache_dir() / "runs" / (hashlib.sha1(key.encode()).hexdigest() + ".json")
        self.outside = options.outside_uses and options.root is not None  # DC115 reads the project around ROOT

    def load(self) -> Result | None:
        return load(self.tree, self.path, self.outside)

    def store(self, result: Result) -> None:
        store(self.tree, self.path, result)


def _sha1(path: Path) -> str | None:
    try:
        return hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return None


def load(tree: Tree, path: Path, outside: bool = False) -> Result | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if outside and data.get("outside") != outside_stats(tree):
        return None
    old, now = data["stats"], tree.stats()
    consulted, words = data["consulted"], set(data["words"])
    hashes = data.get("hashes", {})
    retimed = False
    for rel in set(old) | set(now):
        if old.get(rel) == now.get(rel):
            continue
        known = consulted.get(rel) or hashes.get(rel)
        if known is not None and rel in now and known == _sha1(tree.root / rel):
            retimed = True  # new time, same content
            continue
        if rel in consulted:
            return None
        if rel in now:
            try:
                content = (tree.root / rel).read_bytes()
            except OSError:
                return None
            # The same tokenising as the word index, so "mentions a word" means the same here.
            if not words.isdisjoint(w.decode("utf-8", "replace") for w in words_in(content)):
                return None
    if retimed:  # so that the next run finds the new times and hashes nothing
        _write(path, {**data, "stats": now})
    return Result.from_json(data["result"])


def _seen(tree: Tree) -> tuple[dict, dict, dict]:
    """Each file's [size, mtime] and sha1, and each consulted file's sha1, as this run saw them.

    The word index read and hashed every file already; the cost of reading the consulted
    ones again is paid only when there is no index (a run that never looked a word up).
    """
    index = tree.__dict__.get("word_index")
    if index is None:
        return tree.stats(), {}, {rel: _sha1(tree.root / rel) for rel in sorted(tree.reads.consulted)}
    meta = dict(zip(tree.files, index.meta))
    stats = {rel: [m[0], m[1]] for rel, m in meta.items() if m is not None}
    hashes = {rel: m[2].hex() for rel, m in meta.items() if m is not None}
    consulted = {rel: hashes.get(rel) or _sha1(tree.root / rel) for rel in sorted(tree.reads.consulted)}
    return stats, hashes, consulted


def outside_stats(tree: Tree) -> dict | None:
    """The size and time of each of the project's files outside ROOT (DC115 may read any of
    them; a change to one runs the analysis again), None when ROOT is not in a larger project."""
    from .outside import outside_tree

    outside = tree.outside if tree.outside is not None else outside_tree(tree)
    return None if outside is None else {"project": str(outside.root), "stats": outside.stats()}


def store(tree: Tree, path: Path, result: Result) -> None:
    stats, hashes, consulted = _seen(tree)
    data = {
        "outside": outside_stats(tree) if tree.outside is not None else None,
        "stats": stats,
        "hashes": hashes,
        "consulted": consulted,
        "words": sorted(tree.reads.queried),
        "result": result.to_json(),
    }
    _write(path, data)


def _write(path: Path, data: dict) -> None:
    write_cache_file(path, json.dumps(data).encode(), KEEP)
