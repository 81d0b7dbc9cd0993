"""DC209 class-registry: decline when the parent is registered where a lookup along an instance's MRO finds it.

## What it does
Finds, in the files that name the parent:

* a registration of the parent on a dispatcher: ``@f.register(P)``, ``f.register(P, fn)``, or
  ``@f.register`` over a function whose first annotated parameter is ``P``
  (``functools.singledispatch``, ``singledispatchmethod``), and ``Abc.register(P)`` (an ABC's
  virtual subclass). Unless the class itself is registered on the same dispatcher, it is a
  hazard that changes meaning;
* the parent as the key of a table: ``{P: ...}``, ``T[P] = ...``, ``T.setdefault(P, ...)``, or
  passed to a call that may file it (``register_handler(P, fn)``). Where the tree walks a
  class's MRO and looks each class up in a table of that name (``for k in type(x).__mro__:
  HANDLERS.get(k)``, ``codemod/mro_walks.py``), or, for a class passed to a call or a table not
  assigned to a name, in a table its module fills under a key it is given (``T[cls] = fn``), and
  the walked object may be an instance of the class, it is a hazard that changes meaning. A
  table literal that holds the class as a key too is not (the walk meets the class first).

## Why
Each is a type test on P in another form: ``singledispatch`` picks the implementation of the
nearest registered class along ``type(x).__mro__``, an ABC answers ``isinstance`` for its
virtual subclasses' subclasses, and a hand-written walk finds the nearest class its table
holds. After reparenting, an instance of the class is dispatched as the new base is:
``handle(Child())`` returns what ``object``'s entry says instead of ``Heavy``'s.

## Known problems
A table is matched to a walk by its last name only (``HANDLERS``, ``self._handlers`` ->
``_handlers``), so one reached through an alias (``table = HANDLERS``) is not seen, and two
tables of one name are taken for one. Any call that takes the parent as an argument counts as
a possible registration where some walk's table is filled under a given key (coarse: it may
decline for a call that files nothing). A registration of the class on the same dispatcher is
matched by the dispatcher's text. Walks the helper does not recognise (``mro_walks``) are not
seen. ``functools.singledispatch`` registrations on a class held in a variable are not followed.

## Fix safety
The class is declined (DC503); nothing is rewritten.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name
from ..model import Hazard, Receiver
from ..mro_walks import instance_of, keyed_walks, table_name
from ..receiver_typing.type_annotations import annotation_types

ID = "DC209"
NAME = "class-registry"
# Calls that take a class without filing it anywhere (the type tests are other rules').
_NOT_FILING = {"isinstance", "issubclass", "super", "type", "cast", "typing.cast", "getattr", "hasattr", "setattr",
               "delattr", "print", "repr", "str", "id", "vars", "dir", "callable", "atexit.register"}


NODES = frozenset({ast.Call, ast.Dict, ast.Subscript, ast.FunctionDef, ast.AsyncFunctionDef})  # what check looks at


def check(st, mod, rel: str, node: ast.AST) -> bool:
    """Record a hazard when ``node`` registers the parent; True when it was such a node."""
    cls = node.__class__
    if cls is ast.Call:
        return _call(st, mod, rel, node)
    if cls is ast.Dict:
        return _table_literal(st, mod, rel, node)
    if cls is ast.Subscript and node.ctx.__class__ is ast.Store and _names(mod, node.slice, st.a.parent):
        _filed(st, mod, rel, node, table_name(node.value))
        return True
    if cls in (ast.FunctionDef, ast.AsyncFunctionDef):
        for deco in node.decorator_list:
            if deco.__class__ is ast.Attribute and deco.attr == "register" and _first_annotation_names(mod, node, st.a.parent):
                _registered(st, mod, rel, node, ast.unparse(deco.value))
                return True
    return False


def _call(st, mod, rel: str, call: ast.Call) -> bool:
    p = st.a.parent
    func = call.func
    if func.__class__ is ast.Attribute and func.attr == "register" and call.args and _names(mod, call.args[0], p):
        if dotted_name(func) != "atexit.register":
            _registered(st, mod, rel, call, ast.unparse(func.value))
        return True
    if func.__class__ is ast.Attribute and func.attr == "setdefault" and call.args and _names(mod, call.args[0], p):
        _filed(st, mod, rel, call, table_name(func.value))
        return True
    args = [*call.args, *(k.value for k in call.keywords)]
    if any(_names(mod, a, p) for a in args) and (dotted_name(func) or "") not in _NOT_FILING:
        _filed(st, mod, rel, call, None)
        return True
    return False


def _table_literal(st, mod, rel: str, node: ast.Dict) -> bool:
    a = st.a
    if not any(k is not None and _names(mod, k, a.parent) for k in node.keys):
        return False
    if any(k is not None and _names(mod, k, a.cls) for k in node.keys):
        return True  # the walk meets the class first, before and after
    holder = mod.parents.get(id(node))
    name = None
    if holder.__class__ in (ast.Assign, ast.AnnAssign) and holder.value is node:
        targets = holder.targets if holder.__class__ is ast.Assign else [holder.target]
        name = table_name(targets[0]) if len(targets) == 1 else None
    elif holder.__class__ is ast.Call and holder.func.__class__ is ast.Attribute and holder.func.attr == "update":
        name = table_name(holder.func.value)
    _filed(st, mod, rel, node, name)
    return True


def _filed(st, mod, rel: str, node: ast.AST, table: str | None) -> None:
    """P filed in ``table`` (None: a table not known by name): a hazard where a walk over an
    instance that may be the class looks it up."""
    a = st.a
    flow = None
    for w in keyed_walks(st.index):
        if not (table in w.tables if table is not None else w.filled_by_name):
            continue
        if st.in_dropped_parent_code(w.mod, w.loop):
            continue
        x = instance_of(w.cls_expr)
        if x is not None:
            flow = flow or st.receivers()
            if flow.receiver(w.mod, x, w.loop)[0] == Receiver.NO:
                continue
        where = f"{'the table ' + table if table else 'a table'} that {w.mod.rel}:{w.loop.lineno} looks up along {ast.unparse(w.cls_expr)[:40]}'s MRO"
        a.hazards.append(Hazard(rel, node.lineno, f"{a.parent.name} is filed in {where}: {a.cls.name} would be found under another class after reparenting", rule=ID))
        return


def _registered(st, mod, rel: str, node: ast.AST, dispatcher: str) -> None:
    a = st.a
    if _class_registered(st, dispatcher):
        return
    a.hazards.append(Hazard(rel, node.lineno, (
        f"{a.parent.name} is registered on {dispatcher[:60]}, which dispatches along the MRO: "
        f"{a.cls.name} would no longer be taken for a {a.parent.name} after reparenting"), rule=ID))


def _class_registered(st, dispatcher: str) -> bool:
    """Whether the class itself is registered on ``dispatcher`` somewhere in the tree."""
    c = st.a.cls
    for rel in st.index.tree.grep(re.compile(r"\.register\b"), words=(c.name,)):
        mod = st.index.module(rel)
        for node in mod.nodes if mod is not None else ():
            if (node.__class__ is ast.Call and node.func.__class__ is ast.Attribute and node.func.attr == "register"
                    and node.args and _names(mod, node.args[0], c) and ast.unparse(node.func.value) == dispatcher):
                return True
            if node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef) and _first_annotation_names(mod, node, c) and any(
                    d.__class__ is ast.Attribute and d.attr == "register" and ast.unparse(d.value) == dispatcher
                    for d in node.decorator_list):
                return True
    return False


def _names(mod, expr: ast.AST, cls) -> bool:
    # the last name first: this runs on every argument of every call of the files naming P
    last = expr.id if expr.__class__ is ast.Name else expr.attr if expr.__class__ is ast.Attribute else None
    if last is None or (last != cls.name and mod.imports.get(last) != cls.qualname):  # an alias: `import Heavy as H`
        return False
    return dotted_name(expr) is not None and mod.qualify(expr) == cls.qualname


def _first_annotation_names(mod, fn, cls) -> bool:
    """Whether the first annotated parameter of ``fn`` (what ``singledispatch`` dispatches on) allows ``cls``."""
    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    ann = next((p.annotation for p in params if p.annotation is not None), None)
    return cls.qualname in (annotation_types(mod, ann) or [])
