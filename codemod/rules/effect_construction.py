"""DC405 dropped-construction: report a dropped construction of an object.

## What it does
Lists each dropped statement of the parent's ``__init__`` that calls a capitalised name
(a class, by convention): the objects the class no longer builds.

## Why
Constructors can do anything (open files, allocate, register); the reviewer sees each.

## Known problems
Recognised by naming convention only.

## Fix safety
Reported only.
"""

from __future__ import annotations

ID = "DC405"
NAME = "dropped-construction"


def match_call(name: str, last: str, stmt, call) -> str | None:
    if last[:1].isupper():
        return f"constructs {last}"
    return None
