"""Reflection in its indirect forms: attribute access whose name is computed, written without
a ``getattr(x, name)`` call (DC301).

``getattr`` and its siblings passed as values (``functools.reduce(getattr, path, obj)``,
``map(getattr, objs, names)``, ``partial(getattr, obj)``), and ``operator.attrgetter`` or
``methodcaller`` given a name that is not a literal, reach attributes no one can list, exactly
like ``getattr(obj, name)``. ``computed_access`` recognises one such site and says which object
it reaches, when that object is written in the code.

``computed_name`` gives the name of the direct form, ``getattr(obj, name)``, when it is not a
literal, and ``class_site_files`` the files where that form is looked for (those that name the
class or its kin beside an accessor).

What it proves: every site written with one of these names as such, and the first object it
reads on. What it does not: an accessor reached through another name (``get = getattr``,
``from operator import attrgetter as ag``); the object of one handed to code that applies it
later is unknown (None); and the later steps of a chain (``reduce(getattr, "a.b".split("."),
obj)``, ``attrgetter(name)`` with a dotted name) read on the values of ``obj``'s attributes,
which are not followed, as a computed ``getattr(obj.a, name)`` is not (DC108's known problems).
"""

from __future__ import annotations

import ast
import re

from .ast_util import dotted_name

ACCESSORS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
GETTERS = frozenset({"attrgetter", "methodcaller"})
# Words a file holds when it may have a site: the word index finds the candidates. An accessor
# passed as a value needs a function that applies it; these are the ones recognised.
GETTER_WORDS = tuple(sorted(GETTERS))
APPLIER_WORDS = ("map", "partial", "reduce", "starmap")

UNKNOWN = None  # the receiver is not written in the code
UNKNOWN_RECEIVER = " on an object of unknown type "  # how DC301 says it let a site pass (report.md lists the sites)


def computed_access(node: ast.AST, parents: dict) -> tuple[list, str] | None:
    """(receivers, what) when ``node`` is a site of computed access, else None.

    ``receivers``: the expressions of the objects it reads, or ``[UNKNOWN]`` when one is not
    written in the code. ``parents``: the module's map from a node's id to its parent.
    """
    cls = node.__class__
    if cls is ast.Name:
        if node.id not in ACCESSORS or node.ctx.__class__ is not ast.Load:
            return None
        holder = parents.get(id(node))
        if holder.__class__ is ast.Call and holder.func is node:
            return None  # a plain call: a computed name there is the direct form's
        return _applied(node, holder), f"{node.id} passed as a value ({shown(holder if holder.__class__ is ast.Call else node)})"
    if cls is ast.Call:
        called = _last(node.func)
        if called not in GETTERS:
            return None
        names = node.args[:1] if called == "methodcaller" else node.args
        if names and all(a.__class__ is ast.Constant and isinstance(a.value, str) for a in names):
            return None  # a literal name is an ordinary read (DC108)
        holder = parents.get(id(node))
        applied = holder.__class__ is ast.Call and holder.func is node
        recv = holder.args[0] if applied and holder.args and holder.args[0].__class__ is not ast.Starred else UNKNOWN
        return [recv], f"{called} with a computed name ({shown(holder if applied else node)})"
    return None


def computed_name(call: ast.Call) -> ast.expr | None:
    """The name ``getattr``/``hasattr``/``setattr``/``delattr(obj, name, ...)`` is given, when
    it is not a literal (a literal is an ordinary read, DC108's); else None."""
    func, args = call.func, call.args
    if func.__class__ is not ast.Name or func.id not in ACCESSORS or len(args) < 2:
        return None
    if args[0].__class__ is ast.Starred or args[1].__class__ in (ast.Starred, ast.Constant):
        return None
    return args[1]


def class_site_files(st) -> list[str]:
    """The files that name the class, a subclass, its parent or one of the parent's ancestors
    in the tree beside an accessor: where the direct form of computed access is looked for
    (an object typed as one of them is written there: an annotation, a construction, an
    ``isinstance``). Once per class and run."""
    a, index = st.a, st.index

    def find():
        classes = [a.cls, *index.subclasses_deep(a.cls), *a.chain]
        classes += [c for c in map(index.resolve_class, index.ancestors(a.parent)) if c is not None]
        named = set(index.tree.files_with_words(tuple(sorted({c.name for c in classes}))))
        return index.tree.grep(names_computed, words=tuple(sorted(ACCESSORS)), among=named)

    return index.once(f"computed access sites {a.cls.qualname}", find)


_NAME_ARG = re.compile(r"\s*[^,()]+,\s*(\S)")
_HEADS = {"get", "has", "set", "del"}


def names_computed(text: str) -> bool:
    """Whether ``text`` may hold an accessor call whose name is not a plain string literal (an
    f-string counts), so that parsing it may find a computed name. (Found by hand after
    ``attr(``: a regex that starts with the accessors' names is slow on these files.)"""
    at = text.find("attr(")
    while at >= 0:
        if at >= 3 and text[at - 3:at] in _HEADS and not (text[at - 4:at - 3].isalnum() or text[at - 4:at - 3] == "_"):
            m = _NAME_ARG.match(text, at + 5)
            if m is None or m.group(1) not in "'\"":
                return True  # a name, an expression, or a call split over lines: parse to see
        at = text.find("attr(", at + 5)
    return False


def on_name(call: ast.Call, name: str) -> str | None:
    """What ``call`` is, when it is a site of computed access whose first object is the name
    ``name`` (``reduce(getattr, path, self)``, ``attrgetter(name)(self)``), else None."""
    if call.func.__class__ is not ast.Call and not any(a.__class__ is ast.Name and a.id in ACCESSORS for a in call.args):
        return None  # most calls: neither applies a getter nor takes an accessor
    parents = {id(call.func): call, **{id(a): call for a in call.args}}
    for node in (call.func, *call.args):
        found = computed_access(node, parents)
        if found and any(r.__class__ is ast.Name and r.id == name for r in found[0]):
            return found[1]
    return None


def _applied(acc: ast.Name, holder) -> list:
    """The objects an accessor passed to ``holder`` reads, where written out."""
    if holder.__class__ is not ast.Call or acc not in holder.args:
        return [UNKNOWN]
    called, args = _last(holder.func), holder.args
    if any(a.__class__ is ast.Starred for a in args):
        return [UNKNOWN]
    at = args.index(acc)
    if called == "reduce" and at == 0:
        # reduce(getattr, names, obj) reads on obj first, then on what each read returns
        return [args[2]] if len(args) == 3 else [UNKNOWN]
    if called == "partial" and at == 0 and len(args) > 1:
        return [args[1]]
    if called == "map" and at == 0 and len(args) > 1:
        objs = args[1]
        if objs.__class__ in (ast.List, ast.Tuple, ast.Set) and not any(e.__class__ is ast.Starred for e in objs.elts):
            return list(objs.elts) or [UNKNOWN]
        # an element of the iterable, which the typing follows for a container held in an attribute
        return [ast.copy_location(ast.Subscript(value=objs, slice=ast.Constant(0), ctx=ast.Load()), objs)]
    return [UNKNOWN]


def _last(func: ast.AST) -> str | None:
    name = dotted_name(func)
    return name.rsplit(".", 1)[-1] if name else None


def shown(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
