"""DC402 dropped-outside-write: report a dropped statement that writes state outside the instance.

## What it does
Lists each dropped statement of the parent's ``__init__`` that assigns to something other
than ``self`` or a local: a global, a module attribute, an argument's attribute or item.

The report's Risk section answers for each name written (an environment key, an upper-case
setting): the values the dropped writes stored, where the name is declared (with its default),
and which places in the tree read it and can run in the same process after the class is built
(any function or method, the class's own for each later instance), so that they now read
another value; or that nothing else reads it (``codemod/dropped_work.py``).

## Why
Other code may read that state; it is no longer written when the class is built.

## Known problems
Writes made inside called functions are not seen (see DC406).

## Fix safety
Reported only; the reviewer decides.
"""

from __future__ import annotations

ID = "DC402"
NAME = "dropped-outside-write"


def match(stmt, facts) -> str | None:
    if facts.external_writes:
        return "writes state outside the instance: " + facts.external_writes[0][1]
    return None
