"""DC609 copy-super-fallback: what a ``super()`` in the class reaches in the parent stays reachable, under a private name.

## What it does
When the class falls back to the parent's ``X`` through ``super().X`` or ``super(C, self).X`` (a
call ``super().m()``, or a read of a property, a class attribute or a bound method), and what it
reaches needs nothing the parent's ``__init__`` constructs or allocates, every such ``super().X``
in the class's own methods becomes ``self._P_X``, and ``_P_X`` is:
- where the class does not override ``X`` (so ``X`` is copied into it under its own name, where
  ``super()`` no longer looks): ``_P_X = X`` after the copy, one object under two names;
- where it does: the parent's method or property getter, renamed, or its class attribute's
  literal value, under ``_P_X``.
What ``X`` reads is kept like any kept member's reads (DC102 keeps ``X``, and the closure follows it).

## Why
A fallback to cheap parent code is not reuse worth the parent's whole ``__init__``: declining
(DC502) would leave every instance paying for state the fallback never touches. ``self.X`` would
not do: a subclass's override, or an instance attribute ``X``, would answer instead of the parent's.

## Known problems
Copied only where the meaning of ``super()`` inside the copy cannot change: the parent is
the class's only base and the new base's own parent, the methods that use ``super().X`` are
plain methods, and the private name is free. A second name is given only to what has no
``__set_name__`` to run twice: plain, static and class methods, ``property`` (not
``cached_property`` or another decorator), literal class attributes. The private copy of an
override is a plain method, a plain ``@property`` getter, or a literal. Otherwise DC502
declines and says which. A ``super().X`` in a nested function or lambda is not redirected; the
post-condition DC702 then refuses the patch. A subclass of the class that overrides ``X`` and
uses ``super().X`` still reaches the class's ``X``, as before.

## Fix safety
Safe under those conditions: the same code or object is reached on the same instance, by a
name that only the class uses.
"""

from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING

from ..ast_util import first_param, is_literal, is_static
from .verdict_already_decoupled import MARKER

if TYPE_CHECKING:  # the rewrite's functions import it: the analysis asks this module too
    import libcst as cst

ID = "DC609"
NAME = "copy-super-fallback"


def private_name(a, meth: str) -> str:
    return f"_{a.parent.name}_{meth}"


def why_not(a, call) -> str | None:
    """Why the fallback of ``call`` (a SuperCall reaching the parent) cannot be copied, or None."""
    if call.needs_dropped:
        return "it needs state the parent's __init__ builds"
    if len(a.chain) != 1 or len(a.cls.bases) != 1:
        return "super() in a copy could reach another class"
    m = a.members.get(call.method)
    caller = a.cls.methods.get(call.in_method)
    if m is None or caller is None or is_static(caller) or _classmethod(caller):
        return "a static or class method is involved"
    if not first_param(caller):
        return f"{call.in_method} has no self"
    if private_name(a, call.method) in a.members or private_name(a, call.method) in a.cls.members:
        return f"the name {private_name(a, call.method)} is taken"
    if not overrides(a, call.method):
        return _why_no_alias(a, m[0])
    return _why_no_private_copy(a, m[0])


def overrides(a, name: str) -> bool:
    """Whether the class's own body binds ``name`` (so P's version can only be copied under another name)."""
    m = a.cls.members.get(name)
    return m is not None and m.kind != "instance_attribute"


def _why_no_alias(a, m) -> str | None:
    """``_P_X = X`` binds the copy a second time: safe for what has no ``__set_name__`` to run twice."""
    plain = {"", "staticmethod", "classmethod", "property"}
    if m.kind in ("method", "property"):
        odd = [d for d in m.decorators if d not in plain and not d.endswith((".setter", ".deleter", ".getter"))]
        return f"{m.name} is decorated by {odd[0]}, which a second name could break" if odd else None
    if m.kind == "class_attribute" and _literal(m.node):
        return None
    return f"{m.name} is a class attribute whose value is not a literal"


def _why_no_private_copy(a, m) -> str | None:
    """P's own ``X``, which the class overrides, copied under the private name."""
    if m.kind == "method":
        fn = a.parent.methods.get(m.name)
        if fn is None or is_static(fn) or _classmethod(fn):
            return "a static or class method is involved"
        return None
    if m.kind == "property":
        return None if m.decorators == ("property",) else f"{m.name} is not a plain property"
    if m.kind == "class_attribute" and _literal(m.node) and isinstance(m.node, ast.Assign) and len(m.node.targets) == 1:
        return None
    return f"{m.name} is a class attribute whose value is not a literal"


