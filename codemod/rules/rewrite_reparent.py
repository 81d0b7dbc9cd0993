"""DC606 reparent: replace the parent in the class's bases with the new base.

## What it does
The parent in the class's bases becomes the new base (its name as the class's module
spells it, imported when needed), or disappears when the new base is ``object``, is already
among the bases, or is an ancestor of another base (which then brings it, in the same place
of the MRO: naming it first would make the MRO inconsistent). Other bases and class keywords (``metaclass=``) are kept. When
nothing was inlined into ``__init__``, the class line gets a ``# decouple: decoupled from P``
comment, so a second run knows.

## Why
This is the change itself: instances no longer run the parent's ``__init__`` or carry its
members.

## Known problems
The new base is the parent's first base unless ``--base`` says otherwise; a parent's
other bases are not kept.

## Fix safety
Safe given the keep rules: every member the class uses is copied or inlined first, and
the type-check rules decline where ``isinstance`` would change.
"""

from __future__ import annotations

import libcst as cst

from ..cst_util import code_of

ID = "DC606"
NAME = "reparent"


def apply(ctx, cd: cst.ClassDef, marked: bool) -> cst.ClassDef:
    idx = ctx.parent_index
    positional = list(cd.bases)
    keep = list(positional)
    if ctx.base_ref is None or any(code_of(b.value) == ctx.base_ref for b in positional):
        del keep[idx]
    else:
        keep[idx] = positional[idx].with_changes(value=cst.parse_expression(ctx.base_ref))
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
