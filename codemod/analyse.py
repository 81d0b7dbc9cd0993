"""The analysis stage: which members of the parent P a class C really uses, with evidence.

For every member of P the analysis decides keep or drop and records why, as ``file:line``
and the id of the rule that kept it (``codemod/rules/keep_*.py``). It also records the
hazards (``hazard_*``, ``unsafe_*``) and the side effects of the parent's ``__init__`` that
would no longer run (``effect_*``). The verdict is not decided here (``verdict.py``).

One class at a time, in three steps, each on a fresh ``ClassState``:

* ``prepare``: resolve P and the new base; what C itself reads (DC101), its ``super()``
  calls (DC102); then the closure over P's code and the slice of P's ``__init__``;
* ``scan``: the rest of the tree, for uses of P's members (DC108) and type checks that name
  P (DC201-DC209). This is most of a run's cost and depends only on the prepared class, so
  ``scan_worker`` runs it for some classes in another process and this one replays it;
* ``finish``: drop what the new base already gives (DC151) or that nothing provides (DC152).
"""

from __future__ import annotations

import ast

from .errors import UsageError
from .index import ClassInfo, Index
from .lookup import did_you_mean, require_module
from .model import ClassAnalysis, Former, Knowledge, Scanned
from .rules import (
    drop_same_as_base, drop_unprovided, hazard_class_name_string, hazard_class_registry, hazard_except_clause, hazard_isinstance, hazard_match_class,
    hazard_exported_parent, hazard_metaclass, hazard_mro_membership, hazard_type_list,
    keep_base_hooks, keep_child_reads, keep_implicit_dunder, keep_kept_method_reads, keep_outside_use, keep_project_use, keep_registered_defs, keep_runtime_read,
    keep_structural_tests, keep_super_target, rewrite_copy_annotations,
    unsafe_attribute_hooks, unsafe_class_body, unsafe_class_keyword, unsafe_dataclass_parent, unsafe_dynamic_access, unsafe_generic_base, unsafe_init_call, unsafe_mro_walk, unsafe_slots,
)
from .super_init import find_super_init, generates_init
from .rules.verdict_already_decoupled import former_parent
from .slice import slice_parent_init
from .state import ClassState


