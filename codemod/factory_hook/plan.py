"""What ``decouple --hook`` changes for a class C: which statements of P's ``__init__`` become a
call of a new method of P, the override C and its subclasses get, or why a statement is left.

The statements are DC408's (``scan.replaced.find``), each with the scan's hook verdict; this
module adds what the rewrite needs to know: the hook's parameters, how each name C's
construction reads is had inside the override, and which subclasses of C get their own.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ..ast_util import first_param, walk
from ..facts import collect
from ..index import ClassInfo
from ..rules import effect_built_then_replaced as dc408
from ..rules import rewrite_factory_hook as dc615
from ..super_init import find_super_init
from ..scan import replaced
from ..scan.hook_safety import (
    _not_hoistable,
    _params_of,
    list_alias,
    param_up,
    same_value,
)
from ..scan.replaced import _ancestors
from ..scan.sketch import SketchIndex


@dataclass
class Override:
    """A class's own ``_build_x``: its construction, and the statement of its ``__init__`` that goes."""

    cls: ClassInfo
    value: ast.expr  # the construction, in the class's own names
    remove: ast.stmt  # the replacement statement of its __init__
    names: dict[str, str]  # a name the construction reads -> what the override reads instead
    store_first: list[str] = field(default_factory=list)  # parameters stored on self before super().__init__()
    super_stmt: ast.stmt | None = None
    prelude: list[ast.Assign] = field(default_factory=list)  # the locals it computes again first, in order
    remove_also: list[ast.Assign] = field(default_factory=list)  # those its class's __init__ no longer reads


@dataclass
class Hook:
    name: str
    owner: ClassInfo  # the class whose __init__ holds the statement (P, or the ancestor P inherits it from)
    built: dc408.Built
    params: list[str]  # the hook's parameters after self: locals of the owner's __init__
    item: dict  # the scan's statement: its cost, its reads
    overrides: list[Override] = field(default_factory=list)


@dataclass
class Plan:
    cls: ClassInfo
    hooks: list[Hook] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)  # (what, why) statements or classes left as they are


def plan(index: SketchIndex, cls: ClassInfo) -> Plan:
    out = Plan(cls)
    parent = index.resolve_class(cls.bases[0]) if cls.bases else None
    found = replaced.find(index, cls, parent, keep=True)
    if found is None:
        out.left.append((cls.name, f"{dc615.ID}: its __init__ replaces nothing its parent's __init__ built (DC408)"))
        return out
    for item, b, owner in found.built:
        what = f"self.{b.attr}{'[i]' if b.element else ''} ({item['at']})"
        if item["verdict"] != replaced.HOOK_POSSIBLE:
            out.left.append((what, f"{dc615.ID}: {item['reason']}"))
            continue
        hook, why = _hook(index, cls, owner, b, item)
        if hook is None:
            out.left.append((what, f"{dc615.ID}: {why}"))
            continue
        out.hooks.append(hook)
        for sub in index.subclasses_deep(cls):
            over, why = _grandchild(index, sub, hook)
            if over is not None:
                hook.overrides.append(over)
            elif why:
                out.left.append((f"{sub.name}'s self.{b.attr}", f"{dc615.ID}: left as it is: {why}"))
    _drop_dead_locals(out)
    return out


def _drop_dead_locals(the_plan: Plan) -> None:
    """The locals an override computes again that its class's ``__init__`` no longer reads once
    the replacements go: their assignments go too (plain, from parameters and builtins only)."""
    by_class: dict[str, list[Override]] = {}
    for h in the_plan.hooks:
        for o in h.overrides:
            by_class.setdefault(o.cls.cli_name, []).append(o)
    for overs in by_class.values():
        init = overs[0].cls.methods["__init__"]
        sn = first_param(init)
        gone = {id(o.remove) for o in overs}
        defs = {id(d): d for o in overs for d in o.prelude}
        changed = True
        while changed:
            changed = False
            for key, d in defs.items():
                name = d.targets[0].id
                if key not in gone and not any(name in collect(s, sn).reads_locals for s in init.body if id(s) not in gone | {key}):
                    gone.add(key)
                    changed = True
        overs[0].remove_also = [d for key, d in defs.items() if key in gone]


