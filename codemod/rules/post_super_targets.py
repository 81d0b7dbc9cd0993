"""DC702 post-super-targets: refuse a patch whose class names, as a ``super()`` or explicit method target, a class it no longer has.

## What it does
In the patched class body, every ``super(X, obj)`` must name a class of the class's new MRO
(a first argument that is not a class name, such as ``type(self)`` or ``self.__class__``,
cannot be checked and refuses), and every explicit ``X.method(self, ...)`` call, where ``self``
is the method's first parameter and ``X`` was a class of the old MRO, must name a class of
the new MRO. Every ``super().X`` (or ``super(C, obj).X``) in one of the class's own methods
must find, in the new MRO, the class it found before, where that was a class the patch takes
out (the parent or one up to the new base).

## Why
Code moved from the parent keeps the parent's spelling: ``super(Heavy, self).__init__()``
raises ``TypeError`` once ``Heavy`` is no longer a base, and ``BaseParser.__init__(self, g)``
(the parent under an alias) would run the parent's whole ``__init__`` on an instance the
analysis believes no longer runs it. A member copied into the class is where ``super()`` no
longer looks: ``super().paragraphs`` left as written would raise ``AttributeError``.

## Known problems
Only the class's own body is read; code elsewhere that calls ``P.method(instance)`` is the
analysis' business (DC108). A ``super().X`` is compared only in methods the class had and for
names it used through ``super()`` there: code moved from the parent started its search
from the parent's place in the MRO. A name rebound locally to another class is resolved as the
module binds it.

## Fix safety
A post-condition: no patch is written (exit 3) when it fails.
"""

from __future__ import annotations

import ast

from ..ast_util import first_param, is_literal, walk

ID = "DC702"
NAME = "post-super-targets"


def check(ctx) -> None:
    _super_members(ctx)
    name = ctx.a.cls.name
    for fn in ctx.after.node.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        sn = first_param(fn)
        for node in walk(fn):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Name) and f.id == "super" and len(node.args) == 2:
                target = node.args[0]
                if not isinstance(target, (ast.Name, ast.Attribute)) or _is_dynamic(target):
                    ctx.violate(ID, f"{name}.{fn.name} calls super({ast.unparse(target)}, ...) (line {node.lineno}), "
                                    f"whose class cannot be checked against {name}'s MRO")
                    continue
                q = ctx.canonical(target)
                if q not in ctx.new.names:
                    ctx.violate(ID, f"{name}.{fn.name} calls super({ast.unparse(target)}, ...) (line {node.lineno}), "
                                    f"but {ast.unparse(target)} is not in {name}'s MRO after the patch")
            elif (isinstance(f, ast.Attribute) and sn and node.args and isinstance(node.args[0], ast.Name)
                  and node.args[0].id == sn and isinstance(f.value, (ast.Name, ast.Attribute))):
                q = ctx.canonical(f.value)
                if q in ctx.old.names and q not in ctx.new.names:
                    ctx.violate(ID, f"{name}.{fn.name} calls {ast.unparse(f)}({sn}, ...) (line {node.lineno}), "
                                    f"but {ast.unparse(f.value)} is not in {name}'s MRO after the patch")


def _super_members(ctx) -> None:
    """Each ``super().X`` of the class's own methods finds, after the patch, the class it found before."""
    name = ctx.a.cls.name
    before = {fn.name: _super_attrs(fn, name) for fn in ctx.before.node.body if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for fn in ctx.after.node.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name not in before:
            continue
        for line, attr in _super_attrs(fn, name):
            if fn.name == "__init__" == attr or attr not in {x for _, x in before[fn.name]}:
                continue  # the inlined __init__ is DC601's business; code moved from the parent had another start
            (was, before_in), (now, after_in) = _owner(ctx.old, attr), _owner(ctx.new, attr)
            if was in ctx.removed and now != was and not _same_value(before_in, after_in, attr):
                ctx.violate(ID, f"super().{attr} in {name}.{fn.name} (line {line}) found {was.rsplit('.', 1)[-1]}.{attr}; "
                                f"after the patch it finds {now.rsplit('.', 1)[-1] + '.' + attr if now else 'nothing'}")


def _super_attrs(fn, cls: str) -> list[tuple[int, str]]:
    """(line, X) of each ``super().X`` and ``super(cls, ...).X`` in ``fn``."""
    return [(n.lineno, n.attr) for n in walk(fn)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "super" and (not n.value.args or (isinstance(n.value.args[0], ast.Name) and n.value.args[0].id == cls))]


def _owner(mro, attr: str):
    """(name, class) of the class after the first of ``mro`` whose body binds ``attr`` ((None, None): none of the tree's)."""
    for q, c in zip(mro.names[1:], mro.infos[1:]):
        m = c.members.get(attr) if c is not None else None
        if m is not None and m.kind != "instance_attribute":
            return q, c
    return None, None


def _same_value(before, after, attr: str) -> bool:
    """Both bind ``attr`` in their bodies to the same literal expression (``kind = "base"`` twice)."""
    if before is None or after is None:
        return False
    values = [getattr(c.members[attr].node, "value", None) if c.members[attr].kind == "class_attribute" else None for c in (before, after)]
    return None not in values and is_literal(values[0]) and ast.dump(values[0]) == ast.dump(values[1])


def _is_dynamic(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Attribute) and expr.attr == "__class__"
