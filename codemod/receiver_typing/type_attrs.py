"""What an attribute holds: the stores that can reach it, and what one scope reads.

A mixin of ``type_exprs.Types`` (it calls ``expr_types``, ``_assignment_types``, ``_returns``,
``_holders``, ``_subs`` and ``_memo`` there); that module's docstring says what an answer
proves.

``x.attr`` on an instance of known classes (the holders) takes: what the holders, their
subclasses (unless a holder is exact) and all their ancestors define in their class bodies or
store into ``self.attr``; and every store ``y.attr = v`` elsewhere unless ``y`` cannot be a
holder (typed as unrelated classes, read for an attribute that none of them gives its
instances, or not one of the attributes the holders are confined to: ``confinement``). A
holder with a base outside the tree (other than ``PLAIN_BASES``) falls back to every store of
that name in the tree.
"""

from __future__ import annotations

import ast

from ..ast_util import binding_count, decorator_name, dotted_name, first_param, is_static, names_bound, walk
from .confinement import confining_attributes, may_reach
from .dominance import always_follows, runs_before
from ..index import ClassInfo, ModuleInfo, enclosing_def, scope_of
from ..model import Receiver
from .type_annotations import EXACT, PROPERTIES, annotation_types, shown_code
from .type_stores import attr_assignment


_MENTIONS_READ = 50  # a name in more files than this is taken to be stored elsewhere, unread


