"""DC302 attribute-hooks: refuse when the parent hooks attribute access, or a hook of it cannot be copied unchanged.

## What it does
Marks the class unsafe when the parent (or a class between it and the new base) defines
``__getattr__`` or ``__getattribute__``; or when a class that stays in the class's MRO (the new
base and its ancestors, the other bases) defines one, which would answer for a member that is
no longer there instead of raising. The chain's other hooks are copied into the class (DC104)
where what they do carries over unchanged, and refused where it does not:

* ``__setattr__``/``__delattr__`` run on the class's stores as they ran when inherited. Refused
  when their ``super().m()`` reached a class of the chain that the copy's ``super()``, starting at
  the new base, would skip. The stores the decoupling drops no longer run the hook: a store may
  go only where the hook, for that attribute's name, does nothing but the store
  (``codemod/attribute_hooks.py``: the path the name takes through tests on it, such as
  ``name == "size"`` or ``name.startswith("_")``, holds only the store handed on through
  ``super()``, ``object`` or ``self.__dict__[name]``); every other store is kept (the slice, and
  the post-condition DC703), and every store is kept under a hook bound in the class body to
  other code (``__setattr__ = _logged``), whose code is not read.
* ``self.__dict__[name] = value`` handing the store on, and a pickling hook (``__getstate__``,
  ``__setstate__``, ``__reduce__``, ``__reduce_ex__``) that moves the whole ``self.__dict__``
  (copied, updated from a mapping, returned, replaced), are not computed access (DC301); the
  members the hook names in constants (``del state["lock"]``) are kept. A key computed at run
  time still refuses.
* ``__new__`` is copied when it builds the instance only through ``super().__new__(cls)`` or
  ``object.__new__(cls)`` (passing nothing else on), no other class of the chain defines one, and
  no class that stays in the MRO defines one or is outside the tree: the copy's ``super()``
  reaches ``object.__new__``, as the original's did.
* ``__init_subclass__`` is copied, so it runs for the class's subclasses as it did, and called
  once on the class right after its statement (``Child.__init_subclass__()``, DC605), where
  Python called it while creating the class. Refused when the class is decorated or passes
  class keywords (the call would run after the decorators, without them), defines its own
  hook, the hook needs keywords, another class of the chain or one that stays in the MRO
  defines one, the hook calls another method through ``super()``, reads the class's place in
  the hierarchy (``__mro__``, ``__bases__``, ``issubclass``...), or reads a class attribute of the
  parent that is not a constant (the copy would be another object than the parent's registry).

## Why
``__getattr__``/``__getattribute__`` decide at run time what an attribute access means, so no
static list of used members can be trusted. A store hook that only stores, a pickling hook that
moves whatever the instance holds, a ``__new__`` that only asks ``object`` for the instance and an
``__init_subclass__`` called at the same point on the same class behave the same on the
decoupled class.

## Known problems
A store hook that counts, logs or validates for a name keeps every store it sees (so the class
often has nothing to gain, DC505). A hook whose tests read ``self`` or call anything but
``isinstance``/``callable``/``name.startswith`` is not silent for any name. Pickled instances hold
fewer members after the patch (those no code reads). ``__init_subclass__`` runs a moment later
than it did (after the class statement, before any other statement); code that reads the class's
state between the two (a metaclass, ``__set_name__``) would see it unrun.

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
UNSAFE_DUNDERS = {"__getattr__", "__getattribute__"}


def check(a: ClassAnalysis) -> None:
    for i, c in enumerate(a.chain):
        for name in sorted(UNSAFE_DUNDERS & set(c.methods)):
            fn = c.methods[name]
            a.unsafe.append(Hazard(c.file, fn.lineno, f"{c.name} defines {name}, so attribute access on {a.cls.name} cannot be decided statically", rule=ID))
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
    _init_subclass(st)
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
        why = _builds_only_through_object(fn) or _base_new(st) or _class_state(a, fn)
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


# What a hook that builds on the class's place in the hierarchy reads: after reparenting it
# would see another MRO.
_HIERARCHY = {"__mro__", "__bases__", "__base__", "mro", "issubclass", "isinstance", "__subclasses__", "getmro"}


def init_subclass_call(a: ClassAnalysis) -> bool:
    """Whether the rewrite calls the copied ``__init_subclass__`` on the class after its body
    (the hook of the chain that Python ran when it created the class)."""
    return any("__init_subclass__" in c.methods for c in a.chain) and "__init_subclass__" in a.kept


def _init_subclass(st) -> None:
    """The chain's ``__init_subclass__`` carries over: copied into the class (DC104), it runs for
    the class's subclasses as it did, and the rewrite calls it once on the class after its body,
    where Python called it while creating the class. Refused where that call would not be the same."""
    a = st.a
    owners = [c for c in a.chain if "__init_subclass__" in c.methods]
    if not owners:
        return
    owner, fn = owners[0], owners[0].methods["__init_subclass__"]
    why = None
    params = fn.args
    required = len(params.posonlyargs + params.args) - 1 - len(params.defaults)
    required += sum(1 for d in params.kw_defaults if d is None)
    words = {getattr(n, "attr", None) or getattr(n, "id", None) for n in walk(fn)}
    supers = collect(fn, first_param(fn)).super_calls if first_param(fn) else []
    if len(owners) > 1:
        why = f"and so does {owners[1].name}, which its super() reaches and {a.cls.name} no longer inherits"
    elif "__init_subclass__" in a.cls.methods:
        why = f"and {a.cls.name} defines its own, which Python does not run for {a.cls.name} itself"
    elif a.cls.node.decorator_list or a.cls.node.keywords:
        why = f"which Python runs before {a.cls.name}'s decorators and with its class keywords; a call after the class statement would not"
    elif any("__init_subclass__" in c.methods for c in st.staying_classes()):
        why = "and a class that stays in the MRO defines one too, which would then run for it as well"
    elif required > 0:
        why = "which takes class keywords the class does not pass"
    elif words & _HIERARCHY:
        why = f"which reads the class's place in the hierarchy ({sorted(words & _HIERARCHY)[0]}), which changes"
    elif any(meth != "__init_subclass__" for _, meth in supers):
        why = "which calls another method through super()"
    elif first_param(fn) and _class_state(a, fn):
        why = _class_state(a, fn)
    if why:
        a.unsafe.append(Hazard(owner.file, fn.lineno, f"{owner.name} defines __init_subclass__, {why}", rule=ID))


def _class_state(a: ClassAnalysis, fn) -> str | None:
    """Why the hook's use of the parent's class attributes through ``cls`` would not carry over
    (None: it does). Copied into the class, such an attribute is another binding than the
    parent's: a value that is not a constant would be another object, and one the hook stores
    (a singleton's ``cls._instance``) no longer falls back to what the parent holds."""
    cls = first_param(fn)
    if cls is None:
        return None
    f = collect(fn, cls)
    for name in sorted(f.reads_attrs | f.mutates_attrs | f.writes_attrs):
        m = a.members.get(name, (None, None))[0]
        if m is None or m.kind != "class_attribute":
            continue
        if name in f.writes_attrs | f.mutates_attrs:
            return f"which changes {cls}.{name}, a class attribute of the parent that {a.cls.name} would hold as its own"
        if not _constant(getattr(m.node, "value", None)):
            return f"which reads {cls}.{name}, a value shared with the parent that {a.cls.name} would hold as a copy of its own"
    return None


def _constant(expr) -> bool:
    return expr is not None and all(isinstance(n, (ast.Constant, ast.Tuple, ast.Load)) for n in walk(expr))