def _hook(index: SketchIndex, cls: ClassInfo, owner: ClassInfo, b: dc408.Built, item: dict):
    name = item["hook"]
    for sub in index.subclasses_deep(owner):
        if sub is not cls and re.search(rf"\b{re.escape(name)}\b", index.class_text(sub)):
            return None, f"{sub.name} defines or names {name} already: {owner.name}.__init__ would call it"
    pinit = owner.methods["__init__"]
    psn = first_param(pinit)
    if len(b.replacement.values) != 1:
        return None, "C replaces it in the branches of an if: not done by --hook"
    if b.element and len(b.replacement.loop.body) != 1:
        return None, "C's loop does more than the store: not done by --hook"
    params = _locals_read(pinit, b.value, b.stmt.target.id if b.element else None, psn)
    hook = Hook(name, owner, b, params, item)
    over, why = _override(index, cls, hook, b.replacement)
    if over is None:
        return None, why
    hook.overrides.append(over)
    return hook, ""


def _locals_read(init: ast.FunctionDef, value: ast.expr, loop_var: str | None, sn: str) -> list[str]:
    """The locals of ``init`` that ``value`` reads, in the order it first reads them (the loop's variable first)."""
    bound_inside = {n.id for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local = _params_of(init) | {n for s in init.body for n in collect(s, sn).writes_locals} | ({loop_var} if loop_var else set())
    names = sorted((n for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)),
                   key=lambda n: (n.lineno, n.col_offset))
    out = [loop_var] if loop_var else []
    for n in names:
        if n.id in local and n.id not in bound_inside and n.id not in out and n.id != sn:
            out.append(n.id)
    return out


