"""DC107 constructor-dispatch: what the class's override reads when the parent's ``__init__`` calls it.

## What it does
When a kept statement of the parent's ``__init__`` calls ``self.m()`` and the class
overrides ``m`` (directly, or in a parent method the call reaches), dynamic dispatch runs
the class's ``m`` while constructing. What that override reads through ``self`` is kept
(even what the class assigns later in its own ``__init__``), and a hazard that does not
change meaning records the dispatch. The slice always keeps a statement whose calls reach
code that stays on the class (its overrides, the new base's methods), so the override still
runs, at the same point.

## Why
The override runs before the class's own ``__init__`` has finished, so it may read the
parent's attributes.

## Known problems
Calls through other names bound to ``self``, or by a name built at run time, are not
followed.

## Fix safety
Keeping is safe; the hazard is informational.
"""

from __future__ import annotations

from ..model import Evidence, Hazard

ID = "DC107"
NAME = "constructor-dispatch"


def run(st, meth: str, lines: list[int], owner) -> None:
    a = st.a
    ev = Evidence(owner.file, lines[0], f"{owner.name}.__init__ calls self.{meth}, which {a.cls.name} overrides (dispatch while constructing)", ID)
    fn = a.cls.methods.get(meth)
    a.hazards.append(Hazard(ev.file, ev.line, ev.use, changes_meaning=False, rule=ID))
    if fn is not None:
        st.scan_method(a.cls, fn, lambda _x: False, f"{a.cls.name}.{meth} (called while constructing)", ID)
