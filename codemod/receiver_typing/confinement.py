"""Where instances of a few classes can be reached: only as ``self`` in their own methods, or
through attributes that nothing passes on.

``type_exprs`` asks this when it types ``x.attr`` on an instance of a holder class: a store
``y.attr = v`` elsewhere in the tree can reach a holder only if ``y`` may be one. When the
holders are *confined*, ``y`` may be one only if it is ``<something>.a`` for one of the
attributes that hold them, so every other store is left out without typing ``y``.

## What it proves
Classes (the holders, their subclasses where those count) are confined through the attributes
``S`` when all of this holds in the tree:
- every reference to a holder class by name is an import under its own name, an annotation, a
  base of a class statement, an ``isinstance``/``issubclass``/``except`` argument, the first
  argument of ``super``, or a construction whose value is stored straight into ``self.a``
  (``a`` is then in ``S``);
- the methods of the holders and their ancestors use ``self`` only to read or call its
  attributes (``self.x``), compare it, or name it in ``super``/``isinstance``: they never pass
  it, return it, store it or make another instance from it (``cls(...)``, ``type(self)``,
  ``self.__class__``);
- every read of ``.a`` for ``a`` in ``S`` reads or calls an attribute of it (``x.a.y``), or
  compares it, or is the whole value of ``name = x.a`` where ``name`` is bound only there in
  its scope and only read through or compared: the instance is never passed on, stored or
  returned, and no ``getattr`` names ``a`` literally.

and at least one such construction of each holder is in the tree (a class the tree never makes
is made by code outside it, which is not seen). Then every instance is made at one of those
constructions, stays in ``.a``, and is reached
only as ``x.a`` or as ``self`` in the holders' and their ancestors' code.

## Known limits
Reflection is not seen: code that walks ``vars(x)`` or ``x.__dict__`` and stores through what
it finds, ``copy``/``pickle`` of an object holding a holder, or a ``__self__`` read on a bound
method. A class of the same name elsewhere in the tree is taken for the holder (so it can only
make the answer "not confined").
"""

from __future__ import annotations

import ast

from ..ast_util import binding_count, dotted_name, first_param, is_static, walk
from ..index import ClassInfo, Index, ModuleInfo, enclosing, scope_of

_TYPE_TESTS = {"isinstance", "issubclass"}
_SELF_ESCAPES = {"__class__", "__dict__"}


def confining_attributes(index: Index, holders: list[ClassInfo], related: list[ClassInfo]) -> frozenset[str] | None:
    """The attributes through which the holders' instances are reached outside their own code,
    when they are confined (see the module docstring); None when they are not."""
    for c in related:
        if not _self_stays(c):
            return None
    attrs: set[str] = set()
    for k in holders:
        found = _references(index, k)
        if not found:
            return None  # never made in the tree: its instances come from code outside it
        attrs |= found
    for a in attrs:
        if not _only_dereferenced(index, a):
            return None
    return frozenset(attrs)


def may_reach(mod: ModuleInfo, recv: ast.AST, through: frozenset[str]) -> bool:
    """Whether ``recv`` may be a confined instance: ``x.a`` for ``a`` in ``through``, or a name
    bound to one."""
    if isinstance(recv, ast.Attribute):
        return recv.attr in through
    if not isinstance(recv, ast.Name):
        return True
    scope = scope_of(mod, recv)
    return any(
        isinstance(n, ast.Assign) and isinstance(n.value, ast.Attribute) and n.value.attr in through
        and any(isinstance(t, ast.Name) and t.id == recv.id for t in n.targets)
        for n in walk(scope)
    )


def _self_stays(cls: ClassInfo) -> bool:
    """Whether no method of ``cls`` lets ``self`` (or ``cls``) out or makes a new instance from it."""
    mod = cls.module
    for fn in cls.methods.values():
        if is_static(fn):
            continue
        sn = first_param(fn)
        if sn is None:
            continue
        for node in walk(fn):
            if not (isinstance(node, ast.Name) and node.id == sn and isinstance(node.ctx, ast.Load)):
                continue
            parent = mod.parents.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.value is node:
                if parent.attr in _SELF_ESCAPES:
                    return False
                continue
            if isinstance(parent, ast.Compare):
                continue
            if isinstance(parent, ast.Call) and node in parent.args and (
                dotted_name(parent.func) in _TYPE_TESTS or dotted_name(parent.func) == "super"
            ):
                continue
            return False
    return True