def _override(index: SketchIndex, sub: ClassInfo, hook: Hook, r: dc408.Replacement):
    """``sub``'s override for ``hook``: how each name its construction reads is had there."""
    init = sub.methods["__init__"]
    csn = first_param(init)
    parent = index.resolve_class(sub.bases[0]) if sub.bases else None
    super_stmt, _ = find_super_init(index, sub, init, parent) if parent is not None else (None, None)
    if super_stmt is None or super_stmt not in init.body:
        return None, f"{sub.name}'s super().__init__() call is not a statement of its __init__ body"
    over = Override(sub, r.values[0], r.stmt, {}, [], super_stmt)
    params = _params_of(init)
    rebound = {n for s in init.body for n in collect(s, csn).writes_locals}
    before = init.body[:init.body.index(r.stmt)]
    todo, done = [over.value], set()
    while todo:
        expr = todo.pop()
        bound_inside = {n.id for n in walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in walk(expr):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in bound_inside \
                    or node.id in over.names or node.id in done or node.id == csn:
                continue
            n = node.id
            done.add(n)
            if r.element and n == r.loop.target.id:
                over.names[n] = hook.params[0]
            elif n in params and n not in rebound:
                why = _parameter(index, sub, hook, over, n, csn)
                if why:
                    return None, why
            elif n in params or n in rebound:
                # A local computed from parameters alone (what the scan calls hoistable): the
                # override computes it again, from what the hook has.
                defs = [s for s in init.body if n in collect(s, csn).writes_locals]
                if _not_hoistable(init, before, n, set()):
                    return None, f"{sub.name}'s construction reads {n}, computed in its __init__ from more than its parameters"
                over.prelude[:0] = defs
                todo += [d.value for d in defs]
            elif n in hook.params:
                return None, f"{sub.name}'s construction reads the global {n}, which the hook's parameter {n} would shadow"
    for attr in collect(over.value, csn).reads_attrs:
        after = init.body[init.body.index(super_stmt) + 1:]
        if any(attr in collect(s, csn).writes_attrs for s in after):
            return None, f"{sub.name} sets self.{attr} after super().__init__(): storing it before is not done by --hook"
    over.prelude.sort(key=lambda s: s.lineno)
    # A local the override computes again may take the name of a hook parameter (the parent's
    # own local of that name): only if nothing else the override reads is that parameter.
    clash = {d.targets[0].id for d in over.prelude} & set(over.names.values())
    if clash:
        return None, f"{sub.name}'s local {min(clash)} would hide the hook's parameter of that name, which it reads too"
    return over, ""


def _parameter(index: SketchIndex, sub: ClassInfo, hook: Hook, over: Override, n: str, csn: str) -> str:
    """Have ``sub``'s parameter ``n`` in the override: the parent's parameter it reaches unchanged,
    or stored on self before ``super().__init__()``; or why not."""
    up = param_up(index, sub, n, hook.owner)
    if up is not None and up not in _rebound(hook.owner):
        over.names[n] = up
        if up not in hook.params:
            hook.params.append(up)
        return ""
    attr = f"_{n.lstrip('_')}"
    if any(re.search(rf"\b{re.escape(attr)}\b", index.class_text(c))
           for c in [*_up_to(index, sub, hook.owner), *index.subclasses_deep(sub)]):
        return f"{sub.name} would store {n} as self.{attr}, a name already in use"
    over.names[n] = f"{csn}.{attr}"
    over.store_first.append(n)
    return ""


def _grandchild(index: SketchIndex, sub: ClassInfo, hook: Hook):
    """The override of a subclass of C that replaces the same object in the same shape, or why not (None, "" when it does not replace it)."""
    init = sub.methods.get("__init__")
    if re.search(rf"^\s+def\s+{re.escape(hook.name)}\b", index.class_text(sub), re.MULTILINE):
        return None, f"it defines {hook.name} itself"
    if init is None:
        return None, ""
    parent = index.resolve_class(sub.bases[0]) if sub.bases else None
    super_stmt, _ = find_super_init(index, sub, init, parent) if parent is not None else (None, None)
    if super_stmt is None or super_stmt not in init.body:
        return None, ""
    r = dc408.replacements(init, super_stmt).get(hook.built.attr)
    if r is None:
        return None, ""
    b = hook.built
    if r.element != b.element or (b.element and ast.dump(r.loop.iter) != ast.dump(b.stmt.iter)) or len(r.values) != 1 \
            or (b.element and len(r.loop.body) != 1):
        return None, "it replaces the object in another shape"
    # What runs between the hook and the subclass's replacement now sees its object: the reads
    # of P's __init__ (the scan's), and the __init__s of the classes between.
    path = _up_to(index, sub, hook.owner)
    for k, c in enumerate(path[1:-1], 1):
        cinit = c.methods.get("__init__")
        if cinit is None:
            continue
        stmts = [s for s in cinit.body if not any(s is o.remove for o in hook.overrides)]
        methods = {n: m for a in reversed(_ancestors(index, path[k:])) for n, m in a.methods.items() if n != "__init__"}
        unseen = {n for a in path[:k] for n in a.methods}
        reads = dc408.reads_after(stmts, b.attr, first_param(cinit), methods, unseen)
        if reads:
            return None, f"{c.name}.__init__ reads self.{b.attr} (line {reads[0][0].lineno}, {reads[0][1]})"
    g = dc408.Built(b.attr, b.element, b.stmt, b.value, r, b.reads)
    for read, where in b.reads:
        if not (where == "__init__" and (list_alias(hook.owner, init, super_stmt, g, read)
                                         or same_value(index, sub, hook.owner, g, read))):
            return None, f"{hook.owner.name}'s read at line {read.lineno} is not shown to give the same value with its object"
    return _override(index, sub, hook, r)


def _rebound(owner: ClassInfo) -> set[str]:
    init = owner.methods["__init__"]
    return {n for s in init.body for n in collect(s, first_param(init)).writes_locals}


def _up_to(index: SketchIndex, sub: ClassInfo, owner: ClassInfo) -> list[ClassInfo]:
    """``sub``, its first-base ancestors, up to ``owner`` included."""
    out = [sub]
    while out[-1] is not owner and out[-1].bases and len(out) < 10:
        nxt = index.resolve_class(out[-1].bases[0])
        if nxt is None:
            break
        out.append(nxt)
    return out
