"""Whether one expression runs, on every path, before another in the same function (or
always after it).

DC108 and the attribute typing take a read the class lacks (``x.train()``) as proof that
``x`` is not an instance of it, since the read would raise. That holds at another read of
``x`` only if the failing read runs first on every path there, and nothing catches it:
``if hasattr(x, "train"): x.train()`` proves nothing of ``x.cache`` after it.

## What it proves
``runs_before(mod, r, t)`` is True when ``r`` runs on every path that reaches ``t``, before it
or in the same statement, so that ``t`` is not reached when ``r`` raised. That is: ``r`` sits
in the statement of ``t``, in the header of a statement around ``t`` (an ``if`` test, a
``for`` iterable, a ``with`` item), or in an earlier statement of a block on the way from
``t`` up to its function; and within its own statement ``r`` is under no condition (``and``
or ``or`` after the first operand, a conditional expression, a comprehension, a lambda). A
``try`` that catches ``r`` is no block on that way unless ``t`` is inside it too, after ``r``.

``always_follows(mod, r, t)`` is True when ``r`` runs whenever ``t`` ran and the function goes
on: ``r`` is in a later statement of the block of ``t``'s statement, and that statement and
those between are plain ones (assignments, expressions, ``assert``) with no ``yield`` or
``await``, under no ``try`` or ``with`` that could catch what they raise. An instance that
reaches ``t`` then fails at ``r`` anyway: dropping the member ``t`` reads only makes it fail
one read earlier, with the same ``AttributeError``.

## Known limits
Control flow is read from the nesting alone. Within one statement the order of evaluation is
not looked at: ``x.cache + x.train()`` counts (if ``x`` were an instance, that statement raises
either way). A ``return``, ``break`` or ``continue`` before ``r`` only ever skips ``t`` as well.
"""

from __future__ import annotations

import ast

from ..ast_util import child_blocks
from ..index import ModuleInfo, enclosing

_CONDITIONAL = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.IfExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_PLAIN = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Pass, ast.Assert)
_LEAVES = (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda)


def runs_before(mod: ModuleInfo, r: ast.AST, t: ast.AST) -> bool:
    """Whether ``r`` runs on every path that reaches ``t``, and before it (see the docstring)."""
    s_r = _statement(mod, r)
    if s_r is None or not _plain_path(mod, r, s_r):
        return False
    child = t
    for anc in enclosing(mod, t):
        if anc is s_r and not isinstance(anc, _SCOPES):
            return True  # the same statement, or r in the header of a statement around t
        for block in _blocks(anc):
            if child in block and s_r in block[: block.index(child)]:
                return True
        if isinstance(anc, _SCOPES):
            return False  # what runs where the function is defined says nothing of its body
        child = anc
    return False


def always_follows(mod: ModuleInfo, r: ast.AST, t: ast.AST) -> bool:
    """Whether ``r`` runs whenever ``t`` has run and the code around them goes on normally:
    ``r`` is in a later statement of the same block, under no condition within it, and
    nothing between can leave the block quietly (only plain statements, none of them a
    ``return``, ``break``, ``continue``, ``yield`` or ``await``, and no ``try`` or ``with``
    around them that could catch what one of them raises)."""
    s_t, s_r = _statement(mod, t), _statement(mod, r)
    if s_t is None or s_r is None or not _plain_path(mod, r, s_r):
        return False
    parent = mod.parents.get(id(s_t))
    block = next((b for b in _blocks(parent) if s_t in b), None) if parent is not None else None
    if block is None or s_r not in block or block.index(s_r) <= block.index(s_t):
        return False
    between = block[block.index(s_t): block.index(s_r)]
    if not all(isinstance(s, _PLAIN) and not any(isinstance(n, _LEAVES) for n in ast.walk(s)) for s in between):
        return False
    for anc in enclosing(mod, s_t):
        if isinstance(anc, _SCOPES):
            return True
        if isinstance(anc, (ast.Try, ast.With, ast.AsyncWith)) or type(anc).__name__ == "TryStar":
            return False
    return True


def _statement(mod: ModuleInfo, node: ast.AST) -> ast.stmt | None:
    if isinstance(node, ast.stmt):
        return node
    return next((a for a in enclosing(mod, node) if isinstance(a, ast.stmt)), None)


def _plain_path(mod: ModuleInfo, r: ast.AST, stmt: ast.stmt) -> bool:
    """Whether ``r`` is in the header of its statement, under no condition within it."""
    child = r
    for anc in enclosing(mod, r):
        if anc is stmt:
            return not any(child in block for block in child_blocks(stmt))
        if isinstance(anc, _CONDITIONAL) and not (isinstance(anc, ast.IfExp) and child is anc.test):
            return False
        if isinstance(anc, ast.BoolOp) and child is not anc.values[0]:
            return False
        child = anc
    return False


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.body]
    return child_blocks(node)
