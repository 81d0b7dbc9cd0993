"""DC705 post-names: refuse a patch where a global name the class reads means something else than it did.

## What it does
Reads, with Python's own scoping (``symtable``), every global name the patched class reads
(in its body, its methods and what they nest; annotations left out, since they are not
evaluated at run time under ``from __future__ import annotations`` and never change what runs),
and what each module binds that name to at its top level: an import (to what it imports), a
``def``, a ``class`` or an assignment (to the module's own global), nothing (a builtin). Then:

- a name the class read before the patch must be bound in the patched module as it was in the
  original module;
- a name read more often after the patch than before (so code moved in from the parent reads
  it) must be bound in the patched module as it is in the module of a class the code came from
  (the parent, or a class up to the new base); a name none of those modules binds must be a
  builtin there too, or be bound to an object one of them binds under another name (the
  rewrite's alias imports, ``SCALE as SCALE_base``);
- a name read at run time more often after the patch than before must have a binding in the
  patched module that runs: one only under ``if TYPE_CHECKING:`` does not. What runs includes
  the annotations of parameters, returns and the class body unless the module has
  ``from __future__ import annotations``; string annotations never run.

## Why
Code moved from the parent's module into the class's module keeps its spelling, but a name
means what the module it sits in binds: ``LIMIT`` in the parent's module is 8, in the class's
module 99; an import the rewrite adds for moved code can shadow a name the class's own code
reads. Neither breaks a check on the patched file, and both change what runs; nor does a name the
class's module imports only for type checkers, which pyflakes counts as bound and which raises
``NameError`` when the moved code runs. The rewrite
aliases such names (DC608); this check does not trust that it did.

## Known problems
A module with ``from x import *`` is not checked for names it does not bind explicitly. Two
bindings of a name in one module (``try: import a as X`` / ``except ImportError: X = None``)
count as the set of both: the check passes only when the sets are equal. A name the class's own
code and moved code both read, whose two meanings differ, is refused even where the rewrite
renamed every moved read (the counts cannot tell which read moved). A guard spelled otherwise
than ``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (``if False:``) counts as running. Python 3.14
defers annotations without the ``__future__`` import; they are still taken to run. An alias is checked only
against every object the parent's modules bind, not against the one name it stands for.

## Fix safety
A post-condition: no patch is written (exit 3) when it fails.
"""

from __future__ import annotations

import ast
from collections import Counter

from ..ast_util import child_blocks, dotted_name, resolve_relative, walk

ID = "DC705"
NAME = "post-names"
STAR = "*"


def check(ctx) -> None:
    a = ctx.a
    before_mod, after_mod = a.cls.module, ctx.patched
    before_both = _global_reads(before_mod.symbols, a.cls.node)
    after_both = _global_reads(after_mod.symbols, ctx.after.node)
    if before_both is None or after_both is None:
        return  # symtable refused the text: the compile check says so
    before, after = before_both[0], after_both[0]
    _bound_at_run_time(ctx, before_both[_evaluates_annotations(before_mod.tree)],
                       after_both[_evaluates_annotations(after_mod.tree)])
    was, now = _bindings(before_mod), _bindings(after_mod)
    sources = {c.module.name: _bindings(c.module) for c in a.chain}
    for name, count in sorted(after.items()):
        meant_now = _meaning(now, name)
        if meant_now is None:
            continue
        if name in before:
            meant = _meaning(was, name)
            if meant is not None and meant != meant_now:
                ctx.violate(ID, f"{a.cls.name} reads {name}, which its module bound to {_shown(meant)} and now binds to {_shown(meant_now)}")
                continue
        if name == a.cls.name and meant_now == frozenset({a.cls.qualname}):
            continue  # the class itself: what the rewrite retargets super(P, self) and P.m(self) to
        if count > before.get(name, 0):
            if any(STAR in b and name not in b for b in sources.values()):
                continue  # a star import there: not checked
            meanings = {b[name] for b in sources.values() if name in b}
            if not meanings:
                # Bound in none of those modules: a builtin, or a name the rewrite gave an object
                # the parent's module binds under another name (an alias import).
                meanings = {frozenset({f"builtins.{name}"})} | {frozenset({t}) for b in sources.values() for m in b.values() for t in m}
            if meant_now not in meanings:
                where = " or ".join(sorted(_shown(m) for m in meanings)) if len(meanings) < 4 else "what it meant there"
                ctx.violate(ID, f"code moved into {a.cls.name} reads {name}, which meant {where} where it came from "
                                f"and means {_shown(meant_now)} in {after_mod.rel}")


def _bound_at_run_time(ctx, before: Counter, after: Counter) -> None:
    """A global name moved code reads at run time must have a binding that runs: not one only
    under ``if TYPE_CHECKING:``, which pyflakes counts as bound. ``before``, ``after``: the
    class's reads of global names that run (``_global_reads``), in the original and the patch."""
    a, after_mod = ctx.a, ctx.patched
    every, running = _bindings(after_mod), _bindings(after_mod, run_time=True)
    if STAR in every:
        return
    for name, count in sorted(after.items()):
        if count > before.get(name, 0) and name in every and name not in running:
            ctx.violate(ID, f"code moved into {a.cls.name} reads {name} at run time, which {after_mod.rel} binds only "
                            f"under `if TYPE_CHECKING:`")


