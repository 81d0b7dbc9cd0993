"""DC504 mostly-reused: decline when the class would need most of the parent's method code.

## What it does
Declines when the kept methods and properties of the parent add up to more than half of
the lines of all its methods and properties (the share is ``--max-copied-share``, 0.5 by
default), unless the copy is small and the class skips real work: at most
``SMALL_COPY_METHODS`` (3) methods and properties of at most ``SMALL_COPY_LINES`` (25) lines
together, while the statements of the parent's ``__init__`` it no longer runs do real work: a
loop, a comprehension, an allocation such as ``[0] * n``, or a call other than a cheap builtin's
(DC505's test), or a loop is fused away (DC603). ``--max-copied-share`` overrides both ways: a
share of 1 never declines, and a share below the default turns the small-copy allowance off.
A decline gives report.json the ``figures`` it compared: ``copied_lines``,
``method_lines_total``, ``share``, ``max_copied_share``, ``methods_copied`` (and ``methods``),
``small_copy_methods``, ``small_copy_lines`` and ``skips_real_work``.

## Why
Copying most of a parent into a child duplicates it: the inheritance is real reuse. A share
alone misjudges a parent whose ``__init__`` builds tables, buffers or per-step backends and
whose methods are tiny: a one-line ``label()`` or a 3-line rounding helper is "all of its
method lines", yet copying it costs nothing beside the work every instance stops paying for.

## Known problems
Lines are counted, not cost: a 25-line copy of dense logic passes as small. The work skipped
is judged by kind, as DC505 judges it, not measured: one dropped call to a cheap function
counts.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

from ..ast_util import span
from ..model import ClassAnalysis, Decision, Verdict
from .verdict_nothing_to_gain import dropped_statements, real_work

ID = "DC504"
NAME = "mostly-reused"


def methods_kept(a: ClassAnalysis) -> list[str]:
    return [n for n in a.kept if a.kind(n) in ("method", "property")]


DEFAULT_SHARE = 0.5
SMALL_COPY_METHODS = 3
SMALL_COPY_LINES = 25


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    kept = methods_kept(a)
    code = {n: span(m.node) for n, (m, _) in a.members.items() if m.kind in ("method", "property")}
    copied = sum(code[n] for n in kept if n in code)
    share = limits.max_copied_share if limits is not None else DEFAULT_SHARE
    if not code or copied <= share * sum(code.values()):
        return None
    work = bool(a.fusions) or any(real_work(st) for st in dropped_statements(a))
    strict = share < DEFAULT_SHARE  # a user who lowers the share asks for the strict rule
    if work and not strict and len(kept) <= SMALL_COPY_METHODS and copied <= SMALL_COPY_LINES:
        return None  # a few small methods against real construction work: decouple
    total = sum(code.values())
    return Verdict(Decision.DECLINE, ID, (
        f"{a.cls.name} would need {copied} of {total} lines of {a.parent.name}'s methods "
        f"({', '.join(sorted(kept))}): the parent's logic is really reused"
        + ("" if work else f"; the copy is small, but {a.cls.name} would skip no allocation, construction or call")
    ), figures={"copied_lines": copied, "method_lines_total": total, "share": round(copied / total, 3),
                "max_copied_share": share, "methods_copied": len(kept), "methods": sorted(kept),
                "small_copy_methods": SMALL_COPY_METHODS, "small_copy_lines": SMALL_COPY_LINES,
                "skips_real_work": work})
