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


def modules() -> list:
    """Every rule module, in id order."""
    found = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)]
    return sorted(found, key=lambda m: m.ID)


def by_id() -> dict[str, object]:
    return {m.ID: m for m in modules()}
