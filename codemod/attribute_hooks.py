"""What a parent's store and pickling hooks do, read from their code alone (no analysis state).

A parent's ``__setattr__`` or ``__delattr__`` copied into the class runs on every store, as it
did when inherited; the stores the decoupling drops no longer run it. Such a store may go only
where the hook, for that attribute's name, does nothing but the store (``silent_for``). The
analysis (the slice, DC302) and the post-condition DC703 ask the same question of the same code.

A pickling hook (``__getstate__``, ``__setstate__``, ``__reduce__``, ``__reduce_ex__``) that
moves the instance's whole ``__dict__`` moves whatever the instance holds, dropped members or
not, and names no member by a computed name; ``whole_state_lines`` tells those uses of
``self.__dict__`` from a computed access.
"""

from __future__ import annotations

import ast
from collections import Counter

STORE_HOOKS = ("__setattr__", "__delattr__")
PICKLING_HOOKS = ("__getstate__", "__setstate__", "__reduce__", "__reduce_ex__")
# Tests a hook may evaluate on a path that stays silent: they read no state and cannot raise.
_SAFE_TEST_CALLS = {"isinstance", "callable"}


def hook_params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def silent_for(fn: ast.FunctionDef, attr: str) -> bool:
    """Whether ``fn``, a ``__setattr__(self, name, value)`` or ``__delattr__(self, name)``, run
    for a store of ``attr`` does nothing but forward the store: the path ``attr`` takes through
    the tests on the name holds only the forwarded store (``super().__setattr__(name, value)``,
    ``object.__setattr__(self, name, value)``, ``self.__dict__[name] = value``, their ``del``
    forms), assignments to locals of constants, ``pass`` and ``return``; a test it cannot decide
    for ``attr`` must read only the parameters and constants, and both its branches be silent."""
    params = hook_params(fn)
    if len(params) != (3 if fn.name == "__setattr__" else 2) or fn.args.vararg or fn.args.kwarg:
        return False
    return _silent_block(fn.body, fn.name, params, attr)


def _silent_block(body: list[ast.stmt], hook: str, params: list[str], attr: str) -> bool:
    for s in body:
        if isinstance(s, ast.Return):
            return s.value is None or _plain(s.value, params)
        if isinstance(s, ast.If):
            known = _decide(s.test, params[1], attr)
            if known is None:
                if not _plain(s.test, params) or not (_silent_block(s.body, hook, params, attr)
                                                      and _silent_block(s.orelse, hook, params, attr)):
                    return False
                if _ends(s.body) and _ends(s.orelse):
                    return True
                continue
            branch = s.body if known else s.orelse
            if not _silent_block(branch, hook, params, attr):
                return False
            if _ends(branch):
                return True
            continue
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            continue
        if _forwards(s, hook, params):
            continue
        if (isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) and t.id not in params for t in s.targets)
                and _plain(s.value, params)):
            continue
        return False
    return True


def _ends(block: list[ast.stmt]) -> bool:
    return bool(block) and isinstance(block[-1], ast.Return)


def _plain(expr: ast.AST, params: list[str]) -> bool:
    """An expression that reads only the hook's parameters (not ``self``'s attributes) and
    constants, and calls nothing but ``isinstance``/``callable`` and the name's ``startswith``."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id in _SAFE_TEST_CALLS:
                continue
            if (isinstance(f, ast.Attribute) and f.attr in ("startswith", "endswith") and isinstance(f.value, ast.Name)
                    and len(params) > 1 and f.value.id == params[1]):
                continue
            return False
        if isinstance(n, (ast.Attribute, ast.Subscript, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda,
                          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Starred)):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr in ("startswith", "endswith"):
                continue
            return False
        if isinstance(n, ast.Name) and n.id == params[0]:
            return False
        if isinstance(n, ast.Compare) and not all(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn))
                                                  for op in n.ops):
            return False
    return True


def _decide(test: ast.AST, name: str, attr: str) -> bool | None:
    """The value of ``test`` when the hook's name parameter is ``attr`` (None: not decided)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = _decide(test.operand, name, attr)
        return None if v is None else not v
    if isinstance(test, ast.BoolOp):
        # Left to right, as Python evaluates it: an operand not decided before the one that
        # decides may run code, so the whole test is then not decided.
        stop = isinstance(test.op, ast.Or)
        for v in test.values:
            known = _decide(v, name, attr)
            if known is None:
                return None
            if known is stop:
                return stop
        return not stop
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) and test.left.id == name):
        lits = _literals(test.comparators[0])
        if lits is None:
            return None
        op = test.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)) and len(lits) == 1 and not isinstance(test.comparators[0], (ast.Tuple, ast.List, ast.Set)):
            return (attr == lits[0]) == isinstance(op, ast.Eq)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(test.comparators[0], (ast.Tuple, ast.List, ast.Set)):
            return (attr in lits) == isinstance(op, ast.In)
        return None
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in ("startswith", "endswith")
            and isinstance(test.func.value, ast.Name) and test.func.value.id == name and len(test.args) == 1 and not test.keywords):
        lits = _literals(test.args[0])
        if lits is None:
            return None
        return any(attr.startswith(x) if test.func.attr == "startswith" else attr.endswith(x) for x in lits)
    return None


