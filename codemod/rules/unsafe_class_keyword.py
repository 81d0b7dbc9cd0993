"""DC303 class-keyword: refuse when the parent's class statement passes keywords to ``__init_subclass__``.

## What it does
Marks the class unsafe when the parent (or a class between it and the new base) is
declared with a class keyword other than ``metaclass=`` (``class P(B, flag=True)``).

## Why
Those keywords go to an ``__init_subclass__`` somewhere above, which may register or
configure the class; after reparenting the class would no longer pass them.

## Known problems
A keyword that the base ignores is refused all the same.

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

from ..model import ClassAnalysis, Hazard

ID = "DC303"
NAME = "class-keyword"


def check(a: ClassAnalysis) -> None:
    for c in a.chain:
        for k in c.node.keywords:
            if k.arg != "metaclass":
                a.unsafe.append(Hazard(c.file, c.line, f"{c.name} passes class keyword {k.arg}= to __init_subclass__", rule=ID))
