"""DC304 generic-base: carry the parent's subscripted bases over to the class, or refuse with the reason.

## What it does
Where a base taking the parent's place is subscripted (``class Put(Event, ContextManager['Put'],
Generic[R])``) or the class names the parent with a subscript (``class UserRepo(Repo[User])``),
works out what the class's bases must say so that its ``__parameters__`` (what ``C[...]``
accepts) and its MRO stay what they were:

* the class names the parent plainly (``class Request(Put)``): the class is not generic (its
  ``__parameters__`` are empty, ``Request[X]`` raises), and stays so: each such base is written as
  the parent wrote it, but for the parent's type variables, which become ``typing.Any``
  (``Mapping[str, T]`` gives ``Mapping[str, Any]``); an annotation string (``'Put'``) is kept
  verbatim (the import rule imports the name it spells). A ``Generic[...]`` of the parent's
  variables would be ``Generic[Any]``, which is no base: it is left out where another base keeps
  ``Generic`` in the MRO, at the place it had (a class of the tree deriving from it, or one of
  typing's aliases, ``ContextManager[...]``, whose ``__mro_entries__`` add it), so that
  ``isinstance(c, Generic)``, ``__class_getitem__`` and ``__parameters__`` read as before;
* the class subscripts the parent (``class UserRepo(Repo[User])``): the parent's type parameters
  (those of its ``Generic[...]``, else its type variables in order of appearance) are replaced by
  the class's arguments (``class Repo(Base[T])`` gives ``class UserRepo(Base[User])``). A
  ``Generic[...]`` left with no type variables (``Generic[User]`` is no base) is left out when
  another base of the tree that derives from ``Generic`` keeps it in the MRO.

Each name of a subscript is imported, or aliased when the class's module binds it otherwise
(DC608). Refused: a ``Generic[...]`` whose leaving would take ``Generic`` out of the MRO
(``class Box(Generic[T])``, then ``class IntBox(Box[int])`` or ``class AnyBox(Box)``) or would
leave some of the class's own type variables behind; a type argument count that is not the
parent's parameter count; a name in a subscript the class substitutes into (or, for a plainly
named parent, carries over) whose kind (type variable or not) the tree does not tell;
``ParamSpec``, ``TypeVarTuple`` and ``Protocol[...]``; a generic parent with ``--base`` above
it; a class that adds a subscripted base of its own to a generic parent.

## Why
``class Request(Event, ContextManager, Generic)`` does not build (``Cannot inherit from plain
Generic``); ``class UserRepo(Base[T])`` would make a class generic that its parent had fixed
(the arguments belong to the parent's parameters), and so would ``class Request(Event,
ContextManager['Put'], Generic[R])`` for a class that names ``Put`` bare (``Request[int]``
would be accepted, ``Request.__parameters__`` would change).

## Known problems
A type variable imported from outside the tree is not recognised (only ``typing.AnyStr`` is):
where the parent has no ``Generic[...]`` that lists its variables, the run refuses. The class's
own ``__orig_bases__`` (``typing.get_original_bases``) now read its new bases, where they read
the parent's (``Mapping[str, Any]`` for ``Mapping[str, T]``): noted, not refused.

## Fix safety
Where it carries: C's MRO is P's minus P (DC701 checks it, typing's aliases modelled as adding
``Generic``), and ``C.__parameters__`` are what they were. Otherwise no patch is written
(exit 3), with this reason.
"""

from __future__ import annotations

import ast
import builtins
import typing
from dataclasses import dataclass, field

from ..ast_util import dotted_name
from ..model import ClassAnalysis, Hazard

ID = "DC304"
NAME = "generic-base"

_GENERIC = {"typing.Generic", "typing_extensions.Generic"}
_PROTOCOL = {"typing.Protocol", "typing_extensions.Protocol"}
_MAKERS = {"TypeVar": "typevar", "ParamSpec": "unsupported", "TypeVarTuple": "unsupported"}
_OUTSIDE_TYPEVARS = {"typing.AnyStr", "typing_extensions.AnyStr"}
# Modules whose names, besides AnyStr, are no type variables.
_KNOWN = {"typing", "typing_extensions", "builtins", "collections", "collections.abc", "contextlib", "abc", "types",
          "enum", "numbers", "os", "pathlib", "datetime", "decimal", "fractions", "re", "io"}


class Refused(Exception):
    pass


@dataclass
class Carried:
    """How the bases taking P's place are written: qualname -> P's subscripted expression, the
    names its subscript reads in P's module, C's arguments by P's parameter, the bases left out."""

    exprs: dict[str, ast.expr] = field(default_factory=dict)
    free: set[str] = field(default_factory=set)
    subst: dict[str, ast.expr] = field(default_factory=dict)
    left_out: set[str] = field(default_factory=set)
    erased: list[str] = field(default_factory=list)  # P's type variables that a plainly named P leaves as Any


