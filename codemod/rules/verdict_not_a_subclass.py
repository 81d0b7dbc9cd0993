"""DC508 not-a-subclass: nothing to do when the class does not inherit the given parent.

## What it does
With ``--parent P``, a class that does not have ``P`` among its bases is declined,
naming what it inherits instead.

## Why
There is no inheritance to remove.

## Known problems
Reported as a decline with exit 0, also under ``--check``.

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
