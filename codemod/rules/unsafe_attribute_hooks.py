"""DC302 attribute-hooks: refuse when the parent hooks attribute access or class creation in a way that cannot be copied.

## What it does
Marks the class unsafe when the parent (or a class between it and the new base) defines
``__getattr__``, ``__getattribute__``, ``__init_subclass__`` or ``__new__``; or when a class
that stays in the class's MRO (the new base and its ancestors, the other bases) defines
``__getattr__`` or ``__getattribute__``, which would answer for a member that is no longer
there instead of raising.

The parent's ``__setattr__`` and ``__delattr__`` are copied into the class (DC104) and run on
its stores as they ran when inherited. Refused only where the copy cannot run as the original
did: its ``super().m()`` would reach past a class of the chain that defines ``m`` too (the copy's
``super()`` starts at the new base). The stores the decoupling drops no longer run the hook: a
store may go only where the hook, for that attribute's name, does nothing but the store
(``codemod/attribute_hooks.py``: the path the name takes through tests on it, such as
``name == "size"`` or ``name.startswith("_")``, holds only the forwarded store through
``super()``, ``object`` or ``self.__dict__[name]``); any other store is kept (the slice, and
the post-condition DC703). ``self.__dict__[name] = value`` forwarding the store, and a pickling
hook (``__getstate__``, ``__setstate__``, ``__reduce__``, ``__reduce_ex__``) that moves the whole
``self.__dict__`` (copied, updated from a mapping, returned, replaced), are not computed access
(DC301): the members they name in constants (``del state["lock"]``) are kept; a key computed
at run time still refuses.

## Why
``__getattr__``/``__getattribute__`` decide at run time what an attribute access means, and
``__new__``/``__init_subclass__`` what building an instance or a subclass does, so no static
list of used members can be trusted. A store hook that only stores, or a pickling hook that
moves whatever the instance holds, behaves the same on an instance that holds fewer members.

## Known problems
A store hook that counts, logs or validates for a name keeps every store it sees (so the class
often has nothing to gain, DC505). A hook whose tests read ``self`` or call anything but
``isinstance``/``callable``/``name.startswith`` is not silent for any name. Pickled instances hold
fewer members after the patch (those no code reads).

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

import ast

from ..ast_util import first_param, is_super_call, walk
from ..attribute_hooks import STORE_HOOKS
from ..facts import collect
from ..model import ClassAnalysis, Hazard

ID = "DC302"
NAME = "attribute-hooks"
UNSAFE_DUNDERS = {"__getattr__", "__getattribute__", "__init_subclass__"}


def check(a: ClassAnalysis) -> None:
    for i, c in enumerate(a.chain):
        for name in sorted(UNSAFE_DUNDERS & set(c.methods)):
            fn = c.methods[name]
            why = (f"which Python calls while it creates {a.cls.name} (and each subclass of it); the call cannot move "
                   f"out of class creation unchanged (it would run after {a.cls.name}'s decorators, and not for its subclasses)"
                   if name == "__init_subclass__" else f"so attribute access on {a.cls.name} cannot be decided statically")
            a.unsafe.append(Hazard(c.file, fn.lineno, f"{c.name} defines {name}, {why}", rule=ID))
        for name in STORE_HOOKS:
            if name in c.methods and a.members.get(name, (None, None))[1] is c:
                _super_reach(a, c, c.methods[name], a.chain[i + 1:])


def _super_reach(a: ClassAnalysis, owner, fn, later) -> None:
    """Refuse a copied hook whose ``super().m()`` reached a class of the chain that the copy's
    ``super()``, starting at the new base, would skip."""
    for line, meth in collect(fn, first_param(fn)).super_calls:
        skipped = next((c for c in later if meth in c.methods), None)
        if skipped is not None:
            a.unsafe.append(Hazard(owner.file, line, (
                f"{owner.name}.{fn.name} calls super().{meth}(), which reaches {skipped.name}.{meth}; copied into "
                f"{a.cls.name}, its super() would start at the new base and skip it"), rule=ID))


STAYING_HOOKS = {"__getattr__", "__getattribute__"}


def check_staying(st) -> None:
    a = st.a
    _new(st)
    for c in st.staying_classes():
        for name in sorted(STAYING_HOOKS & set(c.methods)):
            a.unsafe.append(Hazard(c.file, c.methods[name].lineno, f"{c.name} defines {name} and stays in {a.cls.name}'s MRO, so a missing member would not raise", rule=ID))


def _new(st) -> None:
    """The chain's ``__new__``: copied when the one the class inherits builds the instance only
    through ``super().__new__(cls)`` or ``object.__new__(cls)`` and what the copy's ``super()``
    reaches, the new base's ``__new__``, is ``object``'s, as the original's was."""
    a = st.a
    owners = [c for c in a.chain if "__new__" in c.methods]
    if not owners:
        return
    owner, fn = owners[0], owners[0].methods["__new__"]
    why = None
    if len(owners) > 1:
        why = f"so does {owners[1].name}, which its super().__new__ reaches and {a.cls.name} no longer inherits"
    else:
        why = _builds_only_through_object(fn) or _base_new(st)
    if why:
        a.unsafe.append(Hazard(owner.file, fn.lineno, f"{owner.name} defines __new__, {why}", rule=ID))


def _builds_only_through_object(fn) -> str | None:
    cls = first_param(fn)
    calls = [n for n in walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__new__"]
    if cls is None or not calls:
        return "which builds the instance some other way than super().__new__(cls)"
    if any(isinstance(n, ast.Name) and n.id == cls and isinstance(n.ctx, ast.Store) for n in walk(fn)):
        return f"which rebinds {cls}"
    for call in calls:
        on = call.func.value
        if not ((is_super_call(on) or (isinstance(on, ast.Name) and on.id == "object"))
                and [getattr(x, "id", None) for x in call.args] == [cls] and not call.keywords):
            return f"which builds the instance through {ast.unparse(call)}, not super().__new__({cls}) alone"
    return None


def _base_new(st) -> str | None:
    """Why the new base's ``__new__`` may not be ``object``'s (None: it is)."""
    index = st.index
    for c in st.staying_classes():
        if "__new__" in c.methods:
            return f"and {c.name}, which stays in the MRO, defines __new__ too"
    for root in st.staying_roots():
        top = index.resolve_class(root)
        quals = [root] + (index.ancestors(top) if top is not None else [])
        outside = [q for q in quals if q not in ("builtins.object", "object") and index.resolve_class(q) is None]
        if outside:
            return f"and {outside[0].rsplit('.', 1)[-1]}, which stays in the MRO, is outside the tree: its __new__ cannot be read"
    return None
