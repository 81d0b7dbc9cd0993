"""DC105 init-slice-reads: keep what the kept statements of the parent's ``__init__`` read or call.

## What it does
The slice of the parent's ``__init__`` (``codemod/slice.py``) keeps the statements that
define the attributes the class needs. Every parent member those statements read
through ``self``, or call as ``self.m()``, is kept too (unless the class defines it
itself: a method the class overrides is rule DC107's).

## Why
An inlined statement that reads ``self.X`` needs ``X``.

## Known problems
Reads through other names bound to ``self`` are not seen.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

from ..model import Evidence

ID = "DC105"
NAME = "init-slice-reads"


def reads(st, res, init, owner) -> None:
    a = st.a
    for attr, lines in sorted(res.reads_attrs.items()):
        if attr in a.members and not (attr in st.child_defines and a.members[attr][0].kind != "instance_attribute"):
            line = lines[0] if lines else init.lineno
            st.need(attr, Evidence(owner.file, line, f"read by kept statement of {owner.name}.__init__", ID))


def call(st, meth: str, lines: list[int], owner) -> None:
    st.need(meth, Evidence(owner.file, lines[0], f"called by kept statement of {owner.name}.__init__", ID))
