"""Whether a ``hasattr`` test of a member can matter on an instance of the class.

Duck typing tests several names at once: ``hasattr(b, "prefill_backend") and hasattr(b,
"decode_backend") and hasattr(b, "_select_backend")``. When no instance of the class has one
of those names, that ``and`` is False on an instance whatever the other tests say, so the test
of a member in it is no use of the member: DC108 does not keep the member for it.

## What it proves
``lacking_partner(mod, call, never_has)``: for ``call``, ``hasattr(x, "m")``, the name ``z`` of
another operand ``hasattr(x, "z")`` of the same ``and`` where ``never_has(z)``, placed so that
on an instance of the class the ``and`` runs the same code and yields the same False whether
or not the instance has ``m``:

- the test of ``z`` comes before the test of ``m``: on an instance the ``and`` stops at ``z``,
  and the test of ``m`` never runs;
- the test of ``z`` comes right after it: the test of ``m`` yields True or False, and either
  way the ``and`` yields False, having run at most the test of ``z``, which on a name the
  instance lacks runs no code of the tree.

``x`` is a plain name that no ``:=`` in the ``and`` binds, so every test looks at one object,
and ``hasattr`` is the builtin: the module binds no such name and has no ``import *``.

## Known limits
Only ``and`` chains of ``hasattr`` calls are read. ``getattr(x, "z", None) is not None``, ``not
hasattr(...) or ...`` and nested ``if`` tests are not, and no operand may sit between the two
tests, even a pure one. Two things are the caller's to make sure of: that
the member is no property (the test would run its getter), and that ``never_has`` is sound
(``type_attrs.Attributes.never_has``: no class of the hierarchy defines the name or answers
any name, and no code stores it on other objects).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..index import ModuleInfo


def lacking_partner(mod: ModuleInfo, call: ast.Call, never_has: Callable[[str], bool]) -> str | None:
    """The name ``z`` of a test in the same ``and`` as ``call`` that decides it on an instance
    (see the module docstring), if any."""
    chain = mod.parents.get(id(call))
    if not isinstance(chain, ast.BoolOp) or not isinstance(chain.op, ast.And) or not _builtin(mod, "hasattr"):
        return None
    recv = _tested(call)
    if recv is None or any(isinstance(n, ast.NamedExpr) for v in chain.values for n in ast.walk(v)):
        return None
    at = next(i for i, v in enumerate(chain.values) if v is call)
    for i, operand in enumerate(chain.values):
        if i == at or i > at + 1:
            continue
        tested = _tested(operand)
        if tested is not None and tested[0] == recv[0] and never_has(tested[1]):
            return tested[1]
    return None


def _tested(node: ast.AST) -> tuple[str, str] | None:
    """(name, attribute) for ``hasattr(name, "attribute")``."""
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"
        and len(node.args) == 2 and not node.keywords and isinstance(node.args[0], ast.Name)
        and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
    ):
        return node.args[0].id, node.args[1].value
    return None


def _builtin(mod: ModuleInfo, name: str) -> bool:
    """Whether ``name`` in the module can only be the builtin: nothing in it binds the name."""
    if any(not isinstance(n.ctx, ast.Load) for n in mod.names.get(name, ())):
        return False
    for node in mod.nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return False
        if isinstance(node, ast.arg) and node.arg == name:
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            a.name == "*" or (a.asname or a.name).split(".")[0] == name for a in node.names
        ):
            return False
    return True
