"""DC505 nothing-to-gain: decline when decoupling would skip no work of the parent.

## What it does
Declines when the class uses every member of the parent and every statement of its
``__init__``, when the slice keeps every statement of the parent's ``__init__`` (or the parent
has none), or when what it would drop is only plain assignments: no loop, comprehension,
``[x] * n``, and no call other than a cheap conversion or check (``int``, ``len``,
``isinstance``...) or an empty container (``dict()``). ``--plain-gain`` turns the last test
off; ``--any-gain`` also the second: the class then sheds
only the parent's members it does not use (a design change; the campaign's ``--stress`` uses
it to put the analysis of members before the libraries' own tests). Under a parent without an
``__init__``, a class whose ``__init__`` calls the parent's still declines: that call reaches
the new base's, which the rewrite does not keep (markdown's ``HtmlInlineProcessor``,
werkzeug's ``BadRequest``). A decline gives report.json the ``figures`` it compared:
``members_used``, ``members_total``, ``statements_kept``, ``statements_total``, and for the
last test ``dropped_plain``, ``dropped_real_work`` (statements, nested ones counted) and
``loops_fused``. A parent with no ``__init__`` of its own whose ``__post_init__`` holds the work
declines naming it, with ``post_init_statements`` and ``post_init_real_work``: a
``@dataclass``-generated ``__init__`` (of the class, or of a base that stays) calls it by name
where the dataclass had one when it was decorated, so it is copied whole (DC104) and nothing of
it is skipped (``--any-gain`` lets it through, shedding only unused members). A ``@dataclass``
parent itself is read by DC313: its generated ``__init__`` and ``__post_init__`` are the ``__init__``
weighed here.

## Why
The change would alter a (possibly public) class hierarchy without saving anything real at
construction: skipping ``self.startnode = startnode`` is not worth it.

## Known problems
The gain is judged by kind, not measured: one dropped call to a cheap function counts as work
saved. A class that copies a lot to skip a little is left to DC504's threshold.

## Fix safety
Nothing is rewritten.
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name, is_docstring, pos, walk
from ..facts import PURE_CALLS
from ..model import ClassAnalysis, Decision, Verdict

ID = "DC505"
NAME = "nothing-to-gain"
# Calls too cheap to count as work saved: conversions and checks of one value.
CHEAP_CALLS = {"int", "float", "str", "bool", "len", "isinstance", "issubclass", "getattr", "hasattr", "id", "repr",
               "type", "abs", "min", "max", "round", "callable"}


def judge(a: ClassAnalysis, limits=None) -> Verdict | None:
    init = a.init_reuse
    figures = {"members_used": len(a.kept), "members_total": len(a.members),
               "statements_kept": init["statements_kept"], "statements_total": init["statements_total"]}
    if len(a.kept) == len(a.members) and init["statements_kept"] == init["statements_total"]:
        return Verdict(Decision.DECLINE, ID, f"nothing to gain: {a.cls.name} uses every member of {a.parent.name}",
                       figures=figures)
    any_ok = limits is not None and limits.any_gain
    # Under a parent without __init__, C's super().__init__() runs the new base's, which the
    # rewrite would not keep calling; a generated __init__ is not looked into, so it declines too.
    reaches_base = not init["statements_total"] and (a.super_init_stmt is not None or a.generated_init)
    post = _post_init(a) if not init["statements_total"] else None
    if post is not None and not (any_ok and not reaches_base):
        owner, fn = post
        body = [s for s in walk(fn) if isinstance(s, ast.stmt) and s is not fn and not is_docstring(s)]
        work = sum(1 for s in body if real_work(s))
        return Verdict(Decision.DECLINE, ID, (
            f"nothing to gain: {owner.name} has no __init__ of its own; its __post_init__ ({len(body)} statements, {work} of real work), "
            f"which a @dataclass-generated __init__ calls where it runs at all, is copied into {a.cls.name} whole: "
            f"only an __init__ written out is sliced"
        ), figures={**figures, "post_init_statements": len(body), "post_init_real_work": work})
    if init["statements_kept"] == init["statements_total"] and not (any_ok and not reaches_base):
        return Verdict(Decision.DECLINE, ID, (
            f"nothing to gain: {a.cls.name} never runs work of {a.parent.name}.__init__ that it could skip"
            if init["statements_total"] else f"nothing to gain: {a.parent.name} has no __init__ work to skip"
        ), figures=figures)
    plain_ok = limits is not None and (limits.plain_gain or any_ok)
    dropped = dropped_statements(a)
    work = sum(1 for s in dropped if real_work(s))
    if not plain_ok and not a.fusions and not work:
        return Verdict(Decision.DECLINE, ID, (
            f"nothing to gain: the work of {a.parent.name}.__init__ that {a.cls.name} would skip is only plain "
            f"assignments ({init['statements_total'] - init['statements_kept']} statements), not worth changing the class hierarchy"
        ), figures={**figures, "dropped_plain": len(dropped) - work, "dropped_real_work": work, "loops_fused": len(a.fusions)})
    return None


def _post_init(a: ClassAnalysis):
    """(owner, function) of the parent's ``__post_init__``, which a generated ``__init__`` calls,
    or None."""
    found = a.members.get("__post_init__")
    if found is None or found[0].kind != "method" or found[0].node is None:
        return None
    return found[1], found[0].node


def dropped_statements(a: ClassAnalysis) -> list[ast.stmt]:
    """The statements of the parent's ``__init__`` that the slice drops (folded branches excluded)."""
    init, sl = a.parent_init, a.init_slice
    if init is None or sl is None:
        return []
    return [s for s in walk(init) if isinstance(s, ast.stmt) and s is not init and not is_docstring(s)
            and pos(s) not in sl.kept and pos(s) not in sl.dead]


def real_work(stmt: ast.stmt) -> bool:
    """Whether a statement does more than assign plain values: a loop, a comprehension, or a call
    other than a pure builtin's (a construction, an allocation, any other function)."""
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
        return True
    for n in walk(stmt) if not isinstance(stmt, (ast.If,)) else walk(stmt.test):
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and isinstance(n.left, (ast.List, ast.Tuple)):
            return True  # [0] * n: an allocation
        if isinstance(n, ast.Call):
            name = (dotted_name(n.func) or "").rsplit(".", 1)[-1]
            if name not in CHEAP_CALLS and not (name in PURE_CALLS and not n.args and not n.keywords):
                return True
    return False
