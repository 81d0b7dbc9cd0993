"""DC106 init-slice-defines: keep the attributes that kept statements of the parent's ``__init__`` define.

## What it does
A statement the slice keeps may define more than the attribute it was kept for
(``self.a, self.b = f()``). Every parent attribute such a statement assigns is kept as
a dependency, unless the class provides it itself.

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
    for s in walk(init):
        if isinstance(s, ast.stmt) and pos(s) in res.kept:
            f = collect(s, sn) if not isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)) else None
            if f is None:
                continue
            for attr in f.writes_attrs:
                if attr in a.members and attr not in a.kept and not satisfied(attr):
                    st.need(attr, Evidence(owner.file, s.lineno, f"defined by a kept statement of {owner.name}.__init__ (a dependency)", ID))
