"""The emit stage: print what the mode asks for, apply ``--write``, and write the patch and files.

``report.py`` beside it writes ``report.json`` and ``report.md``; this module writes
``patch.diff`` and ``files/``, and the patched files under ROOT with ``--write``.
Everything is written atomically (``fileio``).
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from . import report
from .console import check_line, colour_diff, display_path, summary
from .errors import EXIT_CHANGES, EXIT_OK, EXIT_UNSAFE, UsageError
from .fileio import OUTPUT_MARKER as MARKER, atomic_write, staged_directory
from .interrupt import Deferred, Interrupted, TestHook, at, deferred
from .model import Result
from .options import Options
from .patch_paths import place


def emit(root: Path, options: Options, result: Result, hook: TestHook | None = None) -> int:
    """Emit ``result`` as ``options`` says; the exit code. ``hook``: the run's test hook."""
    if result.files and (options.diff or options.output is not None or options.report_to_stdout):
        result = placed(root, result)
    if options.issue:
        result = replace(result, report={**result.report, "issue": options.issue})
    classes = result.report["classes"]
    for warning in result.report.get("warnings", ()):
        print(f"decouple: warning: {warning}", file=sys.stderr)
    if "tests" in result.report:
        from .gate import stderr_lines, summary as tests_summary

        for line in stderr_lines(result.report["tests"]) + [f"decouple: tests: {tests_summary(result.report['tests'])}"]:
            print(line, file=sys.stderr)
    if "trace" in result.report:
        from .runtime_trace import stderr_lines as trace_lines

        for line in trace_lines(result.report):
            print(line, file=sys.stderr)
    if options.check:
        # Each finding is said once: a class with a line on stdout gets none on stderr.
        for line, c in zip(result.summary, classes or [{"decision": "none"}]):  # none: the line that says why
            if c["decision"] != "decouple":
                print(line, file=sys.stderr)
        for file, line, message in result.check_lines:
            print(check_line(options.check_format, root, file, line, message))
        if options.diff:
            print_diff(options, result.diff)
        if result.unsafe:
            return EXIT_UNSAFE
        return EXIT_CHANGES if result.changes else EXIT_OK
    for line in result.summary:
        print(line, file=sys.stderr)
    if options.diff:
        print_diff(options, result.diff)
        return EXIT_UNSAFE if result.unsafe else EXIT_OK
    if options.write:
        refuse_dirty(root, options, result)
    patched: list[str] = []
    outputs: list[str] = []
    # Ctrl-C now lets the file being replaced, or the output folder, be written whole, then stops the run.
    try:
        with deferred() as interrupted:
            if options.write:
                patched = write_in_place(root, result, interrupted, hook)
            if options.output is not None and not interrupted:
                outputs = write_output_folder(options.output, result, options.output_ignored)
    except KeyboardInterrupt:
        if not (patched or outputs):
            raise
        raise Interrupted(patched + outputs, len(result.files) - len(patched) if options.write else 0) from None
    written = patched + outputs
    if options.report_to_stdout:
        sys.stdout.write(report.json_text(result.report))
    else:
        print(summary(written, classes, bool(result.files)))
    return EXIT_UNSAFE if result.unsafe else EXIT_OK


def placed(root: Path, result: Result) -> Result:
    """``result`` with the patch's paths where the project has them (a git checkout's, from its
    top), and the report saying how to apply it. Done here, not in the cached result: whether
    ROOT lies in a checkout is not among what the cache watches."""
    where = place(root, [f.rel for f in result.files], [f.rel for f in result.files if f.before is not None])
    diff = "".join(unified_diff(where.prefix + f.rel, f.before, f.after) for f in result.files) if where.prefix else result.diff
    return replace(result, diff=diff, report={**result.report, "patch_paths": where.to_json()})


def print_diff(options: Options, diff: str) -> None:
    sys.stdout.write(colour_diff(diff) if options.colour else diff)


def write_output_folder(out: Path, result: Result, ignored: bool = False) -> list[str]:
    """The report, and the patch when there is one; what was written, as the summary names it.
    ``ignored``: the folder keeps itself out of git (a ``.gitignore`` of ``*`` in it)."""
    shown = display_path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write to {shown}: it is a file; give --output a folder")
    try:
        clear_outputs(out)
        if ignored and not (out / ".gitignore").exists():
            atomic_write(out / ".gitignore", b"# written by decouple: this folder is its output, not source\n*\n")
        if result.files:
            write_outputs(out, result.files, result.diff)
        report.write(out, result.report)
    except OSError as exc:
        raise UsageError(f"cannot write to {shown}: {exc.strerror or exc}") from None
    patch = ["patch.diff"] if result.files else []
    return [display_path(out / name) for name in patch + ["report.md", "report.json"]] + (
        [display_path(out / "files") + "/"] if result.files else [])


