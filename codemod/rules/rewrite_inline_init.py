"""DC601 inline-init: replace ``super().__init__(...)`` with the kept statements of the parent's ``__init__``.

## What it does
The class's ``super().__init__(...)`` (or ``P.__init__(self, ...)``) becomes the statements
of the parent's ``__init__`` that the slice kept, in their order, under a marker comment.
The parent's parameters are bound to what the class passes: a parameter never reassigned
and bound to a literal or a name is substituted; any other becomes a local assignment
first. Locals of the slice that clash with names the class's ``__init__`` uses are renamed
with the parent's name as a suffix, and so are parameters the slice binds again (``size = size * 2``
would otherwise change the class's own ``size``). A class without ``__init__`` gets one with the
parent's signature (unless a decorator such as ``@dataclass`` writes it). Folded branches
(DC602), fused loops (DC603) and read-through values (DC604) are applied here. The slice
keeps, besides what defines the attributes the class needs: ``super().__init__()`` when the
new base (or another base) needs it; every ``Base.__init__(self, ...)`` named explicitly;
every call that reaches code staying on the class (its overrides, the new base's methods);
and each ``self.m()`` is taken to define what ``m`` may assign and to need what it reads.

Arguments for the parent's ``*args``/``**kwargs`` are bound as Python binds them. Explicit
positionals past the parent's named ones become its ``*args`` tuple; keywords it does not name,
and one ``**mapping`` of the class's call, become its ``**kwargs`` as a fresh dict, in call order
(``kwargs = dict(opts)``, ``kwargs_parent = {"fast": True, **kwargs}``), so pops in the inlined
code leave the class's own mapping as it was. Each parameter the class does not pass explicitly
but the mapping may hold is popped from that dict: ``x = kwargs.pop("x", <default>)``, or
``kwargs.pop("x")`` without a default; one the slice does not read is still popped when the
parent's ``**kwargs`` is read. Such parameters are never folded (DC602): the mapping decides
them at run time. A default is spelt as the parent's module means it (DC608 aliases a name the
class's module binds otherwise). A private name of the inlined statements (``self.__cache``,
which Python reads as ``self._P__cache`` in the parent's body) is spelt as the parent mangled it
(``self._P__cache``): written in the class as ``self.__cache`` it would be ``_C__cache``, another
attribute, which the copied methods (DC605, spelt the same way) would not find.

## Why
The class keeps exactly the construction work it depends on, and nothing else runs.

## Known problems
Refuses (DC510), with the reason, when the class's call passes a ``*iterable`` (which
parameters its items fill is known only at run time; a tuple could be bound like a mapping,
but is not yet), more than one ``**mapping``, a ``**mapping`` to a parent without
``**kwargs`` (a key it does not name would raise ``TypeError`` there, not in inlined code),
more positionals or keywords than the parent takes, when a parameter the slice reads is not
bound, or when a parameter of the parent's ``__init__`` is itself a private name (``__x``). Binding errors that Python raises at the call are not all reproduced: a parameter
passed explicitly and also held by the mapping raises ``TypeError`` in the original and nothing
in the patch; a required parameter missing from the mapping raises ``KeyError`` instead of
``TypeError``; a non-string key is not rejected. Free names of the inlined code are looked up
in the class's module as they are (the imports rule adds what is missing).

## Fix safety
Safe within the slice's guarantees: every kept attribute is assigned by the same
statements, in the same order, from the same arguments.
"""

from __future__ import annotations

import ast

import libcst as cst

from .. import forwarded_args
from ..ast_util import bind_arguments, first_param, pos, private, snake_case, source_segment, walk
from ..cst_util import BLANK, rename
from ..errors import UnsafeError
from . import rewrite_bind_names, rewrite_copy_members, rewrite_fold_constants, rewrite_fuse_loops, rewrite_read_through, unsafe_dataclass_parent
from .verdict_already_decoupled import MARKER

ID = "DC601"
NAME = "inline-init"


