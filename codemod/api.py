"""The Python API: ``decouple(root, classes=[...])`` runs what the command line runs and returns
the verdicts, the members kept and dropped with their evidence, the patch and the report as
objects (``docs/api.md``).

Nothing under ROOT is written unless the caller applies the patch (``Result.apply``); the run's
cache and word index live in the user cache directory, as the command line's do. A usage
error or bad input raises ``UsageError``; a class the tool refuses is a verdict in the result
(``decision == Decision.UNSAFE``), never an exception, unless the caller asks for one with
``Result.raise_if_unsafe``.
"""

from __future__ import annotations

import copy
import gc
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .errors import DecoupleError, UnsafeError, UsageError
from .model import Decision, Result as _RunResult

__all__ = ["decouple", "Result", "ClassVerdict", "Kept", "Dropped", "Evidence", "Patch", "PatchedFile", "Decision",
           "DecoupleError", "UsageError", "UnsafeError"]


@dataclass(frozen=True)
class Evidence:
    """One use of a member, at ``file:line`` (``file`` from ROOT)."""

    file: str
    line: int
    use: str  # what the use is, in words
    rule: str  # the id of the rule that found it (docs/rules.md)
    # "own" (the class's own code, or the parent code it keeps), "shown" (a receiver shown to
    # be able to hold an instance), "unknown" (a receiver whose use could not be ruled out).
    strength: str


@dataclass(frozen=True)
class Kept:
    """A member of the parent the patch keeps (inlined or copied), and why."""

    name: str
    kind: str  # "instance_attribute", "class_attribute", "property" or "method"
    certain: bool  # some use is more than one that merely could not be ruled out
    evidence: tuple[Evidence, ...]  # strongest first


@dataclass(frozen=True)
class Dropped:
    """A member of the parent the patch does not keep."""

    name: str
    kind: str
    # With keep="proven" or assume_unused: the uses on objects of unknown type that were
    # assumed not to reach the class (report.md's "Assumptions to review"); else empty.
    assumed_unused: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class ClassVerdict:
    """The decision on one class, with what the analysis kept and dropped of its parent."""

    name: str
    qualname: str  # "package.module:Name"
    file: str  # from ROOT
    line: int
    parent: str | None  # None: nothing to decouple from
    new_base: str
    decision: Decision  # DECOUPLE, DECLINE or UNSAFE (a str: "decouple", "decline", "unsafe")
    rule: str  # the id of the rule that decided
    reason: str
    refused_by: str | None  # the rewrite or check rule that refused the patch
    kept: tuple[Kept, ...]
    dropped: tuple[Dropped, ...]

    @property
    def decoupled(self) -> bool:
        return self.decision == Decision.DECOUPLE


@dataclass(frozen=True)
class PatchedFile:
    """One file the patch writes: ``path`` from ROOT; ``before`` None for a new file."""

    path: str
    before: str | None = field(repr=False)
    after: str = field(repr=False)
    encoding: str = "utf-8"  # how ``apply`` encodes ``after`` (the file's own encoding)


@dataclass(frozen=True)
class Patch:
    """The patch: the files' new texts, and a unified diff that ``git apply`` takes.

    The diff's paths are patch.diff's: the repository's, from its top, when ROOT lies in a git
    checkout that tracks the patched files, else ROOT's (``Result.as_json()["patch_paths"]``
    says which). An empty patch (nothing decoupled, a refusal, ``analyse_only``) is false."""

    diff: str = field(repr=False)
    files: tuple[PatchedFile, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.files)

    @property
    def texts(self) -> dict[str, str]:
        """Path from ROOT -> the file's new text."""
        return {f.path: f.after for f in self.files}


