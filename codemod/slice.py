"""Backward slice of the parent's ``__init__``: the statements a decoupled class still needs.

Given the attributes that must exist after construction, keep the statements
that define them and everything those depend on (locals, earlier attributes,
the ``if``/``for``/``with``/``try`` around them, early returns), in their
original order. Liveness is computed backwards with kills, so a definition
that is overwritten before it is read is dropped. Tests that are constant for
the subclass (``self.__class__ is Parent``, a parameter bound to a literal) are
folded, and the branch that cannot run is neither kept nor reported.

A call ``self.m(...)`` counts as what dynamic dispatch runs on the subclass
(``facts.method_effects``): it may define what ``m`` and the methods it calls assign, and it
needs what they read. A call that reaches code which stays on the subclass (its overrides,
the new base's methods) and an explicit ``Base.__init__(self, ...)`` are always kept.
"""

from __future__ import annotations

import ast
from .attribute_hooks import STORE_HOOKS, silent_for
from .ast_util import Pos, bind_arguments, binding_count, dotted_name, first_param, is_docstring, is_static, is_super_call, names_bound, pos, walk
from .facts import SETTER, Facts, MethodEffects, collect
from .model import SideEffect, SliceResult
from .rules import (
    effect_allocation, effect_call, effect_construction, effect_outside_write, effect_registration,
    keep_constructor_dispatch, keep_init_slice_defines, keep_kept_object, keep_init_slice_reads, keep_self_handoff, keep_validation,
    rewrite_drop_recomputed, rewrite_fuse_loops, rewrite_read_through, unsafe_dynamic_access,
)
from .rules.rewrite_fold_constants import fold

# The side-effect rules, in the order their matches are tried: statement-level ones first,
# then, call by call, the named writes and allocations, then, call by call, the rest.
_STATEMENT_EFFECTS = (effect_outside_write,)
_CALL_EFFECTS = ((effect_registration, effect_allocation), (effect_construction, effect_call))

_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


