"""DC206 mro-membership: decline when code tests whether the parent is in a class's MRO or bases.

## What it does
Finds comparisons ``P in <x>.__mro__``, ``P in <x>.mro()``, ``P in <x>.__bases__`` (and
``not in``) anywhere in the tree: hazards that change meaning.

## Why
They are subclass tests written by hand; after reparenting the class's MRO no longer
holds P.

## Known problems
Exact type comparisons (``type(x) is P``, ``x.__class__ == P``) are not hazards: an
instance of the class never had type P, before or after. A walk over the MRO with a loop
is seen only through the class-name rule (DC203).

## Fix safety
The class is declined (DC503).
"""

from __future__ import annotations

import ast

from ..model import Hazard

ID = "DC206"
NAME = "mro-membership"
_MRO = ("__mro__", "__bases__")


def check(st, mod, rel: str, node: ast.AST) -> bool:
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))):
        return False
    right = node.comparators[0]
    walks = (isinstance(right, ast.Attribute) and right.attr in _MRO) or (
        isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute) and right.func.attr == "mro")
    if walks and mod.qualify(node.left) == st.a.parent.qualname:
        a = st.a
        a.hazards.append(Hazard(rel, node.lineno, f"{ast.unparse(node)[:100]} would no longer hold for {a.cls.name} after reparenting", rule=ID))
    return walks
