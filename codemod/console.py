"""What a run prints: the diff (coloured on a terminal), the ``--check`` lines in each
``--format``, and the summary line of a run that writes.

Only presentation lives here; ``emit`` decides what is printed when.
"""

from __future__ import annotations

import os
from pathlib import Path

from .rules.verdict_already_decoupled import ID as ALREADY_DECOUPLED

RESET = "\033[0m"
# The colours git uses for the same parts of a diff, so a decouple diff reads like any other.
DIFF_COLOURS = (("+++", "\033[1m"), ("---", "\033[1m"), ("diff --git", "\033[1m"), ("new file mode", "\033[1m"),
                ("@@", "\033[36m"), ("+", "\033[32m"), ("-", "\033[31m"))


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 method``, ``2 methods``: a number and its noun, which agree."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def use_colour(choice: str, stream, environ=os.environ) -> bool:
    """``--color``: ``always`` and ``never`` as said; ``auto`` only on a terminal, and not when
    NO_COLOR is set to anything non-empty (https://no-color.org)."""
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def colour_diff(diff: str) -> str:
    """The diff with ANSI colours; each line's escape is closed before its newline, so a pager
    or a terminal that cuts lines never carries a colour onto the next one."""
    out = []
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        colour = next((c for prefix, c in DIFF_COLOURS if body.startswith(prefix)), None)
        out.append(f"{colour}{body}{RESET}{line[len(body):]}" if colour and body else line)
    return "".join(out)


def check_line(fmt: str, root: Path, file: str, line: int, message: str) -> str:
    """One ``--check`` finding: ``file:line: message``, or with ``github`` a GitHub Actions
    annotation. Either way the file is named from the working directory, as ruff names it and
    as Actions resolves it."""
    path = display_path(root / file)
    if fmt == "github":
        return f"::warning file={_escape(path, True)},line={line}::{_escape(message, False)}"
    return f"{path}:{line}: {message}"


def _escape(text: str, in_property: bool) -> str:
    # The workflow-command encoding: these characters would otherwise end the value early.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if in_property else text


def display_path(path: Path) -> str:
    """``path`` from the working directory when it is under it, else absolute."""
    try:
        return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd().resolve()) else str(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def summary(written: list[str], classes: list[dict], patched: bool) -> str:
    """The one line a writing run ends with: what it wrote, and how the classes were judged.
    ``patched``: whether the run made a patch (not with --analyse-only, nor when refused)."""
    counts = {d: sum(1 for c in classes if c["decision"] == d) for d in ("decouple", "decline", "unsafe")}
    already = sum(1 for c in classes if c["rule"] == ALREADY_DECOUPLED)
    n = counts["decouple"]
    said = [f"{counted(n, 'class', 'classes')} {'decoupled' if patched or not n else 'would be decoupled'}"]
    if already:
        said.append(f"{already} already decoupled")
    said.append(f"{counts['decline'] - already} declined")
    if counts["unsafe"]:
        said.append(f"{counts['unsafe']} refused as unsafe, so no patch")
    what = f"wrote {', '.join(written)}" if written else "nothing to write"
    return f"{what} ({', '.join(said)})"
