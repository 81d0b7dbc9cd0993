"""DC401 dropped-validation: report a dropped ``raise`` or ``assert`` of the parent's ``__init__``.

## What it does
Lists, among the parent's ``__init__`` statements that the class no longer runs, every
``raise`` and ``assert``.

## Why
A validation is behaviour: after the change, arguments the parent rejected are accepted.
The reviewer must see each one.

## Known problems
Only reported: the statement is still dropped when no kept attribute depends on it. A
validation inside a called helper is not seen.

## Fix safety
The report lists it under "Side effects of the parent's __init__ that no longer run".
"""

from __future__ import annotations

import ast

ID = "DC401"
NAME = "dropped-validation"


def match(stmt: ast.stmt, facts) -> str | None:
    if isinstance(stmt, ast.Raise):
        return "raises (a validation the decoupled class would skip)"
    if isinstance(stmt, ast.Assert):
        return "assertion (a validation the decoupled class would skip)"
    return None
