"""DC505 nothing-to-gain: decline when decoupling would skip no work of the parent.

## What it does
Declines when the class uses every member of the parent and every statement of its
``__init__``, or when the slice keeps every statement of the parent's ``__init__`` (or the
parent has none).

## Why
The change would alter a class hierarchy without saving anything at construction.

## Known problems
A slice that drops only plain assignments still counts as a gain.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC505"
NAME = "nothing-to-gain"


def judge(a: ClassAnalysis) -> Verdict | None:
    init = a.init_reuse
    if len(a.kept) == len(a.members) and init["statements_kept"] == init["statements_total"]:
        return Verdict(Decision.DECLINE, ID, f"nothing to gain: {a.cls.name} uses every member of {a.parent.name}")
    if init["statements_kept"] == init["statements_total"]:
        return Verdict(Decision.DECLINE, ID, (
            f"nothing to gain: {a.cls.name} never runs work of {a.parent.name}.__init__ that it could skip"
            if init["statements_total"] else f"nothing to gain: {a.parent.name} has no __init__ work to skip"
        ))
    return None
