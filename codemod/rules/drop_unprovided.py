"""DC152 unprovided-attribute: drop an attribute that only code which never runs on the class assigns.

## What it does
A kept instance attribute whose every assignment in the parent sits in methods that never
run on the class is dropped, with a hazard (not changing meaning) saying so. Methods that do
run: the parent's ``__init__`` (when it still runs on the class) and the parent's methods it
reaches through ``self`` calls (unless the class overrides them), and every kept method.

## Why
Inlining or copying nothing would give the class the attribute: before the change it did
not have it either, unless one of those methods ran.

The hazard's sentence speaks of the patched tree: where the class assigns the attribute in
its own code too, it names those places rather than saying that only the parent's methods do.

## Known problems
A method that is called from outside the tree, or from the class's own methods only
through a name built at run time, is taken not to run: this can be wrong.

## Fix safety
Safe under the assumption above; the hazard makes it visible.
"""

from __future__ import annotations

from ..model import Hazard

ID = "DC152"
NAME = "unprovided-attribute"


def run(st) -> None:
    from ..slice import init_providers

    a = st.a
    at_construction = init_providers(st) if st.init_runs else set()
    for name in list(a.kept):
        m, owner = a.members[name]
        if m.kind != "instance_attribute":
            continue
        providers = {meth for meth, _ in m.assigned_in}
        runs = bool(providers & at_construction) or any(
            p in a.kept or (p in a.members and a.members[p][0].kind in ("method", "property") and p in a.kept) for p in providers
        )
        if not runs:
            del a.kept[name]
            a.hazards.append(Hazard(owner.file, m.line, _why(a, name, owner, providers), changes_meaning=False, rule=ID))


def _why(a, name: str, owner, providers: set[str]) -> str:
    """The hazard's sentence, true of the patched tree: where the class assigns the attribute in
    its own code (which the patch keeps), it says so, instead of "only" the parent's methods."""
    theirs = "/".join(f"{owner.name}.{p}" for p in sorted(providers))
    own = a.cls.members.get(name)
    places = sorted(own.assigned_in) if own is not None else []
    if places:
        where = ", ".join(f"`{a.cls.file}:{line}` in {meth}" for meth, line in places)
        return (f"{a.cls.name} assigns self.{name} in its own code ({where}); {theirs}, which also does, "
                f"never runs on {a.cls.name}: nothing to inline")
    return f"{a.cls.name} reads self.{name}, but only {theirs} assigns it, which never runs on {a.cls.name}: nothing to inline"