def _literal(stmt) -> bool:
    return is_literal(getattr(stmt, "value", None))


def reaching(a) -> list:
    """The super() uses that reach the parent's code or values, not those the new base answers
    alike (a class attribute DC151 dropped as the same as the new base's)."""
    return [s for s in a.super_calls if s.reaches_parent and s.method in a.kept]


def copied(a) -> set[str]:
    """The parent members whose ``super()`` reads this rule redirects to a private name."""
    reach = reaching(a)
    if reach and all(why_not(a, s) is None for s in reach):
        return {s.method for s in reach}
    return set()


def alias_node(ctx, name: str) -> cst.SimpleStatementLine:
    """``_P_X = X``: the member copied under its own name, reached by the private one too."""
    import libcst as cst

    ctx.plan.inlined.append(f"`{private_name(ctx.a, name)}`, another name of `{name}` for what `super().{name}` read")
    return cst.parse_statement(f"{private_name(ctx.a, name)} = {name}\n")


def private_attribute(ctx, name: str, node: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    """P's class attribute, which the class overrides, under the private name."""
    import libcst as cst

    assign = node.body[0]
    ctx.plan.inlined.append(f"class attribute `{name}` as `{private_name(ctx.a, name)}`, what `super().{name}` read")
    return node.with_changes(body=[assign.with_changes(targets=[cst.AssignTarget(cst.Name(private_name(ctx.a, name)))])])


def _classmethod(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list)


def copy_node(ctx, name: str, node: cst.FunctionDef) -> cst.FunctionDef:
    """The parent's method, renamed, under a marker naming its origin."""
    import libcst as cst

    from ..cst_util import BLANK

    a = ctx.a
    origin = f"{MARKER} {a.parent.name}.{name}"
    lead = [BLANK, *ctx.marker(origin)] + [l for l in node.leading_lines if l.comment is not None]
    ctx.plan.inlined.append(f"method `{name}` as `{private_name(a, name)}`, the target of `super().{name}()`")
    return node.with_changes(name=cst.Name(private_name(a, name)), leading_lines=lead)


@functools.cache
def _redirect():
    """The transformer class that redirects ``super().m``, made once (libcst is imported by the
    rewrite alone: this module's other half is asked by the analysis, which must not load it)."""
    import libcst as cst

    class _Redirect(cst.CSTTransformer):
        """``super().m`` -> ``self._P_m`` in one method (not in nested functions or classes)."""

        def __init__(self, names: dict[str, str], selfname: str, cls: str):
            self.names = names
            self.selfname = selfname
            self.cls = cls
            self.depth = 0

        def visit_FunctionDef(self, node):
            self.depth += 1

        def leave_FunctionDef(self, original, updated):
            self.depth -= 1
            return updated

        def visit_ClassDef(self, node):
            self.depth += 1

        def leave_ClassDef(self, original, updated):
            self.depth -= 1
            return updated

        def visit_Lambda(self, node):
            self.depth += 1

        def leave_Lambda(self, original, updated):
            self.depth -= 1
            return updated

        def leave_Attribute(self, original, updated):
            v = updated.value
            if (self.depth == 1 and isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "super"
                    and updated.attr.value in self.names
                    and (not v.args or (isinstance(v.args[0].value, cst.Name) and v.args[0].value.value == self.cls))):
                return updated.with_changes(value=cst.Name(self.selfname), attr=cst.Name(self.names[updated.attr.value]))
            return updated

    return _Redirect


def redirect(ctx, body: list) -> list:
    """The class body with each copied fallback's ``super().m`` calls redirected."""
    a = ctx.a
    names = {m: private_name(a, m) for m in copied(a)}
    if not names:
        return body
    import libcst as cst

    out = []
    for s in body:
        fn = a.cls.methods.get(s.name.value) if isinstance(s, cst.FunctionDef) else None
        if fn is not None and first_param(fn):
            s = s.visit(_redirect()(names, first_param(fn), a.cls.name))
        out.append(s)
    return out
