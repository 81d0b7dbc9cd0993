"""DC106 init-slice-defines: keep the attributes that kept statements of the parent's ``__init__`` define.

## What it does
A statement the slice keeps may define more than the attribute it was kept for
(``self.a, self.b = f()``, or a ``self.setup()`` that assigns several). Every parent
attribute such a statement assigns, itself or through the methods it calls, is kept as a
dependency, unless the class provides it itself; the slice then also keeps the later
statements that assign it again, so the instance ends with the parent's final value.

## Why
The inlined statement assigns it anyway; the report must account for it.

## Known problems
None known.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

import ast

from ..ast_util import pos, walk
from ..facts import collect
from ..model import Evidence

ID = "DC106"
NAME = "init-slice-defines"


def run(st, res, init, sn, owner) -> None:
    a = st.a
    satisfied = st.satisfied()
    effects = st.method_effects()
    for s in walk(init):
        if isinstance(s, ast.stmt) and pos(s) in res.kept:
            f = collect(s, sn) if not isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)) else None
            if f is None:
                continue
            written = set(f.writes_attrs).union(*(effects[m].writes for m in f.calls_methods if m in effects))
            for attr in sorted(written):
                if attr in a.members and attr not in a.kept and not satisfied(attr):
                    st.need(attr, Evidence(owner.file, s.lineno, f"defined by a kept statement of {owner.name}.__init__ (a dependency)", ID))
