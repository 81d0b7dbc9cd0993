"""DC202 type-list: decline when the parent is listed among types without the class.

## What it does
Finds list, tuple and set literals that name the parent but not the class, in files
that use ``isinstance``/``issubclass``: such a literal may feed a type check.

## Why
A type check through the literal would no longer match the class after reparenting.

## Known problems
Coarse: any such literal in a file with a type check counts, whether or not it reaches
one. Literals passed straight to ``isinstance`` are DC201's.

## Fix safety
The class is declined (DC503).
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name
from ..model import Hazard
from ..index import enclosing
from .hazard_isinstance import qualified

ID = "DC202"
NAME = "type-list"


def check(st, mod, rel: str, node: ast.AST) -> bool:
    """Record a hazard for a literal of types; True when ``node`` is a list, tuple or set."""
    a, p = st.a, st.a.parent
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return False
    refs = [qualified(st, mod, e) for e in node.elts if dotted_name(e)]
    if p.qualname in refs and a.cls.qualname not in refs and _looks_like_type_list(mod, node):
        a.hazards.append(Hazard(rel, node.lineno, f"{p.name} listed among types without {a.cls.name}: a type check through this list would no longer match {a.cls.name}", rule=ID))
    return True


def _looks_like_type_list(mod, node: ast.AST) -> bool:
    """A literal of classes that feeds a type check (isinstance/issubclass/`in type(x).__mro__`)."""
    par = None
    for anc in enclosing(mod, node):
        par = anc
        break
    if isinstance(par, ast.Call) and isinstance(par.func, ast.Name) and par.func.id in ("isinstance", "issubclass"):
        return False  # handled as an isinstance call
    text = mod.text
    return "isinstance(" in text or "issubclass(" in text
