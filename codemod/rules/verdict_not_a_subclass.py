"""DC508 not-a-subclass: nothing to do when the class does not inherit the given parent.

## What it does
With a parent ``P`` given, a class that does not have ``P`` among its bases is declined,
naming what it inherits instead. The command line stops before this: ``--class C --parent P``
where ``C`` does not inherit ``P`` is bad input, exit 2 (``pipeline.given_parent``), unless
``C`` is this tool's output decoupled from ``P`` (DC507). The verdict is what a caller of the
analysis itself gets.

## Why
There is no inheritance to remove.

## Known problems
Only direct bases count: a grandchild of ``P`` is declined here, and is exit 2 on the command line.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC508"
NAME = "not-a-subclass"


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    if a.parent is not None and not a.inherits:
        bases = ", ".join(b.rsplit(".", 1)[-1] for b in a.cls.bases) or "object"
        return Verdict(Decision.DECLINE, ID, f"nothing to do: {a.cls.name} does not inherit {a.parent.name} (it already inherits {bases})")
    return None