class Slicer:
    def __init__(self, fn: ast.FunctionDef, selfname: str, *, consts: dict[str, object], foreign_classes: set[str], keep_super: bool,
                 skip: set[Pos] = frozenset(), replace: dict | None = None, methods: dict[str, MethodEffects] | None = None,
                 for_effect=None, setters: dict[str, MethodEffects] | None = None, stores_run_code=False):
        self.fn = fn
        # A ``__setattr__`` that stays on the class runs on every store to ``self``: each store is a
        # call into code that stays, so none may be dropped. One copied from the parent runs on
        # them too; a store may go where it does nothing but the store (attr -> whether it runs code).
        self.stores_run_code = stores_run_code
        # What ``self.X = v`` runs where X is a property with a setter: the assignment is a call.
        self.setters = setters or {}
        # statement, facts, what is live after it -> (rule id, why) when the statement must run
        # for its effect alone (a validation, a hand-off of the instance, a call on a kept object), or None.
        self.for_effect = for_effect
        # What each ``self.m()`` does as dispatch runs it (the subclass's overrides standing in for
        # the parent's methods): a call may define attributes and needs what it reads; a call that
        # reaches code which stays on the subclass (its own, or the new base's) runs on it before
        # and after the change, so it is always kept.
        self.methods = methods or {}
        self.selfname = selfname
        self.consts = consts  # parameter -> literal value bound by the subclass' call
        self.foreign = foreign_classes  # names that ``self.__class__ is X`` is False for
        self.keep_super = keep_super
        self.skip = set(skip)  # statements to drop outright (fused loops)
        self.replace = replace or {}  # position -> new value of an assignment (read-through)
        self.res = SliceResult()
        args = fn.args
        self.locals = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {a.arg for a in (args.vararg, args.kwarg) if a}
        self.locals |= {n.id for n in walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self._any_kept = False
        # Facts depend on the node, selfname and fn's locals, and on ``replace``: without one,
        # every Slicer of fn shares them (the scan slices one __init__ for each set of needs).
        self._facts: dict[int, tuple[ast.AST, Facts]] = _shared_facts(fn, selfname) if not self.replace else {}

    # ---- public ----------------------------------------------------------
    def run(self, needed_attrs: set[str]) -> SliceResult:
        live = {("A", a) for a in needed_attrs}
        body = [s for s in self.fn.body if not is_docstring(s)]
        live = self._block(body, live)
        self.res.free_locals = {n for k, n in live if k == "L"}
        for k, n in live:
            if k == "A":
                self.res.reads_attrs.setdefault(n, [])
        self._count(body)
        return self.res

    # ---- facts -----------------------------------------------------------
    def facts(self, node: ast.AST) -> Facts:
        key = id(node)
        known = self._facts.get(key)
        if known is None or known[0] is not node:
            given = node
            if isinstance(node, ast.Assign) and pos(node) in self.replace:
                node = ast.Assign(targets=node.targets, value=self.replace[pos(node)], lineno=node.lineno, col_offset=node.col_offset)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # A nested def is a statement that binds a name; its body is a scope of its own.
                node = ast.Module(body=[node], type_ignores=[])
            known = self._facts[key] = (given, collect(node, self.selfname, self.locals))
        return known[1]

    def _header_facts(self, s: ast.stmt) -> Facts:
        if isinstance(s, (ast.If, ast.While)):
            return self.facts(s.test)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            return self.facts(s.iter)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            f = Facts()
            for item in s.items:
                g = collect(item, self.selfname)
                _merge(f, g)
            return f
        return Facts()

    def fold(self, test: ast.AST):
        return fold(test, self.consts, self.foreign, self.selfname)

    # ---- liveness --------------------------------------------------------
    def _use(self, live: set, f: Facts, line: int):
        for a in f.reads_attrs | f.mutates_attrs:
            live.add(("A", a))
            self.res.reads_attrs.setdefault(a, []).append(line)
        for m in f.calls_methods:
            self.res.calls_methods.setdefault(m, []).append(line)
            eff = self.methods.get(m)
            if eff is not None:  # the called method runs here: what it reads must be defined by now
                live |= {("A", a) for a in eff.reads}
                for a in eff.reads:
                    self.res.read_by_call.setdefault(a, []).append(line)
        for n in f.reads_locals | f.mutates_locals:
            live.add(("L", n))
        self.res.dynamic.extend(f.dynamic)

    def _keep(self, s: ast.stmt):
        self.res.kept.add(pos(s))
        self._any_kept = True

    def _block(self, stmts: list[ast.stmt], live: set, keep_jumps: bool = False) -> set:
        live = set(live)
        for s in reversed(stmts):
            live = self._stmt(s, live, keep_jumps)
        return live

    def _mark_dead(self, stmts):
        for s in stmts:
            for n in walk(s):
                if isinstance(n, ast.stmt):
                    self.res.dead.add(pos(n))

    def _stmt(self, s: ast.stmt, live: set, keep_jumps: bool) -> set:
        if pos(s) in self.skip:
            return live  # a fused loop: the analysis reports it with the reason
        if isinstance(s, ast.If):
            v = self.fold(s.test)
            if v is not None:
                self.res.folded[s.lineno] = v
                taken, dead = (s.body, s.orelse) if v else (s.orelse, s.body)
                self._mark_dead(dead)
                before = len(self.res.kept)
                out = self._block(taken, live, keep_jumps=keep_jumps)
                if len(self.res.kept) > before:
                    self._keep(s)
                    self._use(out, self.facts(s.test), s.lineno)
                elif not taken:
                    pass
                return out
            before = len(self.res.kept)
            lb = self._block(s.body, live, keep_jumps=keep_jumps)
            le = self._block(s.orelse, live, keep_jumps=keep_jumps)
            if len(self.res.kept) > before:
                self._keep(s)
                out = lb | le
                self._use(out, self.facts(s.test), s.lineno)
                return out
            return live
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            before = len(self.res.kept)
            header = self._header_facts(s)
            targets = collect(s.target, self.selfname).writes_locals if not isinstance(s, ast.While) else set()
            acc = set(live)
            # Until nothing new is live at the loop's head: the sets only grow, within the
            # function's finitely many names, so this ends (a fixed number of rounds would
            # stop short on a long chain of loop-carried names and drop statements still needed).
            while True:
                lb = self._block(s.body, acc, keep_jumps=keep_jumps)
                lo = self._block(s.orelse, live, keep_jumps=keep_jumps)
                nxt = acc | lb | lo
                if nxt == acc:
                    break
                acc = nxt
            # A loop whose target is read later defines that name, even with nothing kept inside.
            if len(self.res.kept) > before or any(("L", t) in live for t in (set() if isinstance(s, ast.While) else names_bound(s.target))):
                self._keep(s)
                self._block(s.body, acc, keep_jumps=True)
                out = (acc - {("L", t) for t in targets}) | live
                self._use(out, header, s.lineno)
                return out
            return live
        if isinstance(s, (ast.With, ast.AsyncWith)):
            before = len(self.res.kept)
            lb = self._block(s.body, live, keep_jumps=keep_jumps)
            targets = set().union(*(names_bound(i.optional_vars) for i in s.items if i.optional_vars is not None))
            if len(self.res.kept) > before or any(("L", t) in live for t in targets):
                self._keep(s)
                self._use(lb, self._header_facts(s), s.lineno)
                return lb
            return live
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            before = len(self.res.kept)
            lf = self._block(s.finalbody, live, keep_jumps=keep_jumps)
            lo = self._block(s.orelse, lf, keep_jumps=keep_jumps)
            lh = set(lf)
            for h in s.handlers:
                lh |= self._block(h.body, lf, keep_jumps=keep_jumps)
            lb = self._block(s.body, lo | lh, keep_jumps=keep_jumps)
            if len(self.res.kept) > before:
                self._keep(s)
                return lb | lh
            return live
        if isinstance(s, ast.Return):
            if self._any_kept:
                self._keep(s)
                if s.value is not None:
                    self._use(live, self.facts(s.value), s.lineno)
            return live
        if isinstance(s, (ast.Break, ast.Continue)):
            if keep_jumps:
                self._keep(s)
            return live
        if isinstance(s, ast.Pass):
            return live
        f = self.facts(s)
        defs = {("A", a) for a in f.writes_attrs | f.mutates_attrs} | {("L", n) for n in f.writes_locals | f.mutates_locals}
        runs_setters = [self.setters[a] for a in f.writes_attrs if a in self.setters]
        effects = [self.methods[m] for m in f.calls_methods if m in self.methods] + runs_setters
        defs |= {("A", a) for eff in effects for a in eff.writes}
        runs_staying_code = any(eff.stays for eff in effects) or any(
            self._store_runs_code(x) for x in f.writes_attrs | {w for eff in effects for w in eff.writes})
        call = s.value if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) else None
        # A method called for its effect alone on a local or a parameter (``fileobj.seek(0)``) may
        # change the object that a later statement reads (mutagen's ``IffFile``): it defines the name.
        if (call is not None and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id in self.locals and call.func.value.id != self.selfname):
            defs.add(("L", call.func.value.id))
        init_of = call.func.value if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__" else None
        is_super_init = init_of is not None and is_super_call(init_of)
        # ``Base.__init__(self, ...)`` named explicitly: a constructor of another class run on this
        # instance; what it defines cannot be listed here, so it is always kept.
        explicit_init = (init_of is not None and not is_super_call(init_of) and dotted_name(init_of) not in (None, "object")
                         and bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == self.selfname)
        needed = (defs & live) or (is_super_init and self.keep_super) or explicit_init or runs_staying_code
        effect = None if needed or self.for_effect is None else self.for_effect(s, f, live)
        if effect is not None:
            self.res.for_effect[pos(s)] = (s, effect[1], effect[0])
        if needed or effect is not None:
            self._keep(s)
            out = live - {("A", a) for a in f.writes_attrs} - {("L", n) for n in f.writes_locals}
            self._use(out, f, s.lineno)
            out |= {("A", a) for eff in runs_setters for a in eff.reads}
            for a in {a for eff in runs_setters for a in eff.reads}:
                self.res.read_by_call.setdefault(a, []).append(s.lineno)
            return out
        self._report(s)
        return live

    def _store_runs_code(self, attr: str) -> bool:
        hook = self.stores_run_code
        return hook(attr) if callable(hook) else bool(hook)

    def _report(self, s: ast.stmt):
        found = side_effect(s, self.facts(s))
        if found:
            self.res.dropped.append((s, found[1], found[0]))

    def _count(self, stmts):
        for s in stmts:
            for n in walk(s):
                if isinstance(n, ast.stmt) and not isinstance(n, _COMPOUND) and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and pos(n) not in self.res.dead and not is_docstring(n):
                    self.res.total += 1
                    if pos(n) in self.res.kept:
                        self.res.kept_count += 1


