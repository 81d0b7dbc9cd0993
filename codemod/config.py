"""``[tool.decouple]`` in ROOT's ``pyproject.toml``: the defaults a project keeps for its CI.

    [tool.decouple]
    classes = ["TRTLLMHAAttnBackend"]   # --class, each
    parent = "FlashInferAttnBackend"    # --parent
    base = "AttentionBackend"           # --base
    max-copied-share = 0.5              # --max-copied-share
    plain-gain = false                  # --plain-gain
    any-gain = false                    # --any-gain
    test = "python -m pytest -q tests"  # --test
    test-timeout = 1200                 # --test-timeout, seconds (--trace's too)
    trace = "python -m pytest -q tests" # --trace
    scan-ignore = ["Name"]              # classes `decouple scan --check` accepts as they are

Only ROOT's own ``pyproject.toml`` is read (not its parents'): ROOT is what the run analyses,
and a file above it may belong to another project. With no ROOT, ROOT is the nearest folder,
from the working folder up, whose ``pyproject.toml`` has the table (as ruff finds its
settings); with none, the run is on the pinned SGLang release.
"""

from __future__ import annotations

import re
from pathlib import Path

from .console import display_path
from .errors import UsageError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, where it is installed, is the same parser
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

KEYS = {
    "classes": "a non-empty list of class names",
    "parent": "a class name",
    "base": "a class name",
    "max-copied-share": "a number from 0 to 1",
    "plain-gain": "true or false",
    "any-gain": "true or false",
    "test": "a shell command",
    "test-timeout": "a number of seconds above 0",
    "trace": "a shell command",
    "keep": '"possible" or "proven"',
    "assume-unused": 'a list of "Class.member" names',
    "scan-ignore": 'a list of class names ("Name" or "package.module:Name")',
}


CLASS_MEMBER = re.compile(r"[A-Za-z_]\w*\.[A-Za-z_]\w*")
CLASS_NAME = re.compile(r"(?:[A-Za-z_]\w*[.:])*[A-Za-z_]\w*")


def find_project(start: Path) -> Path | None:
    """The nearest folder, ``start`` or above, whose pyproject.toml has a ``[tool.decouple]`` table."""
    for folder in (start, *start.parents):
        if table(folder) is not None:
            return folder
    return None


def load(root: str | None) -> dict:
    """The validated ``[tool.decouple]`` table of ROOT's pyproject.toml, keys as written there;
    empty when there is no such file or table. A malformed one is a usage error."""
    return (table(Path(root)) if root is not None else None) or {}


def table(folder: Path) -> dict | None:
    """The validated table of ``folder``'s pyproject.toml; None when there is no such file or table."""
    path = folder / "pyproject.toml"
    try:
        data = path.read_bytes()
    except OSError:  # no file, or ROOT is not a directory (the tree says so next)
        return None
    if b"decouple" not in data:
        return None  # no table can be there: the parse (and, on Python 3.10, a TOML parser) is not needed
    path = display_path(path)
    if tomllib is None:
        raise UsageError(f"{path}: reading [tool.decouple] needs Python 3.11 or the tomli package")
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    tool = doc.get("tool", {})
    found = tool.get("decouple") if isinstance(tool, dict) else None
    if found is None:
        return None
    if not isinstance(found, dict):
        raise UsageError(f"{path}: tool.decouple must be a table ([tool.decouple])")
    for key, value in found.items():
        if key not in KEYS:
            raise UsageError(f"{path}: unknown key {key!r} in [tool.decouple] (known: {', '.join(KEYS)})")
        if not _valid(key, value):
            raise UsageError(f"{path}: [tool.decouple] {key} must be {KEYS[key]}, got {value!r}")
    return found


def _valid(key: str, value) -> bool:
    if key == "classes":
        return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v for v in value)
    if key in ("parent", "base", "test", "trace"):
        return isinstance(value, str) and bool(value)
    if key == "test-timeout":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    if key == "keep":
        return value in ("possible", "proven")
    if key == "assume-unused":
        return isinstance(value, list) and all(isinstance(v, str) and CLASS_MEMBER.fullmatch(v) for v in value)
    if key == "scan-ignore":
        return isinstance(value, list) and all(isinstance(v, str) and CLASS_NAME.fullmatch(v) for v in value)
    if key == "max-copied-share":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    return isinstance(value, bool)
