"""DC605 copy-members: copy the kept class attributes, methods and properties of the parent into the class.

## What it does
Every kept member of the parent that is not an instance attribute is copied into the
class, in the parent's order: class attributes after the class's own leading statements,
methods and properties (setters and deleters included) at the end, and a class attribute
whose value names a copied method or property (``__enter__ = begin``) after it, among them;
a copied ``__init_subclass__`` is also called on the class right after its statement
(``Child.__init_subclass__()``), as creating it under the parent did (DC302 says when); each with its
decorators, docstring and comments, under a marker comment naming its origin.

## Why
After reparenting, the class no longer inherits them, and something uses them.

A class attribute, method or property of the parent that the class binds itself is not copied
(unless ``super()`` reads it, under a private name: DC609): the class's own binding is the one its
instances saw (the parent's is kept where the parent's ``__init__`` stores
over it on the instance, so that the slice keeps that store).

A private identifier (``self.__x``, which Python reads as ``self._P__x`` in the parent's body) is
written as the parent's body mangled it (``self._P__x``): in the class it would be ``_C__x``,
another attribute, which the class's own ``self.__x`` still is. The inlined ``__init__`` code
is spelt the same way.

## Known problems
Refuses (DC510) members of a parent in another module than the first parent's, and private
identifiers in code that defines a class inside (mangled with that class's name) or beside an
import or ``global`` statement.

## Fix safety
Safe: the copied code is the parent's, byte for byte but for the stale comments DC611 leaves
out, now found on the class itself.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..ast_util import private, walk
from ..cst_util import BLANK, rename
from ..errors import UnsafeError
from . import rewrite_bind_names, rewrite_copy_annotations, rewrite_super_fallback
from .unsafe_attribute_hooks import init_subclass_call
from .verdict_already_decoupled import MARKER

ID = "DC605"
NAME = "copy-members"


def apply(ctx, body):
    a = ctx.a
    attrs, methods = [], []
    free = rewrite_bind_names.copied_free(a) if ctx.aliases or ctx.literals else {}
    fallbacks = rewrite_super_fallback.copied(a)  # what super().X reads: reached by a private name

    def bound(name, node):
        """The node with its free names that DC608 aliased renamed to their aliases."""
        mapping = ctx.names_for(free.get(name, ()))
        return rewrite_bind_names.retarget_super(a, ctx.pinfo, rename(node, mapping))

    late: set[str] = set()  # class attributes copied among the methods
    for name in sorted(a.kept, key=lambda n: a.members[n][0].line):
        m, owner = a.members[name]
        if owner.module.rel != ctx.pinfo.rel:
            raise UnsafeError(f"{name} comes from {owner.name} in another module; only one parent module at a time is supported", ID)
        origin = f"{MARKER} {owner.name}.{name}"
        overridden = rewrite_super_fallback.overrides(a, name)
        if m.kind == "class_attribute" and overridden and name not in fallbacks:
            # C's own binding is the one C's instances and C itself saw; the parent's was reachable
            # only through the parent, which still binds it (kept for the store P's __init__ makes).
            continue
        if m.kind == "class_attribute":
            node = ctx.p.lines[id(ctx.p.stmt(m.node))]
            node = ctx.copied.strip(bound(name, mangle(m.node, node, owner.name, f"{owner.name}.{name}")), m.node.lineno - len(node.leading_lines), m.node.end_lineno)
            node = node.with_changes(leading_lines=[BLANK, *ctx.marker(origin)] + [l for l in node.leading_lines if l.comment is not None])
            if overridden:
                attrs.append(rewrite_super_fallback.private_attribute(ctx, name, node))
                continue
            # An alias of a copied method (``__enter__ = begin``) goes after it, among the methods.
            into = attrs
            if _names_copied_function(a, owner, m.node, late):
                late.add(name)
                into = methods
            into.append(node)
            if name in fallbacks:
                into.append(rewrite_super_fallback.alias_node(ctx, name))
            ctx.plan.inlined.append(f"class attribute `{name}` (its value differs from the new base's)")
        elif m.kind in ("method", "property"):
            if overridden and name not in fallbacks:
                # C's own definition is the one C's instances ran; a copy under the same name,
                # after it, would replace it. A rule that keeps such a member keeps nothing to copy.
                continue
            nodes = [n for n in owner.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
            for i, n in enumerate(nodes):
                node = ctx.p.stmt(n)
                first = min([n.lineno] + [d.lineno for d in n.decorator_list]) - len(node.leading_lines)
                node = ctx.copied.strip(bound(name, mangle(n, node, owner.name, f"{owner.name}.{name}")), first, n.end_lineno)
                if name in fallbacks and overridden:
                    if i == 0:  # a property's getter: super() reads what it returns, never sets it
                        methods.append(rewrite_super_fallback.copy_node(ctx, name, node))
                    continue
                lead = [BLANK] + (ctx.marker(origin) if i == 0 else []) + [l for l in node.leading_lines if l.comment is not None]
                methods.append(node.with_changes(leading_lines=lead))
            if name in fallbacks and not overridden:
                methods.append(rewrite_super_fallback.alias_node(ctx, name))
            if not (name in fallbacks and overridden):
                ctx.plan.inlined.append(f"{m.kind} `{name}`")
    if attrs:
        idx = 0
        while idx < len(body) and not isinstance(body[idx], (cst.FunctionDef, cst.ClassDef)):
            idx += 1
        body = body[:idx] + attrs + body[idx:]
    return rewrite_copy_annotations.apply(ctx, body + methods, bound, mangle)


def after_class(ctx) -> list[cst.BaseStatement]:
    """The statements that follow the class: the call of the parent's ``__init_subclass__``, copied
    into it, that Python made while creating the class (DC302 says when that is the same)."""
    if not init_subclass_call(ctx.a):
        return []
    m, owner = ctx.a.members["__init_subclass__"]
    stmt = cst.parse_statement(f"{ctx.a.cls.name}.__init_subclass__()\n")
    ctx.plan.inlined.append(f"call of `__init_subclass__` after the class, which creating it under {owner.name} made")
    blanks = [BLANK, BLANK] if ctx.a.cls.node.col_offset == 0 else [BLANK]
    return [stmt.with_changes(leading_lines=blanks + ctx.marker(f"{MARKER} {owner.name}.__init_subclass__ (creating the class ran it)"))]


def _names_copied_function(a, owner, stmt: ast.stmt, late: set[str]) -> bool:
    """Whether the class-body assignment ``stmt`` names a copied method or property defined above
    it, or a class attribute copied among the methods for that reason."""
    value = getattr(stmt, "value", None)
    return value is not None and any(
        isinstance(n, ast.Name) and n.id in a.kept and a.members[n.id][1] is owner and a.members[n.id][0].line < stmt.lineno
        and (a.members[n.id][0].kind in ("method", "property") or n.id in late)
        for n in walk(value))


def mangled_names(node: ast.AST) -> list[str]:
    """The private identifiers of ``node`` (attributes, names, parameters, keywords, a def's own
    name), in order."""
    out = []
    for n in walk(node):
        ident = (n.attr if isinstance(n, ast.Attribute) else n.id if isinstance(n, ast.Name) else n.arg if isinstance(n, (ast.arg, ast.keyword))
                 else n.name if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) else None)
        if ident and private(ident) and ident not in out:
            out.append(ident)
    return out


class _Mangle(cst.CSTTransformer):
    def __init__(self, prefix: str):
        self.prefix = prefix

    def leave_Name(self, original, updated):
        return updated.with_changes(value=self.prefix + updated.value) if private(updated.value) else updated


def mangle(tree: ast.AST, node: cst.CSTNode, owner: str, what: str) -> cst.CSTNode:
    """``node`` (the code of ``tree``, written in class ``owner``) with every private identifier
    spelt as Python mangled it there (``self.__x`` as ``self._Owner__x``), so that it means the
    same in the class it is moved into, whose own ``__x`` is another name."""
    names = mangled_names(tree)
    if not names or not owner.strip("_"):
        return node
    if any(isinstance(n, ast.ClassDef) for n in walk(tree) if n is not tree):
        raise UnsafeError(f"{what} uses name-mangled identifiers ({', '.join(names)}) and defines a class inside, "
                          f"which mangles them with its own name", ID)
    if any(isinstance(n, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)) for n in walk(tree)):
        raise UnsafeError(f"{what} uses name-mangled identifiers ({', '.join(names)}) beside an import or global statement", ID)
    return node.visit(_Mangle(f"_{owner.lstrip('_')}"))
