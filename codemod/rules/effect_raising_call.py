"""DC407 raising-call: report the dropped calls that can raise.

## What it does
For each statement of the parent's ``__init__`` that no longer runs (DC401-DC406), looks up
what its calls run in the tree: a function through its import, a method through the class
it is called on (``Config.from_args(...)``), a class through its ``__init__``. A call whose
callee has a ``raise`` or an ``assert`` of its own is listed, with the first one's line.

## Why
A construction that failed before the patch (a configuration the parent's ``__init__``
rejected) now succeeds: the reviewer must see each check that no longer runs, and decide
whether the class needs it.

## Known problems
Only the callee's own body is read, not what it calls in turn; a callee the tree does not
hold (a library's), or a method called on an object of unknown type
(``self.x.resolve(...)``), is not listed.

## Fix safety
Reported only.
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name, walk
from ..dropped_work import statement

ID = "DC407"
NAME = "raising-call"


def raising_calls(index, effects) -> list[dict]:
    """Each call of a dropped statement whose callee, in the tree, has a ``raise`` or an
    ``assert`` of its own (a class: its ``__init__``); the first such call of a statement."""
    out = []
    for e in effects:
        stmt = statement(index, e.file, e.line)
        mod = index.module(e.file)
        if stmt is None:
            continue
        for call in (n for n in walk(stmt) if isinstance(n, ast.Call)):
            found = _callee(index, mod, call.func)
            if found is None:
                continue
            fn, where = found
            raise_ = next((n for n in _own_nodes(fn) if isinstance(n, (ast.Raise, ast.Assert))), None)
            if raise_ is not None:
                exc = getattr(raise_, "exc", None)
                what = "AssertionError" if isinstance(raise_, ast.Assert) else (
                    dotted_name(exc.func if isinstance(exc, ast.Call) else exc) if exc else None)
                out.append({"file": e.file, "line": e.line, "call": f"{dotted_name(call.func)}(...)",
                            "raises": what or "an exception", "at": f"{where}:{raise_.lineno}", "rule": ID})
                break
    return out


def _callee(index, mod, func: ast.AST):
    """(function node, its file) for what ``func`` names: a function of the tree, or a method of
    a class of the tree named through its class (``Config.from_args``); else None."""
    if isinstance(func, ast.Attribute):
        cls = index.resolve_class(mod.qualify(func.value)) if dotted_name(func.value) else None
        if cls is not None:
            fn = cls.methods.get(func.attr)
            return (fn, cls.file) if fn is not None else None
    target = index.resolve_callable(mod, func)
    if target is not None and hasattr(target, "methods"):  # a class: what its constructor runs
        init = target.methods.get("__init__")
        return (init, target.file) if init is not None else None
    if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        owner = next((m for m in _modules_of(index, func, mod) if target in m.nodes), None)
        return (target, owner.rel) if owner is not None else None
    return None


def _modules_of(index, func, mod):
    yield mod
    q = mod.qualify(func)
    while "." in q:
        q = q.rpartition(".")[0]
        other = index.module_by_name(q)
        if other is not None:
            yield other


def _own_nodes(fn: ast.AST):
    """The nodes of ``fn``'s body, not those of functions or classes nested in it."""
    todo = list(fn.body)
    while todo:
        n = todo.pop(0)
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
