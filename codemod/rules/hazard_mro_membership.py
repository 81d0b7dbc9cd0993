"""DC206 mro-membership: decline when code tests whether the parent is in a class's MRO or bases.

## What it does
Finds comparisons ``P in <x>.__mro__``, ``P in <x>.mro()``, ``P in <x>.__bases__`` (and
``not in``) anywhere in the tree: hazards that change meaning. So is the same test written as a
walk (``codemod/mro_walks.py``): ``for k in type(x).__mro__: if k is P`` (``is``, ``==`` and
their negations, in a loop or a comprehension), unless the walked object cannot be an instance
of the class or the walk sits in the parent's own code that is not copied.

## Why
They are subclass tests written by hand; after reparenting the class's MRO no longer
holds P.

## Known problems
Exact type comparisons (``type(x) is P``, ``x.__class__ == P``) are not hazards: an
instance of the class never had type P, before or after. A walk the helper does not recognise
(through another name, a ``while`` over ``__base__``) is seen only through the class-name rule
(DC203). Classes looked up in a table along the walk are DC209's.

## Fix safety
The class is declined (DC503).
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name
from ..model import Hazard, Receiver
from ..mro_walks import instance_of, loop_over_walk
from .hazard_isinstance import qualified

ID = "DC206"
NAME = "mro-membership"
_MRO = ("__mro__", "__bases__")


def check(st, mod, rel: str, node: ast.AST) -> bool:
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return False
    if isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        return _walk_compare(st, mod, rel, node)
    if not isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return False
    right = node.comparators[0]
    walks = (isinstance(right, ast.Attribute) and right.attr in _MRO) or (
        isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute) and right.func.attr == "mro")
    if walks and mod.qualify(node.left) == st.a.parent.qualname:
        a = st.a
        a.hazards.append(Hazard(rel, node.lineno, f"{ast.unparse(node)[:100]} would no longer hold for {a.cls.name} after reparenting", rule=ID))
    return walks


def _walk_compare(st, mod, rel: str, node: ast.Compare) -> bool:
    """``k is P`` where ``k`` walks an MRO: True when it is such a test."""
    a = st.a
    sides = (node.left, node.comparators[0])
    if not any(dotted_name(s) is not None and qualified(st, mod, s) == a.parent.qualname for s in sides):
        return False
    key = next((s for s in sides if isinstance(s, ast.Name)), None)
    loop = loop_over_walk(mod, key) if key is not None else None
    if loop is None or st.in_dropped_parent_code(mod, node):
        return False
    x = instance_of(loop[1])
    if x is not None and st.receivers().receiver(mod, x, node)[0] == Receiver.NO:
        return True
    a.hazards.append(Hazard(rel, node.lineno, f"{ast.unparse(node)[:60]} along {ast.unparse(loop[1])[:40]}'s MRO would no longer hold for {a.cls.name} after reparenting", rule=ID))
    return True
