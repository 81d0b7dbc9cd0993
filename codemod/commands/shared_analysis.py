"""decouple's analysis done once per invocation of LibCST's driver, for every process it forks.

LibCST's driver (``python -m libcst.tool codemod``) makes a command per file and spreads the
files over worker processes, each writing its file as soon as it is transformed. The analysis
must see the tree as it was before any of them wrote: so the first file of the invocation runs
it, under a lock, and stores what each file becomes in a record that every other file, in any
process, reads. The record is named by the invocation (``multiprocessing``'s authentication
key: random in each interpreter, inherited by the processes it starts) and by ROOT and the
options; it lives in the user cache directory, never under ROOT.

Before a file is handed its new text, its text is compared with the one the analysis read (a
patched file) or its size and time with those the analysis saw (any other file): a file that
changed since is an error, not a guess.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import multiprocessing
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import DecoupleError, UsageError
from ..fileio import cache_dir, write_cache_file

KEEP = 16  # records kept: one per invocation, so only the last few are of any use


@dataclass
class Record:
    """What the analysis decided, as each file needs it."""

    stats: dict[str, list[int]] = field(default_factory=dict)  # each file's [size, mtime_ns] when the analysis began
    files: dict[str, list] = field(default_factory=dict)  # path from ROOT -> [before, after, encoding]
    summary: list[str] = field(default_factory=list)  # "Class: decision: reason", each class
    warnings: list[str] = field(default_factory=list)
    unsafe: bool = False
    error: str | None = None  # the analysis failed: the first file raises it, the others are skipped


class SharedAnalysis:
    """The analysis of ``root`` with ``options`` (``codemod.decouple``'s keyword arguments),
    shared by the files of one invocation. ``made_here``: this file ran it (and says its verdicts)."""

    def __init__(self, root: Path, options: dict):
        self.root = root
        self.options = options
        token = multiprocessing.current_process().authkey.hex()
        key = json.dumps([token, str(root), sorted(options.items())], default=list)
        self.path = cache_dir() / "libcst-runs" / (hashlib.sha1(key.encode()).hexdigest() + ".json")
        self.made_here = False

    def record(self) -> Record:
        found = self._load()
        if found is not None:
            return found
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.parent / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            found = self._load()
            if found is not None:
                return found
            record = self._analyse()
            write_cache_file(self.path, json.dumps(asdict(record)).encode(), KEEP)
            if not self.path.exists():
                raise UsageError(f"cannot write {self.path}, which the driver's processes share; "
                                 "check the user cache directory (or DECOUPLE_CACHE_DIR)")
            self.made_here = True
            return record

    def _load(self) -> Record | None:
        try:
            return Record(**json.loads(self.path.read_text()))
        except FileNotFoundError:
            return None

    def _analyse(self) -> Record:
        from .. import api
        from ..discover import Tree

        try:
            stats = Tree.open(self.root).stats()
            result = api.decouple(self.root, **self.options)
        except DecoupleError as exc:
            return Record(error=str(exc))
        return Record(stats, {f.path: [f.before, f.after, f.encoding] for f in result.patch.files}, list(result.summary),
                      list(result.warnings), result.unsafe)

    def new_text(self, record: Record, rel: str, text: str) -> tuple[str, str] | None:
        """``rel``'s new text and encoding, or None when the patch leaves it as it is; an error
        when it changed since the analysis read it."""
        patched = record.files.get(rel)
        if patched is not None:
            before, after, encoding = patched
            if text == before:
                return after, encoding
            if text == after:  # patched already
                return None
            raise UsageError(f"{rel} changed since decouple analysed it; run the codemod again")
        seen = record.stats.get(rel)
        try:
            st = os.stat(self.root / rel)
        except OSError:
            st = None
        if seen is not None and (st is None or [st.st_size, st.st_mtime_ns] != seen):
            raise UsageError(f"{rel} changed since decouple analysed it; run the codemod again")
        return None
