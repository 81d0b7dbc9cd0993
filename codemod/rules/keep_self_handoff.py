"""DC111 keep-self-handoff: keep a statement that hands the instance to code that may publish it.

## What it does
Finds the statements of the parent's ``__init__`` that pass the instance on: ``self``
itself, one of its bound methods, or a lambda that uses it, as an argument of a call, or
stored outside the instance (``REGISTRY[key] = self``). Such a statement is kept unless
the receiving code is shown to keep the instance to itself:

- the call constructs a class of the tree whose ``__init__`` (and its bases' ``__init__``,
  followed through ``super().__init__()``) only reads data attributes of what it was given,
  compares it, or stores it on the new object, and never passes the new object on;
- or it calls a function of the tree that only reads data attributes of it and has no
  ``raise`` or ``assert`` (a validation is DC110's);
- and the call's result goes into an attribute of ``self`` or a list on ``self``, or is
  discarded: nothing else can reach the new object, so dropping the statement (its
  attribute unused) leaves no reference to the instance behind.

Anything else (a callee outside the tree, a method on another object such as
``bus.subscribe(self.on_event)``, an argument bound through ``*args``, a call on the
instance's methods or a write to its attributes inside the callee) keeps the statement.

## Why
A registration, a callback table, an observer list: other code finds the instance
through them. Dropped, lookups fail and events no longer reach it, while every check on
the patched file passes.

A lambda whose body only reads data attributes of the instance (``get_buffer(key, lambda:
bytearray(self.size))``) may be called by the receiving code: it runs there and then and hands
the instance nowhere. Kept or passed on, it is a handoff like any other.

## Known problems
- Properties of the class read by the callee run code that is not followed.
- The callee's own methods are not followed: calling one keeps the statement.
- A local that holds what a call handed the instance to (``u = Updater(self)``) is taken to
  hold the instance: every later statement that reads it (``u.start()``, ``f.visit(expr)``) is
  kept too, with what it reads, whatever it does.

## Fix safety
Keeping is safe; the statement runs as before.
"""

from __future__ import annotations

import ast

from ..ast_util import bind_arguments, dotted_name, first_param, is_super_call, walk
from .keep_validation import raises

ID = "DC111"
NAME = "keep-self-handoff"

_DEPTH = 4


def match(stmt: ast.stmt, selfname: str, methods: set[str], resolve, resolve_class) -> str | None:
    """Why ``stmt`` must be kept because it hands the instance on, or None.

    ``methods``: the class's method names (so ``self.m`` is a bound method); ``resolve``:
    call -> the tree's ``FunctionDef`` or ``ClassInfo``, or None; ``resolve_class``:
    qualified name -> ``ClassInfo`` or None."""
    parents: dict = {}
    nodes = walk(stmt, parents)
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None and _hands(n.value, selfname, methods):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if not all(_on_self(t, selfname) for t in targets):
                return f"stores the instance outside it ({ast.unparse(targets[0])}): kept"
    for call in nodes:
        if not isinstance(call, ast.Call) or _on_self(call.func, selfname) or is_super_call(call.func):
            continue
        if isinstance(call.func, ast.Attribute) and is_super_call(call.func.value):
            continue
        handed = [a for a in [*call.args, *(k.value for k in call.keywords)] if _hands(a, selfname, methods)]
        if not handed:
            continue
        name = dotted_name(call.func) or ast.unparse(call.func)
        if not _result_stays_on_self(call, stmt, parents, selfname):
            return f"hands the instance to {name}(), whose result goes where it cannot be followed: kept"
        runs = {id(h) for h in handed if _reading_closure(h, selfname, methods)}
        why = _escapes(resolve(call), call, handed, resolve_class, methods, 0, runs)
        if why:
            return f"hands the instance to {name}(), which {why}: kept"
    return None


