"""DC104 implicit-dunder: keep the parent's special methods that Python calls without a visible call.

## What it does
Keeps every special method of the parent that Python invokes implicitly (``__repr__``,
``__eq__``, ``__hash__``, ``__len__``, ``__iter__``, ``__call__``, ``__enter__``, ...)
unless the class defines it itself.

## Why
Their uses (``repr(x)``, ``x == y``, ``with x:``) never name the method, so no search for
``.name`` would find them.

## Known problems
Kept even where no instance of the class ever reaches such a use. Descriptors other than
properties are not covered.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

from ..model import Evidence

ID = "DC104"
NAME = "implicit-dunder"
IMPLICIT_DUNDERS = {
    "__repr__", "__str__", "__eq__", "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__",
    "__len__", "__iter__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__call__", "__enter__",
    "__exit__", "__aenter__", "__aexit__", "__del__", "__reduce__", "__getstate__", "__setstate__", "__copy__",
    "__deepcopy__", "__format__", "__post_init__", "__class_getitem__",
}


def run(st) -> None:
    for name, (m, owner) in st.a.members.items():
        if m.kind == "method" and name in IMPLICIT_DUNDERS and name not in st.child_defines:
            st.need(name, Evidence(owner.file, m.line, f"special method {name}, called implicitly by Python", ID))
