"""DC503 type-check: decline when a type check would change meaning after reparenting.

## What it does
Declines when any hazard that changes meaning was found (DC201-DC209), naming the first.

## Why
Code elsewhere relies on the class being a ``P``; the refactor would silently change what
it does.

## Known problems
See DC201-DC209 for what is and is not recognised as a type check.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC503"
NAME = "type-check"


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    meaning = [h for h in a.hazards if h.changes_meaning]
    if not meaning:
        return None
    h = meaning[0]
    return Verdict(Decision.DECLINE, ID, f"a type check would change meaning: {h.what} ({h.file}:{h.line})")