def _evaluates_annotations(tree: ast.Module) -> bool:
    """Whether the module's annotations of functions and class bodies run (no ``from __future__ import annotations``)."""
    for s in tree.body:
        if isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(al.name == "annotations" for al in s.names):
            return False
        if not (isinstance(s, ast.ImportFrom) and s.module == "__future__") and not (
                isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)):
            break
    return True


def type_checking_test(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` and ``if typing.TYPE_CHECKING:``: a block that never runs."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _shown(meaning: frozenset[str]) -> str:
    return ", ".join(sorted(meaning))


def _meaning(bindings: dict, name: str) -> frozenset[str] | None:
    """What ``name`` refers to at the top level of a module; None where a star import may bind it."""
    if name in bindings:
        return bindings[name]
    if STAR in bindings:
        return None
    return frozenset({f"builtins.{name}"})


def _bindings(mod, run_time: bool = False) -> dict[str, frozenset[str]]:
    """Name -> what the module's top level binds it to (every binding, in any block; ``run_time``:
    not those only type checkers see, under ``if TYPE_CHECKING:``)."""
    out: dict[str, set[str]] = {}

    def bind(name: str, target: str) -> None:
        out.setdefault(name, set()).add(target)

    def targets(node: ast.AST) -> None:
        for n in walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                bind(n.id, f"{mod.name}.{n.id}")

    def visit(stmts) -> None:
        for s in stmts:
            if isinstance(s, ast.Import):
                for al in s.names:
                    head = al.name.split(".")[0]
                    bind(al.asname or head, al.name if al.asname else head)
            elif isinstance(s, ast.ImportFrom):
                base = resolve_relative(mod.name, mod.is_package, s.module, s.level)
                for al in s.names:
                    bind(STAR if al.name == "*" else al.asname or al.name,
                         base if al.name == "*" else f"{base}.{al.name}" if base else al.name)
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(s.name, f"{mod.name}.{s.name}")
            elif run_time and isinstance(s, ast.If) and type_checking_test(s.test):
                visit(s.orelse)
            elif child_blocks(s):  # if, for, while, with, try, match: their blocks are the top level too
                for part in (getattr(s, "target", None), *[i.optional_vars for i in getattr(s, "items", [])]):
                    if part is not None:
                        targets(part)
                for h in getattr(s, "handlers", []) or []:
                    if h.name:
                        bind(h.name, f"{mod.name}.{h.name}")
                for block in child_blocks(s):
                    visit(block)
            elif (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                  and dotted_name(s.value) is not None):
                # ``Kind = Kind``, ``LIMIT = config.LIMIT``: the name is bound to the same object
                head, _, rest = dotted_name(s.value).partition(".")
                for m in list(out.get(head, {f"builtins.{head}"})):
                    bind(s.targets[0].id, f"{m}.{rest}" if rest else m)
            else:
                targets(s)

    visit(mod.tree.body)
    return {k: frozenset(v) for k, v in out.items()}


def _global_reads(top, cls: ast.ClassDef) -> tuple[Counter, Counter] | None:
    """How many times the class reads each global name (``top``: the module's symbol table), as
    two counts made in one walk: outside annotations, and with the annotations that run too (of
    parameters, returns and the class body's own, not a function's local ones); which of the
    two is read at run time depends on ``from __future__ import annotations``."""
    if top is None:
        return None
    table = next((t for t in top.get_children() if t.get_type() == "class" and t.get_name() == cls.name
                  and t.get_lineno() == cls.lineno), None)
    if table is None:
        return None
    names: set[str] = set()

    def collect(t) -> None:
        for sym in t.get_symbols():
            if sym.is_referenced() and sym.is_global():
                names.add(sym.get_name())
        for child in t.get_children():
            collect(child)

    collect(table)
    # The class's body only: its bases and decorators are the reparenting's (DC701 checks the MRO).
    plain: Counter = Counter()
    running: Counter = Counter()
    # (node, counted outside annotations, counted with the annotations that run)
    stack = [(s, True, True) for s in cls.body]
    run = {id(s) for s in cls.body if s.__class__ is ast.AnnAssign}
    while stack:
        n, in_plain, in_running = stack.pop()
        if n.__class__ is ast.Name:
            if n.id in names and n.ctx.__class__ is ast.Load:
                if in_plain:
                    plain[n.id] += 1
                if in_running:
                    running[n.id] += 1
            continue
        for field, value in ast.iter_fields(n):
            p, r = in_plain, in_running
            if field in _ANNOTATION_FIELDS and n.__class__ in _ANNOTATED:
                p = False
                r = r and (n.__class__ is not ast.AnnAssign or id(n) in run)
                if not r:
                    continue
            if isinstance(value, list):
                stack.extend((v, p, r) for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append((value, p, r))
    return plain, running


# Where annotations sit: ``arg.annotation``, a function's ``returns``, ``AnnAssign.annotation``.
_ANNOTATION_FIELDS = frozenset({"annotation", "returns"})
_ANNOTATED = frozenset({ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign})