def _references(index: Index, cls: ClassInfo) -> set[str] | None:
    """The attributes the class's constructions are stored into, when every reference to it by
    name is a harmless one; None otherwise."""
    name = cls.name
    out: set[str] = set()
    for rel in index.tree.files_naming(name):
        mod = index.module(rel)
        if mod is None:
            return None
        for node in mod.nodes:
            if isinstance(node, ast.alias) and node.name.rsplit(".", 1)[-1] == name and node.asname not in (None, name):
                return None
            ref = (isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute) and node.attr == name)
            if not ref or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            attr = _harmless(mod, node)
            if attr is None:
                return None
            if attr:
                out.add(attr)
    return out


def _harmless(mod: ModuleInfo, node: ast.AST) -> str | None:
    """'' for a reference that makes or lets out no instance, the attribute for a construction
    stored straight into ``self.<attribute>``, None for anything else."""
    parent = mod.parents.get(id(node))
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return None  # Holder.something: a classmethod may make an instance
    if _in_annotation(mod, node):
        return ""
    if isinstance(parent, ast.ClassDef) and node in parent.bases:
        return ""
    if isinstance(parent, ast.ExceptHandler):
        return ""
    if isinstance(parent, ast.Tuple):
        grand = mod.parents.get(id(parent))
        if isinstance(grand, ast.ExceptHandler) or (isinstance(grand, ast.Call) and dotted_name(grand.func) in _TYPE_TESTS):
            return ""
    if isinstance(parent, ast.Call):
        called = dotted_name(parent.func)
        if called in _TYPE_TESTS and node in parent.args[1:]:
            return ""
        if called == "super" and parent.args and parent.args[0] is node:
            return ""
        if parent.func is node:
            return _stored_into_self(mod, parent)
    return None


def _stored_into_self(mod: ModuleInfo, call: ast.Call) -> str | None:
    """The attribute ``a`` when ``call`` is the whole value of ``self.a = call`` in a method."""
    stmt = mod.parents.get(id(call))
    if isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is call:
        target = stmt.target
    else:
        return None
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return None
    fn = next((n for n in enclosing(mod, stmt) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fn is None or is_static(fn) or first_param(fn) != target.value.id:
        return None
    return target.attr


def _dereferenced(mod: ModuleInfo, node: ast.AST) -> bool:
    """Whether the value of ``node`` is only read through (``node.y``) or compared."""
    parent = mod.parents.get(id(node))
    return isinstance(parent, ast.Attribute) and parent.value is node or isinstance(parent, ast.Compare)


def _alias_dereferenced(mod: ModuleInfo, node: ast.AST) -> bool:
    """Whether ``node`` is the whole value of ``name = node``, with ``name`` bound once in its
    scope and only read through or compared there."""
    stmt = mod.parents.get(id(node))
    if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    scope = scope_of(mod, stmt)
    if binding_count(scope, name) != 1:
        return False
    return all(
        _dereferenced(mod, n) for n in walk(scope) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    )


def _in_annotation(mod: ModuleInfo, node: ast.AST) -> bool:
    child = node
    for anc in enclosing(mod, node):
        if isinstance(anc, ast.arg):
            return anc.annotation is child
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return anc.returns is child
        if isinstance(anc, ast.AnnAssign):
            return anc.annotation is child
        if not isinstance(anc, (ast.Subscript, ast.Tuple, ast.List, ast.BinOp, ast.Attribute)):
            return False
        child = anc
    return False


def _only_dereferenced(index: Index, attr: str) -> bool:
    """Whether every read of ``.attr`` in the tree reads through it, compares it or deletes it,
    and no ``getattr`` names it."""
    for rel in index.tree.files_naming(attr):
        mod = index.module(rel)
        if mod is None:
            return False
        for node in mod.attributes.get(attr, ()):
            if isinstance(node.ctx, ast.Load) and not _dereferenced(mod, node) and not _alias_dereferenced(mod, node):
                return False
        if "getattr" in mod.text and any(
            isinstance(node, ast.Call) and dotted_name(node.func) == "getattr" and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant) and node.args[1].value == attr
            for node in mod.nodes
        ):
            return False
    return True
