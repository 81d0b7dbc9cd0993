"""DC302 attribute-hooks: refuse when the parent hooks attribute access or class creation.

## What it does
Marks the class unsafe when the parent (or a class between it and the new base) defines
``__getattr__``, ``__getattribute__``, ``__setattr__``, ``__delattr__``,
``__init_subclass__`` or ``__new__``; or when a class that stays in the class's MRO (the new
base and its ancestors, the other bases) defines ``__getattr__`` or ``__getattribute__``,
which would answer for a member that is no longer there instead of raising.

## Why
Such a hook decides at run time what an attribute access means, or what building an
instance does, so no static list of used members can be trusted.

## Known problems
A hook that only forwards to ``super()`` is refused all the same.

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

from ..model import ClassAnalysis, Hazard

ID = "DC302"
NAME = "attribute-hooks"
UNSAFE_DUNDERS = {"__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__init_subclass__", "__new__"}


def check(a: ClassAnalysis) -> None:
    for c in a.chain:
        for name in UNSAFE_DUNDERS & set(c.methods):
            fn = c.methods[name]
            a.unsafe.append(Hazard(c.file, fn.lineno, f"{c.name} defines {name}, so attribute access on {a.cls.name} cannot be decided statically", rule=ID))


STAYING_HOOKS = {"__getattr__", "__getattribute__"}


def check_staying(st) -> None:
    a = st.a
    for c in st.staying_classes():
        for name in sorted(STAYING_HOOKS & set(c.methods)):
            a.unsafe.append(Hazard(c.file, c.methods[name].lineno, f"{c.name} defines {name} and stays in {a.cls.name}'s MRO, so a missing member would not raise", rule=ID))
