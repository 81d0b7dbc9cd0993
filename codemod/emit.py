"""Writing files without ever leaving one half-written."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def staged_directory(target: Path, prefix: str):
    """Yield a temporary sibling folder to fill; on success it replaces ``target`` in one rename.

    An interrupted or failed fill leaves ``target`` as it was (and no temporary folder behind)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=target.parent))
    try:
        yield staging
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write to a temporary file in the same directory, fsync, then rename over the target."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".decouple-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_cache_file(path: Path, data: bytes, keep: int) -> None:
    """Atomically write one cache file, keeping only the ``keep`` most recent files of its kind
    (same folder, same suffix) beside it. A cache that cannot be written is simply not used."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
        entries = sorted(path.parent.glob("*" + path.suffix), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            old.unlink()
    except OSError:
        pass


def unified_diff(rel: str, before: str | None, after: str) -> str:
    """A git-style unified diff of one file (``a/`` and ``b/`` prefixes), applicable with ``git apply``."""
    import difflib

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
    """Files among ``rels`` with uncommitted changes, when ROOT is inside a git work tree."""
    import subprocess

    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    except OSError:
        return []
    if top.returncode != 0:
        return []
    proc = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", *rels], capture_output=True, text=True)
    dirty = []
    for line in proc.stdout.splitlines():
        path = line[3:].strip()
        dirty.append(path)
    return dirty


def write_outputs(out_dir: Path, patches, diff_text: str) -> None:
    """``patch.diff`` and ``files/<rel>``: staged in a temporary folder, then moved into place."""
    with staged_directory(out_dir / "files", ".files-") as staging:
        for p in patches:
            dest = staging / p.rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(p.after.encode(getattr(p, "encoding", "utf-8")))
    atomic_write(out_dir / "patch.diff", diff_text.encode())


def clear_outputs(out_dir: Path) -> None:
    """Remove a previous run's patch and files, so a refused run never leaves a stale patch behind."""
    if (out_dir / "patch.diff").exists():
        (out_dir / "patch.diff").unlink()
    if (out_dir / "files").is_dir():
        shutil.rmtree(out_dir / "files")
