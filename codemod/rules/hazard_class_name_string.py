"""DC203 class-name-string: report the parent's name as a string; decline where the file walks the MRO.

## What it does
Finds string literals equal to the parent's name outside the parent's module. In a file
that reads ``__mro__``, ``.mro()`` or ``__bases__`` it is a hazard that changes meaning;
elsewhere it is recorded as checked (an exact type-name check is unaffected).

## Why
``type(x).__name__ == "P"`` is unaffected by reparenting, but
``"P" in [c.__name__ for c in type(x).__mro__]`` stops matching the class.

## Known problems
A name built at run time (``"Flash" + "Infer..."``) is not seen.

## Fix safety
Declines (DC503) only in files that walk the MRO.
"""

from __future__ import annotations

import ast

from ..model import Hazard

ID = "DC203"
NAME = "class-name-string"


def check(st, mod, rel: str, node: ast.AST, mro_file: bool) -> None:
    a, p = st.a, st.a.parent
    if isinstance(node, ast.Constant) and node.value == p.name and rel != p.file:
        a.hazards.append(Hazard(
            rel, node.lineno,
            f"class-name string {p.name!r}: " + ("this file walks __mro__/__bases__, so a name check may change meaning" if mro_file else "exact type-name checks are unaffected by reparenting"),
            changes_meaning=mro_file, rule=ID,
        ))
