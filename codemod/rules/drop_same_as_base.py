"""DC151 same-as-base: drop a kept class attribute whose value the new base already gives.

## What it does
After the analysis, a kept class attribute of the parent whose assignment is the same
expression (compared as ``ast``) as the new base's (or one of its ancestors') is dropped:
the class inherits the same value from the new base.

## Why
Copying it would add a line that changes nothing.

## Known problems
Values are compared as written: ``x = 1`` and ``x = 0 + 1`` differ. A base outside the tree
is not looked at, so nothing is dropped for it.

## Fix safety
Safe: attribute lookup on the class finds the same expression's value on the new base.
"""

from __future__ import annotations

import ast

ID = "DC151"
NAME = "same-as-base"


def run(st) -> None:
    a = st.a
    for name in list(a.kept):
        m, owner = a.members[name]
        if m.kind != "class_attribute":
            continue
        b = st.base_member(name)
        if b is not None and b[0].kind == "class_attribute" and _value_dump(b[0].node) == _value_dump(m.node):
            del a.kept[name]


def _value_dump(stmt: ast.AST | None) -> str | None:
    value = getattr(stmt, "value", None)
    return ast.dump(value) if value is not None else None