class Attributes:
    """What attributes hold, for ``Types``."""

    def read_lacking(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST, have: set[str]) -> str | None:
        """An attribute outside ``have`` read on ``recv`` in the scope of ``at`` where that read
        runs on every path to ``at``, before it, or always after it (``dominance``), and that no
        code stores on other objects (``_stored_from_outside``), if any. The reads are all of
        the same object, since neither the name ``recv`` starts with nor any attribute along it
        is bound again there (None when one is, or ``recv`` is not a dotted name)."""
        dotted = dotted_name(recv)
        if dotted is None:
            return None
        scope = scope_of(mod, at)
        head = dotted.split(".", 1)[0]
        if self.bound_more_than_once(scope, head):
            return None
        loads, stored = self._reads(scope)
        parts = dotted.split(".")
        if any(".".join(parts[:i]) in stored for i in range(2, len(parts) + 1)):
            return None
        lacking: dict[str, list[ast.Attribute]] = {}
        for attr, node in loads.get(ast.dump(recv), ()):
            if attr not in have:
                lacking.setdefault(attr, []).append(node)
        # The rarest names first: telling whether code stores one elsewhere reads every file
        # that mentions it, and the first that holds ends the search.
        count = self.index.tree.count_files_with
        for n, attr in sorted((count(attr), attr) for attr in lacking):
            if n > _MENTIONS_READ:
                break
            if any(runs_before(mod, node, at) or always_follows(mod, node, at) for node in lacking[attr]) and self.never_has(attr, have):
                return attr
        return None

    def never_has(self, attr: str, have: set[str]) -> bool:
        """Whether no instance of the classes whose attributes are ``have`` (``attribute_names``)
        has ``attr``: none of them defines it, and no code stores it on other objects
        (``_stored_from_outside``; a name in more than ``_MENTIONS_READ`` files is taken to be
        stored somewhere)."""
        return attr not in have and self.index.tree.count_files_with(attr) <= _MENTIONS_READ and not self._stored_from_outside(attr)

    def bound_more_than_once(self, scope: ast.AST, name: str) -> bool:
        key = (id(scope), name)
        if key not in self._bound:
            self._bound[key] = binding_count(scope, name) > 1
        return self._bound[key]

    def _reads(self, scope: ast.AST) -> tuple[dict[str, list[tuple[str, ast.Attribute]]], set[str]]:
        """(receiver, dumped -> (attribute name, read) on it; dotted attributes stored), over
        one scope: built once per scope."""
        key = id(scope)
        if key not in self._scope_reads:
            loads: dict[str, list[tuple[str, ast.Attribute]]] = {}
            stored: set[str] = set()
            for node in walk(scope):
                if isinstance(node, ast.Attribute) and not node.attr.startswith("__"):
                    if isinstance(node.ctx, ast.Load):
                        if dotted_name(node.value) is not None:
                            loads.setdefault(ast.dump(node.value), []).append((node.attr, node))
                    elif dotted_name(node) is not None:
                        stored.add(dotted_name(node))
            self._scope_reads[key] = (loads, stored)
        return self._scope_reads[key]

    def _held_types(self, holders: list[tuple[ClassInfo, bool]], attr: str, element: bool) -> list[str] | None:
        """Types of ``<instance of a holder>.attr``: the stores that can reach such an instance."""
        key = ("held", tuple(sorted((k.qualname, e) for k, e in holders)), attr, element)
        return self._memo(key, lambda: self._held(holders, attr, element))

    def _held(self, holders, attr: str, element: bool) -> list[str] | None:
        family = {id(k): k for k, _ in holders}
        for k, exact in holders:
            if not exact:
                family.update((id(s), s) for s in self._subs(k))
        related = dict(family)
        for c in family.values():
            ancestors = self.ancestor_classes(c)
            if None in ancestors:
                return self.attr_types(attr, element)  # code outside the tree may store it
            related.update((id(a), a) for a in ancestors)
        may_have = self.attribute_names(family.values())
        out: list[str] = []
        found = False
        for c in related.values():
            if "__getattr__" in c.methods or "__getattribute__" in c.methods:
                self.unknown(f"{c.name} answers attributes through __getattr__ ({c.file}:{c.line})")
                return None
            for stmt in c.node.body:
                t, hit = self._class_body_store(c, stmt, attr, element)
                if hit:
                    if t is None:
                        return None
                    found = True
                    out += t
            for fn in c.methods.values():
                if is_static(fn) or first_param(fn) is None:
                    continue
                t, hit = self._self_stores(c.module, fn, attr, element)
                if hit:
                    if t is None:
                        return None
                    found = True
                    out += t
        through = self._confined(family, related)
        for store in self._stores(attr, through):
            if store is None:
                return None
            smod, node, value, recv = store
            fn, cls = enclosing_def(smod, node)
            if through is not None and not may_reach(smod, recv, through):
                continue  # the holders are reached only through those attributes
            if _is_self(fn, cls, recv):
                continue  # self.attr = ...: seen above when the class is related, and never reaches it otherwise
            if recv is None:
                continue  # a class body's declaration
            t = self._stored_types(smod, node, value, element, fn)
            if t is not None and self.rel.combine(t) == Receiver.NO:
                found = True  # nothing that can hold a C: kept without asking what it is stored on
                out += t
                continue
            if self._ruled_out(smod, recv, node, related, may_have):
                continue
            if t is None:
                return None
            found = True
            out += t
        if not found:
            names = ", ".join(sorted(k.name for k, _ in holders))
            self.unknown(f"nothing in the tree stores .{attr} on {names}")
            return None
        if element:
            added = self._added_elements(attr, related, through, may_have)
            if added is None:
                return None
            out += added
        return out

    def _may_be_holder(self, mod: ModuleInfo, node: ast.Attribute, related: dict, through, may_have) -> bool:
        """Whether the object that ``node`` (``x.attr``) reads from may be an instance of a
        holder (``related``: the holders' family and ancestors, by id)."""
        recv = node.value
        own = _self_of(mod, node, recv)
        if own is not None:
            return id(own) in related
        if through is not None and not may_reach(mod, recv, through):
            return False
        return not self._ruled_out(mod, recv, node, related, may_have)

    def _ruled_out(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST, related: dict, may_have) -> bool:
        """Whether the object ``recv`` cannot be an instance of a holder: it has an attribute that
        no related class gives its instances, or is typed as classes none of which is related
        (an instance of a holder's subclass is an instance of every ancestor, all related)."""
        if may_have is not None and self.read_lacking(mod, recv, at, may_have) is not None:
            return True
        others = self._holders(mod, recv, at)
        return others is not None and not any(id(o) in related for o, _ in others)

    def _stored_types(self, mod: ModuleInfo, node: ast.AST, value, element: bool, fn) -> list[str] | None:
        """Types of what one store found by ``_stores`` puts into the attribute (None, with the
        reason, for a store whose value is not followed: an unpacking, ``+=``, a loop target)."""
        if value is None:
            where = node if not isinstance(node, ast.Attribute) else mod.parents.get(id(node)) or node
            self.unknown(f"what {shown_code(where)} stores is not followed ({mod.rel}:{node.lineno})")
            return None
        return self._assignment_types(mod, node, value, element, fn)

    def _confined(self, family: dict, related: dict) -> frozenset[str] | None:
        key = ("confined", tuple(sorted(c.qualname for c in family.values())))
        if key not in self._memos:
            self._memos[key] = confining_attributes(self.index, list(family.values()), list(related.values()))
        return self._memos[key]

    def _class_body_store(self, cls: ClassInfo, stmt: ast.stmt, attr: str, element: bool):
        """(types, whether ``stmt`` in a class body defines ``attr``)."""
        mod = cls.module
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            return self._not_a_descriptor(cls, stmt, annotation_types(mod, stmt.annotation, element)), True
        if isinstance(stmt, ast.Assign) and any(attr in names_bound(t) for t in stmt.targets):
            if not all(isinstance(t, ast.Name) for t in stmt.targets):
                return None, True
            return self._not_a_descriptor(cls, stmt, self.value_types(mod, stmt.value, element)), True
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
            if any(decorator_name(d) in PROPERTIES for d in stmt.decorator_list):
                return (None if element else self._returns(mod, stmt, cls)), True
            return ["builtins.function"], True
        return None, False

    def _not_a_descriptor(self, cls: ClassInfo, stmt: ast.stmt, types: list[str] | None) -> list[str] | None:
        """``types`` of a class attribute, unless one is a class of the tree with ``__get__``
        (then reading it on an instance gives what ``__get__`` returns: unknown)."""
        for q in types or ():
            k = self.index.resolve_class(q.lstrip(EXACT))
            if k is not None and any(c is not None and "__get__" in c.methods for c in [k, *self.ancestor_classes(k)]):
                self.unknown(f"{cls.name}.{ast.unparse(stmt)[:40]} holds a descriptor ({k.name} has __get__)")
                return None
        return types

    def _self_stores(self, mod: ModuleInfo, fn: ast.FunctionDef, attr: str, element: bool):
        """(types, whether any) of what one method stores into ``self.attr``; None types when a
        store's value cannot be told (a tuple target, an augmented assignment) or the method may
        store into any attribute (a computed ``setattr``, ``__dict__``, ``vars(self)``)."""
        stores, opaque = self._method_stores(mod, fn)
        if opaque:
            self.unknown(f"{fn.name}() may store into any attribute of self ({mod.rel}:{fn.lineno})")
            return None, True
        out: list[str] = []
        items = stores.get(attr, ())
        for kind, node, value in items:
            if kind == "append":
                t = self.value_types(mod, value) if element else []
            elif kind == "setattr":
                t = None if element else self.expr_types(mod, value, node)
            else:
                t = None if value is None else self._assignment_types(mod, node, value, element, fn)
                if value is None:
                    self.unknown(f"what {fn.name}() stores into self.{attr} is not followed ({mod.rel}:{node.lineno})")
            if t is None:
                return None, True
            out += t
        return out, bool(items)

    def _method_stores(self, mod: ModuleInfo, fn: ast.FunctionDef) -> tuple[dict, bool]:
        """attribute -> [(kind, node, value)] for every store into ``self.<attribute>`` in one
        method, and whether it may store into any attribute; one walk per method."""
        key = ("self stores", mod.rel, fn.lineno, fn.col_offset)
        if key in self._memos:
            return self._memos[key]
        sn = first_param(fn)
        stores: dict[str, list] = {}
        opaque = False
        # The method's own parents: a node in it has its parent in it (or is its child), and the
        # module's whole map would walk every expression of the module for one method.
        parents: dict[int, ast.AST] = {}
        for node in walk(fn, parents):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == sn:
                if node.attr == "__dict__":
                    opaque = True
                elif isinstance(node.ctx, ast.Store):
                    owner = parents.get(id(node))
                    value = attr_assignment(owner, node.attr, sn) if owner is not None else None
                    stores.setdefault(node.attr, []).append(("assign", owner, value))
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == sn:
                called = dotted_name(node.func)
                if called in ("setattr", "object.__setattr__") and len(node.args) == 3:
                    lit = node.args[1]
                    if isinstance(lit, ast.Constant) and isinstance(lit.value, str):
                        stores.setdefault(lit.value, []).append(("setattr", node, node.args[2]))
                    else:
                        opaque = True
                elif called == "vars":
                    opaque = True
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "insert")
                and isinstance(node.func.value, ast.Attribute) and isinstance(node.func.value.value, ast.Name)
                and node.func.value.value.id == sn and node.args
            ):
                stores.setdefault(node.func.value.attr, []).append(("append", node, node.args[-1]))
        self._memos[key] = (stores, opaque)
        return stores, opaque

    def attr_types(self, attr: str, element: bool = False) -> list[str] | None:
        """Types of ``<anything>.attr`` across the whole tree (every store and declaration of that name)."""
        return self._memo(("attr", attr, element), lambda: self._attr_by_name(attr, element))

    def _attr_by_name(self, attr: str, element: bool) -> list[str] | None:
        # The stores first: one that cannot be typed ends the search, before the declarations
        # (whose prefilter also meets every parameter of that name on a line of its own).
        out: list[str] = []
        found = False
        for store in self._stores(attr):
            if store is None:
                return None
            mod, node, value, _ = store
            t = self._stored_types(mod, node, value, element, enclosing_def(mod, node)[0])
            if t is None:
                return None
            found = True
            out += t
        for decl in self._declared(attr):
            if decl is None:
                return None
            mod, stmt = decl
            t = annotation_types(mod, stmt.annotation, element)
            if t is None:
                return None
            found = True
            out += t
        if not found:
            self.unknown(f"nothing in the tree stores .{attr}")
            return None
        if element:
            added = self._added_elements(attr)
            if added is None:
                return None
            out += added
        return out


def _self_of(mod: ModuleInfo, node: ast.AST, recv: ast.AST) -> ClassInfo | None:
    """The class whose method ``node`` is in, when ``recv`` is that method's ``self``."""
    fn, cls = enclosing_def(mod, node)
    return cls if _is_self(fn, cls, recv) else None


def _is_self(fn: ast.FunctionDef | None, cls: ClassInfo | None, recv: ast.AST) -> bool:
    """Whether ``recv`` is the ``self`` of method ``fn`` of ``cls``."""
    return cls is not None and fn is not None and isinstance(recv, ast.Name) and recv.id == first_param(fn) and not is_static(fn)