class Analyzer:
    """The analysis of a run: the index it reads, and how it reports progress."""

    def __init__(self, index: Index, progress=None, all_uses: bool = False, knowledge: Knowledge | None = None,
                 gone: dict | None = None, runtime: dict | None = None):
        self.index = index
        # --trace: class qualname -> what the traced run saw on its instances (DC120).
        self.runtime = runtime or {}
        self.knowledge = knowledge or Knowledge()
        # Methods that no longer run on other classes this run decouples (DC153's second pass).
        self.gone = gone or {}
        self.progress = progress  # (done, total, what) -> None; a bar on a terminal
        # One outside use is enough to keep a member, so by default the search for a
        # member's uses stops at the first (in file order); all_uses types and lists every one.
        self.all_uses = all_uses

    def analyse(self, cls: ClassInfo, parent: ClassInfo | None = None, base: str | None = None,
                scanned: Scanned | None = None, prepared: ClassState | None = None) -> ClassAnalysis:
        """The analysis of one class. ``scanned``: the outcome of ``scan`` for this class, when
        another process already ran it (it is replayed instead of run again); ``prepared``: what
        ``prepare`` returned for it, when this process already ran that."""
        st = prepared if prepared is not None else self.prepare(cls, parent, base)
        if st.a.nothing_to_do:
            return st.a
        if scanned is None:
            self.scan(st)
        else:
            self.replay(st, scanned)
        if keep_runtime_read.run(st, self.runtime.get(cls.qualname, ())):
            closure(st)
        return finish(st)

    def prepare(self, cls: ClassInfo, parent: ClassInfo | None, base: str | None) -> ClassState:
        """Everything up to the search of the rest of the tree (all there is when nothing is to do)."""
        former = None
        if isinstance(parent, Former):
            parent, former = None, parent.name
        elif parent is None:
            parent, former = self._resolve_parent(cls)
        if parent is None:
            return ClassState(self.index, ClassAnalysis(cls, None, "builtins.object", former=former))
        chain, base_q = self._chain(parent, base)
        extra = [_norm_object(b) for c in chain for b in c.bases[1:]]
        a = ClassAnalysis(cls, parent, base_q, chain=chain, extra_bases=[b for b in extra if b != "builtins.object"])
        st = ClassState(self.index, a, self.all_uses, self.progress, knowledge=self.knowledge, gone=self.gone)
        for c in reversed(chain):
            for name, m in c.members.items():
                if name != "__init__":
                    a.members[name] = (m, c)
        a.inherits = any(self.index._same_class(b, parent) for b in cls.bases)
        if not a.inherits:
            return st
        unsafe_attribute_hooks.check(a)
        hazard_metaclass.check(a)
        hazard_exported_parent.check(st)
        unsafe_class_keyword.check(a)
        unsafe_slots.check(st)
        unsafe_attribute_hooks.check_staying(st)
        unsafe_dynamic_access.check_staying(st)
        unsafe_generic_base.check(st)
        unsafe_class_body.check(st)
        rewrite_copy_annotations.check(st)
        st.child_defines = {n for n, m in cls.members.items() if m.kind != "instance_attribute"}
        init = cls.methods.get("__init__")
        a.super_init_stmt, a.super_init_call = find_super_init(self.index, cls, init, parent) if init else (None, None)
        a.generated_init = generates_init(cls)
        unsafe_dataclass_parent.check(st)
        st.init_runs = (init is None and not a.generated_init) or a.super_init_stmt is not None
        if st.init_runs:
            st.shadowed = st.child_defines & st.parent_init_stores()
        unsafe_init_call.check(st)
        keep_child_reads.run(st)
        keep_super_target.run(st)
        keep_base_hooks.run(st)
        closure(st)
        return st

    def scan(self, st: ClassState) -> Scanned:
        """The rest of the tree: uses of P's members, and type checks that name P."""
        a = st.a
        out = Scanned()
        hazards_before, unsafe_before = len(a.hazards), len(a.unsafe)
        if keep_outside_use.run(st, out) | keep_project_use.run(st, out) | keep_structural_tests.run(st, out):
            closure(st)
            out.closed = True
        out.init_local_candidates = sorted(a.init_local_candidates)
        out.may_have_known = a.may_have_known = st.flow is not None and st.flow.may_have is not None
        type_checks(st)
        unsafe_dynamic_access.check_outside(st)
        out.skipped_files = dict(a.skipped_files)
        out.hazards = a.hazards[hazards_before:]
        out.unsafe = a.unsafe[unsafe_before:]
        out.syntax_errors = dict(st.index.syntax_errors)
        return out

    def replay(self, st: ClassState, s: Scanned) -> None:
        for name, ev in s.needs:
            st.need(name, ev)
        for name, ev in s.assumptions:
            st.assume(name, ev)
        for name, ev in s.proofs:
            st.prove(name, ev)
        st.a.read_outside.update(s.read_outside)
        st.a.init_local_candidates = set(s.init_local_candidates)
        st.a.may_have_known = s.may_have_known
        if s.closed:
            closure(st)
        st.a.skipped_files.update(s.skipped_files)
        st.a.hazards.extend(s.hazards)
        st.a.unsafe.extend(s.unsafe)
        for rel, error in s.syntax_errors.items():
            st.index.syntax_errors.setdefault(rel, error)

    def _resolve_parent(self, cls: ClassInfo):
        """(P, None) from C's first base, or (None, the former parent) for a class decoupled before."""
        former = former_parent(cls)
        if former:
            return None, former
        if not cls.bases:
            return None, None
        first = cls.bases[0]
        p = self.index.resolve_class(first)
        if p is None:
            require_module(self.index, first)
            raise UsageError(f"parent {first} of {cls.name} is not under ROOT ({cls.file}:{cls.line}); pass a ROOT that contains it")
        return p, None

    def chain(self, parent: ClassInfo, base: str | None) -> list[ClassInfo]:
        return self._chain(parent, base)[0]

    def _chain(self, parent: ClassInfo, base: str | None) -> tuple[list[ClassInfo], str]:
        """P and the classes between P and the new base (first bases), and the base's qualname."""
        default = parent.bases[0] if parent.bases else "builtins.object"
        if base is None:
            return [parent], _norm_object(default)
        chain = [parent]
        cur = parent
        while True:
            nxt = cur.bases[0] if cur.bases else "builtins.object"
            if _matches(nxt, base) or _matches(_norm_object(nxt), base):
                return chain, _norm_object(nxt)
            c = self.index.resolve_class(nxt)
            if c is None:
                names = ", ".join(q.rsplit(".", 1)[-1] for q in self.index.ancestors(parent)) or "none"
                raise UsageError(f"--base {base} is not an ancestor of {parent.name}; give one of its ancestors ({names})")
            chain.append(c)
            cur = c


