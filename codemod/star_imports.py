"""What ``from x import *`` binds, for the index's name resolution.

A star import binds the module's ``__all__`` when it gives it as a literal list or tuple, else
every top-level name not starting with ``_`` (its own star imports included). The importing
module's own bindings win over a star, and a later star over an earlier one, as at run time.
A computed ``__all__`` is read as if none were given: every public name (a superset).

Whether a star import binds one name is asked of the modules it reaches, nearest first, and a
module is parsed only when the name is a word of a file its star imports can reach (read from the
text, ``from X import *`` found by a regex: a superset). A package that star-imports hundreds of
modules (a model zoo's ``__init__``) is otherwise parsed whole to find a name bound nowhere in it.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from .ast_util import child_blocks, is_block_statement, resolve_relative, walk

# ``from X import *`` in a file's text, comments and strings included (a superset); a
# backslash continuation may stand between the words.
_STAR = re.compile(r"from[\s\\]+(\.*)([\w.]*)[\s\\]+import[\s\\]+\*")


def star_modules(mod) -> list[str]:
    """The modules ``from X import *`` at ``mod``'s module level names, absolute, in source order."""
    return [resolve_relative(mod.name, mod.is_package, s.module, s.level) for s in mod._module_level_import_list
            if isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names)]


def star_binding(mod, name: str) -> str | None:
    """The qualified name a star import of ``mod`` binds ``name`` to, unless ``mod`` binds it itself."""
    if mod.star_binds is None or name in mod.imports or name in mod.own_names:
        return None
    for base in reversed(mod.star_modules):
        if base and mod.star_binds(base, name):
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


def literal_all(mod) -> set[str] | None:
    """The names of ``mod``'s ``__all__`` when a literal list or tuple gives them, else None."""
    for s in mod.tree.body:
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in s.targets):
            if isinstance(s.value, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in s.value.elts):
                return {e.value for e in s.value.elts}
            break
    return None


def passing(index, rel: str):
    """``index.module(rel)`` for work that keeps names of it, not nodes: the module the index
    holds, else a parse that is not kept. Most files such a search reads are asked nothing
    else, and a parsed tree takes some thirty times its text's size."""
    if index.meter is not None:
        index.meter(rel)
    return index._modules[rel] if rel in index._modules else index._parse(rel)


class _Facts(NamedTuple):
    listed: set[str] | None  # a literal ``__all__``
    bound: set[str]  # its own top-level names and the names its imports bind
    star_modules: tuple[str, ...]


class Exports:
    """Whether ``from M import *`` binds a name, for the modules of one index (never for one
    outside the tree); a cycle of star imports binds, along it, only what its other modules bind."""

    def __init__(self, index):
        self.index = index
        self._reach: dict[str, frozenset[str]] = {}  # module -> files its star imports reach (text)
        self._answers: dict[tuple[str, str], bool] = {}
        self._facts: dict[str, _Facts | None] = {}  # module -> what a star import of it binds

    def binds(self, modname: str, name: str) -> bool:
        key = (modname, name)
        if key not in self._answers:
            self._answers[key] = self._binds(modname, name, set())
        return self._answers[key]

    def _binds(self, modname: str, name: str, seen: set[str]) -> bool:
        if modname in seen:
            return False
        seen.add(modname)
        tree = self.index.tree
        if tree.modules.get(modname) is None or not self._reach_of(modname) & set(tree.files_with_words((name,))):
            return False  # outside the tree, or the name is no word of any file the star imports reach
        mod = self._facts_of(modname)
        if mod is None:
            return False
        if mod.listed is not None:
            return name in mod.listed
        if name.startswith("_"):
            return False
        if name in mod.bound:
            return True
        return any(self._binds(base, name, seen) for base in mod.star_modules if base)

    def _facts_of(self, modname: str) -> "_Facts | None":
        """What a star import of ``modname`` binds, read once from its module. A module the index
        holds already is read there; any other is parsed for this and let go (most modules a
        star import reaches are asked nothing else, and their trees were most of a run's
        memory), so the index holds no more than the run's own work asked for."""
        index = self.index
        rel = index.tree.modules[modname]
        if rel in self._facts:
            if index.meter is not None:
                index.meter(rel)  # charged as a module asked for, as when the index parsed it for this
        else:
            mod = passing(index, rel)
            self._facts[rel] = None if mod is None else _Facts(literal_all(mod), mod.own_names | mod.imports.keys(),
                                                                tuple(mod.star_modules))
        return self._facts[rel]

    def forget(self, rel: str) -> None:
        """The module of ``rel`` is read again next time (its text as the index parses it changed)."""
        self._facts.pop(rel, None)

    def _reach_of(self, modname: str) -> frozenset[str]:
        """The files of the tree that ``modname`` and, transitively, its star imports are, as read
        from their text."""
        if modname in self._reach:
            return self._reach[modname]
        tree = self.index.tree
        out: set[str] = set()
        todo = [modname]
        while todo:
            m = todo.pop()
            rel = tree.modules.get(m)
            if rel is None or rel in out:
                continue
            if m in self._reach and m != modname:
                out |= self._reach[m]
                continue
            out.add(rel)
            text = tree.searchable(rel) or ""
            if "import" in text and "*" in text:
                for dots, target in _STAR.findall(text):
                    todo.append(resolve_relative(m, tree.is_package(rel), target or None, len(dots)))
        self._reach[modname] = frozenset(out)
        return self._reach[modname]
