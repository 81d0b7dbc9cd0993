"""DC502 super-fallback: decline when the class falls back to the parent's code through ``super()``.

## What it does
Declines when a ``super().m()`` in the class resolves to a method of the parent (DC102),
naming the first such call.

## Why
The parent's logic is really reused at run time; inlining it would copy the parent.

## Known problems
The first call found is named, not necessarily the one that matters most. A fallback
whose target needs nothing that is dropped still declines.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC502"
NAME = "super-fallback"


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    reach = [s for s in a.super_calls if s.reaches_parent]
    if not reach:
        return None
    s = reach[0]
    return Verdict(Decision.DECLINE, ID, (
        f"{a.cls.name}.{s.in_method} falls back to {s.resolves_to} through super() at run time "
        f"({s.file}:{s.line}), so {a.parent.name} really is reused"
    ))
