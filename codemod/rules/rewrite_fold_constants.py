"""DC602 fold-constants: drop the branch of an ``if`` in the parent's ``__init__`` that cannot run for the class.

## What it does
While slicing the parent's ``__init__``, an ``if`` whose test is constant for the class is
folded: ``self.__class__ is P`` / ``type(self) == P`` (false for the class, and for any
class between P and the new base), a parameter that the class's ``super().__init__(...)``
call binds to a literal (or that keeps a literal default), a comparison of such parameters and
literals (``workers < 1`` with ``workers`` bound to 2: a validation the class always passes;
``mode not in ("fast", "slow")`` against a tuple, list or set of literals),
``not`` of those, literal tests, and an ``and`` (``or``) whose first operand folds to false
(true), where evaluation stops before any other operand runs, or whose operands all fold. The branch that runs is inlined without its ``if``; the other is neither kept nor
reported.

## Why
Code that can never run for the class is not worth copying, and its side effects are not
the class's.

## Known problems
A parameter that the parent's ``__init__`` binds again anywhere (an assignment, a loop or
``with`` target, ``except ... as``, an import, a nested ``def``) is not folded at all, even in
a test before the new binding. Only ``if`` tests fold: a literal comparison left in an
``assert``, a ``while``, a conditional expression or an ``and`` whose first operand is not
constant stays as written (true to the original, only not simplified). ``isinstance`` tests are not folded. Comparisons fold only between numbers, strings, bytes, booleans and
``None`` (``is``/``is not`` only against ``None``, ``True`` or ``False``), never through a
method a class could define. When the class's call passes a ``**mapping`` or ``*iterable``, nothing is
folded on the parent's parameters, not even one passed explicitly: the mapping may set any
parameter with a default at run time.

## Fix safety
Safe: the folded test has the same value on every construction of the class.
"""

from __future__ import annotations

import ast

ID = "DC602"
NAME = "fold-constants"


def fold(test: ast.AST, consts: dict[str, object], foreign: set[str], selfname: str):
    """True/False when the test is constant for the subclass, else None."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.Name) and test.id in consts:
        return bool(consts[test.id])
    if isinstance(test, ast.BoolOp):
        values = [fold(v, consts, foreign, selfname) for v in test.values]
        stop = isinstance(test.op, ast.Or)  # the value that ends the evaluation
        if values[0] is stop:
            return stop
        if None in values:
            return None
        return any(values) if stop else all(values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = fold(test.operand, consts, foreign, selfname)
        return None if v is None else not v
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        left, right = test.left, test.comparators[0]
        if _is_own_class(left, selfname) and isinstance(right, (ast.Name, ast.Attribute)) and ast.unparse(right).split(".")[-1] in foreign:
            return isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
    if isinstance(test, ast.Compare):
        return _compare(test, consts)
    return None


_PLAIN = (int, float, str, bytes, bool, type(None))  # compared by the interpreter alone
_SINGLETONS = (None, True, False)
_OPS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
        ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
        ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}
_NO_VALUE = object()


def _compare(test: ast.Compare, consts: dict[str, object]):
    """The value of a comparison whose every operand is a literal or a parameter bound to one,
    else None (a chain stops at its first false link, as Python's does)."""
    operands = [test.left, *test.comparators]
    for op, left, right in zip(test.ops, operands, operands[1:]):
        if isinstance(op, (ast.In, ast.NotIn)):
            a, items = _literal(left, consts), _items(right, consts)
            if a is _NO_VALUE or type(a) not in _PLAIN or items is None:
                return None
            try:
                if (a in items) is isinstance(op, ast.NotIn):
                    return False
            except TypeError:  # an unhashable value against a set literal raises at run time
                return None
            continue
        a, b = _literal(left, consts), _literal(right, consts)
        if type(op) not in _OPS or any(v is _NO_VALUE or type(v) not in _PLAIN for v in (a, b)):
            return None
        if isinstance(op, (ast.Is, ast.IsNot)) and not any(x is y for x in (a, b) for y in _SINGLETONS):
            return None  # identity of numbers or strings is the interpreter's choice
        try:
            if not _OPS[type(op)](a, b):
                return False
        except TypeError:  # "2 < 'a'" raises at run time: not folded, the test stays
            return None
    return True


def _items(e: ast.AST, consts: dict[str, object]):
    """The values of a tuple, list or set display of literals (as that container, so that ``in``
    tests them as Python would), else None."""
    kinds = {ast.Tuple: tuple, ast.List: list, ast.Set: set}
    if type(e) not in kinds or any(isinstance(x, ast.Starred) for x in e.elts):
        return None
    values = [_literal(x, consts) for x in e.elts]
    if any(v is _NO_VALUE or type(v) not in _PLAIN for v in values):
        return None
    return kinds[type(e)](values)


def _literal(e: ast.AST, consts: dict[str, object]):
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, ast.Name) and e.id in consts:
        return consts[e.id]
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _literal(e.operand, consts)
        return -v if type(v) in (int, float) else _NO_VALUE
    return _NO_VALUE


def _is_own_class(e: ast.AST, selfname: str) -> bool:
    if isinstance(e, ast.Attribute) and e.attr == "__class__" and isinstance(e.value, ast.Name) and e.value.id == selfname:
        return True
    return (
        isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type"
        and len(e.args) == 1 and isinstance(e.args[0], ast.Name) and e.args[0].id == selfname
    )


def branch(st, folded: dict[int, bool], line: int):
    """The libcst statements of the branch that runs, for a folded ``if`` (``st``)."""
    import libcst as cst

    if folded[line]:
        return st.body.body
    if isinstance(st.orelse, cst.Else):
        return list(st.orelse.body.body)
    if isinstance(st.orelse, cst.If):
        return [st.orelse.with_changes(leading_lines=[])]
    return []
