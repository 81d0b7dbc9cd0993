"""DC104 implicit-dunder: keep the parent's special methods and attributes, which are used without being named.

## What it does
Keeps every member of the parent whose name starts and ends with ``__`` (``__repr__``,
``__eq__``, ``__iter__``, ``__next__``, ``__get__``, ``__set_name__``, ``__add__``,
``__hash__ = None``, ``__match_args__``, ...) unless the class defines it itself. Not kept
here: ``__init__`` (the slice decides what of it runs), ``__slots__`` (DC305 merges the slots a class of its own needs) and
the names Python gives every class anyway (``__doc__``, ``__module__``, ``__qualname__``), and
the ``__post_init__`` of a ``@dataclass`` parent read as part of its generated ``__init__`` (DC313).

## Why
Their uses (``repr(x)``, ``x == y``, ``with x:``, ``next(it)``, a descriptor in a class body,
which ``type`` hands to ``__set_name__``) never name them, so no search for ``.name`` would
find them. The list is not closed: the standard library (``copy``, ``pickle``, ``os.fspath``)
and other libraries (``__html__``, ``__array__``) call protocols of their own.

## Known problems
Kept even where no instance of the class ever reaches such a use.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

from ..model import Evidence

ID = "DC104"
NAME = "implicit-dunder"
NOT_HERE = {"__init__", "__slots__", "__doc__", "__module__", "__qualname__"}


def run(st) -> None:
    # A dataclass parent's __post_init__ is read as part of its generated __init__ (DC313).
    skip = NOT_HERE | ({"__post_init__"} if st.a.dataclass_init is not None else set())
    for name, (m, owner) in st.a.members.items():
        if is_dunder(name) and name not in skip and name not in st.child_defines:
            what = "special method" if m.kind == "method" else "special attribute"
            st.need(name, Evidence(owner.file, m.line, f"{what} {name}, used by Python without being named", ID))


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")