def init_block(ctx) -> list[cst.BaseStatement]:
    """P.__init__'s kept statements, bound to C's call, ready to stand in for super().__init__()."""
    a = ctx.a
    pinit = a.parent_init
    sl = a.init_slice
    if pinit is None or sl is None or not sl.kept:
        return []
    body = unsafe_dataclass_parent.init_body(ctx) if a.dataclass_init is not None else ctx.p.stmt(pinit).body.body
    stmts = ctx.copied.strip_all(_filter(ctx, body, dict(sl.folded)), pinit.lineno, pinit.end_lineno)
    if not stmts and not a.moved:
        return []
    stmts = _spelt_as_mangled(a, pinit, stmts)
    mapping, forwarded, prelude = _bindings(ctx, pinit)
    for name, spelt in ctx.names_for(rewrite_bind_names.inlined_free(a)).items():
        mapping.setdefault(name, spelt)
    # The forwarded prelude reads C's names (``dict(kwargs)``): P's renames must not reach it.
    stmts = forwarded + [rewrite_bind_names.retarget_super(a, ctx.pinfo, rename(s, mapping)) for s in prelude + stmts] if stmts else []
    for d, r in a.moved:  # DC612: after the class's own repeat of the value they read
        ctx.moved.setdefault(id(ctx.c.lines.get(id(ctx.c.stmt(r)))), []).append(
            rename(_spelt_as_mangled(a, pinit, [ctx.copied.strip(ctx.p.lines[id(ctx.p.stmt(d))].with_changes(leading_lines=[]), d.lineno, d.end_lineno)])[0], mapping))
    for p_, r in a.recomputed.items():
        ctx.plan.inlined.append(f"not inlined: `{_source_line(a.parent_init_owner, p_[0])}`, since {a.cls.name}.__init__ "
                                f"assigns the same value at line {r.lineno} before anything reads it"
                                + (f" (moved after it: {', '.join(f'`{_source_line(a.parent_init_owner, d.lineno)}`' for d, rr in a.moved if rr is r)})"
                                   if any(rr is r for _, rr in a.moved) else ""))
    if not stmts:
        return []
    stmts = [rewrite_fuse_loops.retarget_annotation(a.fusions, s) for s in stmts]
    owner = a.parent_init_owner
    note = f"{MARKER} {owner.name}.__init__"
    first = stmts[0]
    stmts[0] = first.with_changes(leading_lines=ctx.marker(note) + [l for l in first.leading_lines if l.comment is not None])
    ctx.plan.inlined.append(f"{sl.kept_count} of {sl.total} statements of `{owner.name}.__init__` (in place of `super().__init__(...)`)")
    return stmts


def _spelt_as_mangled(a, pinit: ast.FunctionDef, stmts: list) -> list:
    """P's statements with ``self.__x`` spelt ``self._P__x``, as P's body meant it (DC605's ``mangle``)."""
    if not rewrite_copy_members.mangled_names(pinit):
        return stmts
    args = pinit.args
    if any(private(p.arg) for p in args.posonlyargs + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]):
        raise UnsafeError(f"{a.parent_init_owner.name}.__init__ has name-mangled parameters; binding them to {a.cls.name}'s call is not worked out", ID)
    return [rewrite_copy_members.mangle(pinit, s, a.parent_init_owner.name, f"{a.parent_init_owner.name}.__init__") for s in stmts]


def _filter(ctx, stmts, folded: dict[int, bool]) -> list[cst.BaseStatement]:
    a = ctx.a
    kept = a.init_slice.kept - set(a.recomputed) - {pos(d) for d, _ in a.moved}
    kept_lines = {p[0] for p in kept}
    out: list[cst.BaseStatement] = []
    for st in stmts:
        if isinstance(st, cst.SimpleStatementLine):
            smalls = [rewrite_read_through.apply(ctx.a, s, ctx.p.pos_of.get(id(s))) for s in st.body if ctx.p.pos_of.get(id(s)) in kept]
            if smalls:
                smalls[-1] = smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                out.append(st.with_changes(body=smalls))
            continue
        line = ctx.p.line_of.get(id(st))
        if line not in kept_lines:
            continue
        if isinstance(st, cst.If) and line in folded:
            inner = _filter(ctx, rewrite_fold_constants.branch(st, folded, line), folded)
            if inner:
                comments = [l for l in st.leading_lines if l.comment is not None]
                inner[0] = inner[0].with_changes(leading_lines=comments + list(inner[0].leading_lines))
            out.extend(inner)
            continue
        out.append(_filter_compound(ctx, st, folded))
    return out


