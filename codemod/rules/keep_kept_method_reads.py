"""DC103 kept-method-reads: keep what a kept method or property of the parent reads or calls.

## What it does
Follows every kept method and property of the parent (every definition of its name: a
property's setter and deleter, each ``_`` a dispatcher registers) and keeps what it reads or
calls through ``self``, until nothing new is kept (a transitive closure, run again after each
slice of the parent's ``__init__``). A kept class
attribute whose value names another member of the same class body (``__enter__ = begin``,
``sizes = DEFAULTS + EXTRA``) keeps that member too: the copied line evaluates it in C's body.

## Why
A copied method that reads ``self.X`` needs ``X`` on the class; a copied alias needs its target
defined above it.

## Known problems
A method the class overrides is not followed, unless a ``super()`` call reaches the
parent's version (DC102). Calls to other objects' methods are not followed.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

import ast

from ..model import Evidence, Hazard
from .unsafe_class_body import ID as CLASS_BODY

ID = "DC103"
NAME = "kept-method-reads"


def follow(st, name: str) -> None:
    """Scan the kept member ``name`` of P for what it uses."""
    a = st.a
    m, owner = a.members[name]
    if m.kind in ("method", "property") and m.node is not None and (name not in st.child_defines or name in st.super_reached):
        satisfied = st.satisfied()
        st.scan_method(owner, m.node, satisfied, f"{owner.name}.{name} (kept)", ID)
        # Every definition of the name runs: a property's setter, each ``_`` a dispatcher registers (DC113).
        for extra in owner.node.body:
            if isinstance(extra, (ast.FunctionDef, ast.AsyncFunctionDef)) and extra.name == name and extra is not m.node:
                st.scan_method(owner, extra, satisfied, f"{owner.name}.{name} (kept)", ID)
    elif m.kind == "class_attribute" and isinstance(m.node, (ast.Assign, ast.AnnAssign)) and m.node.value is not None:
        # Names in the value are looked up in the class body first: ``__enter__ = begin``.
        for n in ast.walk(m.node.value):
            if (isinstance(n, ast.Name) and n.id != name and n.id in owner.members and n.id in a.members
                    and a.members[n.id][1] is owner and owner.members[n.id].kind != "instance_attribute"
                    and owner.members[n.id].line < m.node.lineno):
                if n.id in st.child_defines:
                    # The copy would bind C's override, where the parent's body bound its own.
                    h = Hazard(owner.file, n.lineno, (
                        f"{owner.name}.{name} is bound to {owner.name}.{n.id} in the class body, which {a.cls.name} overrides: "
                        f"a copy would bind {a.cls.name}'s"), rule=CLASS_BODY)
                    if h not in a.unsafe:
                        a.unsafe.append(h)
                    continue
                st.need(n.id, Evidence(owner.file, n.lineno, f"{owner.name}.{name} (kept) is bound to {n.id} in the class body", ID))
