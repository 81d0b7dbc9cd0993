"""Checks every patched file must pass before anything is emitted.

A patched file must parse, compile, and add no pyflakes finding of the kinds
that mean broken code or leftovers (undefined names, unused imports, ...)
that the original did not already have. Findings are compared as
(kind, name) pairs, so moved lines do not count as new findings.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from pyflakes import checker, messages

# The findings that mean the refactor broke or left something behind.
WATCHED = (
    messages.UndefinedName,
    messages.UndefinedLocal,
    messages.UndefinedExport,
    messages.UnusedImport,
    messages.ImportShadowedByLoopVar,
    messages.RedefinedWhileUnused,
    messages.DuplicateArgument,
    messages.ReturnOutsideFunction,
)


@dataclass
class Finding:
    kind: str
    name: str
    line: int

    def __str__(self):
        return f"line {self.line}: {self.kind} {self.name!r}"


@lru_cache(maxsize=8)
def findings(text: str, filename: str) -> tuple[Finding, ...]:
    """pyflakes' watched findings; cached, since a rewrite checks the original several times."""
    tree = ast.parse(text, filename=filename)
    w = checker.Checker(tree, filename=filename)
    out = []
    for m in w.messages:
        if isinstance(m, WATCHED):
            name = str(m.message_args[0]) if m.message_args else ""
            out.append(Finding(type(m).__name__, name, m.lineno))
    return tuple(out)


def names_of(fs: tuple[Finding, ...], kind: str) -> set[str]:
    return {f.name for f in fs if f.kind == kind}


def new_findings(before: str, after: str, filename: str) -> list[Finding]:
    old = Counter((f.kind, f.name) for f in findings(before, filename))
    out = []
    for f in findings(after, filename):
        key = (f.kind, f.name)
        if old[key] > 0:
            old[key] -= 1
        else:
            out.append(f)
    return out


def check_file(before: str, after: str, filename: str, allowed_unused: list[str] = ()) -> str | None:
    """None when the patched file is fine, else the reason (one line).

    ``allowed_unused``: imports the rewrite kept on purpose (re-exported, or imported from
    this module elsewhere in the checkout), which pyflakes cannot know about."""
    try:
        compile(after, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{filename}: the patched file does not compile: {exc.msg} (line {exc.lineno})"
    new = [f for f in new_findings(before, after, filename) if not (f.kind == "UnusedImport" and f.name in allowed_unused)]
    if new:
        return f"{filename}: the patch introduces " + "; ".join(str(f) for f in new[:5])
    return None