def _filter_compound(ctx, st, folded):
    def block(b):
        inner = _filter(ctx, b.body, folded) or [cst.SimpleStatementLine([cst.Pass()])]
        return b.with_changes(body=inner)

    def orelse(o):
        inner = _filter(ctx, o.body.body, folded)
        return o.with_changes(body=o.body.with_changes(body=inner)) if inner else None

    if isinstance(st, cst.If):
        if isinstance(st.orelse, cst.Else) and not _filter(ctx, st.body.body, folded):
            # Only the else branch is kept: ``if not test:`` instead of ``if test: pass``.
            kept_else = orelse(st.orelse)
            if kept_else is not None:
                return st.with_changes(test=_negate(st.test), body=kept_else.body, orelse=None)
        new = st.with_changes(body=block(st.body))
        if isinstance(st.orelse, cst.If):
            if ctx.p.line_of.get(id(st.orelse)) in {p[0] for p in ctx.a.init_slice.kept}:
                return new.with_changes(orelse=_filter_compound(ctx, st.orelse, folded))
            return new.with_changes(orelse=None)
        if isinstance(st.orelse, cst.Else):
            return new.with_changes(orelse=orelse(st.orelse))
        return new
    if isinstance(st, (cst.For, cst.While)):
        new = st.with_changes(body=block(st.body))
        if st.orelse is not None:
            new = new.with_changes(orelse=orelse(st.orelse))
        return new
    if isinstance(st, cst.With):
        return st.with_changes(body=block(st.body))
    if isinstance(st, (cst.Try, cst.TryStar)):
        handlers = [h.with_changes(body=block(h.body)) for h in st.handlers]
        new = st.with_changes(body=block(st.body), handlers=handlers)
        if st.orelse is not None:
            new = new.with_changes(orelse=orelse(st.orelse))
        if st.finalbody is not None:
            new = new.with_changes(finalbody=st.finalbody.with_changes(body=block(st.finalbody.body)))
        return new
    return st


def _source_line(owner, line: int) -> str:
    return owner.module.lines[line - 1].strip()


