"""DC612 drop-recomputed: do not inline a parent assignment that the class's ``__init__`` repeats.

## What it does
A kept statement ``self.x = E`` of the parent's ``__init__`` (at the top level of its body)
is not inlined when the class's own ``__init__``, later at its top level, assigns
``self.x = E`` again with the same expression, bound to the same names, and nothing reads
``self.x`` in between except statements that can move: ``self.y = F`` with ``F`` free of
calls (other than pure builtins), whose result nothing reads before the repeat. Those move
to just after the class's assignment, in their order.

## Why
The parent's copy of the work is done twice: once in the inlined code, once by the class.
A reviewer sees a call made twice in a row for the same value.

## Known problems
- The value of ``E`` is taken to be the same at both places when nothing the analysis sees
  writes what ``E`` reads in between (attributes of ``self``, the names it reads): calls in
  ``E`` to other objects are taken to return the same value for the same inputs.
- ``E`` may call a method through ``self`` only when that method assigns nothing on
  ``self`` and has no ``raise`` or ``assert``; other calls must be pure builtins or calls on
  other objects (the convention of DC406: a call whose value is assigned is made for it).
- Only statements at the top level of both ``__init__`` bodies are considered.

## Fix safety
The attribute ends with the class's value, as before; each moved statement computes from
the same value it saw before, since nothing between changes it.
"""

from __future__ import annotations

import ast

from ..ast_util import bind_arguments, first_param, pos, walk
from ..facts import PURE_CALLS, collect

ID = "DC612"
NAME = "drop-recomputed"


def find(st, res, pinit: ast.FunctionDef, psn: str) -> tuple[dict, list]:
    """({position of the dropped parent statement: the class's repeat}, [(moved parent statement, the repeat)])."""
    a = st.a
    cinit = a.cls.methods.get("__init__")
    sup = a.super_init_stmt
    if cinit is None or sup is None or sup not in cinit.body or a.fusions or a.read_through:
        return {}, []
    csn = first_param(cinit)
    effects = st.method_effects()
    after = cinit.body[cinit.body.index(sup) + 1:]
    kept = [s for s in pinit.body if pos(s) in res.kept]
    dropped, moved = {}, []
    written: dict[int, set[str]] = {}  # what each statement after super() writes, collected once

    def writes(c: ast.stmt) -> set[str]:
        if id(c) not in written:
            written[id(c)] = collect(c, csn).writes_attrs
        return written[id(c)]

    for i, s1 in enumerate(kept):
        x = _assigned_attr(s1, psn)
        if x is None or not _value_only(s1.value, psn, effects):
            continue
        r = next((c for c in after if x in writes(c)), None)
        if r is None or _assigned_attr(r, csn) != x:
            continue
        between_c = after[:after.index(r)]
        if not _same_value(s1, r, a, psn, csn, between_c):
            continue
        plan = _movable(kept[i + 1:], between_c, x, psn, csn, effects)
        if plan is None:
            continue
        dropped[pos(s1)] = r
        moved += [(d, r) for d in plan]
    return dropped, moved


def _assigned_attr(s: ast.stmt, sn: str) -> str | None:
    targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) and s.value is not None else []
    if len(targets) == 1 and isinstance(targets[0], ast.Attribute) and isinstance(targets[0].value, ast.Name) and targets[0].value.id == sn:
        return targets[0].attr
    return None


def _value_only(expr: ast.AST, sn: str, effects: dict) -> bool:
    """Calls in ``expr`` are made for their value: self methods that assign nothing and do not
    validate, pure builtins, or methods of other objects."""
    for n in walk(expr):
        if isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == sn:
                eff = effects.get(f.attr)
                if eff is None or eff.writes or eff.validates:
                    return False
            elif isinstance(f, ast.Name) and f.id not in PURE_CALLS:
                return False
    return True


def _same_value(s1, r, a, psn: str, csn: str, between: list) -> bool:
    """``r`` computes what ``s1`` computed: the same expression, over the same parameters, none
    of which (nor the attributes it reads) the class's statements ``between`` them rebind."""
    if ast.dump(_renamed(s1.value, {psn: csn})) != ast.dump(r.value):
        return False
    names = {n.id for n in walk(s1.value) if isinstance(n, ast.Name) and n.id != psn}
    b = bind_arguments(a.parent_init, a.super_init_call)
    if b.opaque:
        return False
    for name in names:  # each a parameter the class passes under its own name
        arg = b.bound.get(name)
        if not (isinstance(arg, ast.Name) and arg.id == name):
            return False
    # The names the value reads keep their binding up to the repeat.
    stores = {n.id for s in between for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    written = set()
    for s in between:
        f = collect(s, csn)
        written |= f.writes_attrs | f.mutates_attrs
    return not (names & stores) and not (collect(s1.value, psn).reads_attrs & written)


def _renamed(expr: ast.AST, mapping: dict[str, str]) -> ast.AST:
    class R(ast.NodeTransformer):
        def visit_Name(self, n):
            return ast.copy_location(ast.Name(mapping.get(n.id, n.id), n.ctx), n)

    return R().visit(ast.parse(ast.unparse(expr), mode="eval").body)


def _movable(rest: list, between_c: list, x: str, psn: str, csn: str, effects: dict) -> list | None:
    """The parent statements after the dropped one that read ``x``, when each can move after the
    repeat; None when some use of ``x`` (or of what a moved statement defines) is in the way."""
    moving, defined, needs = [], set(), set()
    for s in rest:
        f = collect(s, psn)
        reads = f.reads_attrs | f.mutates_attrs | {r for m in f.calls_methods if m in effects for r in effects[m].reads}
        writes = f.writes_attrs | f.mutates_attrs | {w for m in f.calls_methods if m in effects for w in effects[m].writes}
        if x in reads or reads & defined:
            y = _assigned_attr(s, psn)
            if y is None or f.calls_methods or f.reads_locals or any(
                    isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in PURE_CALLS) for n in walk(s.value)):
                return None
            moving.append(s)
            defined.add(y)
            needs |= reads - {x} - defined
        elif writes & (defined | needs | {x}):
            return None
    for s in between_c:
        f = collect(s, csn)
        touched = f.reads_attrs | f.mutates_attrs | f.writes_attrs | {r for m in f.calls_methods if m in effects for r in effects[m].reads | effects[m].writes}
        if touched & (defined | {x}) or (f.writes_attrs | f.mutates_attrs) & needs:
            return None
    return moving