def check(st) -> None:
    a = st.a
    try:
        c = carry(st.index, a)
    except Refused as exc:
        a.unsafe.append(Hazard(a.cls.file, a.cls.line, str(exc), rule=ID))
        return
    if c.erased:
        a.hazards.append(Hazard(a.cls.file, a.cls.line, f"{a.cls.name} names {a.parent.name} plainly, so {', '.join(c.erased)} "
                                f"{'is' if len(c.erased) == 1 else 'are'} Any in the bases it takes over and it stays non-generic; "
                                f"only its __orig_bases__ read otherwise", changes_meaning=False, rule=ID))


def carry(index, a: ClassAnalysis) -> Carried:
    """The subscripts the bases taking P's place keep; raises ``Refused`` where none would be sound."""
    p, cmod, pmod = a.parent, a.cls.module, a.parent.module
    out = Carried()
    own = [(e, q) for e, q in zip(a.cls.node.bases, a.cls.bases) if isinstance(e, ast.Subscript) and index._same_class(q, p)]
    subscripted = [c for c in a.chain if any(isinstance(e, ast.Subscript) for e in c.node.bases)]
    if not own and not subscripted:
        return out
    if len(a.chain) > 1:
        raise Refused(f"{', '.join(c.name for c in a.chain)} between {a.cls.name} and the new base have subscripted bases; "
                      f"only a parent's own subscripts are carried over")
    taking = {a.base, *a.extra_bases}
    for e, q in zip(p.node.bases, p.bases):
        if isinstance(e, ast.Subscript) and q in taking:
            if q in _PROTOCOL:
                raise Refused(f"{p.name} inherits {ast.unparse(e)}: a protocol's parameters are not carried over")
            out.exprs[q] = e
    params = _parameters(index, pmod, list(p.node.bases))
    others = [e for e, q in zip(a.cls.node.bases, a.cls.bases) if not index._same_class(q, p)]
    unknown = [n for n, k in params if k == "unknown"]
    if unknown:
        raise Refused(f"{a.cls.name} inherits {ast.unparse(own[0][0]) if own else p.name}, but whether {', '.join(unknown)} in {p.name}'s "
                      f"bases {'is a type variable' if len(unknown) == 1 else 'are type variables'} the tree does not say")
    names = [n for n, _ in params]
    if any("." in n for n in names):
        raise Refused(f"{p.name}'s type variables are spelled as attributes ({', '.join(names)})")
    if not own:
        if names and any(isinstance(e, ast.Subscript) for e in others):
            raise Refused(f"{a.cls.name} adds subscripted bases of its own to {p.name}, which is generic in {', '.join(names)}")
        # C names P bare, so C is not generic: P's parameters are Any to C, and a Generic[...]
        # of them (Generic[Any] is no base) leaves, where another base keeps Generic in the MRO.
        out.erased = names
        for q, e in list(out.exprs.items()):
            if q in _GENERIC and names:
                _leave_out(index, a, out, q, e, "Generic[Any]")
        out.free = set().union(*(names_read(e.slice) - set(names) for e in out.exprs.values())) if out.exprs else set()
        return out
    [(expr, _)] = own[:1]
    args = list(expr.slice.elts) if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    if len(args) != len(names):
        raise Refused(f"{a.cls.name} inherits {ast.unparse(expr)}: {len(args)} type arguments for {p.name}'s {len(names)} parameters")
    out.subst = dict(zip(names, args))
    before = [n for n, k in _parameters(index, cmod, list(a.cls.node.bases)) if k != "other"]
    for q, e in list(out.exprs.items()):
        if q not in _GENERIC:
            continue
        leaves = _substituted(index, cmod, [e.slice], out.subst)
        if all(k == "typevar" for _, k in leaves) and len({n for n, _ in leaves}) == len(leaves):
            continue
        _leave_out(index, a, out, q, e, "a Generic of types")
    pidx = next(i for i, (e, _) in enumerate(zip(a.cls.node.bases, a.cls.bases)) if e is expr)
    after = _after(index, cmod, pmod, a.cls.node.bases[:pidx], list(out.exprs.values()), a.cls.node.bases[pidx + 1:], out.subst)
    if after != before:
        raise Refused(f"{a.cls.name} is generic in {', '.join(before) or 'nothing'}, but with {p.name}'s bases substituted "
                      f"it would be generic in {', '.join(after) or 'nothing'}")
    out.free = set().union(*(names_read(e.slice) - set(names) for e in out.exprs.values())) if out.exprs else set()
    return out


def _substituted(index, cmod, nodes, subst) -> list[tuple[str, str]]:
    """The leaves of P's subscripts once C's arguments replace P's parameters: only those, read in
    C's module, can be type variables (P's own leaves are all parameters or other names)."""
    out = []
    for n, _ in _leaves_raw(nodes):
        if n in subst:
            out += _leaves(index, cmod, [subst[n]])
    return out


def _after(index, cmod, pmod, left, carried, right, subst) -> list[str]:
    """C's type parameters with its new bases, as typing collects them."""
    pieces = [("own", e) for e in left] + [("p", e) for e in carried] + [("own", e) for e in right]
    for where, e in pieces:
        if where == "p" and pmod.qualify(e.value) in _GENERIC:
            return [n for n, k in _substituted(index, cmod, [e.slice], subst) if k != "other"]
        if where == "own" and isinstance(e, ast.Subscript) and cmod.qualify(e.value) in _GENERIC:
            return [n for n, k in _leaves(index, cmod, _elts(e.slice)) if k != "other"]
    seen, out = set(), []
    for where, e in pieces:
        if not isinstance(e, ast.Subscript):
            continue
        leaves = _substituted(index, cmod, [e.slice], subst) if where == "p" else _leaves(index, cmod, [e.slice])
        for n, k in leaves:
            if k != "other" and n not in seen:
                seen.add(n)
                out.append(n)
    return out


