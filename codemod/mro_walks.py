"""Walks over a class's MRO written by hand: a type test in its indirect form (DC206, DC209).

``for k in type(x).__mro__: ...`` visits every class ``x`` is an instance of. Code that compares
``k`` with a class (``k is P``) tests ``isinstance(x, P)``; code that looks ``k`` up in a table
(``HANDLERS.get(k)``, ``k in HANDLERS``, ``HANDLERS[k]``) dispatches on the nearest class the
table holds, as ``functools.singledispatch`` does. After reparenting, the walk over an
instance of the class no longer meets P.

What it proves: a ``for`` or a comprehension whose iterable is ``E.__mro__``, ``E.__bases__``,
``E.mro()`` or ``inspect.getmro(E)`` (also under ``reversed``, ``list``, ``tuple``, ``iter`` or a
slice), with the name it binds. What it does not: a walk through another name (``mro =
type(x).__mro__; for k in mro``), a ``while`` loop over ``__base__``, or a table reached
through another name than the one it is filled under.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .ast_util import dotted_name
from .index import enclosing

WALK_WORDS = ("__bases__", "__mro__", "getmro", "mro")
_WRAPPERS = ("reversed", "list", "tuple", "iter")
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)
_LOOKUPS = ("get", "setdefault", "pop", "__getitem__", "__contains__")


def walked(expr: ast.AST) -> ast.AST | None:
    """The class expression whose MRO or bases ``expr`` iterates, else None."""
    while expr.__class__ is ast.Call and len(expr.args) == 1 and dotted_name(expr.func) in _WRAPPERS:
        expr = expr.args[0]
    if expr.__class__ is ast.Subscript:
        expr = expr.value
    if expr.__class__ is ast.Attribute and expr.attr in ("__mro__", "__bases__"):
        return expr.value
    if expr.__class__ is ast.Call:
        if not expr.args and expr.func.__class__ is ast.Attribute and expr.func.attr == "mro":
            return expr.func.value
        if len(expr.args) == 1 and dotted_name(expr.func) in ("inspect.getmro", "getmro"):
            return expr.args[0]
    return None


def instance_of(cls_expr: ast.AST) -> ast.AST | None:
    """``x`` when the walked class is ``type(x)`` or ``x.__class__``; None for a class object."""
    if cls_expr.__class__ is ast.Call and dotted_name(cls_expr.func) == "type" and len(cls_expr.args) == 1:
        return cls_expr.args[0]
    if cls_expr.__class__ is ast.Attribute and cls_expr.attr == "__class__":
        return cls_expr.value
    return None


def loop_over_walk(mod, name: ast.Name) -> tuple[ast.AST, ast.AST] | None:
    """(the loop, the walked class expression) when ``name`` is bound by an enclosing ``for`` or
    comprehension that walks an MRO, else None."""
    for anc in enclosing(mod, name):
        if anc.__class__ in (ast.For, ast.AsyncFor):
            if anc.target.__class__ is ast.Name and anc.target.id == name.id:
                cls_expr = walked(anc.iter)
                return (anc, cls_expr) if cls_expr is not None else None
        elif isinstance(anc, _COMPREHENSIONS):
            for gen in anc.generators:
                if gen.target.__class__ is ast.Name and gen.target.id == name.id:
                    cls_expr = walked(gen.iter)
                    return (anc, cls_expr) if cls_expr is not None else None
        elif isinstance(anc, _SCOPES):
            return None
    return None


@dataclass
class Walk:
    """A walk whose classes are looked up in tables: where, in which tables (by the last name of
    the expression), and over what."""

    mod: object
    loop: ast.AST
    cls_expr: ast.AST
    tables: set[str] = field(default_factory=set)
    # tables of its module that some code fills under a key it is given (``T[cls] = fn`` in a
    # ``register(cls, fn)``): a class passed to a call may end up there
    filled_by_name: set[str] = field(default_factory=set)


def keyed_walks(index) -> list[Walk]:
    """Every walk of the tree whose classes are looked up in a table, found once per run."""
    found = index.__dict__.get("_keyed_walks")
    if found is not None:
        return found
    found = []
    for rel in index.tree.files_with_words(WALK_WORDS):
        mod = index.module(rel)
        if mod is None:
            continue
        walks: dict[int, Walk] = {}
        for node in mod.nodes:
            if node.__class__ is not ast.Name or node.ctx.__class__ is not ast.Load:
                continue
            table = _table_looked_up(mod.parents, node)
            if table is None:
                continue
            loop = loop_over_walk(mod, node)
            if loop is not None:
                walks.setdefault(id(loop[0]), Walk(mod, loop[0], loop[1])).tables.add(table)
        if walks:
            filled = _filled_by_name(mod)
            for w in walks.values():
                w.filled_by_name = w.tables & filled
                found.append(w)
    index.__dict__["_keyed_walks"] = found
    return found


def table_name(expr: ast.AST) -> str | None:
    """The last name of a table expression: ``HANDLERS``, ``self._registry`` -> ``_registry``."""
    if expr.__class__ is ast.Name:
        return expr.id
    if expr.__class__ is ast.Attribute:
        return expr.attr
    return None


def _table_looked_up(parents: dict, key: ast.Name) -> str | None:
    """The table ``key`` is looked up in: ``T.get(key)``, ``T[key]``, ``key in T``."""
    holder = parents.get(id(key))
    cls = holder.__class__
    if cls is ast.Subscript and holder.slice is key:
        return table_name(holder.value)
    if cls is ast.Compare and holder.left is key and len(holder.ops) == 1 and holder.ops[0].__class__ in (ast.In, ast.NotIn):
        return table_name(holder.comparators[0])
    if (cls is ast.Call and holder.args and holder.args[0] is key and holder.func.__class__ is ast.Attribute
            and holder.func.attr in _LOOKUPS):
        return table_name(holder.func.value)
    return None


def _filled_by_name(mod) -> set[str]:
    """Tables of ``mod`` stored into under a key held in a name (``T[cls] = v``, ``T.setdefault(cls, v)``)."""
    out = set()
    for node in mod.nodes:
        if node.__class__ is ast.Subscript and node.ctx.__class__ is ast.Store and node.slice.__class__ is ast.Name:
            name = table_name(node.value)
        elif (node.__class__ is ast.Call and node.func.__class__ is ast.Attribute and node.func.attr in ("setdefault", "update")
              and node.args and node.args[0].__class__ in (ast.Name, ast.Dict)):
            name = table_name(node.func.value)
        else:
            continue
        if name:
            out.add(name)
    return out
