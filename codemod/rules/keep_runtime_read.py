"""DC120 keep-runtime-read: keep a parent member that the project's tests read on an instance of the class at run time (``--trace CMD``).

## What it does
With ``--trace CMD``, CMD runs once on a throw-away copy of ROOT with the class instrumented
(``codemod/runtime_trace/``): every read, write or delete of one of the parent's member names
on an instance of the class or of its subclasses is recorded with the caller's ``file:line``
and the test running. Once the static search of the tree is done, each member that the run
read (or deleted, or wrote through a property's setter) and that the analysis has not kept is
kept, as a use *shown* on an instance, with that line and test as its evidence; then the
members it needs are followed as for any kept member (DC103, the slice of the parent's
``__init__``). ``report.md`` lists each under "Found only at run time": each is a use the
static analysis missed (a name read from a data file, a ``getattr`` with a computed name).

## Why
The static analysis does not see a read by computed name outside the class
(``getattr(obj, name)`` with ``name`` from a file), and a member dropped that way fails at
run time. A run of the tests shows such reads on real instances.

## Known problems
- The trace proves only what the suite runs: a read no test reaches is still unseen.
- Reads on the class object (``C.member``, ``type(self).member``, ``super()`` reads of
  class attributes) go through the metaclass, which is not swapped, and are not recorded.
- Reads made by the code of the parent's chain itself are not evidence: that code runs on the
  class in the original (its ``__init__`` reads what the slice may drop); the static slice
  judges it. Nor is a read of a member the class provides itself (it defines it, or assigns
  it on every path of its ``__init__``).
- A write is a use only through a property (a plain store makes the attribute).
- Tracing slows the code that touches instances of the class, and only that: each attribute
  access on one calls a Python-level wrapper. sqlparse 0.5.3's suite (2 s) runs 1.17x its
  time with ``TokenList``, the class of every grouped token, traced; a loop that does nothing
  but read attributes of an instance runs some 8x slower, 15x on the parent's member names.

## Fix safety
Keeping is always safe: the member and what it needs stay as they were.
"""

from __future__ import annotations

from ..model import Evidence

ID = "DC120"
NAME = "keep-runtime-read"


def run(st, accesses) -> bool:
    """Keep each member ``accesses`` (``runtime_trace.Access``) shows used on an instance and
    the analysis has not kept; True when one was kept."""
    if not accesses:
        return False
    a = st.a
    provided = st.satisfied()
    new = False
    for acc in accesses:
        name = acc.member
        if name not in a.members or name in a.kept or provided(name):
            continue
        if acc.kind == "write" and a.members[name][0].kind != "property":
            continue
        where = f" in test {acc.test}" if acc.test else ""
        ev = Evidence(acc.file, acc.line, f"{a.cls.name}.{name} {acc.kind} on an instance at run time{where} (--trace)",
                      ID, "shown")
        new |= st.need(name, ev)
    return new


def found(a) -> list[tuple[str, Evidence]]:
    """The members kept on run-time evidence alone, with that evidence: the static analysis's misses."""
    return [(n, ev) for n, evs in sorted(a.kept.items()) for ev in evs[:1] if ev.rule == ID]
