"""The rules: one module each, with a stable id, and a docstring in four sections
(What it does / Why / Known problems / Fix safety).

Ids by family: DC1xx keep a member, DC15x drop one, DC2xx hazards that decline, DC3xx what
makes a class unsafe, DC4xx side effects of the parent's ``__init__`` that no longer run,
DC5xx verdicts, DC6xx rewrite rules. ``docs/rules.md`` is generated from these docstrings
(``python docs/generate_rules.py``). This package imports no rule itself, so that rules can
import each other without going through it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path


def modules() -> list:
    """Every rule module, in id order."""
    found = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)]
    return sorted(found, key=lambda m: m.ID)


def by_id() -> dict[str, object]:
    return {m.ID: m for m in modules()}


def summaries() -> dict[str, tuple[str, str]]:
    """id -> (name, summary), read from each rule module's first docstring line
    (``DC404 dropped-allocation: report a dropped allocation ...``) without importing any:
    the report names the rules it cites, and a run from the cache imports few of them."""
    out = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        with path.open(encoding="utf-8") as f:
            head = f.readline()
        m = _HEAD.match(head)
        if m:
            out[m["id"]] = (m["name"], m["summary"].rstrip())
    return out


_HEAD = re.compile(r'^"""(?P<id>DC\d{3}) (?P<name>[a-z0-9-]+): (?P<summary>.*?)(?:""")?$')
