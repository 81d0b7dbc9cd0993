"""DC501 decouple: decouple the class, saying how much of the parent it uses.

## What it does
When no other verdict rule applies, the class is decoupled. The reason counts the
members used, the methods copied and the statements of the parent's ``__init__`` kept.

## Why
The class uses little of the parent and skips real work of its ``__init__``.

## Known problems
See the keep rules (DC1xx) for what counts as a use.

## Fix safety
The patch must still pass the rewrite (DC6xx) and the checks; otherwise DC510 or DC511.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Verdict
from .verdict_mostly_reused import methods_kept

ID = "DC501"
NAME = "decouple"


def judge(a: ClassAnalysis, limits=None) -> Verdict:
    r, init = a.reuse, a.init_reuse
    return Verdict(Decision.DECOUPLE, ID, (
        f"{a.cls.name} uses {r['members_used']} of {r['members_total']} members of {a.parent.name}"
        f" ({len(methods_kept(a))} methods) and {init['statements_kept']} of {init['statements_total']} statements of its __init__"
    ))
