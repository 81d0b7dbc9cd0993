"""The working state of one class's analysis: built per class, dropped when its analysis is done.

The record being filled (``ClassAnalysis``) and the sets the rules share while it is filled:
the queue of members still to follow into the parent's code, the members a ``super()`` call
reaches, what the class defines itself, and the receiver typing of the tree for this class.
The rules (``codemod/rules/``) read and extend it; nothing here outlives the class.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .attribute_hooks import PICKLING_HOOKS, STORE_HOOKS, whole_state_lines
from .ast_util import first_param, is_static, naming_line, pos, private, setters, walk
from .facts import SETTER, MethodEffects, collect, method_effects
from .index import ClassInfo, Index, ModuleInfo
from .model import ClassAnalysis, Evidence, Knowledge
from .index import enclosing
from .receiver_typing.typing_flow import Flow, enclosing_class


@dataclass
class ClassState:
    index: Index
    a: ClassAnalysis
    all_uses: bool = False  # list every outside use, not only a member's first
    progress: object = None  # (done, total, what) -> None
    knowledge: Knowledge = field(default_factory=Knowledge)  # what the user states (--keep proven, --assume-unused)
    gone: dict = field(default_factory=dict)  # id of a method -> classes it no longer runs on (DC153)
    queue: list[str] = field(default_factory=list)  # kept members not yet followed into P's code
    super_reached: set[str] = field(default_factory=set)  # members C's super().m() calls run
    flow: Flow | None = None  # receiver typing, built by the first rule that needs it
    child_defines: set[str] = field(default_factory=set)  # what C defines itself (not instance attributes)
    # what C defines at class level and P's __init__, run on C, may store on the instance: the
    # instance's value wins over C's, so C's definition provides none of these
    shadowed: set[str] = field(default_factory=set)
    init_runs: bool = False  # P's __init__ (or what stands for it) still runs on C
    stored_literals: dict = field(default_factory=dict)  # member -> the literals only P's code stores in it, or None (DC154)
    _effects: dict | None = None  # method name -> facts.MethodEffects, built on first use
    _init_reach: MethodEffects | None = None  # what P.__init__'s own self calls reach, built on first use
    _staying: list | None = None  # the classes of the tree that stay in C's MRO, built on first use
    _built: set[str] | None = None  # attributes P.__init__ constructs or allocates, built on first use

    def assume(self, name: str, ev: Evidence) -> None:
        """A use of ``name`` that the user's word (``knowledge``) says is no reason to keep it."""
        _add_once(self.a.assumptions.setdefault(name, []), ev)

    def prove(self, name: str, ev: Evidence) -> None:
        """A read of ``name`` that computes the same without it (DC154): no reason to keep it."""
        _add_once(self.a.proofs.setdefault(name, []), ev)

    def need(self, name: str, ev: Evidence) -> bool:
        """Keep ``name`` because of ``ev``; True when it was not kept before."""
        a = self.a
        new = name not in a.kept
        _add_once(a.kept.setdefault(name, []), ev)
        if new:
            self.queue.append(name)
        return new

    def property_writes(self, written: set[str]) -> set[str]:
        """The attributes among ``written`` that are P's properties (an assignment runs their setter)."""
        a = self.a
        return {x for x in written if x in a.members and a.members[x][0].kind == "property" and x not in self.child_defines}

    def setter_effects(self) -> dict:
        """What an assignment ``self.X = ...`` runs, for each X whose setter is in C's MRO before the change."""
        return {n[:-len(SETTER)]: e for n, e in self.method_effects().items() if n.endswith(SETTER)}

    def satisfied(self):
        """A test for attributes C provides itself (defines, or assigns on every path of its __init__)."""
        # A private name of C's (``__x``) is ``_C__x``, another attribute than P's ``__x``.
        provided = {n for n in self.child_defines - self.shadowed if not private(n)} | self.a.child_end_state
        return lambda attr: attr in provided

    def method_effects(self) -> dict:
        """What each ``self.m()`` does as dynamic dispatch runs it on C (computed once per class):
        C's methods stand in for P's, and the new base's methods in the tree stay."""
        if self._effects is None:
            a = self.a
            dispatch: dict = {}
            for root in reversed([a.base] + a.extra_bases):
                base = self.index.resolve_class(root) if root not in ("builtins.object", "object") else None
                for q in reversed(([base.qualname] + self.index.ancestors(base)) if base is not None else []):
                    c = self.index.resolve_class(q)
                    if c is not None:
                        dispatch.update({n: (fn, True) for n, fn in c.methods.items() if n != "__init__"})
            for c in reversed(a.chain):
                dispatch.update({n: (fn, False) for n, fn in c.methods.items() if n != "__init__"})
            dispatch.update({n: (fn, True) for n, fn in a.cls.methods.items() if n != "__init__"})
            # An assignment to a property runs its setter: ``NAME.setter`` stands for that call.
            for c, stays in [(c, True) for c in self.staying_classes()[::-1]] + [(c, False) for c in a.chain[::-1]] + [(a.cls, True)]:
                dispatch.update({f"{n}{SETTER}": (fn, stays) for n, fn in setters(c.node).items()})
            self._effects = method_effects(dispatch)
        return self._effects

    def parent_init_stores(self) -> set[str]:
        """Attributes the parent's ``__init__`` may assign, through the methods it calls too."""
        pinit = self.a.parent_init
        if pinit is None:
            return set()
        f = collect(pinit, first_param(pinit))
        return f.writes_attrs | f.mutates_attrs | self.init_reach().writes

    def init_reach(self) -> MethodEffects:
        """What the methods P.__init__ calls through ``self`` do, together (as dispatch runs them on C)."""
        if self._init_reach is None:
            reach = MethodEffects()
            init = self.a.parent_init
            if init is not None:
                effects = self.method_effects()
                f = collect(init, first_param(init))
                for m in list(f.calls_methods) + [x + SETTER for x in f.writes_attrs]:
                    eff = effects.get(m)
                    if eff is not None:
                        reach.reads |= eff.reads
                        reach.writes |= eff.writes
                        reach.calls |= eff.calls
                        reach.stays |= eff.stays
            self._init_reach = reach
        return self._init_reach

    def built_by_parent_init(self) -> set[str]:
        """The attributes that P.__init__ fills by constructing an object or allocating memory
        (the statements DC404 and DC405 report when dropped): the state worth not building."""
        if self._built is None:
            from .slice import side_effect  # the slice's classifier; slice imports no state

            built: set[str] = set()
            init = self.a.parent_init
            sn = first_param(init) if init is not None else None
            for s in walk(init) if sn else ():
                if isinstance(s, ast.stmt) and not isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef)):
                    f = collect(s, sn)
                    found = side_effect(s, f)
                    if found and found[0] in ("DC404", "DC405"):
                        built |= f.writes_attrs | f.mutates_attrs
            self._built = built
        return self._built

    def reads_of_parent_method(self, owner: ClassInfo, name: str) -> set[str]:
        """What ``owner.name`` reads through ``self``, with the methods it calls as dispatch runs them on C."""
        fn = owner.methods.get(name)
        sn = first_param(fn) if fn is not None else None
        if not sn or is_static(fn):
            return set()
        f = collect(fn, sn)
        reads = f.reads_attrs | f.mutates_attrs
        effects = self.method_effects()
        for m in f.calls_methods:
            if m in effects:
                reads |= effects[m].reads
        return reads

    def staying_roots(self) -> list[str]:
        """The bases C keeps after reparenting, qualified: the new base (unless ``object``), the chain's
        other bases, and C's other bases."""
        a = self.a
        roots = [a.base] if a.base not in ("builtins.object", "object") else []
        return roots + list(a.extra_bases) + [b for b in a.cls.bases if not self.index._same_class(b, a.parent)]

    def staying_classes(self) -> list[ClassInfo]:
        """The classes of the tree that stay in C's MRO after reparenting: the staying roots and
        their ancestors (P and the classes up to the new base excluded)."""
        if self._staying is None:
            index = self.index
            chain = {id(c) for c in self.a.chain}
            out, seen = [], set()
            for root in self.staying_roots():
                top = index.resolve_class(root)
                for q in ([top.qualname] + index.ancestors(top)) if top is not None else []:
                    c = index.resolve_class(q)
                    if c is not None and id(c) not in chain and id(c) not in seen:
                        seen.add(id(c))
                        out.append(c)
            self._staying = out
        return self._staying

    def receivers(self) -> Flow:
        if self.flow is None:
            self.flow = Flow(self.index, self.a.cls, gone=self.gone)
        return self.flow

    def scan_method(self, owner: ClassInfo, fn: ast.FunctionDef, satisfied, who: str, rule: str) -> None:
        """Keep what ``fn`` reads or calls through ``self`` (unless ``satisfied``), as ``rule``'s evidence."""
        from .rules import unsafe_dynamic_access

        sn = first_param(fn) if not is_static(fn) else None
        if sn is None:
            return
        a = self.a
        f = collect(fn, sn)
        lines = attr_lines(fn, sn)
        for attr in sorted(f.reads_attrs | f.mutates_attrs | f.calls_methods):
            if satisfied(attr) or attr not in a.members:
                continue
            use = "calls" if attr in f.calls_methods else "reads"
            self.need(attr, Evidence(owner.file, lines.get(attr) or naming_line(fn, attr), f"{who} {use} self.{attr}", rule))
        for attr in sorted(self.property_writes(f.writes_attrs)):
            self.need(attr, Evidence(owner.file, lines.get(attr) or naming_line(fn, attr), f"{who} assigns self.{attr}, which runs the setter of the property", rule))
        dynamic = f.dynamic
        if fn.name in STORE_HOOKS + PICKLING_HOOKS and dynamic:
            # A hook that moves the whole state, or forwards the store it was given, reaches no
            # member by a computed name; the members its constants name are kept.
            whole = whole_state_lines(fn)
            if whole is not None:
                allowed, dynamic = whole[0], list(dynamic)
                for line, what in list(dynamic):
                    if allowed[line] > 0:
                        allowed[line] -= 1
                        dynamic.remove((line, what))
                for attr in sorted(whole[1] & set(a.members)):
                    if not satisfied(attr):
                        self.need(attr, Evidence(owner.file, naming_line(fn, attr), f"{who} names {attr!r} in the state it moves", rule))
        for line, what in dynamic:
            unsafe_dynamic_access.record(a, owner.file, line, f"{what} in {who}")

    def base_member(self, name: str):
        """(member, class) of the new base or its ancestors in the tree, else None."""
        todo = [self.a.base]
        seen = set()
        while todo:
            q = todo.pop(0)
            if q in seen:
                continue
            seen.add(q)
            c = self.index.resolve_class(q)
            if c is None:
                continue
            if name in c.members and c.members[name].kind != "instance_attribute":
                return c.members[name], c
            todo.extend(c.bases)
        return None

    def in_dropped_parent_code(self, mod: ModuleInfo, node: ast.AST) -> bool:
        """Whether ``node`` sits in code of P (or the chain) that no longer runs on C."""
        a = self.a
        fn, owner = enclosing_class(mod, node)
        if owner is None or owner not in a.chain or fn is None:
            return False
        if fn.name == "__init__":
            sl = a.init_slice
            stmt = next((s for s in enclosing(mod, node) if isinstance(s, ast.stmt) and s in list(walk(fn)) and not isinstance(s, (ast.FunctionDef,))), None)
            return sl is not None and stmt is not None and pos(stmt) not in sl.kept
        return fn.name not in a.kept


def attr_lines(node: ast.AST, selfname: str) -> dict[str, int]:
    """The first line each ``self.X`` appears on under ``node``."""
    out: dict[str, int] = {}
    for n in walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == selfname:
            if n.attr not in out or n.lineno < out[n.attr]:
                out[n.attr] = n.lineno
    return out


def inside_any(mod: ModuleInfo, node: ast.AST, ids: set[int]) -> bool:
    """Whether one of ``node``'s ancestors is one of the nodes ``ids``."""
    return any(id(anc) in ids for anc in enclosing(mod, node))


def _add_once(evidence: list[Evidence], ev: Evidence) -> None:
    """Add ``ev`` unless the same use (file, line, what) is listed already."""
    if all((e.file, e.line, e.use) != (ev.file, ev.line, ev.use) for e in evidence):
        evidence.append(ev)
