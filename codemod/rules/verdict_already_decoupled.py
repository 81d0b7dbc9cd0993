"""DC507 already-decoupled: nothing to do for a class this tool has already decoupled.

## What it does
A class whose body carries the tool's marker comment (``# decouple: inlined from P.__init__``
or ``# decouple: decoupled from P`` on the class line) and that no longer inherits ``P`` is
declined as "already decoupled from P: nothing to do"; so is, under ``--no-markers`` (a patch
that leaves no trace), a class that ``--parent P`` names and that has ``P`` nowhere in its MRO.
``--parent P`` without ``--class`` selects, beside ``P``'s subclasses, every class whose marker
says it was decoupled from ``P``, each "already decoupled"; under ``--no-markers`` a tree where
no subclass of ``P`` is left has nothing to do (exit 0, one line saying so).

## Why
Running the tool on its own output must change nothing (idempotence).

## Known problems
Without ``--parent``, relies on the marker comment: a class decoupled by hand or with
``--no-markers`` is judged against its new first base like any other. With ``--parent P`` and
``--no-markers``, a class that never inherited ``P`` also reads "already decoupled from P"
(either way it has nothing of ``P`` to shed); without ``--no-markers`` that is a usage error,
and so is ``--parent P`` alone where neither a subclass of ``P`` nor a marker naming it is left.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

import re

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC507"
NAME = "already-decoupled"
MARKER = "decouple: inlined from"
# Either marker a patch leaves: the inlined __init__, or, when nothing was inlined, the class line.
_MARKERS = re.compile(r"decouple: (?:inlined from ([\w.]+)\.__init__\b|decoupled from ([\w.]+))")


def former_parent(cls) -> str | None:
    """The parent named by the marker comment of a class decoupled before, if any."""
    text = "\n".join(cls.module.lines[cls.node.lineno - 1: cls.node.end_lineno])
    m = _MARKERS.search(text)
    return (m.group(1) or m.group(2)) if m else None


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    if a.parent is None and a.former:
        why = "its marker comment" if former_parent(a.cls) == a.former else f"no class of its MRO is {a.former}"
        return Verdict(Decision.DECLINE, ID, f"already decoupled from {a.former} ({why}): nothing to do")
    return None
