"""DC408 built-then-replaced: find the objects a parent's ``__init__`` builds that the class replaces before any read.

## What it does
For a class C whose ``__init__`` calls its first base P's ``__init__`` (``super().__init__()``),
lists the statements of the ``__init__`` that runs for P (P's own, or the nearest ancestor's)
whose stored object C replaces afterwards, on every path, before C reads it:

* ``self.a = E`` in P, and ``self.a = E2`` in C after ``super().__init__()`` as a statement of
  its own body, or in both branches of an ``if`` (an ``if`` without ``else`` is one path only);
* element stores: ``self.L = []`` then ``for i in range(n): self.L.append(E)`` (or
  ``self.L[i] = E``) in P, and a loop of C over the same ``range(n)`` whose first statement
  touching ``self.L`` is ``self.L[i] = E2``.

Between ``super().__init__()`` and the replacement, C's statements must not read, mutate or
rebind the attribute, call a method on ``self``, hand ``self`` to anything, or return. Each
finding carries every read of the thrown-away object that runs before it is replaced: the
statements of P's ``__init__`` after the one that built it, and the methods of P they call on
``self`` (``self.max_context_len = self.attn_backends[0].max_context_len``). ``decouple scan
--replaced`` lists the findings with what each thrown-away construction cost.

## Why
Decoupling cannot remove this waste when the parent is really reused (DC502, DC504): every
instance of C still builds P's object and drops it. A factory method on P that C overrides
(a hook) removes it, and is safe only where nothing reads the object P built first.

## Known problems
Statements of C's ``__init__`` are read as they stand (a replacement inside a ``with`` or a
``try`` is not seen); a loop's range must be spelt as P spells it; a read through an alias of
the object (``x = self.a`` in a helper it cannot resolve) or through ``getattr`` is not seen
unless a method call on ``self`` or a hand-off of ``self`` stops the search first.

## Fix safety
Reported only. Whether a hook is possible is the scan's verdict, with the reason when it is
refused (a read of the object that cannot be shown to give the same value, a name that
clashes, what C's construction reads that is set only later).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..ast_util import first_param, walk
from ..facts import collect
from .rewrite_fuse_loops import _assigns_empty_list, _first_index_store, _is_range_count

ID = "DC408"
NAME = "built-then-replaced"


@dataclass
class Replacement:
    """A statement of C's ``__init__`` (after ``super().__init__()``) replacing ``self.attr``."""

    attr: str
    element: bool  # self.attr[i] = ... over a range, else self.attr = ...
    stmt: ast.stmt  # the statement of C's body (the loop, for element stores)
    values: list[ast.expr]  # what C stores (two for an if/else)
    loop: ast.For | None = None


@dataclass
class Built:
    """A statement of P's ``__init__`` that stores an object C replaces."""

    attr: str
    element: bool
    stmt: ast.stmt  # the top-level statement of P's body (the loop, for element stores)
    value: ast.expr  # what P stores
    replacement: Replacement
    reads: list[tuple[ast.stmt, str]] = field(default_factory=list)  # (statement, where: __init__ or a method name)


def replacements(init: ast.FunctionDef, super_stmt: ast.stmt) -> dict[str, Replacement]:
    """What C's ``__init__`` replaces after ``super_stmt`` on every path before any read of it."""
    sn = first_param(init)
    if sn is None or super_stmt not in init.body:
        return {}
    out: dict[str, Replacement] = {}
    stopped: set[str] = set()  # attributes touched before a replacement
    for stmt in init.body[init.body.index(super_stmt) + 1:]:
        for r in _stores(stmt, sn):
            if r.attr not in stopped and r.attr not in out and not _reads_in_values(r, sn):
                out[r.attr] = r
        f = collect(stmt, sn)
        if f.calls_methods or f.dynamic or _hands_off(stmt, sn) or any(isinstance(n, ast.Return) for n in walk(stmt)):
            break  # what runs from here on may read anything of self
        stopped |= (f.reads_attrs | f.mutates_attrs | f.writes_attrs) - set(out)
    return out


def _stores(stmt: ast.stmt, sn: str) -> list[Replacement]:
    target = _plain_store(stmt, sn)
    if target is not None:
        return [Replacement(target, False, stmt, [stmt.value])]
    if isinstance(stmt, ast.If) and stmt.orelse:
        a = {r.attr: r for s in stmt.body for r in _stores(s, sn) if not r.element}
        b = {r.attr: r for s in stmt.orelse for r in _stores(s, sn) if not r.element}
        return [Replacement(n, False, stmt, a[n].values + b[n].values) for n in a if n in b]
    if isinstance(stmt, ast.For) and _is_range_count(stmt.iter) and isinstance(stmt.target, ast.Name) and not stmt.orelse:
        out = []
        for s in stmt.body:
            t = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and isinstance(t.value.value, ast.Name) \
                    and t.value.value.id == sn and _first_index_store(stmt, t.value.attr, sn) is s:
                out.append(Replacement(t.value.attr, True, stmt, [s.value], stmt))
        return out
    return []


