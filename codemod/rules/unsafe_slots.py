"""DC305 slots: give a class with ``__slots__`` of its own the places its parent gave its instances.

## What it does
Where the class assigns ``__slots__`` in its body, works out what the parent (and the classes
between it and the new base) gave each instance and the new bases will not: the parent's slots
(a private one as the parent mangled it, ``'_P__x'``), except those of members the analysis
dropped, and ``__dict__`` and ``__weakref__`` where the parent had them (a class without
``__slots__`` has both; one with names them) and nothing else keeps them. The rewrite appends
those to the class's ``__slots__``. Refused: a ``__slots__`` that is not a literal string, tuple
or list of strings; a name that would clash with a class attribute of the class; a new base
outside the tree while ``__dict__`` or ``__weakref__`` is needed (whether it has them is not
known). A class without ``__slots__`` has a ``__dict__`` already: the note says that the
parent's attributes move into it.

## Why
The parent's slots, or its ``__dict__``, are where the class's instances keep the attributes
the parent's ``__init__`` stores, and reparenting takes them away: with ``__slots__`` of its
own the class has no place for them, and every store raises ``AttributeError``; without
``__weakref__``, ``weakref.ref(c)`` raises ``TypeError``. Copying the parent's ``__slots__``
whole is no answer: it would take away the class's own.

## Known problems
The parent's slots whose members were kept are all merged, used or not by an instance of the
class; ``__dict__`` and ``__weakref__`` are kept whenever the parent had them, as no search
can rule out ``vars(c)`` or a weak reference taken elsewhere.

## Fix safety
The instances keep every place they had but those of dropped members. Otherwise no patch is
written (exit 3); for a class without slots the note is all.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ast_util import mangled
from ..model import Hazard

if TYPE_CHECKING:  # the rewrite's functions import it: the analysis asks ``check`` and must not load it
    import libcst as cst

ID = "DC305"
NAME = "slots"
_SPECIAL = ("__dict__", "__weakref__")


class Refused(Exception):
    pass


def check(st) -> None:
    a = st.a
    if "__slots__" not in a.cls.members:
        for c in a.chain:
            m = c.members.get("__slots__")
            if m is not None:
                what = f"{c.name}'s __slots__ no longer hold the attributes of {a.cls.name}'s instances: they move into each instance's __dict__ (seen by vars() and __dict__)"
                a.hazards.append(Hazard(c.file, m.line, what, changes_meaning=False, rule=ID))
        return
    try:
        merged(st.index, a)
    except Refused as exc:
        m = a.cls.members["__slots__"]
        a.unsafe.append(Hazard(a.cls.file, m.line, str(exc), rule=ID))


def merged(index, a) -> list[str]:
    """The names to append to C's ``__slots__``: what P and the chain gave C's instances that the
    new bases and C's own slots do not; [] for a class without ``__slots__``."""
    if "__slots__" not in a.cls.members:
        return []
    own = _literal(a.cls)
    dropped = set(a.members) - set(a.kept)
    names, special = [], set()
    for c in a.chain:
        if "__slots__" not in c.members:
            special |= set(_SPECIAL)
            continue
        for n in _literal(c):
            if n in _SPECIAL:
                special.add(n)
            elif n not in dropped:
                names.append(mangled(c.name, n))
    provided = _provided(index, a, special)
    out = [n for n in names if n not in own] + [n for n in _SPECIAL if n in special and n not in own and n not in provided]
    clash = [n for n in out if n in a.cls.members and a.cls.members[n].kind != "instance_attribute"]
    if clash:
        raise Refused(f"{a.cls.name} needs the slots {', '.join(clash)} of {a.parent.name}, but defines {'it' if len(clash) == 1 else 'them'} in its class body")
    return out


def _provided(index, a, needed: set[str]) -> set[str]:
    """Which of ``__dict__`` and ``__weakref__`` the new bases give C's instances."""
    out = set()
    for q in [a.base, *a.extra_bases]:
        if q in ("builtins.object", "object"):
            continue
        c = index.resolve_class(q)
        todo = [c] if c is not None else []
        if c is None and needed:
            raise Refused(f"{a.cls.name}'s instances had {' and '.join(sorted(needed))} through {a.parent.name}; whether {q.rsplit('.', 1)[-1]}, "
                          f"outside the tree, gives them is not known")
        while todo:
            k = todo.pop()
            if "__slots__" not in k.members:
                out |= set(_SPECIAL)
            else:
                out |= {n for n in _literal(k) if n in _SPECIAL}
            for b in k.bases:
                bc = index.resolve_class(b)
                if bc is not None:
                    todo.append(bc)
                elif b not in ("builtins.object", "object") and needed - out:
                    raise Refused(f"{a.cls.name}'s instances had {' and '.join(sorted(needed))} through {a.parent.name}; whether "
                                  f"{b.rsplit('.', 1)[-1]}, outside the tree, gives them is not known")
    return out


def _literal(c) -> list[str]:
    node = c.members["__slots__"].node
    v = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    elts = [v] if isinstance(v, ast.Constant) else list(v.elts) if isinstance(v, (ast.Tuple, ast.List)) else None
    if elts is None or not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
        raise Refused(f"{c.name}'s __slots__ is not a literal string, tuple or list of strings")
    return [e.value for e in elts]


def rewrite(ctx, body: list) -> list:
    """C's body with its ``__slots__`` extended by ``merged``."""
    import libcst as cst

    extra = merged(ctx.index, ctx.a) if ctx.index is not None else []
    if not extra:
        return body
    out = []
    for s in body:
        if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == "__slots__" for t in s.body[0].targets):
            s = s.with_changes(body=[s.body[0].with_changes(value=_extended(s.body[0].value, extra))])
            ctx.plan.inlined.append(f"`__slots__` gains {', '.join(extra)}: {ctx.pname} gave {ctx.a.cls.name}'s instances these places")
        out.append(s)
    return out


def _extended(value: cst.BaseExpression, extra: list[str]) -> cst.BaseExpression:
    import libcst as cst

    first = value if isinstance(value, cst.SimpleString) else next(
        (e.value for e in getattr(value, "elements", []) if isinstance(e.value, cst.SimpleString)), None)
    quote = first.value[-1] if first is not None else '"'
    new = [cst.Element(cst.SimpleString(f"{quote}{n}{quote}")) for n in extra]
    if isinstance(value, (cst.Tuple, cst.List)):
        elements = [e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if e.comma is cst.MaybeSentinel.DEFAULT else e
                    for e in value.elements]
        return value.with_changes(elements=elements + new)
    return cst.Tuple([cst.Element(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *new])
