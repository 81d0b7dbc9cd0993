"""What a factory hook needs to be safe, for ``decouple scan --replaced`` (``replaced``) and the
hook's run: C's construction can run where P's statement runs (what it reads is there then),
and a read of the thrown-away object before the replacement gives the same value with C's.

Each check answers from the code of the classes alone, and says no when it cannot tell.
"""

from __future__ import annotations

import ast
import builtins
import re

from ..ast_util import dotted_name, first_param, is_super_call, walk
from ..facts import collect
from ..index import ClassInfo
from ..rules import effect_built_then_replaced as dc408
from ..super_init import find_super_init
from .estimate import _chain
from .sketch import SketchIndex

_BUILTINS = set(dir(builtins))


def construction_problem(index: SketchIndex, cls: ClassInfo, chain: list[ClassInfo], init: ast.FunctionDef,
                          super_stmt: ast.stmt, b: dc408.Built) -> str:
    """Why C's construction cannot run where P's statement runs, or "": what it reads must be
    there then (C's own parameters, passed in; locals C computes from them alone, computed
    before; P's attributes set before the statement)."""
    owner = chain[-1]
    csn = first_param(init)
    body = init.body
    until = body.index(b.replacement.stmt)
    after = body[body.index(super_stmt) + 1:until]
    set_before = _set_before(index, owner, b.stmt)
    loop_var = {b.replacement.loop.target.id} if b.element else set()
    for value in b.replacement.values:
        f = collect(value, csn, loop_var)
        bound = {n.id for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for name in sorted(f.reads_locals - bound - loop_var):
            why = _not_hoistable(init, body[:until], name, set())
            if why:
                return f"its construction reads {name}, {why}"
        for attr in sorted(f.reads_attrs):
            setting = [s for s in after if attr in collect(s, csn).writes_attrs]
            if setting:
                why = _not_storable(index, owner, init, body[:until], setting, attr)
                if why:
                    return f"its construction reads self.{attr}, which it sets only after super().__init__(), {why}"
                continue  # stored before super().__init__()
            if attr not in set_before and not _class_attribute(index, cls, chain, attr):
                return (f"its construction reads self.{attr}, not set by {owner.name}.__init__ "
                        "before the statement it replaces")
    return ""


def _class_attribute(index: SketchIndex, cls: ClassInfo, chain: list[ClassInfo], attr: str) -> bool:
    """Whether ``attr`` is bound in the class body of C (read as text: its sketch holds only
    its ``__init__``) or of P and its ancestors along first bases: there before any ``__init__`` runs."""
    above, cur = list(chain), chain[-1]
    while len(above) < 12 and (cur := resolve_base(index, cur)) is not None and cur not in above:
        above.append(cur)
    if any(c.members.get(attr) is not None and c.members[attr].kind == "class_attribute" for c in above):
        return True
    body = re.search(r"^([ \t]+)\S", index.class_text(cls).split("\n", 1)[-1], re.MULTILINE)
    indent = body.group(1) if body else "    "
    return re.search(rf"^{indent}{re.escape(attr)}\s*(?::[^=\n]*)?=(?!=)", index.class_text(cls), re.MULTILINE) is not None


def _not_storable(index, owner, init, before, setting, attr) -> str:
    """Why C cannot store ``self.attr`` before ``super().__init__()`` instead, or "": one plain
    ``self.attr = E`` from its parameters alone, and P's ``__init__`` chain never sets it."""
    csn = first_param(init)
    if len(setting) != 1 or dc408._plain_store(setting[0], csn) != attr:
        return "not in one plain assignment"
    if attr in _set_before(index, owner, None):
        return f"and {owner.name}.__init__ sets it too"
    value = setting[0].value
    f = collect(value, csn)
    if f.reads_attrs or f.calls_methods or _hands_off_expr(value, csn) or _calls_other_than_builtins(value):
        return "from a value that cannot be computed before"
    return next(filter(None, (_not_hoistable(init, before, n, set()) for n in sorted(f.reads_locals))), "")


def _calls_other_than_builtins(expr: ast.expr) -> bool:
    return any(dotted_name(c.func) not in _BUILTINS for c in walk(expr) if isinstance(c, ast.Call))


def _params_of(fn: ast.FunctionDef) -> set[str]:
    out = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]} - {first_param(fn)}
    return out | {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}