def _shared_facts(fn: ast.FunctionDef, selfname: str) -> dict:
    """The facts of ``fn``'s nodes under ``selfname`` (id -> (node, facts)), kept on ``fn``
    itself: they live as long as the nodes they are of. Each entry holds its node, so that an id
    reused by another node (a copy of ``fn``, a tree parsed again) is never taken for it."""
    shared = fn.__dict__.setdefault("_decouple_slicer_facts", {})
    return shared.setdefault(selfname, {})


def _merge(a: Facts, b: Facts):
    for k in ("reads_attrs", "writes_attrs", "mutates_attrs", "calls_methods", "reads_locals", "writes_locals", "mutates_locals"):
        getattr(a, k).update(getattr(b, k))


def side_effect(stmt: ast.stmt, facts: Facts) -> tuple[str, str] | None:
    """(rule id, why) when dropping this statement could change more than the attributes it
    defines; None for statements whose only effect is defining names."""
    for rule in _STATEMENT_EFFECTS:
        why = rule.match(stmt, facts)
        if why:
            return rule.ID, why
    for rules in _CALL_EFFECTS:
        for call in facts.calls:
            name = dotted_name(call.func) or ""
            last = name.rsplit(".", 1)[-1]
            if rules is _CALL_EFFECTS[0] and isinstance(call.func, ast.Attribute) and is_super_call(call.func.value):
                continue
            for rule in rules:
                why = rule.match_call(name, last, stmt, call)
                if why:
                    return rule.ID, why
    why = effect_allocation.match(stmt, facts)
    return (effect_allocation.ID, why) if why else None


