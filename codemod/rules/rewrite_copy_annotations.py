"""DC615 copy-annotations: the parent's class-level annotations, declared on the class, so that ``typing.get_type_hints`` reads the same.

## What it does
``typing.get_type_hints(C)`` (and every reader that merges the ``__annotations__`` of C's MRO)
reads the class-level annotations of the parent and of the classes up to the new base:
declarations (``x: int``) and annotated assignments (``y: int = 0``). After reparenting they
are gone, but for an annotated assignment that DC605 copies. Each other one is written at the
top of the class body (after its docstring) as a declaration, with no value, so that no class
attribute appears: farthest class first, each in its body's order, private names spelt as the
parent mangled them (``__x`` as ``_P__x``). A name the class annotates itself is left: its own
annotation was the one read. The names an annotation reads are imported as moved code's are
(DC607, aliased by DC608 where the class's module binds them otherwise).

Refused, when there is such an annotation, where something may read the class's own
``__annotations__`` while it is built (the declarations would be new fields there): a class
decorator (``@dataclass``) or ``metaclass=`` keyword of its own; a class staying in its MRO with
a metaclass or ``__init_subclass__``; a staying class from outside the tree and the standard
library (a model base, an ORM's declarative base), or ``NamedTuple``/``TypedDict``. Refused too:
an annotation that reads a name of the parent's class body (a nested class, a class attribute),
which the class body does not bind; an annotation whose target is no plain name.

## Why
A ``@dataclass`` subclass, a serializer or a dependency injector that walks the MRO's
annotations, and any caller of ``get_type_hints``, would see fewer fields than before: nothing
fails at import, the program does something else.

## Known problems
The class's own ``__annotations__`` (``inspect.get_annotations(C)``) now hold the declared names
too, where they held the class's own only. The keys of ``get_type_hints(C)`` are the same with
the same values, but an annotated assignment DC605 copies comes after the class's own leading
statements, so the keys' order can differ.

## Fix safety
``get_type_hints(C)`` gives an equal dict; DC705 checks that each name an annotation reads at
run time (no ``from __future__ import annotations``) is bound there, not only under
``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast

from ..model import Hazard
from .verdict_already_decoupled import MARKER

ID = "DC615"
NAME = "copy-annotations"
KEY = "<class-level annotations>"  # their entry among copied_nodes' members


def annotations(a) -> list[tuple[ast.AnnAssign, object]]:
    """(annotation, owning class) for each class-level annotation of the chain that C does not
    make itself, farthest class first: what ``get_type_hints(C)`` reads through P."""
    own = {s.target.id for s in a.cls.node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    out, seen = [], set()
    for owner in reversed(a.chain):
        for s in owner.node.body:
            if isinstance(s, ast.AnnAssign):
                name = s.target.id if isinstance(s.target, ast.Name) else ast.unparse(s.target)
                if name not in own and name not in seen:
                    seen.add(name)
                    out.append((s, owner))
    return out


def declared(a) -> list[tuple[ast.AnnAssign, object]]:
    """The annotations C must declare: those DC605 does not copy with their value."""
    copied = {n for n in a.kept if a.members[n][0].kind == "class_attribute" and isinstance(a.members[n][0].node, ast.AnnAssign)
              and n not in a.cls.members}
    return [(s, owner) for s, owner in annotations(a) if not (isinstance(s.target, ast.Name) and s.target.id in copied)]


def check(st) -> None:
    """Run before the members are decided, so on every annotation the class may take: one DC605
    copies with its value is a new field to a decorator too."""
    a = st.a
    found = annotations(a)
    if not found:
        return
    names = ", ".join(ast.unparse(s.target) for s, _ in found)
    where = f"{'/'.join(c.name for c in a.chain)} annotate{'s' if len(a.chain) == 1 else ''} {names} at class level"
    how = _own_annotations_reader(st)
    if how:
        a.unsafe.append(Hazard(a.cls.file, a.cls.line, f"{where}, which get_type_hints({a.cls.name}) reads; declaring them on "
                               f"{a.cls.name} would change its own __annotations__, which {how} may read", rule=ID))
        return
    class_level = {n for c in a.chain for n, m in c.members.items() if m.kind != "instance_attribute"}
    for s, owner in found:
        if not isinstance(s.target, ast.Name):
            a.unsafe.append(Hazard(owner.module.rel, s.lineno, f"{owner.name} annotates {ast.unparse(s.target)} at class level, "
                                   f"which is no name {a.cls.name} could declare", rule=ID))
            return
        inner = {n.id for n in ast.walk(s.annotation) if isinstance(n, ast.Name)} & class_level
        if inner:
            a.unsafe.append(Hazard(owner.module.rel, s.lineno, f"{owner.name}'s annotation of {s.target.id} reads "
                                   f"{', '.join(sorted(inner))} of its own class body, which {a.cls.name}'s does not bind", rule=ID))
            return


def _own_annotations_reader(st) -> str:
    """What may read C's own ``__annotations__`` while C is built: C's decorator or ``metaclass=``,
    a staying class of the tree with a metaclass or ``__init_subclass__``, or a staying class
    from outside the tree and the standard library (a model base: pydantic's, an ORM's); "" if none."""
    a, index = st.a, st.index
    node = a.cls.node
    if node.decorator_list:
        return f"@{ast.unparse(node.decorator_list[0])}"
    if any(k.arg == "metaclass" for k in node.keywords):
        return "its metaclass"
    for c in st.staying_classes():
        if any(k.arg == "metaclass" for k in c.node.keywords) or "__init_subclass__" in c.methods:
            return f"{c.name}'s metaclass or __init_subclass__"
    for root in st.staying_roots():
        top = index.resolve_class(root)
        for q in ([root] + index.ancestors(top)) if top is not None else [root]:
            module = q.rpartition(".")[0]
            if index.resolve_class(q) is None and q != "object" and (module not in _STDLIB or q.rpartition(".")[2] in _READERS):
                return f"{q}, from outside the tree,"
    return ""


# Modules whose classes do not read a subclass's annotations while it is built.
_STDLIB = {"", "builtins", "typing", "typing_extensions", "abc", "collections", "collections.abc", "contextlib",
           "numbers", "io", "os", "pathlib", "threading", "logging", "json", "types", "functools", "itertools"}
_READERS = {"NamedTuple", "TypedDict"}  # of typing's: they make fields of the annotations


def nodes(a) -> list[ast.AnnAssign]:
    """The declarations as the copy writes them (no value), for the free-name analysis."""
    return [ast.AnnAssign(target=s.target, annotation=s.annotation, value=None, simple=1) for s, _ in declared(a)]


def apply(ctx, body, bound, mangle):
    """``body`` with the declarations at its top, after a docstring. ``bound`` renames the names
    DC608 aliased; ``mangle`` spells private names as the parent did."""
    import libcst as cst  # the rewrite's alone: the analysis asks ``check`` and must not load it

    from ..cst_util import BLANK

    found = declared(ctx.a)
    if not found:
        return body
    lines = []
    for i, (s, owner) in enumerate(found):
        ann = ctx.p.stmt(s).with_changes(value=None, equal=cst.MaybeSentinel.DEFAULT)
        line = bound(KEY, mangle(s, cst.SimpleStatementLine(body=[ann]), owner.name, f"{owner.name}'s annotation of {ast.unparse(s.target)}"))
        lead = [BLANK, *ctx.marker(f"{MARKER} {owner.name}'s annotations")] if i == 0 else []
        lines.append(line.with_changes(leading_lines=lead))
        ctx.plan.inlined.append(f"annotation `{ast.unparse(s.target)}` (a declaration, no value)")
    at = 1 if body and _docstring(body[0]) else 0
    if at == 0:
        lines[0] = lines[0].with_changes(leading_lines=lines[0].leading_lines[1:])
    rest = body[at:]
    if rest and not any(line.comment is None for line in rest[0].leading_lines):
        rest[0] = rest[0].with_changes(leading_lines=[BLANK, *rest[0].leading_lines])
    return body[:at] + lines + rest


def _docstring(stmt) -> bool:
    import libcst as cst

    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
