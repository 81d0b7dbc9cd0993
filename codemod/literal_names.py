"""The names a computed attribute name can take, when the code spells every one of them.

``getattr(obj, a)`` reads one attribute of a finite, written-out set when ``a`` can only hold a
literal: ``for a in ("url", "timeout")``, ``{a: getattr(src, a) for a in FIELDS}`` with
``FIELDS`` a module constant, the keys of a dict literal (iterating it, ``.keys()``,
``.items()``), ``"x" if flag else "y"``, an f-string or a ``+`` whose parts are such names. Then the call is
a read of each of them, as ``getattr(obj, "url")`` is a read of ``url``; any other name (a
parameter, a value read from a file or a setting) is data, and ``names`` answers None.

What it proves: the expression evaluates to one of the returned strings whenever it evaluates.
A name counts only where it has one binding in its scope (the loop's or comprehension's target,
or a single assignment), no ``global``/``nonlocal`` declaration, and is not a parameter; a
module constant holding a list, a dict or a set counts only where its module does nothing with
it but iterate it (an ``append`` could add a name). What it does not: another module storing into
a module's constant (``config.FIELDS = ...``, ``config.FIELDS.append(...)``) is not seen.
"""

from __future__ import annotations

import ast

from .ast_util import walk

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SAME_ELEMENTS = frozenset({"sorted", "reversed", "tuple", "list", "set", "frozenset", "iter"})
_DEPTH = 8  # names followed through names (FIELDS = BASE + EXTRA): more is taken as data
_MOST = 64  # names an f-string's product may make


def names(expr: ast.AST, parents: dict, depth: int = 0) -> frozenset[str] | None:
    """Every string ``expr`` can evaluate to, when the code spells them all; else None.

    ``parents``: node id -> parent, for a tree that holds ``expr`` and the scopes around it."""
    if depth > _DEPTH:
        return None
    cls = expr.__class__
    if cls is ast.Constant:
        return frozenset({expr.value}) if isinstance(expr.value, str) else None
    if cls is ast.IfExp:
        body, orelse = names(expr.body, parents, depth + 1), names(expr.orelse, parents, depth + 1)
        return body | orelse if body is not None and orelse is not None else None
    if cls is ast.JoinedStr:
        out = frozenset({""})
        for part in expr.values:
            if part.__class__ is ast.FormattedValue:
                if part.conversion not in (-1, 115) or part.format_spec is not None:
                    return None  # !r, !a or a format spec changes the text
                part = part.value
            got = names(part, parents, depth + 1)
            if got is None or len(out) * len(got) > _MOST:
                return None
            out = frozenset(a + b for a in out for b in got)
        return out
    if cls is ast.BinOp and expr.op.__class__ is ast.Add:
        left = names(expr.left, parents, depth + 1)
        right = names(expr.right, parents, depth + 1) if left is not None else None
        if right is None or len(left) * len(right) > _MOST:
            return None
        return frozenset(a + b for a in left for b in right)
    if cls is ast.Name and expr.ctx.__class__ is ast.Load:
        value = _bound_value(expr, parents)
        return None if value is None else _from_binding(value, parents, depth + 1)
    return None


