"""DC101 child-reads-self: keep a parent member that the class reads through ``self``.

## What it does
Keeps a member of the parent when the class's own code reads it: ``self.X`` (or calls
``self.X()``) in any method of the class, nested functions and lambdas included, and
``getattr(self, name)`` (or ``hasattr``/``delattr``) where ``name`` is ``"X"`` or can only be one of
literals the method spells, ``X`` among them (``codemod/literal_names.py``; any other name is
DC301's refusal). In the
class's ``__init__`` the statements are followed in order, and a read counts only where the
class has not assigned ``X`` itself on every path before it (so a class that sets
``self.X`` before reading it needs nothing of the parent for ``X``). An assignment made before
``super().__init__(...)`` does not count for what the parent's ``__init__`` (or a method it
calls) may assign again. A class attribute (or method) of the class provides nothing that the
parent's ``__init__``, run on the class, may store on the instance: the instance's value wins
(``ClassState.shadowed``; DC103 reads it the same way).

## Why
A member the class reads must still exist after reparenting, with the value the parent
gave it. An assignment to one of the parent's properties runs its setter, so it is a use
of the property too.

## Known problems
Paths through loops and ``try`` are joined conservatively (an assignment inside a loop
or a ``try`` body does not count as made). A read through another name bound to ``self``
(``me = self``) is not seen.

## Fix safety
Keeping a member is always safe; it only makes the patch larger.
"""

from __future__ import annotations

import ast

from ..ast_util import first_param, private
from ..facts import collect
from ..model import Evidence
from ..state import attr_lines
from . import unsafe_dynamic_access

ID = "DC101"
NAME = "child-reads-self"


def run(st) -> None:
    """C.__init__ in statement order, then C's other methods."""
    a, cls = st.a, st.a.cls
    init = cls.methods.get("__init__")
    if init is not None:
        # C's own ``self.__x`` is ``_C__x``: it never provides P's ``__x`` (``_P__x``).
        a.child_end_state = {n for n in _flow_init(st, init) if not private(n)}
    for name, fn in cls.methods.items():
        if name == "__init__":
            continue
        st.scan_method(cls, fn, satisfied=st.satisfied(), who=f"{cls.name}.{name}", rule=ID)


def _flow_init(st, init: ast.FunctionDef) -> set[str]:
    """Walk C.__init__ in order: reads before C's own definite assignment are uses of P.

    Returns the attributes C assigns on every path through its __init__."""
    a = st.a
    cls = a.cls
    sn = first_param(init)
    exits: list[set[str]] = []
    parent_assigns = st.parent_init_stores()
    overwritten: set[str] = set()

    def read(attr, line, state, where):
        if attr in state or (attr in st.child_defines and attr not in st.shadowed):
            return
        if attr in a.members:
            st.need(attr, Evidence(cls.file, line, f"read by {cls.name}.__init__ ({where})", ID))

    def stmt_reads(s, state, where):
        f = collect(s, sn)
        lines = attr_lines(s, sn)
        for attr in sorted(f.reads_attrs | f.mutates_attrs | f.calls_methods):
            read(attr, lines.get(attr, s.lineno), state, where)
        for attr in sorted(st.property_writes(f.writes_attrs)):
            st.need(attr, Evidence(cls.file, lines.get(attr, s.lineno), f"{cls.name}.__init__ assigns self.{attr}, which runs the setter of the property ({where})", ID))
        for line, what in f.dynamic:
            unsafe_dynamic_access.record(a, cls.file, line, f"{what} in {cls.name}.__init__")
        return f

    def block(stmts, state, where):
        state = set(state)
        for s in stmts:
            if s is a.super_init_stmt:
                stmt_reads(s, state, where)
                # What the parent's __init__ may assign is the parent's from here on, whatever
                # the class assigned before the call.
                overwritten.update(state & parent_assigns)
                state -= parent_assigns
                where = "after super().__init__"
                continue
            if isinstance(s, ast.If):
                stmt_reads(s.test, state, where)
                r1, w1 = block(s.body, state, where)
                r2, w2 = block(s.orelse, state, where)
                where = w1 if w1 == w2 else "after super().__init__" if "after" in (w1 + w2) else where
                if r1 is None and r2 is None:
                    return None, where
                state = r1 if r2 is None else r2 if r1 is None else (r1 & r2)
            elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                stmt_reads(s.iter if not isinstance(s, ast.While) else s.test, state, where)
                _, w = block(s.body, state, where)
                block(s.orelse, state, where)
                where = w
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                for item in s.items:
                    stmt_reads(item.context_expr, state, where)
                r, where = block(s.body, state, where)
                if r is None:
                    return None, where
                state = r
            elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
                block(s.body, state, where)
                for h in s.handlers:
                    block(h.body, state, where)
                block(s.orelse, state, where)
                r, where = block(s.finalbody, state, where)
                if r is None:
                    return None, where
            elif isinstance(s, ast.Return):
                if s.value is not None:
                    stmt_reads(s.value, state, where)
                exits.append(state)
                return None, where
            elif isinstance(s, ast.Raise):
                stmt_reads(s, state, where)
                return None, where
            else:
                f = stmt_reads(s, state, where)
                state |= f.writes_attrs
        return state, where

    end, _ = block(init.body, set(), "before super().__init__" if a.super_init_stmt is not None else "")
    if end is not None:
        exits.append(end)
    final = set.intersection(*exits) if exits else set()
    # An attribute the class sets before super().__init__ and the parent sets again ends with the
    # parent's value, unless the class sets it once more: the parent's assignment is needed.
    for attr in sorted(overwritten - final):
        if attr in a.members:
            st.need(attr, Evidence(cls.file, a.super_init_stmt.lineno, f"{cls.name}.__init__ assigns self.{attr} before super().__init__, which assigns it again", ID))
    return final