def _bindings(ctx, pinit: ast.FunctionDef) -> tuple[dict[str, cst.BaseExpression], list[cst.BaseStatement], list[cst.BaseStatement]]:
    """Bind P.__init__'s parameters (and self) to what C passes; rename clashing locals.
    (P's names -> what stands for them, the statements that bind ``*args``/``**kwargs`` and the
    parameters taken from a forwarded mapping, final as they are; the other bindings, in P's names.)"""
    a = ctx.a
    sl = a.init_slice
    mapping: dict[str, cst.BaseExpression] = {}
    prelude: list[cst.BaseStatement] = []
    forwarded_prelude: list[cst.BaseStatement] = []
    psn = first_param(pinit)
    cinit = a.cls.methods.get("__init__")
    csn = first_param(cinit) if cinit is not None else psn
    if psn != csn:
        mapping[psn] = cst.Name(csn)
    if cinit is None:
        return mapping, forwarded_prelude, prelude
    call = a.super_init_call
    params = [p.arg for p in pinit.args.posonlyargs + pinit.args.args][1:]
    assigned = _assigned_names(pinit, sl)
    child_names = _clashing_names(cinit, a.super_init_stmt)
    # Locals of the slice that C's __init__ also uses get a distinct name; so does a parameter the
    # slice binds again (``size = size * 2``), which would otherwise rebind C's own.
    suffix = snake_case(ctx.pname)
    pargs = pinit.args
    star_names = {p.arg for p in (pargs.vararg, pargs.kwarg) if p is not None}
    free = set(sl.free_locals) & (set(params) | {p.arg for p in pargs.kwonlyargs} | star_names)
    for name in sorted(assigned - free):
        if name in child_names:
            mapping[name] = cst.Name(f"{name}_{suffix}")
    if not free:
        return mapping, forwarded_prelude, prelude
    binding = bind_arguments(pinit, call)
    bound, defaults = binding.bound, binding.defaults
    cmod_text = a.cls.module.text
    # A prelude local must not rebind what C's call reads either: ``kwargs = dict(kwargs)`` is fine,
    # ``kwargs = {**opts}`` where the call passes ``kwargs=...`` too is not.
    taken = child_names | {n.id for n in walk(call) if isinstance(n, ast.Name)}
    forwarded = forwarded_args.forwarded(ctx, ID, pinit, call, params)
    popped: set[str] = set()
    if forwarded is not None:
        forwarded_prelude = forwarded_args.forwarded_prelude(ctx, pinit, forwarded, free, bound, defaults, taken, mapping, suffix)
        popped = set(forwarded.popped(pinit, bound))
    free -= star_names
    fstring_names = {n.id for f in walk(pinit) if isinstance(f, ast.JoinedStr) for n in walk(f) if isinstance(n, ast.Name)}
    for name in sorted(free - popped):
        expr = bound.get(name, defaults.get(name))
        if expr is None:
            raise UnsafeError(f"{ctx.pname}.__init__ parameter {name!r} is not bound by {a.cls.name}'s super().__init__ call", ID)
        source = source_segment(cmod_text, expr) if name in bound else forwarded_args.default_source(ctx, expr)
        if isinstance(expr, ast.Name) and expr.id == name and not (name in assigned and name in child_names):
            continue
        # Fold when the parameter is never reassigned; not a string into an f-string, where its
        # quotes could end the literal (before Python 3.12).
        in_fstring = isinstance(expr, ast.Constant) and isinstance(expr.value, str) and name in fstring_names
        if name not in assigned and (isinstance(expr, ast.Constant) or isinstance(expr, ast.Name)) and not in_fstring:
            mapping[name] = cst.parse_expression(source)
            continue
        local = name if name not in child_names else f"{name}_{suffix}"
        if local != name:
            mapping[name] = cst.Name(local)
            # Final as it is: its value is C's expression, which may name what P's names are renamed from.
            forwarded_prelude.append(forwarded_args.assign(local, source))
            continue
        prelude.append(forwarded_args.assign(local, source))
    return mapping, forwarded_prelude, prelude


def rewrite_init(ctx, fn: cst.FunctionDef, inlined: list[cst.BaseStatement]) -> cst.FunctionDef:
    """C's __init__ with the inlined block in place of its super().__init__ line, and fused stores."""
    a = ctx.a
    target = ctx.c.stmt(a.super_init_stmt) if a.super_init_stmt is not None else None
    line = ctx.c.lines.get(id(target)) if target is not None else None
    fusion_stores = {id(ctx.c.stmt(f.child_store)): f for f in a.fusions}

    moved = ctx.moved

    def block(stmts):
        out = []
        for st in stmts:
            if id(st) in moved:
                out.append(st)
                out.extend(moved[id(st)])
                continue
            if st is line:
                if inlined:
                    first = inlined[0]
                    carried = [l for l in st.leading_lines]
                    out.append(first.with_changes(leading_lines=carried + list(first.leading_lines)))
                    out.extend(inlined[1:])
                continue
            if isinstance(st, cst.SimpleStatementLine):
                smalls = [fusion_stores.get(id(s)) and rewrite_fuse_loops.append_form(s) or s for s in st.body]
                out.append(st.with_changes(body=smalls))
                continue
            out.append(_map_blocks(st, block))
        return out

    body = block(list(fn.body.body)) or [cst.SimpleStatementLine([cst.Pass()])]
    ctx.plan.inlined.extend(rewrite_fuse_loops.report_lines(a.fusions, ctx.pname))
    return fn.with_changes(body=fn.body.with_changes(body=body))