def elements(expr: ast.AST, parents: dict, depth: int = 0) -> list[ast.AST] | None:
    """The expressions a loop over ``expr`` binds its target to, in turn, when written out."""
    if depth > _DEPTH:
        return None
    cls = expr.__class__
    if cls in (ast.Tuple, ast.List, ast.Set):
        return None if any(e.__class__ is ast.Starred for e in expr.elts) else list(expr.elts)
    if cls is ast.Dict:
        return None if any(k is None for k in expr.keys) else list(expr.keys)  # None: a ** entry
    if cls is ast.Constant and isinstance(expr.value, str):
        return [ast.Constant(c) for c in expr.value]
    if cls is ast.Name and expr.ctx.__class__ is ast.Load:
        value = _bound_value(expr, parents)
        return None if value is None or isinstance(value, _Bound) else elements(value, parents, depth + 1)
    if cls is ast.BinOp and expr.op.__class__ is ast.Add:
        left = elements(expr.left, parents, depth + 1)
        right = elements(expr.right, parents, depth + 1) if left is not None else None
        return left + right if right is not None else None
    if cls is not ast.Call or expr.keywords:
        return None
    func, args = expr.func, expr.args
    if func.__class__ is ast.Name and func.id in _SAME_ELEMENTS and len(args) == 1:
        return elements(args[0], parents, depth + 1)
    if func.__class__ is ast.Name and func.id == "enumerate" and len(args) == 1:
        got = elements(args[0], parents, depth + 1)
        return None if got is None else [ast.Tuple(elts=[ast.Constant(i), e], ctx=ast.Load()) for i, e in enumerate(got)]
    if func.__class__ is not ast.Attribute or args:
        return None
    if func.attr == "split" and func.value.__class__ is ast.Constant and isinstance(func.value.value, str):
        return [ast.Constant(p) for p in func.value.value.split()]
    table = _dict_of(func.value, parents, depth + 1)
    if table is None:
        return None
    if func.attr == "keys":
        return list(table.keys)
    if func.attr == "values":
        return list(table.values)
    if func.attr == "items":
        return [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in zip(table.keys, table.values)]
    return None


class _Bound(ast.AST):
    """A loop's or comprehension's target: what it binds is one of ``elements(iter)``."""

    def __init__(self, target: ast.AST, iterated: ast.AST):
        super().__init__()
        self.target, self.iterated = target, iterated


def _from_binding(value: ast.AST, parents: dict, depth: int) -> frozenset[str] | None:
    if not isinstance(value, _Bound):
        return names(value, parents, depth)
    got = elements(value.iterated, parents, depth)
    if got is None:
        return None
    out: set[str] = set()
    for e in got:
        part = _unpack(value.target, e)
        found = names(part, parents, depth) if part is not None else None
        if found is None:
            return None
        out |= found
    return frozenset(out)


def _unpack(target: ast.AST, value: ast.AST) -> ast.AST | None:
    """The part of ``value`` that the name at the end of ``target`` (a Name, or ``_Path``
    steps to one) receives, or None when the shapes do not match."""
    if target.__class__ is ast.Name:
        return value
    if target.__class__ is _Path:
        if value.__class__ is not ast.Tuple or len(value.elts) != target.width:
            return None
        return _unpack(target.inner, value.elts[target.at])
    return None


class _Path(ast.AST):
    """Where a name sits in a tuple target: ``(k, v)`` -> position 0 of a pair, then ``k``."""

    def __init__(self, at: int, width: int, inner: ast.AST):
        super().__init__()
        self.at, self.width, self.inner = at, width, inner


def _dict_of(expr: ast.AST, parents: dict, depth: int) -> ast.Dict | None:
    if expr.__class__ is ast.Dict:
        return expr if all(k is not None for k in expr.keys) else None
    if expr.__class__ is ast.Name and depth <= _DEPTH:
        value = _bound_value(expr, parents)
        return _dict_of(value, parents, depth + 1) if value is not None and not isinstance(value, _Bound) else None
    return None


def _bound_value(name: ast.Name, parents: dict) -> ast.AST | None:
    """The one expression (or ``_Bound`` loop target) that binds ``name`` where it is read,
    else None: no binding found, several, a parameter, or a declaration that lets others bind it."""
    node, in_function = name, False
    while True:
        node = parents.get(id(node))
        if node is None:
            return None
        if node.__class__ is ast.ClassDef and in_function:
            continue  # a method's free name is not the class body's: the scope around the class
        if node.__class__ in _COMPREHENSIONS:
            hits = [g for g in node.generators if name.id in _target_names(g.target)]
            if len(hits) > 1:
                return None
            if hits:
                return _Bound(_path_to(hits[0].target, name.id), hits[0].iter)
            continue
        if node.__class__ in _SCOPES:
            in_function = in_function or node.__class__ is not ast.ClassDef
            found = _scope_binding(node, name.id, parents)
            if found is not _FREE:
                return found
            if node.__class__ is ast.Module:
                return None


