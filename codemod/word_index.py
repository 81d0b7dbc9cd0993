"""The word index: which files mention an identifier, the prefilter that runs before any parse.

Every run needs it over the whole tree, so it is built for speed:

* tokenising is a byte translation (everything but identifier characters becomes a space)
  and ``split``: no regex, no decoding;
* big trees are split across worker processes;
* with the cache on, the index is kept in the user cache directory beside each file's size,
  modification time and content hash. The next run re-reads only the files whose size or
  time changed, and re-tokenises only those whose content did (a checkout or ``touch``
  changes times, not contents). The snapshot is written by a forked child once the run is
  done, so a cold run does not wait for it.
"""

from __future__ import annotations

import hashlib
import os
import marshal
import sys
from array import array
from collections import defaultdict, deque
from itertools import repeat
from pathlib import Path

from .fileio import cache_dir, decode_source, write_cache_file
from .interrupt import TestHook, at, forking, in_child, wait_for
from .text_facts import facts

# Identifier characters (ASCII letters, digits, "_", and every byte of a non-ASCII
# character) stay; all else becomes a space. Runs of these are a superset of identifiers.
WORD_BYTES = bytes(c if (chr(c).isalnum() or c == 0x5F or c >= 0x80) else 0x20 for c in range(256))
PARALLEL_FROM = 1000  # files; below this a second process costs more than it saves
SNAPSHOT_VERSION = 4
KEEP = 8  # snapshots kept (one per tree)

Meta = tuple | None  # (size, mtime_ns, sha1 digest) of one file, or None when unreadable


def words_in(data: bytes) -> set[bytes]:
    """The identifier-like words of a file's bytes (a superset of its identifiers), and the
    marker words of ``text_facts``."""
    if data[:3] == b"\xef\xbb\xbf" or b"coding" in data[:300]:
        # Possibly not UTF-8 (PEP 263): take the words of the decoded text.
        try:
            data = decode_source(data)[0].encode("utf-8")
        except (UnicodeDecodeError, SyntaxError, LookupError):
            pass
    words = set(data.translate(WORD_BYTES).split())
    words.update(facts(data, words))  # the rare shapes some searches test texts for (``text_facts``)
    return words


def _jobs(n_files: int) -> int:
    import multiprocessing

    if n_files < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(os.cpu_count() or 1, 4))


def _code(n_files: int) -> str:
    return "H" if n_files < 1 << 16 else "L"


def _unpack(v, code: str):
    if isinstance(v, bytes):
        a = array(code)
        a.frombytes(v)
        return a
    return v


def _index_part(root: Path, files: list[str], ids: list[int], known: dict[int, bytes],
                index: defaultdict[bytes, list[int]], meta: dict[int, Meta]):
    """Add the files ``ids`` to ``index`` (word -> ids, a ``defaultdict(list)``: see ``_done``)
    and ``meta`` (id -> Meta); returns both.

    ``known``: ids whose content hash a snapshot already has; when the hash still matches,
    the file is not tokenised again (its Meta comes back, its words do not).
    """
    base = os.path.join(root, "")  # plain strings and one open per file: no Path objects, no second lookup
    for i in ids:
        try:
            with open(base + files[i], "rb", buffering=0) as f:
                st = os.fstat(f.fileno())
                data = f.readall()
        except OSError:
            meta[i] = None  # reported when the file is consulted
            continue
        digest = hashlib.sha1(data).digest()
        meta[i] = (st.st_size, st.st_mtime_ns, digest)
        if known.get(i) == digest:
            continue
        # ``i`` goes onto each word's list with no Python-level step per word (a file has hundreds
        # of words, the tree millions): the defaultdict makes a new word's list, map and deque
        # run the lookups and appends in C.
        deque(map(_append, map(index.__getitem__, words_in(data)), repeat(i)), 0)
    return index, meta


_append = list.append


def _done(index: defaultdict) -> dict[bytes, list[int]]:
    """An index whose building is over: a lookup of a missing word no longer adds it."""
    index.default_factory = None
    return index


CHUNK = 64  # files a process claims at a time: small enough to even out, big enough to cost no lock traffic
PACK_RATIO = 12  # a worker sends its index in about a twelfth of the time it took to build it


