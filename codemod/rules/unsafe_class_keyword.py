"""DC303 class-keyword: refuse when the parent's class statement passes keywords to ``__init_subclass__`` or is decorated.

## What it does
Marks the class unsafe when the parent (or a class between it and the new base) is
declared with a class keyword other than ``metaclass=`` (``class P(B, flag=True)``), or with a
class decorator (``@total_ordering``, ``@dataclass``, a registry's ``@register``).

## Why
Those keywords go to an ``__init_subclass__`` somewhere above, which may register or
configure the class; after reparenting the class would no longer pass them. A class decorator
may add or replace members that are not in the parent's source (``total_ordering`` derives
``__gt__``, ``__le__`` and ``__ge__`` from ``__lt__``): the copy into the class has only the
source's, and a comparison that worked raises ``TypeError`` (mutagen's ``APETextValue``, under
``--stress``).

A parent whose only decorator is ``@dataclass`` is left to DC313, which reads what it generates.

## Known problems
A keyword that the base ignores is refused all the same, and so is a decorator that only
records the class and returns it unchanged.

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

import ast

from ..model import ClassAnalysis, Hazard
from . import unsafe_dataclass_parent

ID = "DC303"
NAME = "class-keyword"


def check(a: ClassAnalysis) -> None:
    for c in a.chain:
        for k in c.node.keywords:
            if k.arg != "metaclass":
                a.unsafe.append(Hazard(c.file, c.line, f"{c.name} passes class keyword {k.arg}= to __init_subclass__", rule=ID))
        if c is a.parent and unsafe_dataclass_parent.handles(c):
            continue  # DC313 judges a dataclass parent
        for d in c.node.decorator_list:
            a.unsafe.append(Hazard(c.file, d.lineno, f"{c.name} is decorated with @{ast.unparse(d)}: what the decorator adds to or "
                                   f"changes on {c.name} is not in its source, and a copy into {a.cls.name} would lack it", rule=ID))
