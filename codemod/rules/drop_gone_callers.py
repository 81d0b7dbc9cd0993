"""DC153 gone-callers: a second pass over the classes one run decouples, without the code that no longer runs on them.

## What it does
When one run decouples several classes (SGLang's backend and its draft container), each is
first analysed on the tree as it is. Then, for every class C1 that keeps a member whose only
evidence lies in a method of another decoupled class C2's old parents that C2 does not keep
(``FlashInferMultiStepDraftBackend.prepare_static``, which walks ``self.attn_backends`` and
calls into the backends), C1 is analysed again with the typing told that ``self`` in such a
method can no longer be a C2: after the patch C2 has left those parents, and the method runs
only on the instances that still inherit it. Evidence that came from C2 through that method
goes away; what else the tree shows still keeps the member.

## Why
The first analysis types ``self.attn_backends`` in the draft parent's method as anything the
parent or any subclass stores there, the draft's own backends included, so the backend keeps a
copy of a method and the buffers it fills for a caller that, once both patches apply, never
reaches it.

## Known problems
Only methods other than ``__init__`` count as gone (the parent's ``__init__`` is sliced
statement by statement). Only a member whose every recorded use lies in such a method triggers
the second pass: a use elsewhere that is itself reached only from gone code is not seen as gone.
The second pass assumes the other class is decoupled: where its patch is refused, the run goes
back to the first analysis of C1 (``pipeline.compute``).

## Fix safety
Safe when both patches apply together, which the run guarantees (all or nothing).
"""

from __future__ import annotations

from ..model import ClassAnalysis

ID = "DC153"
NAME = "gone-callers"


def gone_methods(a: ClassAnalysis, index) -> dict[int, frozenset[str]]:
    """The methods of ``a``'s old chain that no longer run on ``a.cls`` or its subclasses, by
    ``id`` of their ``def``, each with the classes ``self`` there can no longer be."""
    leaving = frozenset({a.cls.qualname} | {s.qualname for s in index.subclasses_deep(a.cls)})
    return {id(fn): leaving for c in a.chain for name, fn in c.methods.items()
            if name != "__init__" and name not in a.kept}


def _spans(a: ClassAnalysis, gone: dict[int, frozenset[str]]) -> list[tuple[str, int, int]]:
    return [(c.file, fn.lineno, fn.end_lineno or fn.lineno) for c in a.chain for fn in c.methods.values() if id(fn) in gone]


def needs_second_pass(a1: ClassAnalysis, others: list[tuple[ClassAnalysis, dict[int, frozenset[str]]]]) -> bool:
    """Whether some member ``a1`` keeps rests only on uses inside methods the other classes leave."""
    spans = [s for a2, gone in others for s in _spans(a2, gone)]
    if not spans:
        return False

    def inside(ev) -> bool:
        return ev.rule == "DC108" and any(ev.file == f and lo <= ev.line <= hi for f, lo, hi in spans)

    return any(evs and all(inside(ev) for ev in evs) for evs in a1.kept.values())


def joint(index, decoupled: list[ClassAnalysis], reanalyse) -> dict[int, tuple[ClassAnalysis, set[str]]]:
    """Second analyses for the classes that need one: ``id`` of the first analysis -> (the
    second, the names of the classes it assumes decoupled). ``reanalyse(a, gone)`` runs one."""
    if len(decoupled) < 2:
        return {}
    gones = {id(a): gone_methods(a, index) for a in decoupled}
    out = {}
    for a1 in decoupled:
        others = [(a2, gones[id(a2)]) for a2 in decoupled if a2 is not a1]
        if not needs_second_pass(a1, others):
            continue
        gone: dict[int, frozenset[str]] = {}
        for _, g in others:
            gone.update(g)
        out[id(a1)] = (reanalyse(a1, gone), {a2.cls.name for a2, _ in others})
    return out

