"""DC109 base-hooks: keep the parent's methods that code staying in the class's MRO may call.

## What it does
After reparenting, the classes that stay in the class's MRO (the new base and its
ancestors, the class's other bases) still run their own code on the instance, and that code
may call methods the parent defined. Kept, unless the class overrides them:

* every method or property of the parent that implements an abstract method
  (``@abstractmethod``) of a staying class in the tree: without it the class could not be
  instantiated;
* every method and property of the parent when a staying class is outside the tree (other
  than ``object``): its code cannot be read, so any of them may be a hook it calls
  (``string.Formatter.vformat`` calls ``self.get_field``, ``threading.Thread.start`` calls
  ``self.run``).

Calls from staying classes inside the tree are found like any other use (DC108: ``self.m()``
in the new base's methods is a use on a receiver that may be the class).

## Why
Dropping such a method silently swaps the parent's behaviour for the base's.

## Known problems
For a base outside the tree every parent method counts, so such classes usually decline
(DC504). Builtin bases (``object``, ``Exception``, ``dict``...) are taken to call only special
methods (DC104).

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

from ..ast_util import decorator_name
from ..model import Evidence

ID = "DC109"
NAME = "base-hooks"


def run(st) -> None:
    a, index = st.a, st.index
    outside = sorted(r for r in st.staying_roots() if not r.startswith("builtins.") and index.resolve_class(r) is None)
    abstract: dict[str, str] = {}
    for c in st.staying_classes():
        for name, fn in c.methods.items():
            if any(decorator_name(d).rsplit(".", 1)[-1].startswith("abstract") for d in fn.decorator_list):
                abstract.setdefault(name, f"{c.name}.{name}")
    for name, (m, owner) in a.members.items():
        if m.kind not in ("method", "property") or name in st.child_defines:
            continue
        if name in abstract:
            st.need(name, Evidence(owner.file, m.line, f"implements the abstract {abstract[name]}, which stays in {a.cls.name}'s MRO", ID))
        elif outside:
            st.need(name, Evidence(owner.file, m.line, f"{outside[0].rsplit('.', 1)[-1]} stays in {a.cls.name}'s MRO and is outside the tree: its code may call self.{name}", ID))
