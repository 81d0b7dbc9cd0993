"""DC606 reparent: replace the parent in the class's bases with the new base.

## What it does
The parent in the class's bases becomes the new base (its name as the class's module
spells it, imported when needed), followed by the parent's other bases (``class P(Mixin,
Base)`` gives ``class C(Mixin, Base)``: every class of C's MRO but P stays, in its order). A base
disappears when it is ``object``, is already among the bases, or is an ancestor of another
base (which then brings it, in the same place of the MRO: naming it first would make the MRO
inconsistent). Other bases and class keywords (``metaclass=``) are kept. When
nothing was inlined into ``__init__``, the class line gets a ``# decouple: decoupled from P``
comment, so a second run knows.

## Why
This is the change itself: instances no longer run the parent's ``__init__`` or carry its
members.

## Known problems
The new base is the parent's first base unless ``--base`` says otherwise. With ``--base``
above the parent, a class between them with more than one base is refused (DC510): its
other bases' place in the MRO is not worked out. DC701 checks the resulting MRO.

## Fix safety
Safe given the keep rules: every member the class uses is copied or inlined first, and
the type-check rules decline where ``isinstance`` would change.
"""

from __future__ import annotations

import libcst as cst

from ..cst_util import code_of
from ..errors import UnsafeError

ID = "DC606"
NAME = "reparent"


def apply(ctx, cd: cst.ClassDef, marked: bool) -> cst.ClassDef:
    idx = ctx.parent_index
    a = ctx.a
    if a.extra_bases and len(a.chain) > 1:
        raise UnsafeError(f"{', '.join(c.name for c in a.chain)} between {a.cls.name} and the new base have more than one base; "
                          f"only a parent's own bases can take its place", ID)
    positional = list(cd.bases)
    present = {code_of(b.value) for b in positional}
    # The first base taking P's place takes its spelling's layout too (its comma, its spaces).
    taking = [positional[idx].with_changes(value=cst.parse_expression(r)) if i == 0 else cst.Arg(value=cst.parse_expression(r))
              for i, r in enumerate(r for r in ctx.base_refs if r not in present)]
    keep = positional[:idx] + taking + positional[idx + 1:]
    keep = [k.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            if i < len(keep) - 1 and k.comma is cst.MaybeSentinel.DEFAULT else k for i, k in enumerate(keep)]
    if keep:
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT) if not cd.keywords else keep[-1]
    if not keep and not cd.keywords:
        cd = cd.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT)
    else:
        cd = cd.with_changes(bases=keep)
    if not marked and ctx.markers:
        # Nothing was inlined into __init__: leave the trace on the class line, so a second run knows.
        cd = cd.with_changes(body=cd.body.with_changes(header=cst.TrailingWhitespace(
            whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(f"# decouple: decoupled from {ctx.pname}"))))
    return cd
