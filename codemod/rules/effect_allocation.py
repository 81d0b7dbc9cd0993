"""DC404 dropped-allocation: report a dropped allocation (the work the refactor saves).

## What it does
Lists each dropped statement of the parent's ``__init__`` that allocates: calls named
like tensor factories (``empty``, ``zeros``, ``full``, ``arange``, ...), ``*alloc*`` or
``get_buffer``.

## Why
This is usually the point of the change (memory no longer allocated), and the reviewer
should see each allocation that goes.

## Known problems
Recognised by name only.

## Fix safety
Reported only.
"""

from __future__ import annotations

ID = "DC404"
NAME = "dropped-allocation"
ALLOCATORS = {"empty", "zeros", "ones", "full", "arange", "tensor", "empty_like", "zeros_like", "ones_like", "full_like", "randn", "rand"}


def match_call(name: str, last: str, stmt, call) -> str | None:
    if last in ALLOCATORS or "alloc" in last or last == "get_buffer":
        return f"allocation: {name}()"
    return None
