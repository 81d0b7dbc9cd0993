"""DC102 super-call-target: keep the parent member that a ``super().m()`` or ``super().X`` in the class reaches.

## What it does
For every ``super().m(...)`` in the class's methods (other than ``super().__init__`` in
``__init__``, which the inline rule handles), records where the call resolves after
reparenting. A ``super().X`` or ``super(C, self).X`` read as a value (a property, a class
attribute, a bound method) of the parent is kept and recorded the same way, as the class's own use. When ``m`` is defined by the parent (or a class between it and the new
base), ``m`` is kept and the call is recorded as reaching the parent, with what the target reads that the parent's
``__init__`` constructs or allocates (the state the verdict weighs, DC502).

## Why
Such a call runs the parent's code at run time. The verdict rule DC502 then declines:
the parent's logic is really reused.

## Known problems
``super(C, self).m()`` is treated like ``super().m()``; a ``super()`` object stored in a
variable and used later is not seen. A read through ``super(Other, self)`` is not kept here
(DC702 refuses a patch where such a call names a class the class no longer has).

## Fix safety
Keeping is safe; the verdict declines before anything is rewritten.
"""

from __future__ import annotations

from ..ast_util import first_param
from ..facts import collect
from ..model import Evidence, SuperCall

ID = "DC102"
NAME = "super-call-target"


def run(st) -> None:
    a, cls = st.a, st.a.cls
    for name, fn in cls.methods.items():
        sn = first_param(fn)
        f = collect(fn, sn)
        for line, attr, named in f.super_reads:
            if named in (None, cls.name):  # super(Other, self) skips classes; DC702 checks what it names
                _read(st, name, line, attr)
        for line, meth in f.super_calls:
            if name == "__init__" and meth == "__init__":
                continue
            owner = next((c for c in a.chain if meth in c.methods), None)
            if owner is not None:
                res, reaches = f"{owner.name}.{meth}", True
                needs = sorted(st.reads_of_parent_method(owner, meth) & st.built_by_parent_init())
                st.super_reached.add(meth)
                st.need(meth, Evidence(cls.file, line, f"super().{meth}() in {cls.name}.{name} runs {owner.name}.{meth} at run time", ID))
            else:
                b = st.base_member(meth)
                res, reaches = (f"{b[1].name}.{meth}" if b else f"{a.base.rsplit('.', 1)[-1]}.{meth}"), False
                needs = []
            a.super_calls.append(SuperCall(cls.file, line, meth, name, res, reaches, needs))


def _read(st, in_method: str, line: int, attr: str) -> None:
    """``super().X`` read as a value: what it finds in the parent must stay reachable by it."""
    a, cls = st.a, st.a.cls
    owner = next((c for c in a.chain if attr in c.members and c.members[attr].kind != "instance_attribute"), None)
    if owner is None:
        return  # the new base's, or nothing of the tree (super() never sees the instance's own attributes)
    kind = owner.members[attr].kind
    needs = sorted(st.reads_of_parent_method(owner, attr) & st.built_by_parent_init()) if kind != "class_attribute" else []
    st.super_reached.add(attr)
    st.need(attr, Evidence(cls.file, line, f"super().{attr} in {cls.name}.{in_method} reads {owner.name}.{attr} ({kind.replace('_', ' ')}) at run time", ID))
    a.super_calls.append(SuperCall(cls.file, line, attr, in_method, f"{owner.name}.{attr}", True, needs, read=True))
