"""DC403 dropped-registration: report a dropped write to global state or a registration.

## What it does
Lists each dropped statement of the parent's ``__init__`` that calls something named
like a registration or a global write: ``os.environ`` and friends, ``*.set(...)``,
``putenv``, ``register*``.

The report's Risk section answers for each name written (an environment key, an upper-case
setting): the values the dropped writes stored, where the name is declared (with its default),
and which places in the tree read it and can run in the same process after the class is built
(any function or method, the class's own for each later instance), so that they now read
another value; or that nothing else reads it (``codemod/dropped_work.py``).

## Why
A registry or the environment may be read elsewhere; the class no longer writes it.

## Known problems
Recognised by name only.

## Fix safety
Reported only.
"""

from __future__ import annotations

ID = "DC403"
NAME = "dropped-registration"


def match_call(name: str, last: str, stmt, call) -> str | None:
    if "environ" in name or last in ("set", "register", "putenv") or last.startswith("register"):
        return f"global state write or registration: {name}()"
    return None
