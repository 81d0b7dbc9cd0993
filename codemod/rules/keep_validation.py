"""DC110 keep-validation: keep the parent's ``raise`` and ``assert`` statements, and the calls that reach them.

## What it does
Keeps, in the slice of the parent's ``__init__``, every ``raise`` and ``assert`` that can
run for the class, with the ``if``/``for``/``try`` around it and everything its condition
and message read. It also keeps a ``self.m()`` call whose dispatch (the class's overrides
standing in for the parent's methods) reaches a ``raise`` or ``assert``, and a bare call of
a function of the tree (its result discarded) whose body raises or asserts: the call exists
to check its arguments. The report lists each under "Kept for their effect".

## Why
A validation is behaviour: dropped, the class accepts arguments its callers were told
are wrong, and fails later and elsewhere, or not at all.

## Known problems
- A validation the condition of which reads state nobody else needs keeps that state, which
  can make the class need most of the parent's ``__init__`` (the verdict then declines).
- A call whose result is used (``x = parse(arg)``) is kept only for what reads ``x``; the
  exceptions of dropped constructions and allocations are not kept: skipping that work is
  the point of the refactor. DC407 lists each such call that can raise, for the reviewer.
- A ``raise`` in a branch the slicer folds away for the class (``self.__class__ is P``) is
  not kept, since it cannot run.

## Fix safety
Keeping is safe: the statements run as before, in the same order.
"""

from __future__ import annotations

import ast

from ..ast_util import walk

ID = "DC110"
NAME = "keep-validation"


def raises(fn: ast.AST) -> bool:
    """Whether a function's body has a ``raise`` or an ``assert``."""
    return any(isinstance(n, (ast.Raise, ast.Assert)) for n in walk(fn))


def match(stmt: ast.stmt, facts, effects: dict, resolve) -> str | None:
    """Why ``stmt`` must be kept as a validation, or None.

    ``effects``: method name -> MethodEffects as dispatch runs it; ``resolve``: call -> the
    tree's ``FunctionDef`` or ``ClassInfo`` it names, or None."""
    if isinstance(stmt, ast.Raise):
        return "raises: a validation, kept"
    if isinstance(stmt, ast.Assert):
        return "asserts: a validation, kept"
    for m in sorted(facts.calls_methods):
        eff = effects.get(m)
        if eff is not None and eff.validates:
            return f"calls self.{m}, which reaches a raise or assert in {', '.join(sorted(eff.validates))}: a validation, kept"
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        target = resolve(stmt.value)
        if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) and raises(target):
            return f"calls {target.name}() for its effect, and it raises or asserts: a validation, kept"
    return None
