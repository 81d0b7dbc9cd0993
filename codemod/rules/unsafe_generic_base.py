"""DC304 generic-base: refuse to reparent through a subscripted base (``Box[int]``, ``Generic[T]``).

## What it does
Marks the class unsafe when it names the parent with a subscript (``class IntBox(Box[int])``),
or when the new base would be a subscripted one (the parent is ``class Box(Generic[T])``).

## Why
The type arguments belong to the parent's parameters: the new base cannot simply take the
parent's place (``class IntBox(Generic)`` does not even build), and what the arguments should
become is a decision for a person.

## Known problems
Refused even where the parameters could be carried over mechanically.

## Fix safety
No patch is written (exit 3), with this reason instead of a lookup failure.
"""

from __future__ import annotations

import ast

from ..model import Hazard

ID = "DC304"
NAME = "generic-base"


def check(st) -> None:
    a, index = st.a, st.index
    for expr, q in zip(a.cls.node.bases, a.cls.bases):
        if isinstance(expr, ast.Subscript) and index._same_class(q, a.parent):
            a.unsafe.append(Hazard(a.cls.file, a.cls.line, f"{a.cls.name} inherits {ast.unparse(expr)}, a subscripted parent", rule=ID))
    first = a.parent.node.bases[0] if a.parent.node.bases else None
    if isinstance(first, ast.Subscript):
        a.unsafe.append(Hazard(a.parent.file, a.parent.line, f"the new base would be {ast.unparse(first)}, a subscripted base of {a.parent.name}", rule=ID))