def finish(st: ClassState) -> ClassAnalysis:
    a = st.a
    # A member kept on other evidence is no assumption; one the user named must have none.
    a.assumptions = {n: evs for n, evs in a.assumptions.items() if n not in a.kept}
    a.proofs = {n: evs for n, evs in a.proofs.items() if n not in a.kept}
    for q in sorted(st.knowledge.unused):
        cls_name, _, member = q.partition(".")
        if cls_name != a.cls.name:
            continue
        if member not in a.members and member not in a.assumptions:
            raise UsageError(f"--assume-unused {q}: {a.parent.name} has no member {member!r}"
                             f"{did_you_mean(member, a.members)}")
        if member in a.kept:
            ev = a.kept[member][0]
            raise UsageError(f"--assume-unused {q}: {member} has a shown use, {ev.file}:{ev.line}: {ev.use}")
    drop_same_as_base.run(st)
    drop_unprovided.run(st)
    unsafe_mro_walk.check(st)
    return st.a


def closure(st: ClassState) -> None:
    """Follow kept members into P's code (DC103, DC113), and slice P.__init__, until nothing new is needed."""
    a = st.a
    st.queue = list(a.kept)
    keep_implicit_dunder.run(st)
    scanned = set()
    while True:
        while st.queue:
            name = st.queue.pop()
            if name in scanned or name not in a.members:
                continue
            scanned.add(name)
            keep_kept_method_reads.follow(st, name)
            keep_registered_defs.follow(st, name)
        before = set(a.kept)
        slice_parent_init(st)
        if set(a.kept) == before and not st.queue:
            break


def type_checks(st: ClassState) -> None:
    """One pass over the files naming P, each node offered to the type-check rules in turn."""
    p = st.a.parent
    flow = st.receivers()
    for rel in st.index.tree.files_naming(p.name):
        mod = st.index.module(rel)
        if mod is None:
            continue
        mro_file = "__mro__" in mod.text or ".mro()" in mod.text or "__bases__" in mod.text
        for node in mod.nodes:
            if node.__class__ not in _TYPE_CHECK_NODES:
                continue  # every rule below tests the node's class first: this one none takes
            if (hazard_isinstance.check(st, flow, mod, rel, node) or hazard_type_list.check(st, mod, rel, node)
                    or hazard_except_clause.check(st, mod, rel, node) or hazard_mro_membership.check(st, mod, rel, node)
                    or hazard_match_class.check(st, mod, rel, node) or (node.__class__ in hazard_class_registry.NODES and hazard_class_registry.check(st, mod, rel, node))):
                continue
            hazard_class_name_string.check(st, mod, rel, node, mro_file)


# The node classes the type-check rules look at, each rule's first test: isinstance and the
# catching calls (Call), literals of types (List, Tuple, Set), except clauses (ExceptHandler), MRO
# membership (Compare), class patterns (Match), registries (``hazard_class_registry.NODES``) and
# class-name strings (Constant). The rest of a module's nodes (names, attributes, most of them)
# are passed over without a call.
_TYPE_CHECK_NODES = frozenset({ast.Call, ast.List, ast.Tuple, ast.Set, ast.ExceptHandler, ast.Compare, ast.Constant,
                               *([ast.Match] if hasattr(ast, "Match") else []), *hazard_class_registry.NODES})


def _norm_object(q: str) -> str:
    return "builtins.object" if q in ("object", "builtins.object") else q


def _matches(qual: str, spec: str) -> bool:
    spec = spec.replace(":", ".")
    return qual == spec or qual.rsplit(".", 1)[-1] == spec