def _not_hoistable(init: ast.FunctionDef, before: list[ast.stmt], name: str, seen: set[str]) -> str:
    """Why the local ``name`` cannot be had before ``super().__init__()``, or "": a parameter
    never rebound, a global, or a local each of whose stores before the replacement is
    ``name = E`` at the top of the body, ``E`` reading no ``self`` and calling builtins only."""
    csn = first_param(init)
    stores = [s for s in init.body if name in collect(s, csn).writes_locals]
    if not stores:
        return ""  # a parameter never rebound (passed in to the hook), or a global
    if name in seen:
        return ""
    seen.add(name)
    for s in stores:
        if s not in before:
            return "which its __init__ rebinds after the replacement" if name in _params_of(init) else \
                "computed after the replacement"
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            return f"computed in a statement that is not a plain assignment (line {s.lineno})"
        f = collect(s.value, csn)
        if f.reads_attrs or f.calls_methods or _hands_off_expr(s.value, csn):
            return f"computed from self (line {s.lineno})"
        if _calls_other_than_builtins(s.value):
            return f"computed by a call (line {s.lineno}): moving it before super().__init__() is not shown safe"
        for other in sorted(f.reads_locals):
            why = _not_hoistable(init, before, other, seen)
            if why:
                return why
    return ""


def _hands_off_expr(expr: ast.expr, sn: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == sn for n in walk(expr))


def _set_before(index: SketchIndex, owner: ClassInfo, stmt: ast.stmt, depth: int = 0) -> set[str]:
    """The attributes the ``__init__`` of ``owner`` sets before ``stmt`` (None: all it sets),
    counting what its ``super().__init__()`` call sets, as far as first bases resolve."""
    init = owner.methods["__init__"]
    sn = first_param(init)
    out: set[str] = set()
    for s in init.body:
        if s is stmt:
            break
        out |= collect(s, sn).writes_attrs
        if depth < 6 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                and s.value.func.attr == "__init__" and is_super_call(s.value.func.value) and owner.bases:
            base = index.resolve_class(owner.bases[0])
            above = _chain(index, base) if base is not None else None
            if above:
                out |= _set_before(index, above[-1], None, depth + 1)
    return out


def list_alias(owner: ClassInfo, init: ast.FunctionDef, super_stmt: ast.stmt, b: dc408.Built, read: ast.stmt) -> bool:
    """``self.M = self.L`` where C replaces the elements of ``self.L`` in place: ``self.M`` is
    the same list, and sees C's elements, as long as C does not touch ``self.M`` before."""
    alias = dc408._plain_store(read, first_param(owner.methods["__init__"])) if b.element else None
    value = getattr(read, "value", None)
    if alias is None or not (isinstance(value, ast.Attribute) and value.attr == b.attr and isinstance(value.value, ast.Name)):
        return False
    body = init.body
    csn = first_param(init)
    between = body[body.index(super_stmt) + 1:body.index(b.replacement.stmt) + 1]
    return not any(alias in (f.reads_attrs | f.mutates_attrs | f.writes_attrs) for f in (collect(x, csn) for x in between))


def same_value(index: SketchIndex, cls: ClassInfo, owner: ClassInfo, b: dc408.Built, read: ast.stmt) -> bool:
    """Whether ``read`` (a statement of P's ``__init__``) gives the same value with C's object:
    it reads only ``self.L[k].m`` (or ``self.a.m``), and ``m`` is what the class P built sets
    in its ``__init__`` from a parameter, set nowhere else in the classes from C's up to it,
    and both constructions pass that parameter the same value (the same parameter of C's and
    P's ``__init__``, which C passes on to P's unchanged)."""
    psn = first_param(owner.methods["__init__"])
    reads = []
    for n in walk(read):
        base = n.value if isinstance(n, ast.Attribute) else None
        if b.element and isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Attribute) and base.attr == b.attr and isinstance(base.value, ast.Name) and base.value.id == psn:
            reads.append(n.attr)
    total = sum(1 for n in walk(read) if isinstance(n, ast.Attribute) and n.attr == b.attr
                and isinstance(n.value, ast.Name) and n.value.id == psn)
    if not reads or len(reads) != total or len(b.replacement.values) != 1:
        return False
    p_call, c_call = b.value, b.replacement.values[0]
    if not (isinstance(p_call, ast.Call) and isinstance(c_call, ast.Call)):
        return False
    bp = resolve_built(index, owner.module, p_call.func, owner.file)
    bc = resolve_built(index, cls.module, c_call.func, cls.file)
    if not (isinstance(bp, ClassInfo) and isinstance(bc, ClassInfo)):
        return False
    return all(_same_member(index, cls, owner, bp, bc, p_call, c_call, m) for m in set(reads))


def _same_member(index, cls, owner, bp, bc, p_call, c_call, m) -> bool:
    path = [bc]  # bc up first bases to bp
    while path[-1] is not bp:
        nxt = resolve_base(index, path[-1])
        if nxt is None or len(path) > 6:
            return False
        path.append(nxt)
    pinit = bp.methods.get("__init__")
    if pinit is None:
        return False
    stores = [s for s in pinit.body if dc408._plain_store(s, first_param(pinit)) == m]
    others = [n for n in walk(pinit) if isinstance(n, ast.Attribute) and n.attr == m and isinstance(n.ctx, ast.Store)]
    if len(stores) != 1 or len(others) != 1 or m in bp.members and bp.members[m].kind != "instance_attribute":
        return False
    for c in path[:-1]:
        if m in c.members or re.search(rf"\bself\.{re.escape(m)}\s*(?:[:+\-*/|&]?=(?!=))", index.class_text(c)):
            return False
    value = stores[0].value
    f = collect(value, first_param(pinit))
    params = _params(pinit)
    if f.reads_attrs or f.calls_methods or not f.reads_locals <= set(params):
        return False
    return all(_same_argument(index, cls, owner, path, p, p_call, c_call) for p in f.reads_locals)


