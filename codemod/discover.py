"""Find the sources to work on: a ROOT (given, or the project of the working folder), or an
SGLang release asked for by name (``--sglang``).

ROOT may be a git checkout (packages under ``python/`` or ``src/``), an unpacked
wheel, or a site-packages directory. With ``--sglang``, the SGLang release is
downloaded once from PyPI with ``pip download --no-deps``; its ``.py`` files are
unpacked into the user cache directory, and the wheel is kept beside them for the
tests that need a full, importable copy.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .errors import UsageError
from .fileio import OUTPUT_MARKER, OWN_OUTPUT, cache_dir, decode_source, staged_directory
from .interrupt import TestHook
from .model import ReadLog
from .word_index import WordIndex, begin
from .word_search import spelt_whole

DEFAULT_PACKAGE = "sglang"
DEFAULT_VERSION = "0.5.23"
DEFAULT_CLASSES = ("TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend")
# What one SGLang process builds of them with EAGLE speculative decoding, 3 draft steps, topk 1
# (the GPU verification's draft configuration): the target's backend (the attention registry), the
# draft's extend backend and its multi-step decode backend (``DraftBackendFactory``). Each is the
# first call of the class in that file; the values are those its call does not state.
# report.json's "memory" adds up what each no longer allocates (``saving.configuration``).
DEFAULT_CONFIGURATION = ("EAGLE, 3 draft steps", (
    ("target", "sglang/srt/layers/attention/attention_registry.py", "TRTLLMHAAttnBackend", {}),
    ("draft extend", "sglang/srt/speculative/draft_utils.py", "TRTLLMHAAttnBackend", {}),
    ("draft, 3 steps", "sglang/srt/speculative/draft_utils.py", "TRTLLMHAAttnMultiStepDraftBackend",
     {"topk": 1, "speculative_num_steps": 3}),
))

# Folders that never hold the code under analysis.
_SKIP_DIRS = {OWN_OUTPUT, ".git", "__pycache__", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache"}
# Import roots inside a checkout, most specific first.
_IMPORT_ROOT_DIRS = ("python", "src")


def release_dir(package: str = DEFAULT_PACKAGE, version: str = DEFAULT_VERSION) -> Path:
    return cache_dir() / "releases" / f"{package}-{version}"


def fetch_release(package: str = DEFAULT_PACKAGE, version: str = DEFAULT_VERSION, *, quiet: bool = False) -> Path:
    """Return a directory holding the release's .py files, downloading it once.

    The unpack goes to a temporary sibling first and is renamed into place, so an
    interrupted download never leaves a half-filled cache behind.
    """
    target = release_dir(package, version)
    src = target / "src"
    if (target / "COMPLETE").exists():
        return src
    if not quiet:
        print(f"decouple: downloading {package}=={version} from PyPI (once; cached in {target})", file=sys.stderr)
    with staged_directory(target, f".{package}-{version}-") as staging:
        archive = _pip_download(package, version, staging / "dist")
        _unpack_python_files(archive, staging / "src")
        (staging / "dist").rename(staging / "wheel")
        (staging / "COMPLETE").write_text(archive.name + "\n")
    return src


def release_archive(package: str = DEFAULT_PACKAGE, version: str = DEFAULT_VERSION) -> Path:
    """The downloaded wheel (or sdist) of a fetched release."""
    fetch_release(package, version, quiet=True)
    wheel_dir = release_dir(package, version) / "wheel"
    if not wheel_dir.is_dir() or not any(wheel_dir.iterdir()):
        # Only the .py files were kept (the release matrix drops archives): fetch the archive again.
        with staged_directory(wheel_dir, ".wheel-") as staging:
            _pip_download(package, version, staging)
    return sorted(wheel_dir.iterdir())[0]


def _pip_download(package: str, version: str, dest: Path) -> Path:
    """``pip download --no-deps`` one release into ``dest``; the archive's path."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q", "-d", str(dest), f"{package}=={version}"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise UsageError(f"could not download {package}=={version} from PyPI ({last}); "
                         "check the network or the pip index, or pass ROOT to run on sources you have")
    archives = sorted(Path(dest).iterdir()) if Path(dest).is_dir() else []
    if not archives:
        raise UsageError(f"pip downloaded nothing for {package}=={version}; pass ROOT to run on sources you have")
    return archives[0]


def _unpack_python_files(archive: Path, dest: Path) -> None:
    dest.mkdir(parents=True)
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.endswith(".py") and ".." not in name.split("/"):
                    out = dest / name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(zf.read(name))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                parts = member.name.split("/")
                if member.isfile() and member.name.endswith(".py") and ".." not in parts:
                    # An sdist nests everything under "<name>-<version>/".
                    out = dest / "/".join(parts[1:])
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(tf.extractfile(member).read())


PEEK_KEEP = 32 << 20  # characters of prefiltered texts a run keeps (about 32 MiB of ASCII source)