def holders(init: ast.FunctionDef, selfname: str, methods: set[str]) -> set[str]:
    """The locals of ``init`` that may hold the instance: bound to the result of a call handed it
    (``f = Finder(self)``), or to an expression that reads such a local (``g = f``)."""
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for n in walk(init):
            if not isinstance(n, (ast.Assign, ast.AnnAssign)) or n.value is None:
                continue
            value = n.value
            handed = any(isinstance(c, ast.Call) and any(_hands(a, selfname, methods) for a in [*c.args, *(k.value for k in c.keywords)])
                         for c in walk(value))
            if not handed and not any(isinstance(x, ast.Name) and x.id in out for x in walk(value)):
                continue
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                for x in walk(t):
                    if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store) and x.id not in out:
                        out.add(x.id)
                        changed = True
    return out


def acts_through(stmt: ast.stmt, holders: set[str]) -> str | None:
    """Why ``stmt`` must run: it reads a local that may hold the instance (``holders``)."""
    if not holders:
        return None
    for n in walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in holders:
            return f"acts on {n.id}, which holds what the instance was handed to: kept"
    return None


def _on_self(node: ast.AST, selfname: str) -> bool:
    """An expression rooted at ``self`` (``self.x``, ``self.x[i]``, ``self.items.append``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id == selfname


def _hands(expr: ast.AST, selfname: str, methods: set[str]) -> bool:
    """Whether evaluating ``expr`` passes on the instance: ``self``, a bound method, or a closure over it."""
    parents: dict = {}
    for n in walk(expr, parents):
        if not (isinstance(n, ast.Name) and n.id == selfname):
            continue
        up = parents.get(id(n))
        if not (isinstance(up, ast.Attribute) and up.value is n) or up.attr in methods:
            return True
        cur = up
        while cur is not None:
            if isinstance(cur, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
                return True
            cur = parents.get(id(cur))
    return False


def _result_stays_on_self(call: ast.Call, stmt: ast.stmt, parents: dict, selfname: str) -> bool:
    up = parents.get(id(call))
    if up is stmt:
        if isinstance(stmt, ast.Expr):
            return True
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        return all(t is not None and _on_self(t, selfname) for t in targets)
    # ``self.items.append(C(self))``: the object lives only in a container of the instance.
    return (isinstance(up, ast.Call) and call in up.args and isinstance(up.func, ast.Attribute)
            and _on_self(up.func.value, selfname) and parents.get(id(up)) is stmt and isinstance(stmt, ast.Expr))


def _reading_closure(expr: ast.AST, selfname: str, methods: set[str]) -> bool:
    """Whether ``expr`` is a lambda whose body uses the instance only to read data attributes
    (``lambda: bytearray(self.size)``): calling it hands the instance nowhere."""
    if not isinstance(expr, ast.Lambda):
        return False
    parents: dict = {}
    for n in walk(expr.body, parents):
        if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if isinstance(n, ast.Name) and n.id == selfname:
            up = parents.get(id(n))
            if not (isinstance(up, ast.Attribute) and up.value is n and isinstance(up.ctx, ast.Load) and up.attr not in methods):
                return False
    return True


def _escapes(target, call: ast.Call, handed: list, resolve_class, methods: set[str], depth: int,
             runs: set[int] = frozenset()) -> str | None:
    """How the receiving code may let the instance out, or None when it provably keeps it.
    ``runs``: ids of the handed closures that only read data attributes of the instance; the
    callee may call them (they run there and then) but not keep or pass them on."""
    if target is None:
        return "is outside the tree or cannot be resolved"
    if depth > _DEPTH:
        return "is too deep to follow"
    if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if raises(target):
            return f"raises or asserts ({target.name}, line {target.lineno})"
        return _escapes_in(target, call, handed, methods, method=False, own_methods=set(), runs=runs)
    cls = target
    init = cls.methods.get("__init__")
    if init is None:
        bases = [b for b in cls.bases if b not in ("object", "builtins.object")]
        if not bases:
            return None
        base = resolve_class(bases[0])
        return _escapes(base, call, handed, resolve_class, methods, depth + 1) if base is not None else f"inherits {bases[0]}, which cannot be followed"
    why = _escapes_in(init, call, handed, methods, method=True, own_methods=set(cls.methods), runs=runs)
    if why:
        return f"{why} ({cls.name}.__init__)"
    for sup in walk(init):
        if isinstance(sup, ast.Call) and isinstance(sup.func, ast.Attribute) and is_super_call(sup.func.value):
            bases = [b for b in cls.bases if b not in ("object", "builtins.object")]
            if not bases:
                continue
            base = resolve_class(bases[0])
            if base is None:
                return f"calls super() into {bases[0]}, which cannot be followed"
            inner = [a for a in [*sup.args, *(k.value for k in sup.keywords)] if not isinstance(a, ast.Constant)]
            why = _escapes(base, sup, inner, resolve_class, methods, depth + 1)
            if why:
                return why
    return None


def _escapes_in(fn: ast.FunctionDef, call: ast.Call, handed: list, methods: set[str], *, method: bool, own_methods: set[str],
                runs: set[int] = frozenset()) -> str | None:
    b = bind_arguments(fn, call, method=method)
    if b.opaque:
        return "is called with *args or **kwargs"
    params = {p for p, v in b.bound.items() if any(v is h for h in handed)}
    called = {p for p, v in b.bound.items() if id(v) in runs}  # closures that may be called here, nothing more
    if len(params) < len(handed):
        return "receives it through *args or **kwargs"
    own = first_param(fn) if method else None
    parents: dict = {}
    nodes = walk(fn, parents)
    holders: set[str] = set()  # attributes of the new object that hold what was handed

    def holds(n) -> bool:
        if isinstance(n, ast.Name) and n.id in params and isinstance(n.ctx, ast.Load):
            return True
        return (own is not None and isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == own and n.attr in holders and isinstance(n.ctx, ast.Load))

    def own_targets(s) -> set[str] | None:
        if not isinstance(s, ast.Assign) or own is None:
            return None
        ts = s.targets
        if all(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == own for t in ts):
            return {t.attr for t in ts}
        return None

    while True:
        grown = set(holders)
        for n in nodes:
            if holds(n):
                attrs = own_targets(parents.get(id(n)))
                if attrs and parents[id(n)].value is n:
                    grown |= attrs
        if grown == holders:
            break
        holders = grown
    for n in nodes:
        if n is fn:
            continue
        if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)) and any(holds(x) or (isinstance(x, ast.Name) and x.id == own) for x in walk(n)):
            return "uses it in a closure"
        if holds(n):
            up = parents.get(id(n))
            if isinstance(n, ast.Name) and n.id in called and isinstance(up, ast.Call) and up.func is n:
                continue  # the closure runs now and reads data attributes only
            why = _holder_use(n, parents, own_targets, methods)
            if why:
                return why
        elif own is not None and isinstance(n, ast.Name) and n.id == own:
            up = parents.get(id(n))
            if not (isinstance(up, ast.Attribute) and up.value is n):
                return "passes the new object on"
            if up.attr in own_methods and isinstance(up.ctx, ast.Load):
                use = parents.get(id(up))
                if not (own_targets(use) and use.value is up):
                    return f"calls or passes its own method {up.attr}"
    return None


def _holder_use(n: ast.AST, parents: dict, own_targets, methods: set[str]) -> str | None:
    """None when this use of what was handed keeps it inside: a data read, a comparison, a
    store on the new object (a bound method of the instance only stored)."""
    up = parents.get(id(n))
    if isinstance(up, ast.Compare):
        return None
    if own_targets(up) and up.value is n:
        return None
    if isinstance(up, ast.Attribute) and up.value is n:
        if not isinstance(up.ctx, ast.Load):
            return f"writes {up.attr} on it"
        if up.attr not in methods:
            return None
        use = parents.get(id(up))
        if own_targets(use) and use.value is up:
            return None
        return f"calls or passes on its method {up.attr}"
    return "passes it on or stores it"
