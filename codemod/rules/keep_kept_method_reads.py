"""DC103 kept-method-reads: keep what a kept method or property of the parent reads or calls.

## What it does
Follows every kept method and property of the parent (a property's setter and deleter
included) and keeps what it reads or calls through ``self``, until nothing new is kept
(a transitive closure, run again after each slice of the parent's ``__init__``).

## Why
A copied method that reads ``self.X`` needs ``X`` on the class.

## Known problems
A method the class overrides is not followed, unless a ``super()`` call reaches the
parent's version (DC102). Calls to other objects' methods are not followed.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

import ast

ID = "DC103"
NAME = "kept-method-reads"


def follow(st, name: str) -> None:
    """Scan the kept member ``name`` of P for what it uses."""
    a = st.a
    m, owner = a.members[name]
    if m.kind in ("method", "property") and m.node is not None and (name not in st.child_defines or name in st.super_reached):
        satisfied = st.satisfied()
        st.scan_method(owner, m.node, satisfied, f"{owner.name}.{name} (kept)", ID)
        if m.kind == "property":
            for extra in owner.node.body:
                if isinstance(extra, ast.FunctionDef) and extra.name == name and extra is not m.node:
                    st.scan_method(owner, extra, satisfied, f"{owner.name}.{name} (kept)", ID)
