"""DC502 super-fallback: decline when the class falls back to the parent's code through ``super()``.

## What it does
Declines when a ``super().m()`` in the class resolves to a method of the parent (DC102).
The reason names the decisive fallback: the one whose target reads the most of what the
parent's ``__init__`` constructs or allocates (the first in source order among equals), and
that state, then the other methods whose fallbacks need such state.

## Why
The parent's logic is really reused at run time; inlining it would copy the parent.

## Known problems
Where every fallback's target needs nothing the parent constructs and can be copied under a
private name (DC609), the class is not declined here. State that the target builds lazily
(in another method) does not count as constructed.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict
from . import rewrite_super_fallback

ID = "DC502"
NAME = "super-fallback"


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    reach = rewrite_super_fallback.reaching(a)
    if not reach or rewrite_super_fallback.copied(a):
        return None
    s = max(reach, key=lambda c: len(c.needs_dropped))  # max keeps the first among equals
    needs = ""
    if s.needs_dropped:
        shown = ", ".join(s.needs_dropped[:4]) + (f" and {len(s.needs_dropped) - 4} more" if len(s.needs_dropped) > 4 else "")
        needs = f", which needs {shown}, built by {a.parent.name}.__init__"
    others = sorted({c.in_method for c in reach if c.needs_dropped and c.in_method != s.in_method})
    also = f" (and {', '.join(others)} fall back to state it builds too)" if others else ""
    if not s.needs_dropped:  # cheap, yet not copied: say what stopped DC609
        s = next(c for c in reach if rewrite_super_fallback.why_not(a, c) is not None)
        needs = f", which cannot be copied under a private name ({rewrite_super_fallback.why_not(a, s)})"
    return Verdict(Decision.DECLINE, ID, (
        f"{a.cls.name}.{s.in_method} falls back to {s.resolves_to} through super() at run time "
        f"({s.file}:{s.line}){needs}, so {a.parent.name} really is reused{also}"
    ))
