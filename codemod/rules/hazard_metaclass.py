"""DC204 metaclass-lost: decline when the class would lose the parent's metaclass.

## What it does
Records a hazard, which makes the class decline, when the parent (or a class between it
and the new base) sets ``metaclass=`` and the class does not set the same one itself.

## Why
A metaclass can change how the class is built, what ``isinstance`` answers and what
attribute access does; after reparenting the class would be built by ``type``.

## Known problems
A metaclass inherited from further up (through the new base) is kept and not reported.

## Fix safety
The class is declined; nothing is rewritten.
"""

from __future__ import annotations

import ast

from ..model import ClassAnalysis, Hazard

ID = "DC204"
NAME = "metaclass-lost"


def check(a: ClassAnalysis) -> None:
    own = {k.arg: ast.dump(k.value) for k in a.cls.node.keywords}
    for c in a.chain:
        for k in c.node.keywords:
            if k.arg == "metaclass" and own.get("metaclass") != ast.dump(k.value):
                a.hazards.append(Hazard(c.file, c.line, f"{c.name} sets metaclass={ast.unparse(k.value)}, which {a.cls.name} would lose", rule=ID))
