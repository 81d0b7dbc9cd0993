"""DC301 dynamic-self-access: refuse a class whose attributes are reached by computed names.

## What it does
Marks the class unsafe when the class, the parent's ``__init__``, a kept member of the
parent, or any class that stays in the class's MRO after reparenting (the new base and its
ancestors in the tree, the class's other bases) reads or writes ``self`` through a computed
name: ``getattr(self, name)``, ``setattr(self, name, v)``, ``hasattr``/``delattr`` with a
non-literal name, ``vars(self)`` or ``self.__dict__``; or when a metaclass of the tree that
builds the class (set on it or on a class that stays in its MRO, and that metaclass's bases)
does so to the class it is given (``cls``), or walks that class's MRO (``cls.__mro__``,
``cls.__bases__``, ``cls.mro()``, ``inspect.getmro(cls)``): pygments' ``RegexLexerMeta`` merges the ``tokens``
of every class along it, so a parent's ``tokens`` is read without being named.

## Why
Which members such code needs cannot be listed: a dropped member could be the one a
computed name reaches at run time. Nothing is guessed.

## Known problems
A literal name (``getattr(self, "x")``) is an ordinary read, not this rule. Classes outside
the tree are not looked at. Reflection on an instance reached through another name
(``obj = self; getattr(obj, name)``) is not seen.

## Fix safety
No patch is written (exit 3); the report lists where the computed access is.
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name, first_param, is_static, walk
from ..facts import collect
from ..model import ClassAnalysis, Hazard

ID = "DC301"
NAME = "dynamic-self-access"


def record(a: ClassAnalysis, file: str, line: int, what: str) -> None:
    a.unsafe.append(Hazard(file, line, what, rule=ID))


def check_staying(st) -> None:
    """Computed access on self in the classes that stay in C's MRO, and on the class in the
    metaclasses that build it."""
    for c in st.staying_classes():
        for name, fn in c.methods.items():
            sn = first_param(fn) if not is_static(fn) else None
            if sn is None:
                continue
            for line, what in collect(fn, sn).dynamic:
                record(st.a, c.file, line, f"{what} in {c.name}.{name}, which stays in {st.a.cls.name}'s MRO after reparenting")
    for meta in _metaclasses(st):
        for name, fn in meta.methods.items():
            sn = first_param(fn) if not is_static(fn) else None
            if sn is None:
                continue
            found = collect(fn, sn).dynamic + _mro_walks(fn, sn)
            for line, what in found[:1]:
                record(st.a, meta.file, line, f"{what} in {meta.name}.{name}, the metaclass that builds {st.a.cls.name}")


def _metaclasses(st) -> list:
    """The tree's metaclasses named by ``metaclass=`` on C or a class that stays in its MRO,
    with their ancestors in the tree."""
    index, out, seen = st.index, [], set()
    for c in [st.a.cls, *st.staying_classes()]:
        for k in c.node.keywords:
            if k.arg != "metaclass" or dotted_name(k.value) is None:
                continue
            top = index.resolve_class(c.module.qualify(k.value))
            for q in ([top.qualname, *index.ancestors(top)] if top is not None else []):
                m = index.resolve_class(q)
                if m is not None and id(m) not in seen:
                    seen.add(id(m))
                    out.append(m)
    return out


def _mro_walks(fn: ast.AST, sn: str) -> list[tuple[int, str]]:
    """Where ``fn`` walks the MRO, or the bases, of its first parameter ``sn``."""
    out = []
    for node in walk(fn):
        if isinstance(node, ast.Attribute) and node.attr in ("__mro__", "__bases__", "mro") and isinstance(node.value, ast.Name) and node.value.id == sn:
            out.append((node.lineno, f"{sn}.{node.attr}"))
        elif (isinstance(node, ast.Call) and dotted_name(node.func) in ("inspect.getmro", "getmro") and node.args
              and isinstance(node.args[0], ast.Name) and node.args[0].id == sn):
            out.append((node.lineno, f"getmro({sn})"))
    return out
