"""``[tool.decouple]`` in ROOT's ``pyproject.toml``: the defaults a project keeps for its CI.

    [tool.decouple]
    classes = ["TRTLLMHAAttnBackend"]   # --class, each
    parent = "FlashInferAttnBackend"    # --parent
    base = "AttentionBackend"           # --base
    max-copied-share = 0.5              # --max-copied-share
    plain-gain = false                  # --plain-gain
    any-gain = false                    # --any-gain

Only ROOT's own ``pyproject.toml`` is read (not its parents'): ROOT is what the run analyses,
and a file above it may belong to another project.
"""

from __future__ import annotations

from pathlib import Path

from .errors import UsageError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, where it is installed, is the same parser
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

KEYS = {
    "classes": "a list of class names",
    "parent": "a class name",
    "base": "a class name",
    "max-copied-share": "a number from 0 to 1",
    "plain-gain": "true or false",
    "any-gain": "true or false",
}


def load(root: str | None) -> dict:
    """The validated ``[tool.decouple]`` table of ROOT's pyproject.toml, keys as written there;
    empty when there is no such file or table. A malformed one is a usage error."""
    if root is None:
        return {}
    path = Path(root) / "pyproject.toml"
    try:
        data = path.read_bytes()
    except OSError:  # no file, or ROOT is not a directory (the tree says so next)
        return {}
    if b"decouple" not in data:
        return {}  # no table can be there: the parse (and, on Python 3.10, a TOML parser) is not needed
    if tomllib is None:
        raise UsageError(f"{path}: reading [tool.decouple] needs Python 3.11 or the tomli package")
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    tool = doc.get("tool", {})
    table = tool.get("decouple", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise UsageError(f"{path}: tool.decouple must be a table ([tool.decouple])")
    for key, value in table.items():
        if key not in KEYS:
            raise UsageError(f"{path}: unknown key {key!r} in [tool.decouple] (known: {', '.join(KEYS)})")
        if not _valid(key, value):
            raise UsageError(f"{path}: [tool.decouple] {key} must be {KEYS[key]}, got {value!r}")
    return table


def _valid(key: str, value) -> bool:
    if key == "classes":
        return isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    if key in ("parent", "base"):
        return isinstance(value, str) and bool(value)
    if key == "max-copied-share":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    return isinstance(value, bool)
