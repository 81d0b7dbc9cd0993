"""DC509 cannot-decide: refuse a class whose uses cannot be decided statically.

## What it does
A class with any hazard of the DC3xx rules (computed attribute access, attribute hooks,
class keywords) is refused: ``unsafe``, exit 3, no patch. The reason names the first
three, with ``file:line``.

## Why
Nothing is guessed: a patch that might drop a member reached dynamically is worse than
no patch.

## Known problems
See each DC3xx rule.

## Fix safety
No patch is written for any class of the run (all or nothing).
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC509"
NAME = "cannot-decide"


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    if a.unsafe:
        return Verdict(Decision.UNSAFE, ID, "cannot be decided statically: " + "; ".join(f"{h.what} ({h.file}:{h.line})" for h in a.unsafe[:3]))
    return None
