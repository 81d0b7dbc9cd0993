"""DC603 fuse-loops: build a list once where the parent builds it and the class overwrites every element.

## What it does
When the parent's ``__init__`` has ``self.L = []`` followed by
``for i in range(n): self.L.append(E)``, and the class's ``__init__``, after
``super().__init__(...)``, loops over the same ``range(n)`` and first assigns
``self.L[i] = E2`` (before anything else touches ``self.L``), the parent's loop is
dropped and the class's store becomes ``self.L.append(E2)``. An annotation
``self.L: List[Old] = []`` that is inlined becomes ``List[New]``.

## Why
Every element the parent built is overwritten before any read: building it was pure
waste (in SGLang, one throw-away FlashInfer backend per draft step).

## Known problems
Only this exact shape: one ``append`` of one argument per iteration, the same ``range``
expression, no ``break``/``continue``/``return`` in the class's loop before the store.
When a kept statement reads ``self.L`` after the parent's loop, nothing is fused.

## Fix safety
Safe for the shape above; the dropped constructions are listed as side effects (with this
rule's id) so the reviewer sees what no longer runs.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ast_util import dotted_name, first_param, pos, walk
from ..facts import collect
from ..model import Fusion, SideEffect

if TYPE_CHECKING:  # the rewrite's functions import it: the slice asks ``find`` and must not load it
    import libcst as cst

ID = "DC603"
NAME = "fuse-loops"


# ---- analysis ---------------------------------------------------------------------


def find(a, pinit: ast.FunctionDef, psn: str) -> list[Fusion]:
    """Parent loops ``for i in range(n): self.L.append(E)`` whose every element C overwrites."""
    cinit = a.cls.methods["__init__"]
    csn = first_param(cinit)
    body = cinit.body
    try:
        start = body.index(a.super_init_stmt) + 1
    except ValueError:
        return []
    out = []
    for i, ploop in enumerate(pinit.body):
        if not (isinstance(ploop, ast.For) and isinstance(ploop.target, ast.Name) and len(ploop.body) == 1 and not ploop.orelse):
            continue
        call = ploop.body[0]
        if not (isinstance(call, ast.Expr) and isinstance(call.value, ast.Call) and isinstance(call.value.func, ast.Attribute)
                and call.value.func.attr == "append" and len(call.value.args) == 1 and not call.value.keywords):
            continue
        recv = call.value.func.value
        if not (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == psn):
            continue
        attr = recv.attr
        if not (_is_range_count(ploop.iter) and i > 0 and _assigns_empty_list(pinit.body[i - 1], attr, psn)):
            continue
        for cl in body[start:]:
            if isinstance(cl, ast.For) and ast.dump(cl.iter) == ast.dump(ploop.iter) and isinstance(cl.target, ast.Name) and not cl.orelse:
                store = _first_index_store(cl, attr, csn)
                if store is not None:
                    out.append(Fusion(attr, ploop, cl, store))
                break
            if attr in collect(cl, csn).reads_attrs | collect(cl, csn).mutates_attrs:
                break
    return out


def read_after(init: ast.FunctionDef, loop: ast.For, attr: str, res, sn: str, replaced: dict) -> bool:
    """Whether a kept statement after the parent's loop reads ``self.attr`` (then nothing is fused)."""
    after = False
    for s in init.body:
        if s is loop:
            after = True
            continue
        if pos(s) in replaced:
            continue
        if after and pos(s) in res.kept:
            f = collect(s, sn)
            if attr in f.reads_attrs | f.mutates_attrs:
                return True
    return False


def side_effect(a, owner, f: Fusion) -> SideEffect:
    elem = f.parent_loop.body[0].value.args[0]
    built = dotted_name(elem.func).rsplit(".", 1)[-1] if isinstance(elem, ast.Call) and dotted_name(elem.func) else "an element"
    return SideEffect(owner.file, f.parent_loop.lineno, owner.module.lines[f.parent_loop.lineno - 1].strip(),
                      f"constructs {built} for each element of self.{f.attr}, which {a.cls.name} overwrites at line {f.child_store.lineno} before any read", ID)


def _is_range_count(it: ast.AST) -> bool:
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1 and not it.keywords


def _assigns_empty_list(stmt: ast.stmt, attr: str, sn: str) -> bool:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t, v = stmt.targets[0], stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        t, v = stmt.target, stmt.value
    else:
        return False
    return (isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == sn
            and isinstance(v, ast.List) and not v.elts)


def _first_index_store(loop: ast.For, attr: str, sn: str) -> ast.Assign | None:
    """``self.attr[i] = E`` at the top of the loop body, before anything else touches self.attr."""
    var = loop.target.id
    for s in loop.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr == attr
                    and isinstance(t.value.value, ast.Name) and t.value.value.id == sn
                    and isinstance(t.slice, ast.Name) and t.slice.id == var):
                f = collect(s.value, sn)
                if attr in f.reads_attrs | f.mutates_attrs:
                    return None
                return s
        f = collect(s, sn)
        if attr in f.reads_attrs | f.mutates_attrs | f.writes_attrs or isinstance(s, (ast.Break, ast.Continue)) or _has_jump(s):
            return None
    return None


def _has_jump(s: ast.stmt) -> bool:
    return any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise)) for n in walk(s))


# ---- rewrite ----------------------------------------------------------------------


def append_form(assign: cst.Assign) -> cst.Expr:
    """``self.L[i] = E`` -> ``self.L.append(E)``."""
    import libcst as cst

    target = assign.targets[0].target
    return cst.Expr(cst.Call(func=cst.Attribute(value=target.value, attr=cst.Name("append")), args=[cst.Arg(assign.value)]))


def retarget_annotation(fusions: list[Fusion], stmt):
    """``self.L: List[Old] = []`` whose elements a fused loop now builds as ``New``: annotate ``List[New]``."""
    import libcst as cst

    from ..cst_util import rename

    for f in fusions:
        old = _callee(f.parent_loop.body[0].value.args[0])
        new = _callee(f.child_store.value)
        if not (old and new) or old == new:
            continue
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.AnnAssign):
            ann = stmt.body[0]
            tgt = ann.target
            if isinstance(tgt, cst.Attribute) and tgt.attr.value == f.attr:
                new_ann = rename(ann.annotation, {old: cst.Name(new)})
                stmt = stmt.with_changes(body=[ann.with_changes(annotation=new_ann)])
    return stmt


def report_lines(fusions: list[Fusion], pname: str) -> list[str]:
    return [
        f"`self.{f.attr}[i] = ...` at line {f.child_store.lineno} builds the list with `append`: "
        f"{pname}'s loop at line {f.parent_loop.lineno} built elements that were overwritten before any read"
        for f in fusions
    ]


def _callee(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Call):
        f = expr.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None