def _plain_store(stmt: ast.stmt, sn: str) -> str | None:
    """``self.a = E`` or ``self.a: T = E``: the attribute."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        t = stmt.target
    else:
        return None
    return t.attr if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == sn else None


def _reads_in_values(r: Replacement, sn: str) -> bool:
    return any(r.attr in (f.reads_attrs | f.mutates_attrs) for f in (collect(v, sn) for v in r.values))


def _hands_off(stmt: ast.stmt, sn: str) -> bool:
    """Whether ``self`` itself is used other than as a receiver (passed, returned, stored)."""
    receivers = {id(n.value) for n in walk(stmt) if isinstance(n, (ast.Attribute, ast.Subscript))}
    return any(isinstance(n, ast.Name) and n.id == sn and id(n) not in receivers for n in walk(stmt))


def built(pinit: ast.FunctionDef, replaced: dict[str, Replacement], methods: dict[str, ast.FunctionDef],
          unseen: set[str] = frozenset()) -> list[Built]:
    """The statements of ``pinit`` (the ``__init__`` that runs for P) storing what C replaces,
    each with the reads of the object that run before C replaces it. ``unseen``: the methods
    an override below P may define, whose bodies are not read: a call of one counts as a read."""
    psn = first_param(pinit)
    if psn is None:
        return []
    out = []
    body = pinit.body
    for i, stmt in enumerate(body):
        attr = _plain_store(stmt, psn)
        if attr in replaced and not replaced[attr].element and _builds(stmt.value):
            out.append(Built(attr, False, stmt, stmt.value, replaced[attr]))
            continue
        if isinstance(stmt, ast.For) and _is_range_count(stmt.iter) and isinstance(stmt.target, ast.Name) and not stmt.orelse:
            for attr, value in _element_stores(stmt, psn, body[:i]):
                r = replaced.get(attr)
                if r is not None and r.element and ast.dump(r.loop.iter) == ast.dump(stmt.iter) and _builds(value):
                    out.append(Built(attr, True, stmt, value, r))
    for b in out:
        b.reads = reads_after(body[body.index(b.stmt) + 1:], b.attr, psn, methods, unseen)
    return out


def _element_stores(loop: ast.For, sn: str, before: list[ast.stmt]):
    """(attr, E) for ``self.L.append(E)`` after ``self.L = []``, or ``self.L[i] = E``, as the loop's only statement."""
    if len(loop.body) != 1:
        return
    s = loop.body[0]
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
            and s.value.func.attr == "append" and len(s.value.args) == 1 and not s.value.keywords:
        recv = s.value.func.value
        if isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == sn \
                and before and _assigns_empty_list(before[-1], recv.attr, sn):
            yield recv.attr, s.value.args[0]
    elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Subscript):
        t = s.targets[0]
        if isinstance(t.value, ast.Attribute) and isinstance(t.value.value, ast.Name) and t.value.value.id == sn \
                and isinstance(t.slice, ast.Name) and t.slice.id == loop.target.id:
            yield t.value.attr, s.value


def _builds(value: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) for n in walk(value))


def reads_after(stmts: list[ast.stmt], attr: str, sn: str, methods: dict[str, ast.FunctionDef],
                 unseen: set[str]) -> list[tuple[ast.stmt, str]]:
    """The statements after the construction that may read ``self.attr``: directly, in a
    method of P they call on ``self`` (followed through the methods those call), in a method an
    override may replace (``unseen``) or whose body is not among ``methods``, or anywhere
    ``self`` is handed to."""
    out = []
    for s in stmts:
        f = collect(s, sn)
        if attr in f.reads_attrs | f.mutates_attrs:
            out.append((s, "__init__"))
        elif f.dynamic or _hands_off(s, sn):
            out.append((s, "whatever self is handed to"))
        seen: set[str] = set()
        todo = sorted(f.calls_methods)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in unseen or name not in methods:
                out.append((s, f"{name}, which a subclass overrides" if name in unseen else f"{name}, whose body is not found"))
                continue
            m = methods[name]
            mf = collect(m, first_param(m))
            if attr in mf.reads_attrs | mf.mutates_attrs or mf.dynamic or _hands_off(m, first_param(m)):
                out.append((m, name))
            todo += sorted(mf.calls_methods - seen)
    return out
