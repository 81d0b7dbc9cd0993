"""DC207 match-class: decline when a ``match`` statement has a class pattern for the parent.

## What it does
Finds ``case P(...):`` patterns (keyword or positional sub-patterns included) anywhere in the
tree. Unless an earlier case of the same ``match`` names the class, it is a hazard that
changes meaning.

## Why
A class pattern is an ``isinstance`` check: after reparenting, an instance of the class no
longer matches ``case P()`` and falls through to another case.

## Known problems
The subject is not typed: every ``case P()`` counts.

## Fix safety
The class is declined (DC503).
"""

from __future__ import annotations

import ast

from ..model import Hazard
from .hazard_isinstance import qualified

ID = "DC207"
NAME = "match-class"


def check(st, mod, rel: str, node: ast.AST) -> bool:
    if not (hasattr(ast, "MatchClass") and isinstance(node, ast.Match)):
        return False
    a = st.a
    seen_child = False
    for case in node.cases:
        for pat in ast.walk(case.pattern):
            if not isinstance(pat, ast.MatchClass):
                continue
            q = qualified(st, mod, pat.cls)
            if q == a.cls.qualname:
                seen_child = True
            elif q == a.parent.qualname and not seen_child:
                a.hazards.append(Hazard(rel, pat.lineno, f"case {ast.unparse(pat)[:80]} would no longer match {a.cls.name} after reparenting", rule=ID))
    return True
