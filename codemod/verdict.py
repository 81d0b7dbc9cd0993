"""The verdict on each class, decided in one place: decouple, decline or unsafe, with the rule that decided.

The analysis rules are tried in order and the first that applies decides. A refusal by
the rewrite or the check stage, or by the project's tests (``--test``), is an input: it
turns what would be decoupled into unsafe.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import ClassAnalysis, Decision, Refusal, Verdict
from .rules import (
    verdict_already_decoupled, verdict_check_failed, verdict_decouple, verdict_mostly_reused, verdict_no_parent,
    verdict_not_a_subclass, verdict_nothing_to_gain, verdict_rewrite_refused, verdict_super_fallback, verdict_tests_failed,
    verdict_type_check, verdict_unsafe,
)

# Tried in this order; the first that applies decides.
ANALYSIS_RULES = (
    verdict_already_decoupled, verdict_no_parent, verdict_not_a_subclass, verdict_unsafe, verdict_super_fallback,
    verdict_type_check, verdict_mostly_reused, verdict_nothing_to_gain,
)
REFUSAL_RULES = (verdict_rewrite_refused, verdict_check_failed, verdict_tests_failed)


@dataclass(frozen=True)
class Limits:
    """The thresholds of the verdict rules (``--max-copied-share``, ``--plain-gain``, ``--any-gain``)."""

    max_copied_share: float = 0.5
    plain_gain: bool = False
    any_gain: bool = False

    @classmethod
    def of(cls, options) -> "Limits":
        return cls(options.max_copied_share, options.plain_gain, options.any_gain)


def decide(a: ClassAnalysis, refusal: Refusal | None = None, limits: Limits = Limits()) -> Verdict:
    for rule in ANALYSIS_RULES:
        v = rule.judge(a, limits)
        if v is not None:
            return v
    for rule in REFUSAL_RULES:
        v = rule.judge(a, refusal)
        if v is not None:
            return v
    return verdict_decouple.judge(a)


def would_decouple(a: ClassAnalysis, limits: Limits = Limits()) -> bool:
    """The verdict before any rewrite: what the rewrite stage is asked to patch."""
    return decide(a, None, limits).decision == Decision.DECOUPLE
