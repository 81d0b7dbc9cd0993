"""Subclasses of a class that the index does not model.

The index knows a module's classes by name, at module level (``Index.subclasses``). A subclass
may also be a ``class`` statement inside a function or another class, a second module-level
class of the same name (in an ``if``/``else``), or the result of ``type(name, bases, ns)``. Its
instances are instances of the class too, and may carry attributes that none of the modelled
classes defines; so the proof that an object is not an instance because it has an attribute no
instance has (``Types.attribute_names``) holds only where there is none.

## What it proves
``HiddenClasses.subclass_of(cls)`` names one such subclass, ``(file, line)``, or None when there is
none:

- a ``class`` statement that the index does not model, whose bases name ``cls`` (directly or
  through an import alias), in a file whose text names ``cls`` in a class statement's bases or
  imports it under another name (``Index.subclasses`` reads the same files);
- a call ``type(name, bases, ns)`` whose bases are a literal tuple or list in which a name, not
  bound in the function around the call, names ``cls``.

## Known limits
Bases computed at run time are not followed: ``type(name, bases, ns)`` where ``bases`` is a
variable, or holds one (``(extra, type(obj))``), is taken to make no subclass. Following them
needs the typing of class objects, not only of instances (what ``type(obj)`` or a parameter
``extra: type`` may be): on SGLang 0.5.23 one such call (``gemma_4_unified.py``) would otherwise
void every proof of this kind. Nor is a subclass made by ``types.new_class`` or by a metaclass
seen, or an instance whose ``__class__`` is assigned. ``report.md``'s Risks say so.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name
from ..index import ClassInfo, Index
from .type_calls import shadowed


class HiddenClasses:
    """The subclasses the index does not model, for one run (``Types`` owns one)."""

    def __init__(self, index: Index):
        self.index = index
        self._found: dict[str, tuple[str, int] | None] = {}

    def subclass_of(self, cls: ClassInfo) -> tuple[str, int] | None:
        """A subclass of ``cls`` that the index does not model, as ``(file, line)``; see the
        module docstring."""
        if cls.qualname not in self._found:
            self._found[cls.qualname] = self._statement(cls) or self._made_by_type(cls)
        return self._found[cls.qualname]

    def _statement(self, cls: ClassInfo) -> tuple[str, int] | None:
        index = self.index
        name = re.escape(cls.name)
        in_bases = re.compile(rf"class\s+\w+\s*\([^:]*?\b{name}\b")
        renamed = _renamed(cls)
        for rel in index.tree.grep(lambda text: bool(in_bases.search(text) or renamed.search(text)), words=(cls.name,)):
            text = index.tree.searchable(rel) or ""
            if not _may_hide(text, [cls.name, *renamed.findall(text)]):
                continue  # every class statement naming it is a module-level class of its own name
            mod = index.module(rel)
            if mod is None:
                continue
            modelled = {id(c.node) for c in mod.classes.values()}
            for node in mod.nodes:
                if isinstance(node, ast.ClassDef) and id(node) not in modelled and any(self._is(mod, b, cls) for b in node.bases):
                    return rel, node.lineno
        return None

    def _made_by_type(self, cls: ClassInfo) -> tuple[str, int] | None:
        # Literal bases name the class (or an alias of it) before the call's first ")": only
        # files where the text has that can hold such a call.
        renamed = _renamed(cls)

        def may_make(text: str) -> bool:
            if "type(" not in text:
                return False
            alts = "|".join(re.escape(n) for n in [cls.name, *renamed.findall(text)])
            return bool(re.search(rf"type\([^)]*?\b(?:{alts})\b", text))

        for rel in self.index.tree.grep(may_make, words=(cls.name,)):
            mod = self.index.module(rel)
            if mod is None:
                continue
            for call in mod.nodes:
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "type" and len(call.args) == 3):
                    continue
                bases = call.args[1]
                if isinstance(bases, (ast.Tuple, ast.List)) and any(self._is(mod, b, cls) and not shadowed(mod, b, call) for b in bases.elts):
                    return mod.rel, call.lineno
        return None

    def _is(self, mod, base: ast.AST, cls: ClassInfo) -> bool:
        base = base.value if isinstance(base, ast.Subscript) else base
        return dotted_name(base) is not None and self.index.resolve_class(mod.qualify(base)) is cls



def _renamed(cls: ClassInfo) -> re.Pattern:
    """``Name as alias`` for the class: the alias is captured."""
    return re.compile(rf"{re.escape(cls.name)}\s+as\s+(\w+)")


def _may_hide(text: str, names: list[str]) -> bool:
    """Whether a class statement naming one of ``names`` in its bases may escape the index, told
    from the text (parsing costs more): it is indented (in a function, a class or a block), or
    its class's name starts a second module-level class statement."""
    alts = "|".join(re.escape(n) for n in names)
    if re.search(rf"^[ \t]+class\s+\w+\s*\([^:]*?\b(?:{alts})\b", text, re.M):
        return True
    for sub in re.findall(rf"^class\s+(\w+)\s*\([^:]*?\b(?:{alts})\b", text, re.M):
        if len(re.findall(rf"^class\s+{re.escape(sub)}\b", text, re.M)) > 1:
            return True
    return False
