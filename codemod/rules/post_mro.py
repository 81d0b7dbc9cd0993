"""DC701 post-mro: refuse a patch that takes from the class's MRO more than the parent and its chain.

## What it does
Computes the class's MRO before and after the patch (CPython's own C3, over one stand-in
class per class of the tree and one leaf per class outside it) and refuses the patch when a
class of the old MRO other than the parent and the classes up to the new base is missing
from the new one, when the classes that stay are in another order, when a class comes in
that was not there, or when the new bases give no consistent MRO.

## Why
Reparenting must take away only what the analysis decided on. A parent with two bases
(``class P(Mixin, BaseNode)``) reparented onto its first base alone loses ``BaseNode`` and
its ``__init__``; the MRO shows it whatever the analysis thought.

## Known problems
Classes outside the tree are leaves: an ancestry that runs through one of them is not
seen. A class the tree defines twice under one name resolves to one of them.

## Fix safety
A post-condition: no patch is written (exit 3) when it fails.
"""

from __future__ import annotations

ID = "DC701"
NAME = "post-mro"


def check(ctx) -> None:
    name = ctx.a.cls.name
    if ctx.old.error:
        ctx.violate(ID, f"the MRO of {name} cannot be computed before the patch: {ctx.old.error}")
        return
    if ctx.new.error:
        ctx.violate(ID, f"the patched bases of {name} give no consistent MRO: {ctx.new.error}")
        return
    expected = [n for n in ctx.old.names[1:] if n not in ctx.removed]
    now = ctx.new.names[1:]
    missing = [n for n in expected if n not in now]
    added = [n for n in now if n not in ctx.old.names]
    if missing:
        ctx.violate(ID, f"the patch takes {', '.join(_short(n) for n in missing)} out of {name}'s MRO")
    elif added:
        ctx.violate(ID, f"the patch brings {', '.join(_short(n) for n in added)} into {name}'s MRO")
    elif [n for n in now if n in expected] != expected:
        ctx.violate(ID, f"the patch changes the order of {name}'s MRO: {' -> '.join(map(_short, now))}")


def _short(q: str) -> str:
    return q.rsplit(".", 1)[-1]