# ---- the slice as the analysis runs it -------------------------------------------------


def slice_parent_init(st) -> None:
    """Slice P.__init__ for what C needs now, and keep what the kept statements need (DC105-DC107).

    Called again after each round of the closure, since a newly kept member may need more."""
    a = st.a
    init = a.parent_init
    owner = a.parent_init_owner
    if init is None or not st.init_runs:
        a.init_slice = None
        return
    sn = first_param(init)
    effects = st.method_effects()
    providers = init_providers(st)
    # A kept class attribute of P that P's __init__ may also store on the instance is only a
    # default: the instance's value wins, so the store is needed too (wtforms' false_values).
    stores = st.parent_init_stores() - a.child_end_state
    needed = {
        n for n in a.kept
        if (a.members[n][0].kind == "instance_attribute" and any(meth in providers for meth, _ in a.members[n][0].assigned_in))
        or (a.members[n][0].kind == "class_attribute" and n in stores)
    }
    a.init_consts = _bind_consts(init, a.super_init_call) if a.super_init_call is not None else {}
    foreign = {c.name for c in a.chain} | {a.base.rsplit(".", 1)[-1]}
    # P's super().__init__() reaches B, or, with other bases beside P, the next class in C's MRO.
    keep_super = a.base not in ("builtins.object", "object") or len(a.cls.bases) > 1
    a.fusions = rewrite_fuse_loops.find(a, init, sn) if a.super_init_stmt is not None else []
    skip = {pos(f.parent_loop) for f in a.fusions}
    a.read_through = rewrite_read_through.find(st.index, a, init, sn) if a.fusions else {}
    for_effect = _for_effect(st, owner.module, sn, effects, init)
    setters = st.setter_effects()
    hooked = store_runs_code(st.staying_classes() + [a.cls], a.chain)
    res = Slicer(init, sn, consts=a.init_consts, foreign_classes=foreign, keep_super=keep_super, skip=skip,
                 replace={p: v for p, (v, _) in a.read_through.items()}, methods=effects, for_effect=for_effect,
                 setters=setters, stores_run_code=hooked).run(needed)
    if a.fusions and any(rewrite_fuse_loops.read_after(init, f.parent_loop, f.attr, res, sn, a.read_through) for f in a.fusions):
        a.fusions, a.read_through = [], {}
        res = Slicer(init, sn, consts=a.init_consts, foreign_classes=foreign, keep_super=keep_super, methods=effects,
                     for_effect=for_effect, setters=setters, stores_run_code=hooked).run(needed)
    a.read_through = {p: v for p, v in a.read_through.items() if p in res.kept}
    # A statement kept for its effect in an earlier round defines members the later rounds
    # keep (DC106), which then make it needed: it is still kept for its effect.
    earlier = a.init_slice.for_effect if a.init_slice is not None else {}
    for p, e in earlier.items():
        if p in res.kept:
            res.for_effect.setdefault(p, e)
    a.init_slice = res
    for f in a.fusions:
        res.fusions.append(f)
    keep_init_slice_reads.reads(st, res, init, owner)
    for meth, lines in sorted(res.calls_methods.items()):
        if meth in st.child_defines:
            keep_constructor_dispatch.run(st, meth, lines, owner)
        elif meth in a.members:
            keep_init_slice_reads.call(st, meth, lines, owner)
    # Overrides reached through the parent's own methods run while constructing too.
    direct = set(res.calls_methods)
    for meth, lines in sorted(res.calls_methods.items()):
        eff = effects.get(meth)
        for inner in sorted(eff.calls - direct if eff else ()):
            if inner in st.child_defines:
                direct.add(inner)
                keep_constructor_dispatch.run(st, inner, lines, owner)
    keep_init_slice_defines.run(st, res, init, sn, owner)
    def listed(found):
        return [SideEffect(owner.file, s.lineno, owner.module.lines[s.lineno - 1].strip(), why, rule) for s, why, rule in found]

    a.kept_for_effect = listed(sorted(res.for_effect.values(), key=lambda e: e[0].lineno))
    a.side_effects = listed(res.dropped)
    for f in a.fusions:
        a.side_effects.append(rewrite_fuse_loops.side_effect(a, owner, f))
    a.recomputed, a.moved = rewrite_drop_recomputed.find(st, res, init, sn)
    for line, what in collect(init, sn).dynamic:
        unsafe_dynamic_access.record(a, owner.file, line, f"{what} in {owner.name}.__init__ (it may define attributes nobody can list)")


