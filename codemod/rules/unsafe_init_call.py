"""DC311 init-call: refuse a class whose code reaches an ``__init__`` that cannot be told apart from the parent's.

## What it does
In the class's methods, every ``X.__init__`` other than ``super().__init__`` must name a class
the analysis can place: the parent under any name the module binds it to (an alias, a module
attribute), which is the one call it inlines; or a class that stays in the class's MRO or is
outside it. A computed ``X`` (``type(self).__mro__[1]``, ``self.__class__.__bases__[0]``, a
``getattr``), a class of the chain reached a second time, ``P.__init__`` taken as a value, or a
second ``super().__init__`` (on another branch of ``__init__``, or in another method) besides
the one inlined marks the class unsafe.

## Why
The analysis decides what of the parent's ``__init__`` still runs from the one call that runs
it. A call it does not recognise would be left in place: after reparenting it runs another
class's ``__init__``, or the parent's whole ``__init__`` on an instance the analysis believes
no longer runs it.

## Known problems
Refuses a computed ``X`` that happens to name a class outside the MRO.

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name, is_super_call, walk
from ..super_init import super_starts_after
from ..model import Hazard

ID = "DC311"
NAME = "init-call"


def check(st) -> None:
    a = st.a
    index = st.index
    chain = {c.qualname for c in a.chain}
    for fn in a.cls.methods.values():
        for n in walk(fn):
            if not (isinstance(n, ast.Attribute) and n.attr == "__init__" and isinstance(n.ctx, ast.Load)):
                continue
            if a.super_init_call is not None and n is a.super_init_call.func:
                continue
            if is_super_call(n.value):
                if a.super_init_call is not None and super_starts_after(index, a.cls, n.value):
                    # a second call on another path (``if ...: super().__init__(x) else:
                    # super().__init__(y)``): only one is inlined, the other would run the
                    # new base's __init__ with the parent's arguments
                    line = a.super_init_call.lineno
                    a.unsafe.append(Hazard(a.cls.file, n.lineno, f"{a.cls.name}.{fn.name} calls {ast.unparse(n)} here as well "
                                           f"as at line {line}: the analysis inlines one call of {a.parent.name}.__init__, and after "
                                           f"reparenting the other would run the new base's __init__", rule=ID))
                    return
                continue
            what = None
            if dotted_name(n.value) is None:
                what = f"{ast.unparse(n)} is computed: it may be {a.parent.name}.__init__"
            else:
                found = index.resolve_class(a.cls.module.qualify(n.value))
                if found is not None and found.qualname in chain:
                    what = f"{ast.unparse(n)} reaches {found.name}.__init__ other than through the call the analysis inlines"
            if what:
                a.unsafe.append(Hazard(a.cls.file, n.lineno, f"{a.cls.name}.{fn.name}: {what}", rule=ID))
                return