@dataclass(frozen=True)
class Result:
    """What a run decided. ``classes`` in the order they were selected; ``summary`` the lines
    the command line prints on stderr; ``unsafe``: a class was refused, so the patch is empty
    (all or nothing); ``changes``: a class is to be decoupled (what makes ``--check`` exit 1);
    ``reused``: the previous run's result, from the cache."""

    root: Path
    classes: tuple[ClassVerdict, ...]
    patch: Patch
    summary: tuple[str, ...]
    warnings: tuple[str, ...]
    unsafe: bool
    changes: bool
    reused: bool
    _run: _RunResult = field(repr=False, compare=False)  # the pipeline's record, as emit and the cache take it

    def __getitem__(self, name: str) -> ClassVerdict:
        """The verdict on the class named ``name`` (its name or its qualname)."""
        for c in self.classes:
            if name in (c.name, c.qualname):
                return c
        raise KeyError(name)

    def as_json(self) -> dict:
        """report.json, as ``decouple --output DIR`` writes it (a copy: the result stays as it is)."""
        return copy.deepcopy(self._run.report)

    def markdown(self) -> str:
        """report.md, as ``decouple --output DIR`` writes it."""
        from .report_md import render_md

        return render_md(self._run.report)

    def raise_if_unsafe(self) -> None:
        """Raise ``UnsafeError`` (the first refused class's reason and rule) when a class was refused."""
        for c in self.classes:
            if c.decision == Decision.UNSAFE:
                raise UnsafeError(f"{c.name}: {c.reason}", c.refused_by or c.rule)

    def apply(self, force: bool = False) -> list[str]:
        """Write the patch under ROOT as ``--write`` does, each file atomically; the files
        written, from ROOT. Refuses (``UsageError``, nothing written) a file that changed since
        the run read it, and a file with uncommitted git changes unless ``force``."""
        from .emit import refuse_dirty, write_in_place
        from .interrupt import deferred
        from .options import Options

        for f in self.patch.files:
            _unchanged_since_run(self.root, f)
        refuse_dirty(self.root, Options(force=force), self._run)
        with deferred() as interrupted:
            written = write_in_place(self.root, self._run, interrupted)
        return [f.rel for f in self._run.files[:len(written)]]

    def write_output(self, folder: str | os.PathLike) -> list[str]:
        """Write report.json, report.md, patch.diff and files/ into ``folder`` as ``--output``
        does (a folder the tool did not write is refused unless new or empty); what was written."""
        from .emit import write_output_folder
        from .interrupt import deferred

        with deferred():
            return write_output_folder(Path(folder), self._run)


def decouple(root: str | os.PathLike | None = None, classes: Iterable[str] | str = (), parent: str | None = None,
             base: str | None = None, *, keep: Literal["possible", "proven"] = "possible",
             assume_unused: Iterable[str] = (), analyse_only: bool = False, max_copied_share: float = 0.5,
             plain_gain: bool = False, any_gain: bool = False, markers: bool | None = None, all_uses: bool = False,
             emit_tests: bool = False, test: str | None = None, test_timeout: float = 20 * 60,
             keep_test_copies: bool = False, trace: str | None = None, cache: bool = True) -> Result:
    """Analyse ``classes`` (names, ``Name`` or ``package.module:Name``; one name may be given as a
    str) of the tree at ``root`` and build their patch, as ``decouple ROOT --class ...`` does.

    ``root`` None: the pinned SGLang release (downloaded once) and, with no ``classes`` and no
    ``parent``, its two TRTLLM backends. Every other argument is the option of the same name
    (``docs/api.md`` lists them); ``[tool.decouple]`` in ROOT's pyproject.toml is not read.
    ``markers`` None: as the command line, none in the patch of the SGLang release, markers elsewhere.
    ``analyse_only``: the verdicts and the members, no patch (a class it would decouple may still
    be refused by the rewrite's checks, which only a patch runs). ``cache``: reuse and store
    results in the user cache directory, as the command line does (``--no-cache`` is False).

    Raises ``UsageError`` for bad arguments or input (a class not found, a ROOT that is not a
    folder, a file that does not parse where the class is); the message is the command line's.
    """
    names = (classes,) if isinstance(classes, str) else tuple(classes)
    options = _options(root, names, parent, base, keep=keep, assume_unused=tuple(dict.fromkeys(assume_unused)),
                       analyse_only=analyse_only, max_copied_share=max_copied_share, plain_gain=plain_gain,
                       any_gain=any_gain, markers=markers, all_uses=all_uses, emit_tests=emit_tests, test=test,
                       test_timeout=test_timeout, keep_test_copies=keep_test_copies, trace=trace, cache=cache)
    return _run(options)


