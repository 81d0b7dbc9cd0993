"""DC406 dropped-call: report a dropped expression statement that calls something.

## What it does
Lists each dropped statement of the parent's ``__init__`` (a call on its own, or one whose
value is assigned: ``self.db = sqlite3.connect(...)``) that calls a function other than a
pure builtin (``len``, ``isinstance``, ...) or a mutator of the instance's own state
(``self.x.append(...)``).

## Why
A call made for its effect may matter to code elsewhere.

## Known problems
The called function is not analysed; any such call is reported.

## Fix safety
Reported only.
"""

from __future__ import annotations

import ast

from ..facts import MUTATORS, PURE_CALLS

ID = "DC406"
NAME = "dropped-call"


def match_call(name: str, last: str, stmt, call: ast.Call) -> str | None:
    if name and last not in PURE_CALLS and not _mutates_only_self(call):
        return f"call with possible side effects: {name}()"
    return None


def _mutates_only_self(call: ast.Call) -> bool:
    """self.x.append(...) and friends: the instance's own state, not an outside effect."""
    f = call.func
    if not (isinstance(f, ast.Attribute) and f.attr in MUTATORS):
        return False
    cur = f.value
    while isinstance(cur, (ast.Attribute, ast.Subscript)):
        cur = cur.value
    return isinstance(cur, ast.Name) and cur.id == "self"