def _same_argument(index, cls, owner, path, p, p_call, c_call) -> bool:
    """Whether both constructions pass bp's parameter ``p`` the same value: bp's call gets it as
    P's parameter ``x``; bc's chain passes its own parameter ``y`` on to ``p`` unchanged; C's call
    gives ``y`` C's parameter ``z``, which C's ``super().__init__`` passes on to P's ``x`` (through
    the ``__init__`` of each class between, for a subclass of C)."""
    name = p
    for lower in reversed(path[:-1]):  # from the class under bp down to bc
        linit = lower.methods.get("__init__")
        if linit is None:
            continue
        upper = resolve_base(index, lower)
        up_init = _init_of(index, upper)
        _, call = find_super_init(index, lower, linit, upper) if upper is not None else (None, None)
        if call is None or up_init is None:
            return False
        name = _param_passed(linit, call, up_init, name)
        if name is None:
            return False
    x = _arg_for(p_call, _init_of(index, path[-1]), p)
    z = _arg_for(c_call, _init_of(index, path[0]), name)
    if not (isinstance(x, ast.Name) and isinstance(z, ast.Name)):
        return False
    return param_up(index, cls, z.id, owner) == x.id


def _param_passed(lower_init, call, upper_init, upper_param) -> str | None:
    """The parameter of ``lower_init`` that ``call`` passes, unchanged, as ``upper_param`` of ``upper_init``."""
    arg = _arg_for(call, upper_init, upper_param)
    if not isinstance(arg, ast.Name) or arg.id not in _params(lower_init):
        return None
    rebound = any(arg.id in collect(s, first_param(lower_init)).writes_locals for s in lower_init.body)
    return None if rebound else arg.id


def _arg_for(call: ast.Call, fn: ast.FunctionDef | None, param: str):
    """The expression ``call`` (a construction, or ``super().__init__(...)``: self not among
    its arguments) passes as ``param`` of ``fn``; None when it is not passed plainly."""
    if fn is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    names = _params(fn)
    for k in call.keywords:
        if k.arg == param:
            return k.value
    if param in names and names.index(param) < len(call.args):
        return call.args[names.index(param)]
    return None


def _params(fn: ast.FunctionDef) -> list[str]:
    """Positional parameters after self, in order, then keyword-only ones."""
    return [a.arg for a in [*fn.args.posonlyargs, *fn.args.args][1:]] + [a.arg for a in fn.args.kwonlyargs]


def _init_of(index, c: ClassInfo | None) -> ast.FunctionDef | None:
    chain = _chain(index, c) if c is not None else None
    return chain[-1].methods["__init__"] if chain else None


def resolve_base(index, c: ClassInfo) -> ClassInfo | None:
    if not c.bases:
        return None
    index.want(c.bases[0].rsplit(".", 1)[-1], c.file)
    return index.resolve_class(c.bases[0])


def resolve_built(index: SketchIndex, mod, func: ast.AST, besides: str):
    built = index.resolve_callable(mod, func)
    q = mod.qualify(func)
    if built is None and index.want(q.rsplit(".", 1)[-1], besides):
        built = index.resolve_callable(mod, func)
    if built is None and (q.rpartition(".")[0] == mod.name or "." not in q):
        # A class of the file in use, which its sketch left out (``want`` leaves that file as
        # it is): the file parsed whole has it.
        whole = index.whole(mod.rel)
        built = whole.classes.get(q.rpartition(".")[2]) if whole is not None else None
    return built


def param_up(index: SketchIndex, sub: ClassInfo, name: str, owner: ClassInfo) -> str | None:
    """The parameter of ``owner.__init__`` that ``sub``'s parameter ``name`` reaches unchanged
    through the ``super().__init__()`` calls of the classes between, or None."""
    cur, cur_name = sub, name
    for _ in range(8):
        if cur is owner:
            return cur_name
        init = cur.methods.get("__init__")
        up = index.resolve_class(cur.bases[0]) if cur.bases else None
        if up is None:
            return None
        if init is not None:
            _, call = find_super_init(index, cur, init, up)
            up_init = _init_of(index, up)
            if call is None or up_init is None:
                return None
            cur_name = _receiving(init, call, up_init, cur_name)
            if cur_name is None:
                return None
        cur = up
    return None


def _receiving(lower: ast.FunctionDef, call: ast.Call, upper: ast.FunctionDef, name: str) -> str | None:
    return next((p for p in _params(upper) if _param_passed(lower, call, upper, p) == name), None)