def _for_effect(st, module, selfname: str, effects: dict, init: ast.FunctionDef):
    """The test the slicer asks of a statement nothing needs: must it run anyway (DC110, DC111, DC112)?"""
    index = st.index
    methods = set(effects)
    holders = keep_self_handoff.holders(init, selfname, methods)
    # Locals the body binds: objects built here (a parameter is the caller's, unless bound again).
    built = {n.id for n in walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    # What each self.m() acts on, through the methods it reaches (the parent's and the class's own).
    defs = {n: fn for c in [*st.a.chain[::-1], st.a.cls] for n, fn in c.methods.items() if n != "__init__"}
    direct = {n: keep_kept_object.acts_on(fn, first_param(fn)) for n, fn in defs.items() if first_param(fn) and not is_static(fn)}
    acting = {m: set().union(*(direct.get(x, set()) for x in eff.calls)) for m, eff in effects.items()}

    def resolve(call: ast.Call):
        return index.resolve_callable(module, call.func)

    def test(s: ast.stmt, f: Facts, live: set):
        why = keep_validation.match(s, f, effects, resolve)
        if why:
            return keep_validation.ID, why
        why = keep_self_handoff.match(s, selfname, methods, resolve, index.resolve_class)
        if why:
            return keep_self_handoff.ID, why
        why = keep_self_handoff.acts_through(s, holders)
        if why:
            return keep_self_handoff.ID, why
        why = keep_kept_object.match(s, live, selfname, built, acting)
        if why:
            return keep_kept_object.ID, why
        return None

    return test


def _bind_consts(pinit: ast.FunctionDef, call: ast.Call) -> dict[str, object]:
    """Parameters of P.__init__ bound to literals by C's super().__init__(...) call, or by defaults."""
    b = bind_arguments(pinit, call)
    if b.opaque:
        return {}
    out = {n: v.value for n, v in b.bound.items() if isinstance(v, ast.Constant)}
    out.update({n: d.value for n, d in b.defaults.items() if n not in b.bound and isinstance(d, ast.Constant)})
    # A parameter the body binds again holds the literal only until then: a test after
    # ``workers = workers - 5`` is not decided by the bound 2.
    return {n: v for n, v in out.items() if binding_count(pinit, n) == 1}


def init_providers(st) -> set[str]:
    """The methods whose assignments run while the class is constructed: ``__init__``, and the
    parent's methods it reaches through ``self`` calls and through assignments to properties
    (their setters), unless the class overrides them."""
    reached = {m[:-len(SETTER)] if m.endswith(SETTER) else m for m in st.init_reach().calls}
    return {"__init__"} | {m for m in reached if m not in st.child_defines or m in st.super_reached}


def store_runs_code(staying: list, chain: list):
    """Whether a store to ``self`` runs code besides the store (attr -> bool, or a bool for all):
    any store, under a ``__setattr__``/``__delattr__`` of the class or of a class that stays in its
    MRO; under one of the parent's chain (copied into the class), a store its hooks do not leave
    silent (``attribute_hooks.silent_for``)."""
    if any(h in c.members and c.members[h].kind != "instance_attribute" for c in staying for h in STORE_HOOKS):
        return True
    # Bound in the class body to something else (``__setattr__ = _frozen``): its code is not read here.
    if any(h in c.members and c.members[h].kind == "class_attribute" for c in chain for h in STORE_HOOKS):
        return True
    hooks = [c.methods[h] for c in chain for h in STORE_HOOKS if h in c.methods]
    if not hooks:
        return False
    return lambda attr: not all(silent_for(fn, attr) for fn in hooks)
