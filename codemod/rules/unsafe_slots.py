"""DC305 slots: refuse when the parent's ``__slots__`` hold attributes of a class with slots of its own.

## What it does
Where the parent (or a class between it and the new base) assigns ``__slots__`` in its class
body: marks the class unsafe when the class assigns ``__slots__`` too; otherwise notes, among
the hazards checked, that the parent's attributes will live in each instance's ``__dict__``.

## Why
The parent's slots are where the class's instances keep the attributes the parent's
``__init__`` stores, and reparenting takes them away. A class with ``__slots__`` of its own
(``__slots__ = ()``) then has no place for them: every store raises ``AttributeError``. A class
without has a ``__dict__`` already, which takes them; only ``vars()``, ``__dict__`` and the
memory an instance takes see the difference. Copying the parent's ``__slots__`` is no answer:
it would take away the ``__dict__`` the class has.

## Known problems
Refused even where the slots would merge cleanly (the parent's names could be added to the
class's); the rewrite does not merge slots.

## Fix safety
No patch is written (exit 3) for a class with slots; otherwise the note is all.
"""

from __future__ import annotations

from ..model import ClassAnalysis, Hazard

ID = "DC305"
NAME = "slots"


def check(a: ClassAnalysis) -> None:
    own = "__slots__" in a.cls.members
    for c in a.chain:
        m = c.members.get("__slots__")
        if m is None:
            continue
        if own:
            what = f"{c.name} defines __slots__, where {a.cls.name}'s instances keep its attributes: after reparenting, {a.cls.name}'s own __slots__ leave no place for them"
            a.unsafe.append(Hazard(c.file, m.line, what, rule=ID))
        else:
            what = f"{c.name}'s __slots__ no longer hold the attributes of {a.cls.name}'s instances: they move into each instance's __dict__ (seen by vars() and __dict__)"
            a.hazards.append(Hazard(c.file, m.line, what, changes_meaning=False, rule=ID))