class _Build:
    """An index of ``ids`` under way: worker processes start at once and claim chunks of files
    from a shared counter; ``finish`` joins them in this process, which claims chunks from the
    same counter until none is left. Whatever this process does between the two (imports, set-up)
    is work the workers take over: the chunks even out by themselves."""

    def __init__(self, root: Path, files: list[str], ids: list[int], known: dict[int, bytes],
                 hook: TestHook | None = None):
        self.args = (root, files, ids, known)
        self.hook = hook
        self.chunks = [ids[k:k + CHUNK] for k in range(0, len(ids), CHUNK)]
        self.workers: list = []
        self.next = None  # the shared counter of claimed chunks, when there are workers
        self.pid = os.getpid()  # the process that started the workers, the only one that may join them
        jobs = _jobs(len(ids))
        if jobs == 1:
            return
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.next = ctx.Value("i", 0)
        with forking():
            for k in range(jobs - 1):
                receive, send = ctx.Pipe(duplex=False)
                theirs = [r for _, r in self.workers] + [receive]
                proc = ctx.Process(target=_worker, args=(self, send, k, theirs), daemon=True)
                proc.start()
                send.close()
                self.workers.append((proc, receive))

    def claim(self, leave: int = 0) -> list[int] | None:
        """The next chunk of files no process has taken, or None; None also while no more than
        ``leave`` chunks are left (for this process to take)."""
        if self.next is None:
            return self.chunks.pop(0) if self.chunks else None
        with self.next.get_lock():
            k = self.next.value
            if k >= len(self.chunks) - leave:
                return None
            self.next.value = k + 1
        return self.chunks[k]

    def run(self, packed: bool) -> tuple[dict, dict[int, Meta]]:
        """Index chunks until none is left: (word -> ids, id -> Meta) of the chunks this process
        took. ``packed``: a plain dict, for a worker process to send through ``marshal``, which
        writes and reads lists of small ints faster than ``pickle`` does anything, and faster than
        turning each word's list into the bytes of an array first (SGLang, half of the tree:
        0.035 s against 0.07 to 0.095 s to send, 0.03 s against 0.02 s to read back)."""
        root, files, _, known = self.args
        index: defaultdict[bytes, list[int]] = defaultdict(list)
        meta: dict[int, Meta] = {}
        taken = 0
        # A worker still packs and sends what it indexed, and this process waits for that: a
        # worker leaves the last chunks to this process, about one for every PACK_RATIO it took.
        while (chunk := self.claim(taken // PACK_RATIO if packed else 0)) is not None:
            _index_part(root, files, chunk, known, index, meta)
            taken += 1
        _done(index)
        return (dict(index) if packed else index), meta

    def finish(self) -> tuple[list[dict], dict[int, Meta]]:
        """The parts of the index (this process's, then each worker's), and every file's Meta."""
        if os.getpid() != self.pid:  # a forked child would read its parent's pipes and join nobody
            raise RuntimeError("the word index is finished only in the process that began it")
        index, meta = self.run(packed=False)
        parts = [index]
        for proc, receive in self.workers:
            try:
                wait_for(receive.poll)
                their_index, their_meta = marshal.loads(receive.recv_bytes())
            except (EOFError, OSError, ValueError):  # a worker died: its chunks are indexed here
                their_index, their_meta = {}, {}
            parts.append(their_index)
            meta.update(their_meta)
            receive.close()
            proc.join()
        lost = [i for i in self.args[2] if i not in meta]
        if lost:
            index, more = _index_part(self.args[0], self.args[1], lost, self.args[3], defaultdict(list), {})
            parts.append(_done(index))
            meta.update(more)
        return parts, meta


def _worker(build: _Build, send, k: int, readers: list) -> None:  # pragma: no cover - the child
    in_child()
    try:
        # The read ends this child inherited: with them closed, a send to a main process that
        # has gone fails at once (broken pipe) instead of waiting for ever for a reader.
        for receive in readers:
            receive.close()
        if k == 0:
            at(build.hook, "word-index-worker", in_worker=True)
        send.send_bytes(marshal.dumps(build.run(packed=True)))
        send.close()
    finally:
        os._exit(0)


class WordIndex:
    """Identifier -> numbers (in ``files``) of the files that contain it, and each file's Meta.

    The index is kept in parts, as they came (this process's, each worker's, the snapshot's),
    and a lookup asks each: merging them would cost more than all the lookups of a run.
    """

    def __init__(self, root: Path, files: list[str], snapshot: Path | None = None, begun: "Begun | None" = None):
        """``begun``: the build ``begin`` started for these files (else it starts here)."""
        begun = begun or begin(root, files, snapshot)
        self.files = files
        self._parts: list[tuple[dict, array | None]] = []
        self.code = _code(len(files))
        self.pending: Path | None = None  # where this index's snapshot is still to be written
        parts, fresh_meta = begun.build.finish() if begun.build is not None else ([], {})
        if begun.old is None:
            self._parts = [(p, None) for p in parts]
            self.meta = [fresh_meta.get(i) for i in range(len(files))]
            self.reused = 0  # files whose words came from the snapshot
            self.pending = snapshot
            return
        old_files, mapping, meta, known = begun.old, begun.mapping, begun.meta, begun.known
        where = {rel: j for j, rel in enumerate(old_files)}
        for i, m in fresh_meta.items():
            meta[i] = m
            if m is not None and known.get(i) == m[2]:
                mapping[where[files[i]]] = i  # new time, same content
        self._parts = [(begun.old_index, mapping)] + [(p, None) for p in parts]
        self.meta = meta
        self.reused = sum(1 for i in mapping if i >= 0)
        if begun.stale or len(files) != len(old_files):
            self.pending = snapshot

    def ids(self, word: str) -> set[int]:
        return self._ids(word.encode("utf-8"))

    def _ids(self, w: bytes) -> set[int]:
        out: set[int] = set()
        for part, mapping in self._parts:
            got = part.get(w)
            if got is None:
                continue
            got = _unpack(got, self.code)
            if mapping is None:
                out.update(got)
            else:
                out.update(k for k in (mapping[j] for j in got) if k >= 0)
        return out

    def write_snapshot(self, wait: bool = False) -> None:
        """Write this run's snapshot, when it made one, without making anyone wait for it.

        Called when the run's work is done: a forked child, at the lowest priority, with its
        standard streams detached, so that neither the run's memory peak, nor its time, nor a
        pipe reading its output waits for the write. Without fork it is written here.
        ``wait``: wait for the child (tests, and callers that read the cache next).
        """
        path, self.pending = self.pending, None
        if path is None:
            return
        if not hasattr(os, "fork"):
            write_cache_file(path, self._payload(), KEEP)
            return
        with forking():
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                in_child()
        if pid == 0:  # pragma: no cover - the child
            try:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.nice(19)
                write_cache_file(path, self._payload(), KEEP)
            finally:
                os._exit(0)
        if wait:
            os.waitpid(pid, 0)

    def _payload(self) -> bytes:
        """The snapshot of this index, in this tree's file numbers."""
        meta = self.meta
        words = set().union(*(part.keys() for part, _ in self._parts))
        index = {}
        for w in words:
            got = self._ids(w)
            if got:
                index[w] = array(self.code, sorted(got)).tobytes()
        return marshal.dumps((SNAPSHOT_VERSION, self.files, meta, index))


class Begun:
    """A word index under way (``begin``): the snapshot it starts from, the files to read again."""

    def __init__(self, root: Path, files: list[str], snapshot: Path | None, hook: TestHook | None = None):
        loaded = _load(snapshot) if snapshot is not None else None
        self.old = self.old_index = self.mapping = None
        self.meta: list[Meta] = []
        self.known: dict[int, bytes] = {}
        self.stale: list[int] = list(range(len(files)))
        if loaded is not None:
            self.old, old_meta, self.old_index = loaded
            where = {rel: j for j, rel in enumerate(self.old)}
            self.mapping = array("l", [-1]) * len(self.old)  # snapshot id -> id here, -1: not valid
            self.meta = [None] * len(files)
            self.stale = []
            for i, rel in enumerate(files):
                j = where.get(rel)
                prev = old_meta[j] if j is not None else None
                if prev is not None:
                    try:
                        st = os.stat(os.path.join(root, rel))
                    except OSError:
                        st = None
                    if st is not None and (st.st_size, st.st_mtime_ns) == prev[:2]:
                        self.mapping[j], self.meta[i] = i, prev
                        continue
                    self.known[i] = prev[2]
                self.stale.append(i)
        self.build = _Build(root, files, self.stale, self.known, hook) if self.stale else None


def begin(root: Path, files: list[str], snapshot: Path | None = None, hook: TestHook | None = None) -> Begun:
    """Start the word index of ``files``: worker processes begin reading and tokenising now,
    and ``WordIndex(..., begun=...)`` joins them when the index is first needed."""
    return Begun(root, files, snapshot, hook)


def snapshot_path(root: Path) -> Path:
    # marshal's format may change between Python versions: one snapshot per version.
    name = hashlib.sha1(f"{root}\0{sys.version_info[:2]}".encode()).hexdigest()
    return cache_dir() / "index" / (name + ".marshal")


def _load(path: Path):
    try:
        with open(path, "rb") as f:
            version, files, meta, index = marshal.loads(f.read())
    except Exception:  # missing, truncated, or from another version: build afresh
        return None
    if version != SNAPSHOT_VERSION or len(files) != len(meta):
        return None
    return files, meta, index