def add_init(ctx, body, inlined):
    """A new __init__ with P's signature for a class that had none."""
    pinit = ctx.a.parent_init
    # Defaults and annotations are evaluated where the class is defined: spelt as the parent's
    # module means them (an alias where the class's module binds the name otherwise).
    mapping = ctx.names_for(rewrite_bind_names.inlined_free(ctx.a))
    params = rename(ctx.p.stmt(pinit).params, mapping)
    fn = cst.FunctionDef(
        name=cst.Name("__init__"),
        params=params,
        body=cst.IndentedBlock(inlined or [cst.SimpleStatementLine([cst.Pass()])]),
        leading_lines=[BLANK] if any(isinstance(s, (cst.FunctionDef, cst.SimpleStatementLine)) for s in body) else [],
    )
    ctx.plan.inlined.append(f"a new `__init__` with {ctx.pname}.__init__'s signature")
    if len(body) == 1 and _is_pass_or_doc(body[0]) == "pass":
        return [fn.with_changes(leading_lines=[])]
    idx = next((i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)), len(body))
    fn = fn.with_changes(leading_lines=[BLANK] if idx > 0 else [])
    rest = body[idx:]
    if rest and not any(l.comment is None for l in rest[0].leading_lines):
        rest[0] = rest[0].with_changes(leading_lines=[BLANK] + list(rest[0].leading_lines))
    return body[:idx] + [fn] + rest


def _map_blocks(st, fn):
    """Apply ``fn`` to every statement block inside a compound statement."""
    if isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler)):
        changes = {}
        body = getattr(st, "body", None)
        if isinstance(body, cst.IndentedBlock):
            changes["body"] = body.with_changes(body=fn(list(body.body)) or [cst.SimpleStatementLine([cst.Pass()])])
        orelse = getattr(st, "orelse", None)
        if orelse is not None:
            changes["orelse"] = _map_blocks(orelse, fn)
        if isinstance(st, (cst.Try, cst.TryStar)):
            changes["handlers"] = [_map_blocks(h, fn) for h in st.handlers]
            if st.finalbody is not None:
                changes["finalbody"] = _map_blocks(st.finalbody, fn)
        return st.with_changes(**changes)
    return st


def _assigned_names(pinit: ast.FunctionDef, sl) -> set[str]:
    out = set()
    for node in walk(pinit):
        if isinstance(node, ast.stmt) and pos(node) in sl.kept:
            for n in walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.add(n.id)
    return out


def _clashing_names(fn: ast.FunctionDef, super_stmt: ast.stmt | None) -> set[str]:
    """Names the inlined slice must not rebind: C's parameters and the locals C binds before
    super().__init__ (C may read them later), and the globals C reads after it."""
    args = fn.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {a.arg for a in (args.vararg, args.kwarg) if a}
    bound = {n.id for n in walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | params
    before, after = set(params), set()
    for stmt in fn.body:
        target = after if (super_stmt is not None and pos(stmt) > pos(super_stmt)) else before
        for n in walk(stmt):
            if isinstance(n, ast.Name):
                target.add(n.id)
    globals_read_after = {n for n in after if n not in bound}
    return (before & bound) | globals_read_after


_NEGATED_OPS = {cst.Is: cst.IsNot, cst.IsNot: cst.Is, cst.In: cst.NotIn, cst.NotIn: cst.In, cst.Equal: cst.NotEqual,
                cst.NotEqual: cst.Equal}


def _negate(test: cst.BaseExpression) -> cst.BaseExpression:
    """``not test``, written as a reader would: ``x is not None`` for ``x is None``, ``x`` for ``not x``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
        return test.expression
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and not test.lpar:
        target = test.comparisons[0]
        flip = _NEGATED_OPS.get(type(target.operator))
        if flip is not None:
            return test.with_changes(comparisons=[target.with_changes(operator=flip())])
    inner = test if test.lpar or not isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.NamedExpr, cst.Lambda)) else (
        test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
    return cst.UnaryOperation(operator=cst.Not(), expression=inner)


def _is_pass_or_doc(st) -> str | None:
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
        s = st.body[0]
        if isinstance(s, cst.Pass):
            return "pass"
        if isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString)):
            return "doc"
    return None
