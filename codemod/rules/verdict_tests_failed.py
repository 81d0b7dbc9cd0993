"""DC512 tests-failed: refuse the patch when the project's own tests break on it (``--test CMD``).

## What it does
With ``--test CMD``, CMD runs on throw-away copies of ROOT: twice unpatched, once patched
(``codemod/gate.py``). When a test that passed in both unpatched runs fails, or no longer
runs, on the patched copy (or a test that did not exist before fails there, such as a module
that no longer imports, or the command fails with no test to blame), every class the run
would decouple is refused (``unsafe``, exit 3); the reason names the first such test and its
first error line, stderr and ``report.md`` name each.

## Why
The analysis is static: a class looked up by a computed name, or a member reached by
``getattr`` with a string built at run time, is invisible to it and visible to a test.

## Known problems
The tests prove only what they exercise. A flaky test (its outcome differs between the two
unpatched runs) and a test that failed before the patch weigh neither way. The whole patch
is judged at once, so one class's breakage refuses every class of the run.

## Fix safety
No patch is written for any class of the run; ``--write`` writes nothing.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Decision, Refusal, Verdict

ID = "DC512"
NAME = "tests-failed"


def judge(a: ClassAnalysis, refusal: Refusal | None) -> Verdict | None:
    if refusal is not None and refusal.stage == "tests":
        return Verdict(Decision.UNSAFE, ID, f"the project's tests fail on the patch: {refusal.message}", refusal.rule)
    return None


def refusal(broken: list[dict]) -> Refusal:
    """The refusal that the broken tests (``gate.judge``'s ``broken``) make of every decoupled class."""
    first = broken[0]
    more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
    return Refusal(ID, f"{first['test']} passed before the patch and not after it" + (f": {first['error']}" if first["error"] else "") + more, "tests")
