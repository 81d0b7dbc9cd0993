"""DC507 already-decoupled: nothing to do for a class this tool has already decoupled.

## What it does
A class whose body carries the tool's marker comment (``# decouple: inlined from P.__init__``
or ``# decouple: decoupled from P``) and that no longer inherits ``P`` is declined with
"nothing to do", naming ``P``.

## Why
Running the tool on its own output must change nothing (idempotence).

## Known problems
Relies on the marker comment; a class decoupled by hand is judged like any other.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

import re

from ..model import ClassAnalysis, Decision, Verdict

ID = "DC507"
NAME = "already-decoupled"
MARKER = "decouple: inlined from"


def former_parent(cls) -> str | None:
    """The parent named by the marker comment of a class decoupled before, if any."""
    text = "\n".join(cls.module.lines[cls.node.lineno - 1: cls.node.end_lineno])
    m = re.search(MARKER + r" ([\w.]+)\.__init__", text)
    return m.group(1) if m else None


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    if a.parent is None and a.former:
        return Verdict(Decision.DECLINE, ID, f"nothing to do: {a.cls.name} was already decoupled from {a.former}")
    return None
