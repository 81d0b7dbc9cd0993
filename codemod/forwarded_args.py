"""How C's call fills the parent's ``*args`` and ``**kwargs``, bound as Python binds them, for
the inline rule (DC601): C's extra positionals as a tuple, C's stray keywords and its one
``**mapping`` as a fresh dict, and each parameter the mapping may fill popped from that dict."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from .ast_util import is_super_call, source_segment
from .cst_util import rename
from .errors import UnsafeError


def default_source(ctx, default: ast.expr) -> str:
    """A default of P.__init__, spelt for C's module: it is evaluated in P's module, so only the
    aliases under which C's module imports P's globals (DC608) and the literals that stand for
    where it is written (DC614) apply to it, not P's local renames."""
    names = ctx.names_for(set(ctx.aliases) | set(ctx.literals))
    return cst.Module([]).code_for_node(rename(cst.parse_expression(source_segment(ctx.pinfo.text, default)), names))


def assign(target: str, source: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], cst.parse_expression(source))])


@dataclass
class _Forward:
    """What C's call hands to P's ``*args`` and ``**kwargs`` beyond P's named parameters."""

    extra_args: list[ast.expr]  # explicit positionals past P's named ones, for P's *args
    keywords: list[ast.keyword]  # in call order: keywords P does not name, and the one ``**mapping``
    spread: ast.expr | None  # that ``**mapping``: its keys may also fill P's named parameters

    def popped(self, pinit: ast.FunctionDef, bound: dict) -> list[str]:
        """P's parameters the call leaves to the mapping, in P's order: Python takes each from
        the mapping by name when its key is there, else from the default."""
        if self.spread is None:
            return []
        args = pinit.args
        return [p.arg for p in args.args[1 if not args.posonlyargs else 0:] + args.kwonlyargs if p.arg not in bound]


def forwarded(ctx, rule: str, pinit: ast.FunctionDef, call: ast.Call, params: list[str]) -> _Forward | None:
    """How C's call fills P's ``*args``/``**kwargs``, or None when it fills neither and P's slice
    reads neither (the named parameters are bound as before). Refuses what it cannot bind as
    Python does: a ``*iterable`` (which parameters its items fill is known only at run time),
    more than one ``**mapping``, a ``**mapping`` into a parent without ``**kwargs``."""
    a, pargs = ctx.a, pinit.args
    cname, where = a.cls.name, f"{ctx.pname}.__init__"
    f = call.func
    explicit_self = isinstance(f, ast.Attribute) and f.attr == "__init__" and not is_super_call(f.value)
    given = call.args[1:] if explicit_self else call.args
    text = a.cls.module.text
    for g in given:
        if isinstance(g, ast.Starred):
            raise UnsafeError(f"{cname} passes *{source_segment(text, g.value)} to {where}: which parameters its items "
                              "fill is known only at run time, so they cannot be bound", rule)
    spreads = [k.value for k in call.keywords if k.arg is None]
    if len(spreads) > 1:
        raise UnsafeError(f"{cname} passes more than one **mapping to {where}: which one fills a parameter is known "
                          "only at run time, so they cannot be bound", rule)
    spread = spreads[0] if spreads else None
    reads_star = a.init_slice.free_locals & {p.arg for p in (pargs.vararg, pargs.kwarg) if p is not None}
    if spread is None and not reads_star:
        return None
    if spread is not None and pargs.kwarg is None:
        raise UnsafeError(f"{cname} passes **{source_segment(text, spread)} to {where}, which takes no **kwargs: a key "
                          "that names none of its parameters raises TypeError there, and inlined code would not", rule)
    extra_args = list(given[len(params):])
    if extra_args and pargs.vararg is None:
        raise UnsafeError(f"{cname} passes more positional arguments than {where} takes", rule)
    named = {p.arg for p in pargs.args[1 if not pargs.posonlyargs else 0:] + pargs.kwonlyargs}
    keywords = [k for k in call.keywords if k.arg is None or k.arg not in named]
    stray = [k.arg for k in keywords if k.arg is not None]
    if stray and pargs.kwarg is None:
        raise UnsafeError(f"{cname} passes {stray[0]}= to {where}, which takes no such parameter", rule)
    return _Forward(extra_args, keywords, spread)


def forwarded_prelude(ctx, pinit: ast.FunctionDef, fw: _Forward, free: set[str], bound: dict, defaults: dict,
                       taken: set[str], mapping: dict, suffix: str) -> list[cst.BaseStatement]:
    """P's ``*args`` as a tuple of C's extra positionals; P's ``**kwargs`` as a fresh dict of C's
    stray keywords and forwarded mapping (P's own statements may pop from it; C's mapping stays as
    it was), with each of P's parameters the mapping may fill popped out of it, as Python binds them."""
    a, pargs = ctx.a, pinit.args
    text = a.cls.module.text
    out: list[cst.BaseStatement] = []

    def local(name: str) -> str:
        new = name if name not in taken else f"{name}_{suffix}"
        if new != name:
            mapping[name] = cst.Name(new)
        return new

    if pargs.vararg is not None and pargs.vararg.arg in free:
        items = [source_segment(text, e) for e in fw.extra_args]
        out.append(assign(local(pargs.vararg.arg), "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"))
    popped = fw.popped(pinit, bound)
    kwname = pargs.kwarg.arg if pargs.kwarg is not None else None
    if kwname is None or not (kwname in free or set(popped) & free or any(n not in defaults for n in popped)):
        return out
    kw = local(kwname)
    if fw.spread is not None and len(fw.keywords) == 1:
        out.append(assign(kw, f"dict({source_segment(text, fw.spread)})"))
    else:
        items = [f"{k.arg!r}: {source_segment(text, k.value)}" if k.arg is not None else f"**{source_segment(text, k.value)}"
                 for k in fw.keywords]
        out.append(assign(kw, "{" + ", ".join(items) + "}"))
    for name in popped:
        default = defaults.get(name)
        if default is None:
            pop = f"{kw}.pop({name!r})"  # a missing required parameter still raises
        else:
            pop = f"{kw}.pop({name!r}, {default_source(ctx, default)})"
        if name in free:
            out.append(assign(local(name), pop))
        elif kwname in free or default is None:
            # Not read, but it must leave the dict P forwards (or raise when missing), as binding does.
            out.append(cst.SimpleStatementLine([cst.Expr(cst.parse_expression(pop if default is None else f"{kw}.pop({name!r}, None)"))]))
    return out
