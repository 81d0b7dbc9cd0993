"""DC704 post-mro-walk: refuse a patch where code that runs on the class walks its MRO and the patch takes a class defining members out of it.

## What it does
Refuses the patch when the patched class's body, or a method of a class of the tree that stays
in its MRO, reads ``__mro__``, ``__bases__``, calls ``.mro()`` or ``inspect.getmro``, while a class
the patch takes out of the MRO (the parent, and the classes up to the new base) defines
members of its own.

## Why
A walk over the MRO reads what each class defines: Django-style ``__init__`` code merges
``default_error_messages`` over ``reversed(self.__class__.__mro__)``. With the parent gone, the
walk no longer sees the parent's class attributes, and a lookup of one of its keys fails.
Copying the attribute onto the class is no answer when the class defines its own.

## Known problems
Refuses even a walk that reads nothing the parent defines (a walk that only prints class
names). Metaclasses that walk the MRO are DC301's; code outside the MRO that walks an
instance's MRO is the type-test rules'.

## Fix safety
A post-condition: no patch is written (exit 3) when it fails.
"""

from __future__ import annotations

import ast

from ..ast_util import walk

ID = "DC704"
NAME = "post-mro-walk"


def walks_mro(node: ast.AST) -> int | None:
    """The line of the first MRO walk under ``node``, else None."""
    for n in walk(node):
        if isinstance(n, ast.Attribute) and n.attr in ("__mro__", "__bases__"):
            return n.lineno
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("mro", "getmro"):
            return n.lineno
    return None


def check(ctx) -> None:
    gone = [c for c in ctx.a.chain if any(m.kind != "instance_attribute" for m in c.members.values())]
    if not gone:
        return
    for info in [ctx.after] + [c for c in ctx.new.infos[1:] if c is not None]:
        line = walks_mro(info.node)
        if line is not None:
            where = "its own code" if info is ctx.after else f"{info.name}'s code"
            ctx.violate(ID, f"{ctx.a.cls.name}'s MRO is walked by {where} ({info.file}:{line}) and the patch takes "
                            f"{', '.join(c.name for c in gone)}, which defines members, out of it")
            return
