"""DC618 inline-hook: where the parent's file must not change, the class runs the parent's ``__init__`` inlined, its own construction in place of the one it threw away.

## What it does
``decouple --class C --hook --no-parent-edit``: for the statements DC408 finds (P's ``__init__`` builds ``self.a`` or ``self.L[i]``, C
replaces it after ``super().__init__()`` before any read), C's ``super().__init__(...)`` becomes
P's ``__init__`` body, inlined by DC601's machinery (P's parameters bound to C's call, P's
locals renamed where they clash with C's names, free names imported or aliased as DC607 and
DC608 do, ``self.__x`` spelt ``self._P__x``), in which each such statement stores C's own
construction instead of P's; C's replacement statement goes. P's own ``super().__init__()``
becomes ``super(P, self).__init__()``: C still inherits P, and the lookup must start after P
as it did. P and every other subclass of P are untouched; C's subclasses run C's ``__init__``
as before.

## Why
The construction C throws away is real work (GPU allocations, random numbers drawn for
parameters), and the factory hook (DC616) that removes it edits P's file. Where that file
must not change (a dependency, vendored code), C can still stop building what it drops, at
the price of a copy of P's ``__init__`` in C: the report counts the lines copied.

## Known problems
Refused, with the reason, where the copy could behave otherwise: P's ``__init__`` decorated,
inherited from an ancestor, returning early, declaring ``global``/``nonlocal``, calling
``super(...)`` with arguments or inside a nested function; a read of the built object in P's
``__init__`` that is not shown to give the same value with C's (DC408's proof, as for the hook),
or a method P's ``__init__`` calls after it that a subclass of C overrides; C's construction
reading a local or attribute C sets after ``super().__init__()``, calling a method on
``self`` or handing ``self`` on; what DC601 refuses (a ``*iterable`` in C's call, a
name-mangled parameter). The copy no longer follows later changes to P's ``__init__``, and a
patch of ``P.__init__`` at run time no longer reaches C.

## Fix safety
Every statement of P's ``__init__`` runs as before, in order, from the same arguments, except
the stores C replaced, which now store C's object; what C's construction reads is shown to
hold the same value there. C's construction runs earlier than it did (where P's ran), before
the rest of P's ``__init__``. The patched file is compiled and checked with pyflakes before it
is shown or written.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..cst_util import comment_line, rename
from ..errors import DecoupleError
from . import rewrite_inline_init

ID = "DC618"
NAME = "inline-hook"


@dataclass
class Swap:
    """One statement of P's ``__init__`` that stores C's object instead."""

    at: int  # its index among the statements of P's __init__ body that are inlined
    element: bool  # self.L.append(E) / self.L[i] = E in a loop, else self.a = E
    value: cst.BaseExpression  # C's construction, in C's names
    loop_var: str | None  # C's loop variable (element stores)
    remove: cst.CSTNode  # C's replacement statement, a statement of its __init__ body


def rewrite(ctx, cd: cst.ClassDef, swaps: list[Swap], n: int, parent_ref: str, note: str) -> cst.ClassDef:
    """C's class with its ``__init__`` running P's inlined, ``swaps`` applied; ``n``: how many
    statements of P's ``__init__`` body are inlined; ``parent_ref``: how C's module spells P."""
    init_ast = ctx.a.cls.methods["__init__"]
    fn = ctx.c.stmt(init_ast)
    block = rewrite_inline_init.init_block(ctx)
    if len(block) < n:
        raise DecoupleError(f"{ID}: the inlined block of {ctx.pname}.__init__ lost statements; nothing written")
    first = len(block) - n  # the bindings of P's parameters come first
    # P's code only: a super() in C's own construction keeps meaning C's.
    block = [st.visit(_SuperAfter(parent_ref, init_ast.args.args[0].arg)) for st in block]
    for s in swaps:
        block[first + s.at] = _swapped(block[first + s.at], s)
    block[0] = block[0].with_changes(leading_lines=[*block[0].leading_lines, comment_line(note)])
    gone = {id(s.remove) for s in swaps}
    fn = fn.with_changes(body=fn.body.with_changes(body=[st for st in fn.body.body if id(st) not in gone]))
    new_fn = rewrite_inline_init.rewrite_init(ctx, fn, block)
    old_fn = ctx.c.stmt(init_ast)
    return cd.with_changes(body=cd.body.with_changes(body=[new_fn if st is old_fn else st for st in cd.body.body]))


def _swapped(st: cst.CSTNode, s: Swap) -> cst.CSTNode:
    if not s.element:
        small = st.body[0] if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 else None
        if not isinstance(small, (cst.Assign, cst.AnnAssign)):
            raise DecoupleError(f"{ID}: the inlined statement is not the store it was; nothing written")
        return st.with_changes(body=[small.with_changes(value=s.value)])
    if not isinstance(st, cst.For) or not isinstance(st.target, cst.Name):
        raise DecoupleError(f"{ID}: the inlined statement is not the loop it was; nothing written")
    value = rename(s.value, {s.loop_var: st.target}) if s.loop_var != st.target.value else s.value
    line = st.body.body[0]
    small = line.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):  # self.L.append(E)
        call = small.value
        small = small.with_changes(value=call.with_changes(args=[call.args[0].with_changes(value=value)]))
    elif isinstance(small, cst.Assign):  # self.L[i] = E
        small = small.with_changes(value=value)
    else:
        raise DecoupleError(f"{ID}: the inlined loop does not store as it did; nothing written")
    return st.with_changes(body=st.body.with_changes(body=[line.with_changes(body=[small]), *st.body.body[1:]]))


class _SuperAfter(cst.CSTTransformer):
    """``super()`` in P's code, now in C: ``super(P, self)``, the lookup starting after P as it did."""

    def __init__(self, parent_ref: str, csn: str):
        self.args = [cst.Arg(cst.parse_expression(parent_ref)), cst.Arg(cst.Name(csn))]

    def leave_Call(self, original, updated):
        if isinstance(updated.func, cst.Name) and updated.func.value == "super" and not updated.args:
            return updated.with_changes(args=self.args)
        return updated
