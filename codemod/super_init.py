"""Where a class's ``__init__`` calls its parent's: the analysis half of DC601 (inline-init).

``find_super_init`` finds the statement and the call (``super().__init__(...)``,
``super(C, self).__init__(...)``, ``P.__init__(self, ...)`` under any name the module binds P
to); ``generates_init`` tells a class whose ``__init__`` a decorator writes (``@dataclass``).
The analysis, the scan and DC601's rewrite (``rules/rewrite_inline_init.py``) all ask these. They
read the ``ast`` alone: the analysis imports nothing of libcst, which a run loads only once its
patches are made (0.15 s of a process's start that would otherwise hold up the word index).
"""

from __future__ import annotations

import ast

from .ast_util import decorator_name, dotted_name, is_super_call, walk

INIT_GENERATORS = {"dataclass", "dataclasses.dataclass", "attr.s", "attr.attrs", "attrs.define", "attr.define", "define", "frozen", "attrs.frozen", "mutable"}


def find_super_init(index, cls, init: ast.FunctionDef, parent) -> tuple[ast.stmt | None, ast.Call | None]:
    """The statement of C.__init__ that calls P's __init__, and the call: ``super().__init__(...)``,
    ``super(C, self).__init__(...)``, or ``X.__init__(self, ...)`` where ``X`` is P under any name
    the module binds it to (an alias, a module attribute)."""
    for node in walk(init):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr == "__init__":
                if is_super_call(f.value) and super_starts_after(index, cls, f.value):
                    return node, call
                if dotted_name(f.value) and names_class(index, cls.module, f.value, parent):
                    return node, call
    return None, None


def super_starts_after(index, cls, call: ast.Call) -> bool:
    """Whether ``super(...)`` in C's method starts after C: no arguments, or C itself first."""
    return not call.args or names_class(index, cls.module, call.args[0], cls)


def names_class(index, module, expr: ast.AST, target) -> bool:
    """Whether ``expr``, as ``module`` binds names, is the class ``target``."""
    if dotted_name(expr) is None:
        return False
    q = module.qualify(expr)
    if q == target.qualname:
        return True
    found = index.resolve_class(q)
    return found is target or (found is not None and found.qualname == target.qualname)


def generates_init(cls) -> bool:
    """A class decorator such as @dataclass writes an __init__ that does not call the parent's."""
    if "__init__" in cls.methods:
        return False
    return any(decorator_name(d) in INIT_GENERATORS for d in cls.node.decorator_list)