def _literals(expr: ast.AST) -> list[str] | None:
    items = expr.elts if isinstance(expr, (ast.Tuple, ast.List, ast.Set)) else [expr]
    if all(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in items):
        return [x.value for x in items]
    return None


def _forwards(s: ast.stmt, hook: str, params: list[str]) -> bool:
    """``s`` is the store (or deletion) ``hook`` was asked for, handed on unchanged."""
    me, rest = params[0], params[1:]
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and not s.value.keywords:
        call = s.value
        f = call.func
        if not (isinstance(f, ast.Attribute) and f.attr == hook):
            return False
        args = [a.id if isinstance(a, ast.Name) else None for a in call.args]
        if _is_super(f.value):
            return args == rest
        return isinstance(f.value, ast.Name) and f.value.id == "object" and args == [me, *rest]
    target = None
    if hook == "__setattr__" and isinstance(s, ast.Assign) and len(s.targets) == 1:
        target = s.targets[0]
        if not (isinstance(s.value, ast.Name) and s.value.id == rest[1]):
            return False
    elif hook == "__delattr__" and isinstance(s, ast.Delete) and len(s.targets) == 1:
        target = s.targets[0]
    return target is not None and _dict_item(target, me, rest[0])


def _is_super(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"


def _dict_item(node: ast.AST, me: str, key: str) -> bool:
    """``me.__dict__[key]``."""
    return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == key
            and isinstance(node.value, ast.Attribute) and node.value.attr == "__dict__"
            and isinstance(node.value.value, ast.Name) and node.value.value.id == me)


def whole_state_lines(fn: ast.FunctionDef) -> tuple[Counter, set[str]] | None:
    """For a store or pickling hook: (per line, how many of its ``self.__dict__``/``vars(self)``
    move the instance's state as a whole, or are the store it forwards; the string constants it holds,
    which may name members), or None when it also reaches state by a key it computes (a
    subscript, ``pop``, ``get``, ``setdefault`` or ``del`` with a key that is not a constant)."""
    params = hook_params(fn)
    if not params:
        return None
    me = params[0]
    parents: dict[int, ast.AST] = {}
    for n in ast.walk(fn):
        for c in ast.iter_child_nodes(n):
            parents[id(c)] = n
    lines: Counter = Counter()
    names: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            names.add(n.value)
        if fn.name in STORE_HOOKS:
            if _dict_item(n, me, params[1] if len(params) > 1 else ""):
                lines[n.lineno] += 1
            continue
        if isinstance(n, ast.Subscript) and not (isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)):
            return None
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("pop", "get", "setdefault")
                and not (n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str))):
            return None
        if _state_of(n, me) and _whole(n, parents):
            lines[n.lineno] += 1
    return lines, names


def _state_of(n: ast.AST, me: str) -> bool:
    """``me.__dict__`` or ``vars(me)``."""
    if isinstance(n, ast.Attribute) and n.attr == "__dict__":
        return isinstance(n.value, ast.Name) and n.value.id == me
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "vars" and len(n.args) == 1
            and isinstance(n.args[0], ast.Name) and n.args[0].id == me)


def _whole(n: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """The state moved as one value: copied (``.copy()``, ``dict(...)``), updated from another
    mapping (``.update(x)``), returned (alone or in the returned tuple), or replaced."""
    up = parents.get(id(n))
    if isinstance(up, ast.Attribute) and up.attr in ("copy", "update"):
        call = parents.get(id(up))
        return isinstance(call, ast.Call) and call.func is up
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "dict" and up.args == [n]:
        return True
    if isinstance(up, ast.Tuple) and isinstance(parents.get(id(up)), ast.Return):
        return True
    if isinstance(up, ast.Return):
        return True
    return isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(up, ast.Assign)
