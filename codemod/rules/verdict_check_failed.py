"""DC511 check-failed: refuse a class whose patched file fails the checks.

## What it does
Every patched file must compile and add no pyflakes finding of the watched kinds
(undefined names, unused imports, redefinitions, ...; ``codemod/check.py``). A class whose
module fails is refused (``unsafe``, exit 3), with the finding as the reason.

## Why
A patch that does not compile, or leaves a name undefined, is broken.

## Known problems
The checks are static: a patch that passes them can still change behaviour.

## Fix safety
No patch is written for any class of the run.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Refusal, Verdict

ID = "DC511"
NAME = "check-failed"


def judge(a: ClassAnalysis, refusal: Refusal | None) -> Verdict | None:
    if refusal is not None and refusal.stage == "check":
        return Verdict(Decision.UNSAFE, ID, f"the patched file failed the checks: {refusal.message}", refusal.rule)
    return None
