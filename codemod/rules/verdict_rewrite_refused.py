"""DC510 rewrite-refused: refuse a class whose rewrite could not be done safely.

## What it does
A class the analysis would decouple is refused (``unsafe``, exit 3) when a rewrite rule
refuses to write its patch; ``refused_by`` names that rule (for example DC601 when the
class forwards ``*args`` to the parent's ``__init__``, DC605 for a name-mangled member).

## Why
A rewrite that cannot bind or copy something exactly would change behaviour.

## Known problems
Every class of the same module is refused together.

## Fix safety
No patch is written for any class of the run.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Refusal, Verdict

ID = "DC510"
NAME = "rewrite-refused"


def judge(a: ClassAnalysis, refusal: Refusal | None) -> Verdict | None:
    if refusal is not None and refusal.stage == "rewrite":
        return Verdict(Decision.UNSAFE, ID, f"the rewrite was refused: {refusal.message}", refusal.rule)
    return None
