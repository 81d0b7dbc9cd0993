"""What ``from x import *`` binds, for the index's name resolution.

A star import binds the module's ``__all__`` when it gives it as a literal list or tuple, else
every top-level name not starting with ``_`` (its own star imports included). The importing
module's own bindings win over a star, and a later star over an earlier one, as at run time.
A computed ``__all__`` is read as if none were given: every public name (a superset).
"""

from __future__ import annotations

import ast

from .ast_util import child_blocks, is_block_statement, resolve_relative, walk


def star_modules(mod) -> list[str]:
    """The modules ``from X import *`` at ``mod``'s module level names, absolute, in source order."""
    return [resolve_relative(mod.name, mod.is_package, s.module, s.level) for s in mod._module_level_import_list
            if isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names)]


def star_binding(mod, name: str) -> str | None:
    """The qualified name a star import of ``mod`` binds ``name`` to, unless ``mod`` binds it itself."""
    if mod.exports_of is None or name in mod.imports or name in mod.own_names:
        return None
    for base in reversed(mod.star_modules):
        names = mod.exports_of(base) if base else None
        if names is not None and name in names:
            return f"{base}.{name}"
    return None


def own_names(mod) -> set[str]:
    """Names ``mod``'s top level binds by ``def``, ``class`` or assignment (in blocks too)."""
    out = set()
    todo = list(mod.tree.body)
    while todo:
        s = todo.pop()
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            out |= {n.id for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if is_block_statement(s):
            for block in child_blocks(s):
                todo.extend(block)
    return out


def exported(mod, stars: set[str]) -> set[str]:
    """What ``from mod import *`` binds (``stars``: what ``mod``'s own star imports bind)."""
    for s in mod.tree.body:
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in s.targets):
            if isinstance(s.value, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in s.value.elts):
                return {e.value for e in s.value.elts}
            break
    return {n for n in mod.own_names | set(mod.imports) | stars if not n.startswith("_")}


class Exports:
    """Module name -> what a star import of it binds, for the modules of one index (None for one
    outside the tree); each computed once, a cycle of star imports ended by what is known so far."""

    def __init__(self, index):
        self.index = index
        self.known: dict[str, set[str] | None] = {}

    def of(self, modname: str) -> set[str] | None:
        if modname in self.known:
            return self.known[modname]
        self.known[modname] = set()
        mod = self.index.module_by_name(modname)
        if mod is None:
            self.known[modname] = None
            return None
        stars = set()
        for base in mod.star_modules:
            stars |= (self.of(base) if base else None) or set()
        self.known[modname] = out = exported(mod, stars)
        return out