_FREE = object()  # the scope does not bind the name: the enclosing function's binding counts


def _scope_binding(scope: ast.AST, name: str, parents: dict):
    if scope.__class__ not in (ast.Module, ast.ClassDef):
        a = scope.args
        if any(p.arg == name for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]):
            return None  # a parameter: data
    binders = []
    mutable_uses_ok = True
    body = scope.body if scope.__class__ is not ast.Lambda else [scope.body]
    for stmt in body:
        for node in walk(stmt):
            cls = node.__class__
            if cls is ast.Name and node.id == name:
                if node.ctx.__class__ is ast.Load:
                    mutable_uses_ok = mutable_uses_ok and _only_iterated(node, parents)
                elif _scope_around(node, parents) is scope:
                    binders.append(node)
            elif cls in (ast.Global, ast.Nonlocal) and name in node.names:
                return None
            elif cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and node.name == name:
                return None
            elif cls is ast.alias and (node.asname or node.name.split(".")[0]) == name:
                return None
            elif cls is ast.ExceptHandler and node.name == name:
                return None
            elif getattr(node, "name", None) == name or getattr(node, "rest", None) == name:
                return None  # a match pattern's capture
    if not binders:
        return _FREE
    if len(binders) > 1:
        return None
    target = binders[0]
    holder = parents.get(id(target))
    while holder.__class__ in (ast.Tuple, ast.List):
        holder = parents.get(id(holder))
    if holder.__class__ in (ast.For, ast.AsyncFor):
        return _Bound(_path_to(holder.target, name), holder.iter)
    if holder.__class__ is ast.Assign and holder.targets == [target]:
        value = holder.value
    elif holder.__class__ is ast.AnnAssign and holder.target is target and holder.value is not None:
        value = holder.value
    else:
        return None
    if value.__class__ in (ast.List, ast.Dict, ast.Set) and not mutable_uses_ok:
        return None  # a container the code may change: an append could add any name
    return value


def _only_iterated(node: ast.Name, parents: dict) -> bool:
    holder = parents.get(id(node))
    if holder.__class__ in (ast.For, ast.AsyncFor, ast.comprehension) and holder.iter is node:
        return True
    if holder.__class__ is ast.Attribute and holder.attr in ("keys", "values", "items"):
        call = parents.get(id(holder))
        return call.__class__ is ast.Call and call.func is holder and not call.args
    if holder.__class__ is ast.Compare and node is not holder.left:
        return True  # `x in NAMES`
    if holder.__class__ is ast.Call and holder.func.__class__ is ast.Name and holder.func.id in _SAME_ELEMENTS | {"len", "enumerate"}:
        return True
    return False


def _scope_around(node: ast.AST, parents: dict) -> ast.AST | None:
    """The function, lambda, class or module a stored name binds in (a comprehension's target
    binds in the comprehension, a walrus in the function around it)."""
    walrus = parents.get(id(node)).__class__ is ast.NamedExpr
    child = node
    while True:
        up = parents.get(id(child))
        if up is None or up.__class__ in _SCOPES:
            return up
        if up.__class__ is ast.comprehension and not walrus and child is up.target:
            return parents.get(id(up))
        child = up


def _target_names(target: ast.AST) -> set[str]:
    if target.__class__ is ast.Name:
        return {target.id}
    if target.__class__ in (ast.Tuple, ast.List):
        return set().union(*(_target_names(e) for e in target.elts)) if target.elts else set()
    if target.__class__ is ast.Starred:
        return _target_names(target.value)
    return set()


def _path_to(target: ast.AST, name: str) -> ast.AST:
    """``target`` reduced to the route to ``name`` (``_Path`` steps ending at the Name); a
    starred or nested form that is not a plain tuple is returned as is (``_unpack`` refuses it)."""
    if target.__class__ is ast.Name:
        return target
    if target.__class__ in (ast.Tuple, ast.List) and not any(e.__class__ is ast.Starred for e in target.elts):
        for i, e in enumerate(target.elts):
            if name in _target_names(e):
                return _Path(i, len(target.elts), _path_to(e, name))
    return target
