"""DC504 mostly-reused: decline when the class would need most of the parent's method code.

## What it does
Declines when the kept methods and properties of the parent add up to more than half of
the lines of all its methods and properties (the share is ``--max-copied-share``, 0.5 by
default).

## Why
Copying most of a parent into a child duplicates it: the inheritance is real reuse.

## Known problems
A count of lines, not of cost: three copied lines out of five decline even when the
parent's ``__init__`` builds heavy state the class never touches (raise the share for such
a class).

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..ast_util import span
from ..model import ClassAnalysis, Decision, Verdict

ID = "DC504"
NAME = "mostly-reused"


def methods_kept(a: ClassAnalysis) -> list[str]:
    return [n for n in a.kept if a.kind(n) in ("method", "property")]


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    kept = methods_kept(a)
    code = {n: span(m.node) for n, (m, _) in a.members.items() if m.kind in ("method", "property")}
    copied = sum(code[n] for n in kept if n in code)
    share = limits.max_copied_share if limits is not None else 0.5
    if code and copied > share * sum(code.values()):
        return Verdict(Decision.DECLINE, ID, (
            f"{a.cls.name} would need {copied} of {sum(code.values())} lines of {a.parent.name}'s methods "
            f"({', '.join(sorted(kept))}): the parent's logic is really reused"
        ))
    return None
