"""DC152 unprovided-attribute: drop an attribute that only code which never runs on the class assigns.

## What it does
A kept instance attribute whose every assignment in the parent sits in methods that never
run on the class (not ``__init__`` when the parent's ``__init__`` no longer runs, and no
kept method) is dropped, with a hazard (not changing meaning) saying so.

## Why
Inlining or copying nothing would give the class the attribute: before the change it did
not have it either, unless one of those methods ran.

## Known problems
A method that is called from outside the tree, or by dynamic dispatch from the parent's
``__init__`` through a call the slice dropped, is taken not to run: this can be wrong.

## Fix safety
Safe under the assumption above; the hazard makes it visible.
"""

from __future__ import annotations

from ..model import Hazard

ID = "DC152"
NAME = "unprovided-attribute"


def run(st) -> None:
    a = st.a
    for name in list(a.kept):
        m, owner = a.members[name]
        if m.kind != "instance_attribute":
            continue
        providers = {meth for meth, _ in m.assigned_in}
        runs = ("__init__" in providers and st.init_runs) or any(
            p in a.kept or (p in a.members and a.members[p][0].kind in ("method", "property") and p in a.kept) for p in providers
        )
        if not runs:
            del a.kept[name]
            a.hazards.append(Hazard(owner.file, m.line, f"{a.cls.name} reads self.{name}, but only {owner.name}.{'/'.join(sorted(providers))} assigns it, which never runs on {a.cls.name}: nothing to inline", changes_meaning=False, rule=ID))