def _elts(node: ast.expr) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def _leave_out(index, a: ClassAnalysis, out: Carried, q: str, e: ast.expr, becomes: str) -> None:
    if not _generic_kept(index, a, out, q):
        raise Refused(f"{ast.unparse(e)} of {a.parent.name} would become {becomes}, which is no base, and no other base "
                      f"keeps Generic in {a.cls.name}'s MRO")
    del out.exprs[q]
    out.left_out.add(q)


def _generic_kept(index, a: ClassAnalysis, out: Carried, q: str) -> bool:
    """Whether a base C keeps, other than ``q``, derives from ``Generic`` in the tree or is one of
    typing's aliases (``ContextManager[...]``, ``Mapping``), whose ``__mro_entries__`` add it."""
    heads = [k for k in [a.base, *a.extra_bases] if k != q and k not in out.left_out]
    heads += [b for b in a.cls.bases if not index._same_class(b, a.parent)]
    for h in heads:
        c = index.resolve_class(h)
        if typing_alias(h) or (c is not None and any(_GENERIC & {k} or typing_alias(k) for k in index.ancestors(c))):
            return True
    return False


def typing_alias(q: str) -> bool:
    """Whether ``q`` names one of typing's generic aliases of a class (``typing.Mapping``): as a
    base, subscripted or not, it brings ``Generic`` into the class's bases."""
    module, _, name = q.rpartition(".")
    return module in ("typing", "typing_extensions") and name in _ALIASES


_ALIASES = frozenset(n for n in dir(typing) if isinstance(getattr(typing, n), getattr(typing, "_BaseGenericAlias", ())))


def _parameters(index, mod, bases: list[ast.expr]) -> list[tuple[str, str]]:
    """A class's type parameters as typing collects them: those of its ``Generic[...]``, else
    every type variable of its subscripts in order of appearance; with each one's kind. Names
    whose kind the tree cannot tell are listed too, as ``unknown``."""
    for e in bases:
        if isinstance(e, ast.Subscript) and mod.qualify(e.value) in _GENERIC:
            return _checked(_leaves(index, mod, _elts(e.slice)))
    seen, out = set(), []
    for n, k in _leaves(index, mod, [e.slice for e in bases if isinstance(e, ast.Subscript)]):
        if k != "other" and n not in seen:
            seen.add(n)
            out.append((n, k))
    return _checked(out)


def _checked(leaves):
    bad = [n for n, k in leaves if k == "unsupported"]
    if bad:
        raise Refused(f"{', '.join(bad)} {'is a ParamSpec or TypeVarTuple' if len(bad) == 1 else 'are ParamSpecs or TypeVarTuples'}, "
                      f"whose substitution is not worked out")
    return leaves


def _leaves(index, mod, nodes) -> list[tuple[str, str]]:
    """The names and dotted names a subscript reads, in order, with their kinds: typevar,
    unsupported, other or unknown. Strings are annotations, never type variables."""
    return [(name, _kind(index, mod, n)) for name, n in _leaves_raw(nodes)]


def _leaves_raw(nodes) -> list[tuple[str, ast.expr]]:
    out = []

    def visit(n):
        if isinstance(n, (ast.Name, ast.Attribute)) and dotted_name(n) is not None:
            out.append((dotted_name(n), n))
        elif isinstance(n, ast.Subscript):
            visit(n.value)
            visit(n.slice)
        elif isinstance(n, (ast.Tuple, ast.List)):
            for x in n.elts:
                visit(x)
        elif isinstance(n, ast.BinOp):
            visit(n.left)
            visit(n.right)

    for node in nodes:
        visit(node)
    return out


def _kind(index, mod, n: ast.expr) -> str:
    from .rewrite_bind_names import _binding, _resolve

    if isinstance(n, ast.Name):
        q = _binding(mod, n.id)
        if q is None:
            return "unknown"
    else:
        q = mod.qualify(n)
    q = _resolve(index, q)
    modname, _, name = q.rpartition(".")
    if q in _OUTSIDE_TYPEVARS:
        return "typevar"
    if modname in _KNOWN or (not modname and name in dir(builtins)):
        return "other"
    m = index.module_by_name(modname) if modname else None
    if m is None:
        return "other" if index.resolve_class(q) is not None else "unknown"
    for s in m.tree.body:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            v = s.value
            if isinstance(v, ast.Call):
                maker = dotted_name(v.func) or ""
                return _MAKERS.get(maker.rsplit(".", 1)[-1], "other")
            return "other" if isinstance(v, (ast.Constant, ast.Name, ast.Attribute)) else "unknown"
    return "other" if name in m.classes or name in m.functions else "unknown"


def names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
