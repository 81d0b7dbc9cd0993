"""DC610 format-changed-lines: format the lines the patch adds or changes in the target's own style.

## What it does
Finds the target's formatter: black or ruff format, from ``.pre-commit-config.yaml`` or
``pyproject.toml`` (``[tool.black]``, ``[tool.ruff]``) at ROOT or in its ``python/``
folder, and its line length (88 when none is set). Then it formats only the statements that hold
lines the patch adds or changes, each alone at its indentation with the line length less
the indentation (what black gives nested code), so untouched code stays byte for byte. A comment line the patch adds that is still over the line length is
wrapped at it. Without a configured formatter the lines are formatted in black's style.

## Why
A maintainer merges a patch that passes the project's own pre-commit as it stands; one
that does not is a patch somebody must redo by hand.

## Known problems
- ruff format is approximated by black with ruff's line length and quote setting: the two
  agree on nearly all code, not on every line.
- The installed black is used; where the target pins another version, its output can
  differ on rare constructs.
- A simple statement the patch changed in part is formatted whole; a compound statement
  changed in part is entered and only its changed statements are formatted.
- Black's decisions that depend on what surrounds a statement (blank lines around it) are
  not made: the blank lines between statements stay as the rewrite wrote them.
- A trailing comment on a code line is not wrapped.
- A file with mixed line endings is left unformatted; one with CRLF endings keeps them.

## Fix safety
Safe: a formatted statement replaces the original only when both parse to the same AST;
when black fails, or cannot parse a statement alone, it stays as the rewrite wrote it.
"""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
from dataclasses import dataclass

ID = "DC610"
NAME = "format-changed-lines"

_CONFIG_DIRS = ("", "python/")


@dataclass(frozen=True)
class Style:
    formatter: str  # "black", "ruff" (formatted as black with ruff's settings) or "default"
    line_length: int = 88
    normalize_strings: bool = True
    magic_trailing_comma: bool = True
    source: str = "black's defaults"


def _toml(text: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def style_of(tree) -> Style:
    """The target's formatting style, from its configuration files (read through the tree,
    so that a change to them invalidates a cached run)."""
    hooks = ""
    for d in _CONFIG_DIRS:
        hooks += tree.text(f"{d}.pre-commit-config.yaml") or ""
    for d in _CONFIG_DIRS:
        text = tree.text(f"{d}pyproject.toml")
        if text is None:
            continue
        tool = _toml(text).get("tool", {})
        if "black" in tool or (re.search(r"psf/black|black-pre-commit", hooks) and "ruff" not in tool):
            cfg = tool.get("black", {})
            return Style("black", int(cfg.get("line-length", 88)), not cfg.get("skip-string-normalization", False),
                         not cfg.get("skip-magic-trailing-comma", False), f"{d}pyproject.toml [tool.black]")
        if "ruff" in tool:
            cfg = tool["ruff"]
            fmt = cfg.get("format", {})
            return Style("ruff", int(cfg.get("line-length", 88)), fmt.get("quote-style", "double") == "double",
                         not fmt.get("skip-magic-trailing-comma", False), f"{d}pyproject.toml [tool.ruff]")
    if re.search(r"psf/black|black-pre-commit", hooks):
        return Style("black", source=".pre-commit-config.yaml (black)")
    if re.search(r"ruff-format", hooks):
        return Style("ruff", source=".pre-commit-config.yaml (ruff format)")
    return Style("default")


def changed_ranges(before: str, after: str) -> list[tuple[int, int]]:
    """The 1-based, inclusive line ranges of ``after`` that differ from ``before``.

    The lines both share at the start and at the end are set aside first: a patch changes a
    few classes of a file, and difflib's matcher is quadratic in what it is given."""
    a, b = before.splitlines(), after.splitlines()
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    sm = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail], autojunk=False)
    return [(head + j1 + 1, head + j2) for tag, _, _, j1, j2 in sm.get_opcodes() if tag in ("replace", "insert") and j2 > j1]


def apply(before: str, after: str, style: Style) -> str:
    """``after`` with its changed lines formatted in ``style``, in the file's own line endings."""
    if "\r" in after:
        if after.count("\n") != after.count("\r\n") or after.count("\r") != after.count("\r\n"):
            return after  # mixed line endings: any change of layout could mix them further
        return _lf_only(before, after, style).replace("\n", "\r\n")
    return _lf_only(before, after, style)


def _lf_only(before: str, after: str, style: Style) -> str:
    after = after.replace("\r\n", "\n")
    before = before.replace("\r\n", "\n")
    ranges = changed_ranges(before, after)
    if not ranges:
        return after
    try:
        import black
        tree = ast.parse(after)
    except (ImportError, SyntaxError):
        return _wrap_comments(before, after, style.line_length)
    changed = {n for lo, hi in ranges for n in range(lo, hi + 1)}
    lines = after.splitlines(keepends=True)
    # Bottom up, so that the line numbers of the statements still to format stay valid.
    for first, last in sorted(_statements(tree.body, changed), reverse=True):
        lines[first - 1:last] = _format_statement(black, lines[first - 1:last], style)
    return _wrap_comments(before, "".join(lines), style.line_length)


def _statements(body: list, changed: set[int]) -> list[tuple[int, int]]:
    """(first, last) lines of the innermost statements that hold changed lines: a compound
    statement that is changed only in part is entered, so that its untouched lines stay."""
    out = []
    for s in body:
        first = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])
        span = set(range(first, s.end_lineno + 1))
        if not span & changed:
            continue
        blocks = [b for b in (getattr(s, f, None) for f in ("body", "orelse", "finalbody")) if isinstance(b, list) and b]
        blocks += [h.body for h in getattr(s, "handlers", [])] + [c.body for c in getattr(s, "cases", [])]
        if blocks and not span <= changed:
            for b in blocks:
                out += _statements(b, changed)
        else:
            out.append((first, s.end_lineno))
    return out


def _format_statement(black, lines: list[str], style: Style) -> list[str]:
    """One statement's lines formatted alone, at its indentation (black would give it the
    line length less the indentation), or as they were when black cannot or would change its meaning."""
    text = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    snippet = textwrap.dedent(text)
    if len(lines[0]) - len(lines[0].lstrip()) != indent or not snippet.strip():
        return lines
    mode = black.Mode(line_length=max(20, style.line_length - indent), string_normalization=style.normalize_strings,
                      magic_trailing_comma=style.magic_trailing_comma)
    try:
        out = black.format_str(snippet, mode=mode)
        if ast.dump(ast.parse(out)) != ast.dump(ast.parse(snippet)):
            return lines
    except Exception:  # noqa: BLE001 - a snippet black cannot take stays as the rewrite made it
        return lines
    pad = lines[0][:indent]
    return [(pad + l if l.strip() else l) for l in out.splitlines(keepends=True)]


def _wrap_comments(before: str, after: str, width: int) -> str:
    lines = after.splitlines(keepends=True)
    out: list[str] = []
    changed = {i for a, b in changed_ranges(before, after) for i in range(a, b + 1)}
    for no, line in enumerate(lines, 1):
        body = line.rstrip("\r\n")
        m = re.match(r"(\s*)#\s?(.*)", body)
        if no in changed and m and len(body) > width and len(m.group(1)) + 12 < width:
            end = line[len(body):]
            out += [w + end for w in textwrap.wrap(m.group(2), width, initial_indent=m.group(1) + "# ",
                                                   subsequent_indent=m.group(1) + "# ", break_on_hyphens=False,
                                                   break_long_words=False)]
        else:
            out.append(line)
    return "".join(out)
