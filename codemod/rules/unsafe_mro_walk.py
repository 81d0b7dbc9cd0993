"""DC310 mro-walk: refuse a class whose code, or code that stays on it, walks its MRO.

## What it does
Marks the class unsafe when code that runs on it after reparenting reads ``__mro__`` or
``__bases__``, or calls ``.mro()`` or ``inspect.getmro``: the class's own methods, the parent's
``__init__`` when it runs on the class, the parent's members the class keeps, and the methods of
the classes that stay in its MRO (the new base and its ancestors, the class's other bases),
while the parent (or a class up to the new base) defines class-level members.

## Why
A walk over the MRO reads what each class defines. Django-style ``__init__`` code merges
``default_error_messages`` over ``reversed(self.__class__.__mro__)``, so that every subclass adds
messages: with the parent out of the MRO, the parent's messages are gone and a lookup of one of
its keys raises ``KeyError``. Copying the parent's attribute onto the class does not help when
the class defines one of its own, which is the point of such a walk.

## Known problems
Refuses walks that read nothing the parent defines (a walk that only prints class names).
A walk in code outside the class's MRO that reaches an instance is the type-test rules'
business; metaclasses that walk the MRO are DC301's. DC704 checks the same on the patched text.

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

from ..model import Hazard
from .post_mro_walk import walks_mro

ID = "DC310"
NAME = "mro-walk"


def check(st) -> None:
    a = st.a
    if not any(m.kind != "instance_attribute" for c in a.chain for m in c.members.values()):
        return
    places = [(a.cls, fn) for fn in a.cls.methods.values()]
    if st.init_runs and a.parent_init is not None:
        places.append((a.parent_init_owner, a.parent_init))
    places += [(owner, m.node) for name, (m, owner) in a.members.items() if name in a.kept and m.node is not None]
    places += [(c, fn) for c in st.staying_classes() for fn in c.methods.values()]
    for owner, node in places:
        line = walks_mro(node)
        if line is not None:
            a.unsafe.append(Hazard(owner.file, line, f"{owner.name}'s code walks the MRO of {a.cls.name}, which would no longer "
                                                     f"see the class-level members of {', '.join(c.name for c in a.chain)}", rule=ID))
            return