@dataclass
class Tree:
    """A directory of Python sources, with module names and cached contents."""

    root: Path
    _texts: dict = field(default_factory=dict, repr=False)
    encodings: dict = field(default_factory=dict, repr=False)
    reads: ReadLog = field(default_factory=ReadLog, repr=False)  # the run's dependencies, for the cache
    # Answers that depend on the tree's files alone, for every Index of the run (``tree_wide``).
    answers: dict = field(default_factory=dict, repr=False)
    unreadable: dict = field(default_factory=dict, repr=False)
    # Files that read but do not decode as Python would: rel -> (line, why). A parse error to the index.
    undecodable: dict = field(default_factory=dict, repr=False)
    # Where the word index is cached between runs (None: built afresh, kept nowhere).
    index_snapshot: Path | None = field(default=None, repr=False)
    _begun: object = field(default=None, repr=False)  # the word index under way (begin_word_index)
    test_hook: TestHook | None = field(default=None, repr=False)  # DECOUPLE_TEST_HOOK of the run
    # Texts a prefilter read, kept while they fit PEEK_KEEP characters in all (the first read
    # stay): the searches of one run grep the files of common words again and again, and a
    # tree many times this budget still runs in bounded memory.
    _peeked: dict = field(default_factory=dict, repr=False)
    _peeked_size: int = field(default=0, repr=False)
    # The project's files outside ROOT that DC115 searches (``codemod/outside.py``); None: none.
    outside: "Tree | None" = field(default=None, repr=False)

    @classmethod
    def open(cls, root: str | os.PathLike) -> "Tree":
        path = Path(root)
        if not path.exists():
            raise UsageError(f"ROOT {root} does not exist; give the folder that holds the sources")
        if not path.is_dir():
            raise UsageError(f"ROOT {root} is not a directory; give the folder that holds the sources")
        return cls(path.resolve())

    @cached_property
    def _root_str(self) -> str:
        return str(self.root)

    @cached_property
    def files(self) -> list[str]:
        """Relative POSIX paths of every .py file, sorted; symlinks out of ROOT and this tool's
        output folders are skipped."""
        # Plain strings and os.scandir rather than Path objects: a tree has thousands of files,
        # and the Path operations cost more than the walk itself.
        root = self._root_str
        out = []
        todo = [""]
        while todo:
            rel_dir = todo.pop()
            try:
                entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
            except OSError:
                continue
            if rel_dir and any(e.name == OUTPUT_MARKER for e in entries):
                continue
            for e in entries:
                rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
                if e.is_dir(follow_symlinks=False):
                    if e.name not in _SKIP_DIRS and not e.name.endswith(".egg-info"):
                        todo.append(rel)
                elif e.name.endswith(".py"):
                    if e.is_symlink():
                        if e.is_dir():
                            continue  # a link to a folder is not walked
                        try:
                            Path(e.path).resolve().relative_to(self.root)
                        except (ValueError, OSError):
                            continue
                    out.append(rel)
        out.sort()
        return out

    @cached_property
    def import_roots(self) -> list[str]:
        roots = [d for d in _IMPORT_ROOT_DIRS if (self.root / d).is_dir() and not (self.root / d / "__init__.py").exists()]
        return roots + [""]

    def module_name(self, rel: str) -> str:
        for ir in self.import_roots:
            prefix = ir + "/" if ir else ""
            if rel.startswith(prefix):
                mod = rel[len(prefix):]
                break
        mod = mod[:-3]
        if mod.endswith("/__init__"):
            mod = mod[: -len("/__init__")]
        return mod.replace("/", ".")

    @cached_property
    def modules(self) -> dict[str, str]:
        """Module name -> relative path. A package's __init__ wins over a same-named module."""
        out: dict[str, str] = {}
        for rel in self.files:
            name = self.module_name(rel)
            if name not in out or rel.endswith("__init__.py"):
                out[name] = rel
        return out

    def holds(self, qualname: str) -> bool:
        """Whether a dotted name lies in a package or module of the tree (a name from a library
        outside it does not)."""
        parts = qualname.split(".")
        modules = self.modules
        return any(".".join(parts[:i]) in modules for i in range(1, len(parts) + 1))

    def is_package(self, rel: str) -> bool:
        return rel.endswith("/__init__.py") or rel == "__init__.py"

    def text(self, rel: str) -> str | None:
        """The decoded text of a file, or None when it cannot be read or decoded."""
        self.reads.consulted.add(rel)
        if rel not in self._texts:
            peeked = self._peeked.get(rel)
            self._texts[rel] = peeked if peeked is not None else self.read(rel)
        return self._texts[rel]

    def peek(self, rel: str) -> str | None:
        """The text, as a dependency of the run like ``text``, but kept only if already kept.

        Most files a prefilter reads are never parsed; keeping all their texts cost more
        memory than reading the few that are grepped twice again.
        """
        self.reads.consulted.add(rel)
        text = self._texts.get(rel) or self._peeked.get(rel)
        if text is None:
            text = self.read(rel)
            if text is not None and self._peeked_size + len(text) <= PEEK_KEEP:
                self._peeked[rel] = text
                self._peeked_size += len(text)
        return text

    def read(self, rel: str) -> str | None:
        """Read and decode without keeping the text."""
        try:
            data = self._bytes(rel)
        except OSError as exc:
            self.unreadable[rel] = f"{type(exc).__name__}: {exc}"
            return None
        try:
            text, self.encodings[rel] = decode_source(data)
        except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
            self.unreadable[rel] = f"{type(exc).__name__}: {exc}"
            self.undecodable[rel] = undecodable_why(data, exc)
            text = None
        return text

    def _bytes(self, rel: str) -> bytes:
        with open(os.path.join(self._root_str, rel), "rb", buffering=0) as f:
            return f.readall()

    def searchable(self, rel: str) -> str | None:
        """The text to look for names in: ``peek``'s, or for a file that does not decode, its
        bytes decoded with the undecodable ones replaced, so that what it names is still seen."""
        text = self.peek(rel)
        if text is None and rel in self.undecodable:
            try:
                return self._bytes(rel).decode("utf-8", "replace")
            except OSError:
                return None
        return text

    def stats(self) -> dict[str, list[int]]:
        out = {}
        base = os.path.join(self._root_str, "")
        for rel in self.files:
            try:
                st = os.stat(base + rel)
            except OSError:
                continue
            out[rel] = [st.st_size, st.st_mtime_ns]
        return out

    def grep(self, pattern, words: tuple[str, ...] | None = None, among=None) -> list[str]:
        """Files whose text matches: the cheap prefilter that runs before any parse.

        ``pattern``: a regex (string or compiled), or a function of the text returning a bool.

        ``words``: identifiers of which the file must contain at least one; files
        without any are skipped before the regex runs (looked up in the word index).
        ``among``: only these files (a set), when given.
        """
        if isinstance(pattern, str):
            pattern = re.compile(pattern)
        test = pattern.search if isinstance(pattern, re.Pattern) else pattern
        candidates = self.files if words is None else self.files_with_words(words)
        if among is not None:
            candidates = [rel for rel in candidates if rel in among]
        out = []
        for rel in candidates:
            text = self.searchable(rel)
            if text is not None and test(text):
                out.append(rel)
        return out

    def files_naming(self, name: str) -> list[str]:
        """The files where ``name`` is a whole word (``\\bname\\b``), in the tree's order: the word
        index's answer, for a name of word characters (``word_search``), else the regex's."""
        if spelt_whole(name):
            return [rel for rel in self.files_with_words((name,)) if self.searchable(rel) is not None]
        return self.grep(re.compile(rf"\b{re.escape(name)}\b"), words=(name,))

    def count_files_with(self, word: str) -> int:
        """How many files contain ``word`` (a dependency of the run, as ``files_with_words``)."""
        self.reads.queried.add(word)
        return len(self.word_index.ids(word))

    def files_with_words(self, words) -> list[str]:
        index = self.word_index
        hits: set[int] = set()
        for w in words:
            self.reads.queried.add(w)
            hits |= index.ids(w)
        return [self.files[i] for i in sorted(hits)]

    @cached_property
    def word_index(self) -> WordIndex:
        begun, self._begun = self._begun, None
        return WordIndex(self.root, self.files, self.index_snapshot, begun or begin(self.root, self.files, self.index_snapshot, self.test_hook))

    def begin_word_index(self) -> None:
        """Start building the word index in worker processes now, so that the set-up a run does
        before its first lookup (imports, options) overlaps with it."""
        if "word_index" not in self.__dict__ and self._begun is None:
            self._begun = begin(self.root, self.files, self.index_snapshot, self.test_hook)

    def write_index_snapshot(self, wait: bool = False) -> None:
        """Write the word index's snapshot, when this run built one (in a detached child;
        ``wait``: until the child is done)."""
        if "word_index" in self.__dict__:
            self.word_index.write_snapshot(wait)


def open_tree(root: str | None, version: str = DEFAULT_VERSION) -> Tree:
    """ROOT as given, or with None the SGLang release ``version`` (``--sglang``): the tree of a run."""
    tree = Tree.open(fetch_release(DEFAULT_PACKAGE, version) if root is None else root)
    tree.test_hook = TestHook.from_env()
    return tree
def undecodable_why(data: bytes, exc: Exception) -> tuple[int, str]:
    """(line, why) of a file Python would refuse to decode."""
    if isinstance(exc, SyntaxError) and b"coding" not in data[:300]:
        try:  # tokenize saw a first line that is not UTF-8: say which byte
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            exc = bad
    if isinstance(exc, UnicodeDecodeError):
        line = data.count(b"\n", 0, exc.start) + 1
        why = f"byte 0x{data[exc.start]:02x} is not valid {exc.encoding}"
        if exc.encoding.replace("-", "").lower() == "utf8" and b"coding" not in data[:300]:
            why += " and no PEP 263 coding line names another encoding"
        return line, f"cannot be decoded: {why}"
    return getattr(exc, "lineno", None) or 1, f"cannot be decoded: {getattr(exc, 'msg', None) or exc}"

