"""``[tool.decouple]`` in ROOT's ``pyproject.toml``: the defaults a project keeps for its CI.

    [tool.decouple]
    classes = ["TRTLLMHAAttnBackend"]   # --class, each
    parent = "FlashInferAttnBackend"    # --parent
    base = "AttentionBackend"           # --base
    max-copied-share = 0.5              # --max-copied-share
    plain-gain = false                  # --plain-gain
    any-gain = false                    # --any-gain
    markers = false                     # --no-markers
    test = "python -m pytest -q tests"  # --test
    test-timeout = 1200                 # --test-timeout, seconds (--trace's too)
    trace = "python -m pytest -q tests" # --trace
    scan-ignore = ["Name"]              # classes `decouple scan --check` accepts as they are
    issue = "https://..."               # --issue: the issue report.md links

Only ROOT's own ``pyproject.toml`` is read (not its parents'): ROOT is what the run analyses,
and a file above it may belong to another project. With no ROOT, ROOT is the nearest folder,
from the working folder up, whose ``pyproject.toml`` has the table (as ruff finds its
settings); with none, the nearest folder that is a project (a ``pyproject.toml``, ``setup.cfg``,
``setup.py`` or ``.git`` in it). The SGLang release is a run's ROOT only when asked for by
name (``--sglang``): a user's project never silently becomes a download.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

from .console import display_path
from .errors import NothingSelected, UsageError

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
    "markers": "true or false",
    "test": "a shell command",
    "test-timeout": "a number of seconds above 0",
    "trace": "a shell command",
    "keep": '"possible" or "proven"',
    "assume-unused": 'a list of "Class.member" names',
    "scan-ignore": 'a list of class names ("Name" or "package.module:Name")',
    "issue": "a URL",
}


CLASS_MEMBER = re.compile(r"[A-Za-z_]\w*\.[A-Za-z_]\w*")
CLASS_NAME = re.compile(r"(?:[A-Za-z_]\w*[.:])*[A-Za-z_]\w*")


# What makes a folder a project's root, as pytest and ruff find theirs.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", ".git")  # as the messages below name them
# A release version for --sglang: 0.5.23, 0.5.0rc1, 0.4.10.post1.
VERSION = re.compile(r"\d+(?:\.\d+)*(?:[.+-]?[A-Za-z0-9]+)*")


def find_project(start: Path) -> Path | None:
    """ROOT when none is given: the nearest folder, ``start`` or above, whose pyproject.toml has
    a ``[tool.decouple]`` table; with none, the nearest folder holding one of ``PROJECT_FILES``."""
    nearest = None
    for folder in (start, *start.parents):
        if table(folder) is not None:
            return folder
        if nearest is None and any((folder / name).exists() for name in PROJECT_FILES):
            nearest = folder
    return nearest


def settle(root: str | None, sglang: str | None, package: str, version: str) -> tuple[str | None, dict]:
    """The run's ROOT (None: the ``package`` release ``--sglang`` names) and its validated table.

    With neither ROOT nor ``--sglang``, ROOT is the project of the working folder
    (``find_project``); outside any project that is a usage error that says what to give."""
    if sglang is not None:
        if root is not None:
            raise UsageError(f"ROOT {root} and --sglang both name the tree to work on; give one of them")
        if not VERSION.fullmatch(sglang):
            raise UsageError(f"--sglang takes a release version such as {version}, got {sglang!r}")
        return None, {}  # the working folder's table is its project's, not the release's
    if root is None:
        found = find_project(Path.cwd())
        if found is None:
            where = f"no pyproject.toml, setup.cfg, setup.py or .git from {Path.cwd()} up"
            raise NothingSelected(f"no project found ({where}): give ROOT, or --sglang to run on {package} {version} "
                                  "from PyPI", f"not in a project ({where})")
        root = str(found)
    return root, load(root)


def load(root: str | None) -> dict:
    """The validated ``[tool.decouple]`` table of ROOT's pyproject.toml, keys as written there;
    empty when there is no such file or table. A malformed one is a usage error; a table whose
    name is close to ``tool.decouple`` is a warning on stderr (its settings would otherwise be
    ignored without a word)."""
    if root is None:
        return {}
    found = table(Path(root))
    if found is None:
        misspelt = near_miss(Path(root))
        if misspelt:
            print(f"decouple: warning: {display_path(Path(root) / 'pyproject.toml')} has [{misspelt}], "
                  "not [tool.decouple]: its settings are not read", file=sys.stderr)
    return found or {}


def near_miss(folder: Path) -> str | None:
    """The name of a table in ``folder``'s pyproject.toml that looks like a misspelt
    ``[tool.decouple]`` (``tool.decoupel``, ``tool.Decouple``, ``decouple``), if any."""
    if tomllib is None:
        return None
    try:
        doc = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # no file, or one the project's own tools will complain about
    names = {k: k for k, v in doc.items() if k != "tool" and isinstance(v, dict)}
    tool = doc.get("tool")
    if isinstance(tool, dict):
        names.update({f"tool.{k}": k for k, v in tool.items() if isinstance(v, dict)})
    close = [q for q, k in names.items() if difflib.SequenceMatcher(None, k.lower(), "decouple").ratio() >= 0.75]
    return min(close, default=None)


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
    if key in ("parent", "base", "test", "trace", "issue"):
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