def refuse_dirty(root: Path, options: Options, result: Result) -> None:
    """``--write`` refuses files with uncommitted changes (unless ``--force``)."""
    refuse_dirty_files(root, [f.rel for f in result.files], options.force)


def refuse_dirty_files(root: Path, rels: list[str], force: bool) -> None:
    """Refuse to overwrite any of ``rels`` (paths under ROOT) that has uncommitted changes, unless ``force``."""
    dirty = [] if force else git_dirty(root, rels)
    if dirty:
        raise UsageError(f"uncommitted changes in {', '.join(dirty)}; commit them or pass --force")


def write_in_place(root: Path, result: Result, interrupted: Deferred, hook: TestHook | None = None) -> list[str]:
    """``--write``: replace each patched file under ROOT atomically (new files created), until
    the last or a Ctrl-C (``interrupted``); the files written, as the summary names them."""
    written = []
    for f in result.files:
        at(hook, "between-writes" if written else "before-first-write")
        if interrupted:
            break
        path = root / f.rel
        if f.before is None:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            atomic_write(path, f.after.encode(f.encoding), mode=path.stat().st_mode & 0o7777 if path.exists() else None)
        except OSError as exc:
            raise UsageError(f"cannot write {display_path(path)}: {exc.strerror or exc}") from None
        written.append(display_path(path))
    return written


def unified_diff(rel: str, before: str | None, after: str) -> str:
    """A git-style unified diff of one file (``a/`` and ``b/`` prefixes), applicable with ``git apply``."""
    a = before.splitlines(keepends=True) if before is not None else []
    b = after.splitlines(keepends=True)
    out = [f"diff --git a/{rel} b/{rel}\n"]
    if before is None:
        out.append("new file mode 100644\n")
    for line in difflib.unified_diff(a, b, fromfile=f"a/{rel}" if before is not None else "/dev/null", tofile=f"b/{rel}", n=3):
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def git_dirty(root: Path, rels: list[str]) -> list[str]:
    """Files among ``rels`` with uncommitted changes, when ROOT is inside a git work tree.

    A ROOT under a ``.git`` where git cannot answer (not installed, "dubious ownership", a
    broken repository) is a usage error carrying git's own words: "nothing uncommitted" would
    be a guess, and a wrong one lets ``--write`` mix the user's edits with the patch."""
    if not rels:  # git status with no path would report the whole work tree
        return []
    in_work_tree = any((d / ".git").exists() for d in (root, *root.parents))
    proc = _git(root, "status", "--porcelain", "--", *rels)
    if proc is None or proc.returncode != 0:
        if not in_work_tree:
            return []
        said = "git is not installed" if proc is None else _one_line(proc.stderr) or f"git exited {proc.returncode}"
        raise UsageError(f"cannot tell which files under {display_path(root)} have uncommitted changes ({said}); "
                         "fix git there, or pass --force to write anyway")
    return [line[3:].strip() for line in proc.stdout.splitlines()]


def _git(root: Path, *args: str):
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError:
        return None


def _one_line(text: str) -> str:
    """git's first line (``fatal: ...``); the advice after it assumes a shell, not this tool."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def write_outputs(out_dir: Path, files, diff_text: str) -> None:
    """``patch.diff`` and ``files/<rel>``: staged in a temporary folder, then moved into place."""
    with staged_directory(out_dir / "files", ".files-") as staging:
        for p in files:
            dest = staging / p.rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(p.after.encode(getattr(p, "encoding", "utf-8")))
    atomic_write(out_dir / "patch.diff", diff_text.encode())


OUTPUT_NAMES = ("patch.diff", "files", "report.md", "report.json")


def clear_outputs(out_dir: Path) -> None:
    """Remove a previous run's patch and files, so a refused run never leaves a stale patch behind.

    Only in a folder this tool wrote (it holds ``MARKER``): the same names in any other folder
    may be the user's own files, which a run must never delete or overwrite."""
    if not (out_dir / MARKER).is_file():
        mine = [n for n in OUTPUT_NAMES if os.path.lexists(out_dir / n)]
        if mine:
            shown = display_path(out_dir / mine[0])
            raise UsageError(f"{shown} was not written by decouple (no {MARKER} beside it); "
                             "give --output a new or empty folder, or remove it")
        out_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(out_dir / MARKER, b"decouple writes this folder: report.json, report.md, patch.diff, files/\n")
        return
    if (out_dir / "patch.diff").exists():
        (out_dir / "patch.diff").unlink()
    if (out_dir / "files").is_dir():
        shutil.rmtree(out_dir / "files")
