"""DC501 decouple: decouple the class, saying how much of the parent it uses.

## What it does
When no other verdict rule applies, the class is decoupled. The reason counts the
members used, the methods copied and the statements of the parent's ``__init__`` kept.
report.json gives the same counts as ``figures``: ``members_used``, ``members_total``,
``methods_copied``, ``statements_kept``, ``statements_total``.

## Why
The class uses little of the parent and skips real work of its ``__init__``.

## Known problems
See the keep rules (DC1xx) for what counts as a use.

## Fix safety
The patch must still pass the rewrite (DC6xx) and the checks; otherwise DC510 or DC511.
"""

from __future__ import annotations

from ..console import counted
from ..model import ClassAnalysis, Decision, Verdict
from .verdict_mostly_reused import methods_kept

ID = "DC501"
NAME = "decouple"


def judge(a: ClassAnalysis, limits=None) -> Verdict:
    r, init = a.reuse, a.init_reuse
    methods = len(methods_kept(a))
    # The class's name leads every line that shows this reason: the reason does not repeat it.
    return Verdict(Decision.DECOUPLE, ID, (
        f"uses {r['members_used']} of {counted(r['members_total'], 'member')} of {a.parent.name}"
        f" ({counted(methods, 'method')}) and {init['statements_kept']} of "
        f"{counted(init['statements_total'], 'statement')} of its __init__"
    ), figures={"members_used": r["members_used"], "members_total": r["members_total"], "methods_copied": methods,
                "statements_kept": init["statements_kept"], "statements_total": init["statements_total"]})
