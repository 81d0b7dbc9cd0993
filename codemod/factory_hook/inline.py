"""``--hook`` where P's file must not change (DC618): C's ``__init__`` runs P's inlined, with C's
construction in place of each one it threw away; or why not.

What is built then replaced, and whether each read of it gives the same value with C's object,
is DC408's (``scan.replaced.find``), as for the hook; this module adds what the copy needs
(P's ``__init__`` can run inside C's, C's construction can run where P's did) and drives the
decoupling's rewrite (``rewrite.rewrite_module``, DC601's inlining) with C keeping P as its base.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field

from ..ast_util import first_param, walk
from ..check import check_file
from ..errors import DecoupleError, UnsafeError
from ..facts import collect
from ..index import ClassInfo, Index
from ..model import ClassAnalysis, ModulePatch, SliceResult
from ..rules import effect_built_then_replaced as dc408
from ..rules import rewrite_inline_hook as dc618
from ..super_init import find_super_init
from ..rules.unsafe_generic_base import Refused
from ..scan import replaced
from ..scan.estimate import _chain
from ..scan.hook_safety import construction_problem
from ..scan.sketch import SketchIndex, def_names


@dataclass
class InlinePlan:
    cls: ClassInfo
    why: str  # why P's file is not edited
    parent: ClassInfo | None = None
    done: list[tuple[dict, dc408.Built]] = field(default_factory=list)  # the scan's statement, DC408's finding
    left: list[tuple[str, str]] = field(default_factory=list)
    refused: str = ""  # why nothing is done
    patch: ModulePatch | None = None
    copied: tuple[int, int, int] = (0, 0, 0)  # lines of P's __init__ copied: how many, first, last


def plan_inline(index: SketchIndex, cls: ClassInfo, why: str) -> InlinePlan:
    out = InlinePlan(cls, why)
    parent = index.resolve_class(cls.bases[0]) if cls.bases else None
    out.parent = parent
    found = replaced.find(index, cls, parent, keep=True)
    if found is None or not found.built:
        out.refused = (f"{dc618.ID}: its __init__ replaces nothing its parent's __init__ built, on every path "
                       "before a read (DC408)")
        return out
    owner = found.built[0][2]
    if owner is not parent:
        out.refused = f"{dc618.ID}: {parent.name} inherits its __init__ from {owner.name}: copying it is not done"
        return out
    init = cls.methods["__init__"]
    super_stmt, _ = find_super_init(index, cls, init, parent)
    chain = _chain(index, parent)
    for item, b, _ in found.built:
        why_not = _problem(index, cls, parent, chain, init, super_stmt, b, item)
        if why_not:
            out.left.append((f"self.{b.attr}{'[i]' if b.element else ''} ({item['at']})", f"{dc618.ID}: {why_not}"))
        else:
            out.done.append((item, b))
    if not out.done:
        out.refused = out.left[0][1]
        return out
    problem = _parent_problem(parent.methods["__init__"], parent.name)
    if problem:
        out.refused = f"{dc618.ID}: {problem}"
    return out


def _problem(index, cls, parent, chain, init, super_stmt, b: dc408.Built, item: dict) -> str:
    """Why C's construction cannot stand in P's inlined statement, or ""."""
    for r in item["reads"]:
        if not r["same_value"]:
            return (f"{parent.name} reads self.{b.attr} at {r['at']} (`{r['code']}`) before {cls.name} replaces it: "
                    f"not shown to give the same value with {cls.name}'s object")
    r = b.replacement
    if len(r.values) != 1:
        return f"{cls.name} replaces it in the branches of an if: not done"
    if b.element and len(r.loop.body) != 1:
        return f"{cls.name}'s loop does more than the store: not done"
    problem = construction_problem(index, cls, chain, init, super_stmt, b)
    if problem:
        return problem
    csn = first_param(init)
    value = r.values[0]
    f = collect(value, csn, {r.loop.target.id} if b.element else set())
    body = init.body
    between = body[body.index(super_stmt) + 1:body.index(r.stmt)]
    bound = {n.id for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for name in sorted(f.reads_locals - bound - ({r.loop.target.id} if b.element else set())):
        if any(name in collect(s, csn).writes_locals for s in between):
            return f"its construction reads {name}, which {cls.name}.__init__ sets only after super().__init__()"
    pinit = parent.methods["__init__"]
    psn = first_param(pinit)
    later = pinit.body[pinit.body.index(b.stmt) + 1:]
    for attr in sorted(f.reads_attrs):
        if any(attr in collect(s, csn).writes_attrs for s in between):
            return f"its construction reads self.{attr}, which {cls.name} sets only after super().__init__()"
        if any(attr in collect(s, psn).writes_attrs for s in later):
            return f"its construction reads self.{attr}, which {parent.name}.__init__ sets again after the statement"
    if f.calls_methods or f.dynamic or dc408._hands_off(value, csn):
        return f"its construction calls a method on {csn} or hands it on: it would see {parent.name}'s __init__ half done"
    # What a subclass of C overrides, P's __init__ calls after the statement: a read unseen so far.
    methods = {n: m for c in reversed(replaced._ancestors(index, chain)) for n, m in c.methods.items() if n != "__init__"}
    unseen = {n for c in [cls, *index.subclasses_deep(cls)] for n in def_names(index.class_text(c))} - {"__init__"}
    extra = [x for x in dc408.reads_after(later, b.attr, psn, methods, unseen) if x not in b.reads]
    if extra:
        s, where = extra[0]
        return f"{parent.name}.__init__ calls {where} (line {s.lineno}) after building self.{b.attr}"
    return ""


def _parent_problem(pinit: ast.FunctionDef, pname: str) -> str:
    """Why P's ``__init__`` cannot run inside C's, or ""."""
    if pinit.decorator_list:
        return f"{pname}.__init__ is decorated: its body alone is not what runs"
    if not pinit.args.args:
        return f"{pname}.__init__ takes no self"
    nested = {id(n) for d in walk(pinit) if d is not pinit and isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
              for n in walk(d)}
    for n in walk(pinit):
        if isinstance(n, ast.Return) and id(n) not in nested:
            return f"{pname}.__init__ returns early (line {n.lineno}): inlined, it would end {pname}'s subclass's __init__ too"
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            return f"{pname}.__init__ declares {type(n).__name__.lower()} {', '.join(n.names)} (line {n.lineno})"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" and (n.args or id(n) in nested):
            return f"{pname}.__init__ calls super() with arguments or in a nested function (line {n.lineno})"
    return ""


def rewrite_inline(the_plan: InlinePlan, tree) -> dict[str, tuple[str, str]]:
    """rel -> (old text, new text) of C's module, checked as a normal run's patch is; sets
    ``the_plan.refused`` (and returns nothing) where DC601's machinery refuses."""
    from ..cst_util import Located
    from ..rewrite import rewrite_module

    full = Index(tree)
    cls, parent = full.resolve_class(the_plan.cls.qualname), full.resolve_class(the_plan.parent.qualname)
    cinit, pinit = cls.methods["__init__"], parent.methods["__init__"]
    a = ClassAnalysis(cls, parent, parent.qualname, chain=[parent])
    a.super_init_stmt, a.super_init_call = find_super_init(full, cls, cinit, parent)
    body = pinit.body
    doc = 1 if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
        and isinstance(body[0].value.value, str) else 0
    inlined = body[doc:]
    by_line = {s.lineno: s for s in body}
    swapped = [by_line[b.stmt.lineno] for _, b in the_plan.done]
    kept = {(n.lineno, n.col_offset) for s in inlined for n in walk(s) if isinstance(n, ast.stmt)}
    # The parameters the copy reads: not those read only by what C's construction takes the place of.
    skip = {id(n) for s in swapped for n in walk(_stored(s))}
    free = {n.id for s in inlined for n in walk(s) if isinstance(n, ast.Name) and id(n) not in skip}
    a.init_slice = SliceResult(kept=kept, free_locals=free, total=len(inlined), kept_count=len(inlined))
    the_plan.copied = (inlined[-1].end_lineno - inlined[0].lineno + 1, inlined[0].lineno, inlined[-1].end_lineno) if inlined else (0, 0, 0)
    lines = sorted({s.lineno for s in inlined})  # a libcst line may hold more than one statement
    c_here = Located.parse(cls.module.text, cls.module.tree)
    swaps = []
    for (_, b), s in zip(the_plan.done, swapped, strict=True):
        r = b.replacement
        cstmt = next(x for x in cinit.body if x.lineno == r.stmt.lineno)
        if b.element:
            store = cstmt.body[0]
            remove = c_here.stmt(cstmt)
            value = c_here.stmt(store).value
        else:
            node = c_here.stmt(cstmt)
            remove = c_here.lines[id(node)]
            if len(remove.body) != 1:
                the_plan.refused = f"{dc618.ID}: {cls.name}'s replacement at line {cstmt.lineno} shares its line with other statements"
                return {}
            value = node.value
        swaps.append(dc618.Swap(lines.index(s.lineno), b.element, value, cstmt.target.id if b.element else None, remove))
    base = cls.node.bases[0]
    if not isinstance(base, (ast.Name, ast.Attribute)):
        the_plan.refused = f"{dc618.ID}: {cls.name}'s base is spelt {ast.unparse(base)}: super() needs the class itself"
        return {}
    parent_ref = ast.get_source_segment(cls.module.text, base)
    if any(isinstance(n, ast.Name) and n.id == parent_ref.split(".")[0] and isinstance(n.ctx, ast.Store) for n in walk(cinit)):
        the_plan.refused = f"{dc618.ID}: {cls.name}.__init__ binds {parent_ref.split('.')[0]}, the name its base is spelt with"
        return {}
    note = (f"decouple: {parent.name}.__init__ inlined ({dc618.ID}), storing {cls.name}'s own "
            + ", ".join(f"self.{b.attr}{'[i]' if b.element else ''}" for _, b in the_plan.done) + f" ({parent.name}'s file is not edited)")
    keep = functools.partial(dc618.rewrite, swaps=swaps, n=len(lines), parent_ref=parent_ref, note=note)
    try:
        patch = rewrite_module(full, [a], markers=False, parsed={cls.module.rel: c_here}, keep_parent=keep)
    except (UnsafeError, Refused) as exc:
        rule = getattr(exc, "rule", "")
        the_plan.refused = f"{dc618.ID}: inlining {parent.name}.__init__ is refused" + (f" ({rule})" if rule else "") + f": {exc}"
        return {}
    problem = check_file(patch.before, patch.after, patch.rel, patch.imports_kept)
    if problem:  # a bug of ours: nothing is shown or written
        raise DecoupleError(f"{dc618.ID}: {problem}; nothing written")
    the_plan.patch = patch
    return {patch.rel: (patch.before, patch.after)}


def _stored(stmt: ast.stmt) -> ast.expr:
    """The value a built statement stores: ``self.a = E``'s E, the loop's ``append(E)`` or ``[i] = E``."""
    if isinstance(stmt, ast.For):
        s = stmt.body[0]
        return s.value.args[0] if isinstance(s, ast.Expr) else s.value
    return stmt.value
