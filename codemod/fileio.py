"""Files and folders written without ever leaving one half-written, and where the caches live.

Every stage that writes (the word index and run caches, the release download, the outputs,
``--write``) goes through these helpers; none of them knows about the pipeline.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import tokenize
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path

# Written into every output folder: only a folder holding it is one a run may clear, and no
# run reads one as source (``--output`` inside ROOT would otherwise add a copy of each class).
OUTPUT_MARKER = ".decouple-output"
# The default output folder, at ROOT: the tool's own, with a .gitignore of "*" so that git
# status stays clean (as .pytest_cache and .ruff_cache do); the tree walk never enters it.
OWN_OUTPUT = ".decouple"


def cache_dir() -> Path:
    """The user cache directory (``$DECOUPLE_CACHE_DIR`` when set)."""
    env = os.environ.get("DECOUPLE_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("decouple"))


def umask() -> int:
    """The process's umask (read by setting it, then put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def decode_source(data: bytes) -> tuple[str, str]:
    """Decode Python source the way the interpreter does (PEP 263 cookie, BOM): (text, encoding)."""
    encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    return data.decode(encoding), encoding


@contextmanager
def staged_directory(target: Path, prefix: str):
    """Yield a temporary sibling folder to fill; on success it replaces ``target`` in one rename.

    An interrupted or failed fill leaves ``target`` as it was (and no temporary folder behind)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=target.parent))
    try:
        # mkdtemp makes a private folder; the one it becomes is the user's, as mkdir would make it.
        os.chmod(staging, 0o777 & ~umask())
        yield staging
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write to a temporary file in the same directory, fsync, then rename over the target.

    ``mode``: the new file's permissions; by default what ``open`` would give it under the
    umask (mkstemp's own 0600 would hide a report from the user's group).
    An error names ``path``, never the temporary file the user has not heard of."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".decouple-tmp", dir=path.parent)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~umask())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(path)) from None
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
