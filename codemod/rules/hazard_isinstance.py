"""DC201 isinstance-check: decline when an ``isinstance``/``issubclass`` naming the parent would stop matching the class.

## What it does
Finds ``isinstance(x, P)`` and ``issubclass(x, P)`` (``P`` alone or in a tuple) anywhere in
the tree. ``P`` may be named by its module, through a re-export (``pkg.P``, where ``pkg``'s
``__init__`` imports it by name or by ``*``) or through a module alias (``pkg.exp.P``, where
``pkg`` binds ``exp`` to the module holding it); ``qualified`` reads these names, and DC202,
DC205, DC206 and DC207 share it. Unless the same test also names the class or one of the
ancestors it keeps, or (for ``isinstance``) ``x`` cannot be an instance of the class, or the
check sits in the parent's own code that is not copied, it is a hazard that changes meaning.

## Why
After reparenting, ``isinstance(c, P)`` is False for an instance ``c`` of the class: code
that branched on it takes the other branch.

## Known problems
``except`` clauses (DC205), MRO membership tests (DC206), class patterns (DC207) and
registrations found along the MRO (DC209) are rules of their own. A check outside the tree (P
exported to other packages) cannot be seen, and neither can one whose class is held in a
variable: werkzeug's ``_find_exceptions`` walks ``globals()`` and keeps, per status code, the
most derived class (``issubclass(obj, old_obj)``), so a class reparented off ``BadRequest``
replaces it there. Following class objects is not done.

## Fix safety
The class is declined (DC503); nothing is rewritten.
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name
from ..model import Hazard, Receiver
from ..state import inside_any

ID = "DC201"
NAME = "isinstance-check"


def check(st, flow, mod, rel: str, node: ast.AST) -> bool:
    """Record a hazard for ``node`` when it is such a check; True when ``node`` is an isinstance/issubclass call."""
    a, p = st.a, st.a.parent
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
        return False
    types = type_refs(st, mod, node.args[1])
    if p.qualname not in types:
        return True
    if a.cls.qualname in types or names_a_kept_ancestor(st, types):
        return True
    if node.func.id == "isinstance":
        verdict, _ = flow.receiver(mod, node.args[0], node)
        if verdict == Receiver.NO or inside_any(mod, node, {id(p.node)}) and not _in_kept_method(a, mod, node):
            return True
    a.hazards.append(Hazard(rel, node.lineno, f"{ast.unparse(node)[:100]} would no longer match {a.cls.name} after reparenting", rule=ID))
    return True


def names_a_kept_ancestor(st, types: list[str]) -> bool:
    """Whether ``types`` names, beside P, an ancestor C keeps after reparenting (the check still matches C)."""
    a = st.a
    kept = set(st.index.ancestors(a.cls)) - {x.qualname for x in a.chain}
    return any(t in kept for t in types if t != a.parent.qualname)


def type_refs(st, mod, spec: ast.AST) -> list[str]:
    elts = spec.elts if isinstance(spec, (ast.Tuple, ast.List)) else [spec]
    return [qualified(st, mod, e) for e in elts if dotted_name(e)]


def qualified(st, mod, expr: ast.AST) -> str:
    """The qualified name a type expression refers to; the parent's own when it reaches the parent
    through a re-export or a module alias (``Index.resolve_class``). Only a name spelt like the
    parent's is followed: a re-export of the class or of a kept ancestor that is not followed
    leaves a hazard standing, the safe side."""
    q = mod.qualify(expr)
    p = st.a.parent
    if q != p.qualname and q.rpartition(".")[2] == p.name:
        c = st.index.resolve_class(q)
        if c is not None:
            return c.qualname
    return q


def _in_kept_method(a, mod, node: ast.AST) -> bool:
    from ..receiver_typing.typing_flow import enclosing_class

    fn, owner = enclosing_class(mod, node)
    return fn is not None and fn.name in a.kept
