"""DC506 no-parent: nothing to do for a class without a parent class in the tree.

## What it does
Declines a class that has no base class at all.

## Why
There is nothing to decouple from. (A base that is named but not found under ROOT is a
usage error instead: exit 2, asking for a ROOT that contains it.)

## Known problems
None known.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC506"
NAME = "no-parent"


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    if a.parent is None:
        return Verdict(Decision.DECLINE, ID, f"nothing to do: {a.cls.name} has no parent class under ROOT")
    return None
