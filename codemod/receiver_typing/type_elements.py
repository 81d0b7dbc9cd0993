"""What a container held in an attribute can come to hold: what code adds to it in place.

A mixin of ``type_exprs.Types`` (it calls ``expr_types``, ``value_types``, ``unknown``,
``_memo`` and ``_may_be_holder`` there); that module's docstring says what an
answer proves.

The elements of ``x.attr`` are those of every value stored into ``.attr`` (``type_attrs``), and
whatever code adds to such a container afterwards. Every read of ``.attr`` on an object that
may be a holder (all of them, when the holders are not known) is looked at, and each must be
one of:
- a read that cannot change the container: ``x.attr[k]``, iterating over it, a test, a
  comparison, ``len``/``list``/``sorted``/... of it, or a method of ``READERS``;
- an addition whose value is followed: ``x.attr[k] = v``, a method of ``ADDERS`` (its last
  argument), a method of ``EXTENDERS`` or ``x.attr += v`` (the elements of the argument).

Any other read (an alias ``xs = x.attr``, an argument ``fill(x.attr)``, a return, another
method) lets the container out to code that may add anything, and the elements are unknown.

## Known limits
Names are matched by spelling: a read of ``.attr`` on an object that is not a container (a
tensor, say) is held to the same rules, so it can only make the answer unknown. Elements are
followed one level deep: the elements of an element (``x.attr[i].append(v)``) are not.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name
from ..index import ModuleInfo
from .type_annotations import shown_code

ADDERS = {"append", "appendleft", "add", "insert", "setdefault"}
EXTENDERS = {"extend", "extendleft", "update"}
READERS = {"get", "items", "keys", "values", "index", "count", "copy", "pop", "popleft", "popitem", "clear",
           "remove", "discard", "__len__", "__contains__", "__getitem__"}
_READING_BUILTINS = {"len", "list", "tuple", "sorted", "set", "frozenset", "dict", "iter", "enumerate", "zip", "reversed",
                     "sum", "any", "all", "min", "max", "isinstance", "bool", "repr", "str", "id", "print"}
_READ, _ADD, _EXTEND, _OUT = "read", "add", "extend", "out"


class Elements:
    """What containers held in attributes come to hold, for ``Types``."""

    def _added_elements(self, attr: str, related: dict | None = None, through=None, may_have=None) -> list[str] | None:
        """Types that code adds in place to a container ``.attr``, on objects that may be one of
        the holders (``related``: their family and ancestors by id; every object when None)."""
        key = ("added", attr, None if related is None else tuple(sorted(related)))
        return self._memo(key, lambda: self._additions(attr, related, through, may_have))

    def _additions(self, attr: str, related, through, may_have) -> list[str] | None:
        out: list[str] = []
        mention = re.compile(rf"\.{re.escape(attr)}\b")
        files = self.index.tree.grep(mention, words=(attr,))
        if through is not None:
            # Confined holders are reached only as self in their classes' code, or through .a
            # for a in ``through``: no other file can add to their containers.
            near = set(self.index.tree.files_with_words(tuple(through))) | {c.file for c in related.values()}
            files = [rel for rel in files if rel in near]
        for rel in files:
            mod = self.index.module(rel)
            if mod is None:
                self.unknown(f"{rel} mentions .{attr} but cannot be parsed")
                return None
            for node in mod.attributes.get(attr, ()):
                if related is not None and not self._may_be_holder(mod, node, related, through, may_have):
                    continue
                kind, value = _element_use(mod, node)
                if kind == _READ:
                    continue
                if kind == _OUT:
                    self.unknown(f"{shown_code(node)} is passed on where what is added to it is not followed ({rel}:{node.lineno})")
                    return None
                t = self.expr_types(mod, value, node) if kind == _ADD else self.value_types(mod, value, element=True)
                if t is None:
                    return None
                out += t
        return out


def _element_use(mod: ModuleInfo, node: ast.Attribute) -> tuple[str, ast.AST | None]:
    """How a mention of ``x.attr`` uses the container: (kind, the value it adds)."""
    parent = mod.parents.get(id(node))
    if isinstance(node.ctx, ast.Store):
        if isinstance(parent, ast.AugAssign):
            return _EXTEND, parent.value
        return _READ, None  # a store of the whole container: ``type_attrs`` types it
    if isinstance(node.ctx, ast.Del):
        return _READ, None
    if isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, ast.Store):
            grand = mod.parents.get(id(parent))
            if isinstance(grand, ast.Assign) and parent in grand.targets:
                return _ADD, grand.value
            return _OUT, None  # x.attr[k] += v, or an unpacking target
        return _READ, None
    if isinstance(parent, ast.Attribute) and parent.value is node:
        grand = mod.parents.get(id(parent))
        called = isinstance(grand, ast.Call) and grand.func is parent
        if called and parent.attr in ADDERS and grand.args and not any(isinstance(a, ast.Starred) for a in grand.args):
            return _ADD, grand.args[-1]
        if called and parent.attr in EXTENDERS and len(grand.args) == 1 and not grand.keywords:
            return _EXTEND, grand.args[0]
        return (_READ, None) if parent.attr in READERS else (_OUT, None)
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return _READ, None
    if isinstance(parent, (ast.Compare, ast.If, ast.While, ast.Assert)) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        return _READ, None
    if isinstance(parent, ast.IfExp) and parent.test is node:
        return _READ, None
    if isinstance(parent, ast.Call) and node in parent.args and dotted_name(parent.func) in _READING_BUILTINS:
        return _READ, None
    return _OUT, None
