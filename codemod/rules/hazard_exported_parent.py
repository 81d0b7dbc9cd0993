"""DC208 exported-parent: warn that type checks of a public parent outside the tree cannot be seen.

## What it does
When the parent is public (its name and every part of its module's name have no leading
underscore) or its module lists it in ``__all__``, records a hazard that does not decline:
code outside the analysed tree may test ``isinstance(x, P)``, catch ``P`` or match
``case P()``, and those tests stop matching the class after reparenting.

## Why
The type-check hazards (DC201-DC209) see only the tree. A library's users, plugins and
downstream forks are outside it; the reviewer must weigh them.

## Known problems
A warning only: the tool cannot know who imports the parent. A parent named private but
re-exported under a public alias is seen only through ``__all__`` of its own module.

## Fix safety
Nothing is rewritten because of it; the report lists it among the hazards checked.
"""

from __future__ import annotations

import ast

from ..model import Hazard

ID = "DC208"
NAME = "exported-parent"


def exported_names(tree: ast.Module) -> set[str]:
    """The names a module's ``__all__`` lists (assigned or extended with literal strings)."""
    out: set[str] = set()
    for s in tree.body:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(s.value, (ast.List, ast.Tuple)):
            out |= {e.value for e in s.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return out


def check(st) -> None:
    a, p = st.a, st.a.parent
    listed = p.name in exported_names(p.module.tree)
    public = not p.name.startswith("_") and not any(part.startswith("_") for part in p.module.name.split("."))
    if not (listed or public):
        return
    how = f"listed in {p.module.name}.__all__" if listed else f"a public name of {p.module.name}"
    a.hazards.append(Hazard(
        p.file, p.line,
        f"{p.name} is {how}: isinstance checks, except clauses and class patterns on it in code outside "
        f"this tree cannot be seen, and after reparenting they no longer match {a.cls.name}",
        changes_meaning=False, rule=ID,
    ))
