"""DC205 except-clause: decline when an ``except`` (or ``raises``/``suppress``) naming the parent would stop catching the class.

## What it does
Finds ``except P:`` and ``except (P, Q):``, and calls that catch by type:
``pytest.raises(P)``, ``contextlib.suppress(P)``, ``self.assertRaises(P)`` and
``assertRaisesRegex``/``assertRaisesRegexp``, anywhere in the tree, with ``P`` alone or in a
tuple. Unless the same clause also names the class (or an ancestor it keeps), it is a hazard
that changes meaning.

## Why
An ``except`` clause is a type check: after reparenting, an instance of the class raised
there is no longer a ``P``, and the handler stops catching it; the exception escapes.

## Known problems
The exception actually raised is not typed: every clause naming P counts, even where no
instance of the class can be raised. A clause that catches through a name bound at run
time (``except errors:``) is not seen.

## Fix safety
The class is declined (DC503); nothing is rewritten.
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name
from ..model import Hazard
from .hazard_isinstance import names_a_kept_ancestor, type_refs

ID = "DC205"
NAME = "except-clause"
CATCHING_CALLS = {"raises", "suppress", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"}


def check(st, mod, rel: str, node: ast.AST) -> bool:
    """Record a hazard for a clause or call catching P; True when ``node`` is a handler or such a call."""
    if isinstance(node, ast.ExceptHandler):
        spec, what = node.type, "except clause"
    elif isinstance(node, ast.Call) and (dotted_name(node.func) or "").rsplit(".", 1)[-1] in CATCHING_CALLS and node.args:
        spec, what = node.args[0], f"{dotted_name(node.func)}()"
    else:
        return False
    if spec is None:
        return True
    a, p = st.a, st.a.parent
    types = type_refs(st, mod, spec)
    if p.qualname not in types or a.cls.qualname in types or names_a_kept_ancestor(st, types):
        return True
    a.hazards.append(Hazard(rel, node.lineno, f"{what} catching {ast.unparse(spec)[:80]} would no longer catch {a.cls.name} after reparenting", rule=ID))
    return True