def _options(root, classes: tuple, parent, base, *, cache: bool, **given):
    from .discover import DEFAULT_CLASSES
    from .options import Options, check_values

    if not all(isinstance(c, str) and c for c in classes):
        raise UsageError(f"classes takes class names (str), got {list(classes)!r}")
    if not classes and not parent:
        if root is not None:
            raise UsageError(f"nothing to decouple in {os.fspath(root)}: name the classes (classes=[...]) or their parent (parent=...)")
        classes = DEFAULT_CLASSES
    test = given["test"]
    for name in ("test", "trace"):
        if given[name] is not None and not given[name].strip():
            raise UsageError(f"{name} takes a shell command, such as 'python -m pytest -q tests'")
    if test is None and given["keep_test_copies"]:
        raise UsageError("keep_test_copies only applies to test")
    if test is not None and given["analyse_only"]:
        raise UsageError("test judges a patch, and analyse_only makes none")
    check_values(given["test_timeout"], given["max_copied_share"], given["keep"], given["assume_unused"], classes)
    if given["markers"] is None:
        given["markers"] = root is not None
    return Options(root=None if root is None else os.fspath(root), classes=classes, parent=parent, base=base,
                   no_cache=not cache, returned=True, **{**given, "max_copied_share": float(given["max_copied_share"]),
                                                          "test_timeout": float(given["test_timeout"])})


def _run(options) -> Result:
    from .emit import placed
    from .session import Session

    session = Session(options)
    # As on the command line: the cycle collector would rescan the run's many long-lived nodes
    # over and over, freeing nothing; it is back on, if it was on, once the run is done.
    enabled = gc.isenabled()
    gc.disable()
    try:
        run = session.result()
    finally:
        if enabled:
            gc.enable()
    session.close(wait=True)  # no process of the run outlives the call
    if run.files:
        run = placed(session.tree.root, run)
    return _result(session.tree.root, run, session.reused)


def _result(root: Path, run: _RunResult, reused: bool) -> Result:
    classes = tuple(_verdict(c) for c in run.report["classes"])
    files = tuple(PatchedFile(f.rel, f.before, f.after, f.encoding) for f in run.files)
    return Result(root, classes, Patch(run.diff, files), tuple(run.summary), tuple(run.report.get("warnings", ())),
                  run.unsafe, run.changes, reused, run)


def _verdict(c: dict) -> ClassVerdict:
    assumed = {a["member"]: tuple(_evidence(e) for e in a["uses"]) for a in c.get("assumptions", ())}
    return ClassVerdict(
        name=c["name"], qualname=c["qualname"], file=c["file"], line=c["line"], parent=c["parent"],
        new_base=c["new_base"], decision=Decision(c["decision"]), rule=c["rule"], reason=c["reason"],
        refused_by=c.get("refused_by"),
        kept=tuple(Kept(k["member"], k["kind"], k["certain"], tuple(_evidence(e) for e in k["evidence"])) for k in c["kept"]),
        dropped=tuple(Dropped(d["member"], d["kind"], assumed.get(d["member"], ())) for d in c["dropped"]),
    )


def _evidence(e: dict) -> Evidence:
    return Evidence(e["file"], e["line"], e["use"], e["rule"], e["strength"])


def _unchanged_since_run(root: Path, f: PatchedFile) -> None:
    from .console import display_path
    from .fileio import decode_source

    path = root / f.path
    if f.before is None:
        if path.exists():
            raise UsageError(f"{display_path(path)} exists now, and the patch would create it; run decouple again")
        return
    try:
        text = decode_source(path.read_bytes())[0]
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        text = None
    if text != f.before:
        raise UsageError(f"{display_path(path)} changed since decouple read it; run decouple again")
