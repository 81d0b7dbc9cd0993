"""DC105 init-slice-reads: keep what the kept statements of the parent's ``__init__`` read or call.

## What it does
The slice of the parent's ``__init__`` (``codemod/slice.py``) keeps the statements that
define the attributes the class needs. Every parent member those statements read
through ``self``, or call as ``self.m()``, is kept too (unless the class defines it
itself: a method the class overrides is rule DC107's).

The evidence is the line of the kept statement that reads it, or that calls the method
which reads it. An attribute the class already keeps for another reason, which the kept
statements define only on some paths (``if not self.skip_prefill: self.qo_indptr = ...``),
gets no evidence of its own: its reader is the evidence that keeps it, never the ``def`` line.

## Why
An inlined statement that reads ``self.X`` needs ``X``.

## Known problems
Reads through other names bound to ``self`` are not seen.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

from ..ast_util import naming_line
from ..model import Evidence

ID = "DC105"
NAME = "init-slice-reads"


def reads(st, res, init, owner) -> None:
    a = st.a
    for attr, lines in sorted(res.reads_attrs.items()):
        if attr not in a.members or (attr in st.child_defines and a.members[attr][0].kind != "instance_attribute"):
            continue
        if lines:
            st.need(attr, Evidence(owner.file, lines[0], f"read by kept statement of {owner.name}.__init__", ID))
        elif res.read_by_call.get(attr):
            st.need(attr, Evidence(owner.file, res.read_by_call[attr][0],
                                   f"read by a method that a kept statement of {owner.name}.__init__ calls", ID))
        elif attr not in a.kept:
            # Needed before any kept statement defines it, and no line reads it: the first line
            # that names it is the closest to a reader there is (the ``def`` line reads nothing).
            st.need(attr, Evidence(owner.file, naming_line(init, attr), f"needed by kept statements of {owner.name}.__init__", ID))
        # An attribute already kept that the slice defines only on some paths has its reader in
        # the evidence that keeps it; the slice adds no reader of its own.


def call(st, meth: str, lines: list[int], owner) -> None:
    st.need(meth, Evidence(owner.file, lines[0], f"called by kept statement of {owner.name}.__init__", ID))
