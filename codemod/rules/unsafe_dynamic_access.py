"""DC301 dynamic-self-access: refuse a class whose attributes are reached by computed names.

## What it does
Marks the class unsafe when the class, the parent's ``__init__``, a kept member of the
parent, or any class that stays in the class's MRO after reparenting (the new base and its
ancestors in the tree, the class's other bases) reads or writes ``self`` through a computed
name: ``getattr(self, name)``, ``setattr(self, name, v)``, ``hasattr``/``delattr`` with a
non-literal name, ``vars(self)`` or ``self.__dict__``.

## Why
Which members such code needs cannot be listed: a dropped member could be the one a
computed name reaches at run time. Nothing is guessed.

## Known problems
A literal name (``getattr(self, "x")``) is an ordinary read, not this rule. Classes outside
the tree are not looked at. Reflection on an instance reached through another name
(``obj = self; getattr(obj, name)``) is not seen.

## Fix safety
No patch is written (exit 3); the report lists where the computed access is.
"""

from __future__ import annotations

from ..ast_util import first_param, is_static
from ..facts import collect
from ..model import ClassAnalysis, Hazard

ID = "DC301"
NAME = "dynamic-self-access"


def record(a: ClassAnalysis, file: str, line: int, what: str) -> None:
    a.unsafe.append(Hazard(file, line, what, rule=ID))


def check_staying(st) -> None:
    """Computed access on self in the classes that stay in C's MRO."""
    for c in st.staying_classes():
        for name, fn in c.methods.items():
            sn = first_param(fn) if not is_static(fn) else None
            if sn is None:
                continue
            for line, what in collect(fn, sn).dynamic:
                record(st.a, c.file, line, f"{what} in {c.name}.{name}, which stays in {st.a.cls.name}'s MRO after reparenting")
