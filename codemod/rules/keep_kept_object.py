"""DC112 keep-kept-object: keep a statement that acts on an object the patch keeps.

## What it does
A statement of the parent's ``__init__`` that nothing needs for what it defines, a call made
for its effect alone (its value thrown away), is kept when it acts on an object that is still
live at that point of the slice (an attribute of the instance the class keeps, or a local
bound in the ``__init__`` that flows into one):

- the call's receiver is rooted at it: ``self._thread.start()``, ``self._f.write(header)``,
  ``self.bus.subscribe(self._on)``, ``self.pool[0].reset()``, ``f.write(header)`` before
  ``self._f = f``;
- or it is passed as an argument, itself or through an attribute or an index of it:
  ``fill(self.items, n)``, ``atexit.register(self._f.close)``;
- or the call is ``self.m()`` and ``m``, or a method it calls through ``self``, makes such a call
  on the attribute (``self._start()`` whose body runs ``self._thread.start()``).

A pure builtin (``len``, ``isinstance``, ...) given the object does not count, nor does a
parameter of the ``__init__`` (the caller's object: a call on it is DC406's dropped work, and one
for its effect alone on it is kept as defining it).

## Why
The slice keeps what builds a kept object but not, by itself, what is done to the object
afterwards: a thread built but never started, a file opened without its header, a bus that
never gets the callback, a list left unfilled. The attribute still exists, every check on the
patched file passes, and the object is in another state.

## Known problems
The called method is not read: a call for its effect alone that only reads the object is kept
all the same, with what it reads. A call whose value is used (``self.n = self._f.write(header)``,
``self.w = Wrapper(self.buffer)``) is taken to read the kept object or build a new one from it,
not to change it: when nothing needs its value it is dropped and listed as dropped work (DC406),
as any call is. An object reached another way than through its attribute or a local (an alias
stored elsewhere, a global) is not followed.

## Fix safety
Keeping is safe; the statement runs as before.
"""

from __future__ import annotations

import ast

from ..ast_util import child_blocks
from ..facts import PURE_CALLS

ID = "DC112"
NAME = "keep-kept-object"


def match(stmt: ast.stmt, live: set, selfname: str, built: set[str], acting: dict[str, set[str]]) -> str | None:
    """Why ``stmt`` must run: the call it makes for its effect alone acts on an object live after it
    (``live``: the slice's ("A", attr) and ("L", local) pairs), or None. ``built``: the locals the
    function binds (a parameter is the caller's object, whatever the instance keeps of it);
    ``acting``: method name -> the attributes whose objects it acts on (``acts_on``, followed
    through the methods it calls)."""
    call = _effect_call(stmt)
    if call is None:
        return None
    live = {k for k in live if k[0] == "A" or k[1] in built}
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == selfname:
        hit = sorted(x for x in acting.get(func.attr, ()) if ("A", x) in live)
        if hit:
            return f"calls self.{func.attr}(), which acts on self.{hit[0]}, which the class keeps: kept"
    for root, receiver in _acted(call, selfname):
        if root in live:
            if receiver:
                return f"calls {ast.unparse(func)}() on {_shown(root)}, which the class keeps: kept"
            return f"passes {_shown(root)}, which the class keeps, to {ast.unparse(func)}(): kept"
    return None


def acts_on(fn: ast.FunctionDef, selfname: str) -> set[str]:
    """The attributes of ``self`` whose objects a call that ``fn`` makes for its effect alone acts on."""
    return {root[1] for s in _statements(fn) for call in [_effect_call(s)] if call is not None
            for root, _ in _acted(call, selfname) if root[0] == "A"}


def _statements(fn: ast.AST) -> list[ast.stmt]:
    """Every statement inside ``fn``, nested blocks and definitions included: an expression
    statement is nowhere else, and walking only the blocks skips most of a method's nodes."""
    out: list[ast.stmt] = []
    todo = [fn]
    while todo:
        for block in child_blocks(todo.pop()):
            out += block
            todo += block
    return out


def _effect_call(stmt: ast.AST) -> ast.Call | None:
    """The call an expression statement makes, its value thrown away (awaited or not)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    call = call.value if isinstance(call, ast.Await) else call
    return call if isinstance(call, ast.Call) else None


def _acted(call: ast.Call, selfname: str) -> list[tuple[tuple[str, str], bool]]:
    """(root, whether it is the receiver) for what ``call`` acts on: its receiver, and its
    arguments unless it is a pure builtin."""
    func = call.func
    out = []
    if isinstance(func, ast.Attribute):
        out.append((_root(func.value, selfname), True))
    if not (isinstance(func, ast.Name) and func.id in PURE_CALLS):
        out += [(_root(a.value if isinstance(a, ast.Starred) else a, selfname), False) for a in [*call.args, *(k.value for k in call.keywords)]]
    return [(r, receiver) for r, receiver in out if r is not None]


def _root(expr: ast.AST, selfname: str) -> tuple[str, str] | None:
    """("A", X) for ``self.X`` and what hangs off it (``self.X.y``, ``self.X[i]``), ("L", n) for a
    local name and what hangs off it; None otherwise (``self`` itself, a call's result)."""
    cur, below = expr, None
    while isinstance(cur, (ast.Attribute, ast.Subscript)):
        below, cur = cur, cur.value
    if not isinstance(cur, ast.Name):
        return None
    if cur.id != selfname:
        return ("L", cur.id)
    return ("A", below.attr) if isinstance(below, ast.Attribute) else None


def _shown(root: tuple[str, str]) -> str:
    return f"self.{root[1]}" if root[0] == "A" else root[1]
