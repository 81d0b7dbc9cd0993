"""DC301 dynamic-self-access: refuse a class whose attributes are reached by computed names.

## What it does
Marks the class unsafe when the class, the parent's ``__init__`` or a kept member of the
parent reads or writes ``self`` through a computed name: ``getattr(self, name)``,
``setattr(self, name, v)``, ``hasattr``/``delattr`` with a non-literal name,
``vars(self)`` or ``self.__dict__``.

## Why
Which members such code needs cannot be listed: a dropped member could be the one a
computed name reaches at run time. Nothing is guessed.

## Known problems
Reflection in the new base or in other classes that stay in the class's MRO is not
looked at. A literal name (``getattr(self, "x")``) is an ordinary read, not this rule.

## Fix safety
No patch is written (exit 3); the report lists where the computed access is.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Hazard

ID = "DC301"
NAME = "dynamic-self-access"


def record(a: ClassAnalysis, file: str, line: int, what: str) -> None:
    a.unsafe.append(Hazard(file, line, what, rule=ID))
