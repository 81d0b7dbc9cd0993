"""Usage analysis: which members of the parent P a class C really uses, with evidence.

For every member of P the analysis decides keep or drop, and records why as
``file:line`` plus the kind of use:

* ``self.X`` reads in C's methods (nested functions and lambdas included) that C
  has not assigned itself on every path before the read;
* P's methods and properties called on C instances, and what they read in turn
  (a transitive closure), including what P's kept ``__init__`` statements read;
* P's ``__init__`` calling, through ``self``, methods that C overrides;
* class attributes of P whose value differs from the new base's and that
  anything reads (``getattr(obj, "name", default)`` included);
* reads by the rest of the checkout on objects that may be C instances
  (see ``typing_flow``), and type checks mentioning P that would change meaning;
* side effects of P's ``__init__`` that the decoupled class would no longer run.

Where a use cannot be decided statically the class is marked unsafe. Nothing is
guessed: unclear receivers count as uses.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .errors import UsageError
from .facts import collect, is_super_call
from .index import ClassInfo, Index, Member, ModuleInfo, bind_arguments, dotted_name, first_param, is_static, walk
from .slice import Fusion, Slicer, SliceResult, pos
from .typing_flow import NO, YES, Flow, enclosing, enclosing_class

MARKER = "decouple: inlined from"
# Special methods Python calls implicitly: a parent's version is used without any
# visible call, so they are kept unless the class overrides them.
IMPLICIT_DUNDERS = {
    "__repr__", "__str__", "__eq__", "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__",
    "__len__", "__iter__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__call__", "__enter__",
    "__exit__", "__aenter__", "__aexit__", "__del__", "__reduce__", "__getstate__", "__setstate__", "__copy__",
    "__deepcopy__", "__format__", "__post_init__", "__class_getitem__",
}
UNSAFE_DUNDERS = {"__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__init_subclass__", "__new__"}


@dataclass
class Evidence:
    file: str
    line: int
    use: str

    def as_dict(self):
        return {"file": self.file, "line": self.line, "use": self.use}


@dataclass
class Hazard:
    file: str
    line: int
    what: str
    changes_meaning: bool = True

    def as_dict(self):
        return {"file": self.file, "line": self.line, "what": self.what}


@dataclass
class SideEffect:
    file: str
    line: int
    code: str
    why: str

    def as_dict(self):
        return {"file": self.file, "line": self.line, "code": self.code, "why": self.why}


@dataclass
class SuperCall:
    file: str
    line: int
    method: str
    in_method: str
    resolves_to: str  # qualified "Class.method", or "nothing"
    reaches_parent: bool


@dataclass
class ClassAnalysis:
    cls: ClassInfo
    parent: ClassInfo | None
    base: str  # qualified name of the new base ("builtins.object" for none)
    chain: list[ClassInfo] = field(default_factory=list)  # P and any classes between P and B
    decision: str = "decouple"
    reason: str = ""
    nothing_to_do: bool = False
    members: dict[str, tuple[Member, ClassInfo]] = field(default_factory=dict)
    kept: dict[str, list[Evidence]] = field(default_factory=dict)
    unsafe: list[Hazard] = field(default_factory=list)
    hazards: list[Hazard] = field(default_factory=list)
    side_effects: list[SideEffect] = field(default_factory=list)
    super_calls: list[SuperCall] = field(default_factory=list)
    init_slice: SliceResult | None = None
    init_consts: dict[str, object] = field(default_factory=dict)
    super_init_stmt: ast.stmt | None = None
    super_init_call: ast.Call | None = None
    child_end_state: set[str] = field(default_factory=set)
    fusions: list[Fusion] = field(default_factory=list)
    generated_init: bool = False  # a decorator (@dataclass) writes C's __init__
    read_through: dict = field(default_factory=dict)  # position -> (new value, its source)
    skipped_files: dict[str, str] = field(default_factory=dict)

    @property
    def parent_init(self) -> ast.FunctionDef | None:
        for c in self.chain:
            if "__init__" in c.methods:
                return c.methods["__init__"]
        return None

    @property
    def parent_init_owner(self) -> ClassInfo | None:
        for c in self.chain:
            if "__init__" in c.methods:
                return c
        return None

    def kind(self, name: str) -> str:
        return self.members[name][0].kind

    @property
    def reuse(self) -> dict:
        total = len(self.members)
        used = len(self.kept)
        return {"members_used": used, "members_total": total, "ratio": round(used / total, 3) if total else 0.0}

    @property
    def init_reuse(self) -> dict:
        sl = self.init_slice
        if sl is None:
            return {"statements_kept": 0, "statements_total": 0}
        return {"statements_kept": sl.kept_count, "statements_total": sl.total}


@dataclass
class Scanned:
    """What ``Analyzer.scan`` found for one class, in order: enough to replay it elsewhere."""

    needs: list[tuple[str, Evidence]] = field(default_factory=list)
    closed: bool = False  # the scan ended with a closure over the members it kept
    skipped_files: dict[str, str] = field(default_factory=dict)
    hazards: list[Hazard] = field(default_factory=list)


class Analyzer:
    def __init__(self, index: Index, progress=None, all_uses: bool = False):
        self.index = index
        self.progress = progress  # (done, total, what) -> None; a bar on a terminal
        # One outside use is enough to keep a member, so by default the search for a
        # member's uses stops at the first (in file order); all_uses types and lists every one.
        self.all_uses = all_uses

    # ---- entry -------------------------------------------------------------
    def analyse(self, cls: ClassInfo, parent: ClassInfo | None = None, base: str | None = None,
                scanned: "Scanned | None" = None) -> ClassAnalysis:
        """The analysis of one class. ``scanned``: the outcome of ``scan`` for this class, when
        another process already ran it (it is replayed instead of run again)."""
        a = self.prepare(cls, parent, base)
        if a.nothing_to_do:
            return a
        if scanned is None:
            self.scan(a)
        else:
            self._replay(a, scanned)
        self._prune_class_attrs(a)
        self._prune_unprovided(a)
        self._decide(a)
        return a

    def prepare(self, cls: ClassInfo, parent: ClassInfo | None, base: str | None) -> ClassAnalysis:
        """Everything up to the search of the rest of the tree (all there is when ``nothing_to_do``)."""
        self._queue: list[str] = []
        self._super_reached: set[str] = set()
        self._flow = None
        parent, former = self._resolve_parent(cls, parent)
        if parent is None:
            a = ClassAnalysis(cls, None, "builtins.object", nothing_to_do=True, decision="decline")
            a.reason = f"nothing to do: {cls.name} has no parent class under ROOT"
            if former:
                a.reason = f"nothing to do: {cls.name} was already decoupled from {former}"
            return a
        chain, base_q = self._chain(parent, base)
        a = ClassAnalysis(cls, parent, base_q, chain=chain)
        for c in reversed(chain):
            for name, m in c.members.items():
                if name != "__init__":
                    a.members[name] = (m, c)
        if not any(self.index._same_class(b, parent) for b in cls.bases):
            a.nothing_to_do, a.decision = True, "decline"
            a.reason = f"nothing to do: {cls.name} does not inherit {parent.name} (it already inherits {', '.join(b.rsplit('.', 1)[-1] for b in cls.bases) or 'object'})"
            return a
        self._check_parent_dunders(a)
        self._check_metaclass(a)
        self._analyse_child(a)
        self._closure(a)
        return a

    def scan(self, a: ClassAnalysis) -> "Scanned":
        """The rest of the tree: uses of P's members, and type checks that name P.

        This costs most of a run and depends only on the prepared class (a fresh ``Flow``
        per class), so a worker process can run it for one class while this one does another.
        """
        out = Scanned()
        hazards_before = len(a.hazards)
        self._external(a, out)
        self._hazards(a)
        out.skipped_files = dict(a.skipped_files)
        out.hazards = a.hazards[hazards_before:]
        return out

    def _replay(self, a: ClassAnalysis, s: "Scanned") -> None:
        for name, ev in s.needs:
            self._need(a, name, ev)
        if s.closed:
            self._closure(a)
        a.skipped_files.update(s.skipped_files)
        a.hazards.extend(s.hazards)

    # ---- resolution ------------------------------------------------------------
    def _resolve_parent(self, cls: ClassInfo, parent: ClassInfo | None):
        if parent is not None:
            return parent, None
        text = "\n".join(cls.module.lines[cls.node.lineno - 1: cls.node.end_lineno])
        m = re.search(MARKER + r" ([\w.]+)\.__init__", text)
        if m:
            return None, m.group(1)
        if not cls.bases:
            return None, None
        first = cls.bases[0]
        p = self.index.resolve_class(first)
        if p is None:
            raise UsageError(f"parent {first} of {cls.name} is not under ROOT ({cls.file}:{cls.line}); pass a ROOT that contains it")
        return p, None

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
                raise UsageError(f"--base {base} is not an ancestor of {parent.name}")
            chain.append(c)
            cur = c

    def _check_metaclass(self, a: ClassAnalysis):
        own = {k.arg: ast.dump(k.value) for k in a.cls.node.keywords}
        for c in a.chain:
            for k in c.node.keywords:
                if k.arg == "metaclass" and own.get("metaclass") != ast.dump(k.value):
                    a.hazards.append(Hazard(c.file, c.line, f"{c.name} sets metaclass={ast.unparse(k.value)}, which {a.cls.name} would lose"))
                if k.arg != "metaclass":
                    a.unsafe.append(Hazard(c.file, c.line, f"{c.name} passes class keyword {k.arg}= to __init_subclass__"))

    def _check_parent_dunders(self, a: ClassAnalysis):
        for c in a.chain:
            for name in UNSAFE_DUNDERS & set(c.methods):
                fn = c.methods[name]
                a.unsafe.append(Hazard(c.file, fn.lineno, f"{c.name} defines {name}, so attribute access on {a.cls.name} cannot be decided statically"))

    # ---- the class itself ---------------------------------------------------------
    def _analyse_child(self, a: ClassAnalysis):
        cls = a.cls
        self.child_defines = {n for n, m in cls.members.items() if m.kind != "instance_attribute"}
        init = cls.methods.get("__init__")
        a.super_init_stmt, a.super_init_call = _find_super_init(init, cls, a.parent) if init else (None, None)
        generated = _generates_init(cls)
        self._init_runs = (init is None and not generated) or a.super_init_stmt is not None
        a.generated_init = generated
        if init is not None:
            end = self._flow_init(a, init)
            a.child_end_state = end
        for name, fn in cls.methods.items():
            if name == "__init__":
                continue
            self._scan_method(a, cls, fn, satisfied=self._child_satisfied(a), who=f"{cls.name}.{name}")
        # super().m() calls anywhere in C.
        for name, fn in cls.methods.items():
            sn = first_param(fn)
            for line, meth in collect(fn, sn).super_calls:
                if name == "__init__" and meth == "__init__":
                    continue
                owner = next((c for c in a.chain if meth in c.methods), None)
                if owner is not None:
                    res, reaches = f"{owner.name}.{meth}", True
                    self._super_reached.add(meth)
                    self._need(a, meth, Evidence(cls.file, line, f"super().{meth}() in {cls.name}.{name} runs {owner.name}.{meth} at run time"))
                else:
                    b = self._base_member(a, meth)
                    res, reaches = (f"{b[1].name}.{meth}" if b else f"{a.base.rsplit('.', 1)[-1]}.{meth}"), False
                a.super_calls.append(SuperCall(cls.file, line, meth, name, res, reaches))

    def _child_satisfied(self, a: ClassAnalysis):
        provided = self.child_defines | a.child_end_state
        return lambda attr: attr in provided

    def _flow_init(self, a: ClassAnalysis, init: ast.FunctionDef) -> set[str]:
        """Walk C.__init__ in order: reads before C's own definite assignment are uses of P."""
        cls = a.cls
        sn = first_param(init)
        exits: list[set[str]] = []

        def read(attr, line, state, where):
            if attr in state or attr in self.child_defines:
                return
            if attr in a.members:
                self._need(a, attr, Evidence(cls.file, line, f"read by {cls.name}.__init__ ({where})"))

        def stmt_reads(s, state, where):
            f = collect(s, sn)
            lines = _attr_lines(s, sn)
            for attr in sorted(f.reads_attrs | f.mutates_attrs | f.calls_methods):
                read(attr, lines.get(attr, s.lineno), state, where)
            for line, what in f.dynamic:
                a.unsafe.append(Hazard(cls.file, line, f"{what} in {cls.name}.__init__"))
            return f

        def block(stmts, state, where):
            state = set(state)
            for s in stmts:
                if s is a.super_init_stmt:
                    stmt_reads(s, state, where)
                    where = "after super().__init__"
                    continue
                if isinstance(s, ast.If):
                    stmt_reads(s.test, state, where)
                    r1, w1 = block(s.body, state, where)
                    r2, w2 = block(s.orelse, state, where)
                    where = w1 if w1 == w2 else "after super().__init__" if "after" in (w1 + w2) else where
                    if r1 is None and r2 is None:
                        return None, where
                    state = r1 if r2 is None else r2 if r1 is None else (r1 & r2)
                elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                    stmt_reads(s.iter if not isinstance(s, ast.While) else s.test, state, where)
                    _, w = block(s.body, state, where)
                    block(s.orelse, state, where)
                    where = w
                elif isinstance(s, (ast.With, ast.AsyncWith)):
                    for item in s.items:
                        stmt_reads(item.context_expr, state, where)
                    r, where = block(s.body, state, where)
                    if r is None:
                        return None, where
                    state = r
                elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
                    block(s.body, state, where)
                    for h in s.handlers:
                        block(h.body, state, where)
                    block(s.orelse, state, where)
                    r, where = block(s.finalbody, state, where)
                    if r is None:
                        return None, where
                elif isinstance(s, ast.Return):
                    if s.value is not None:
                        stmt_reads(s.value, state, where)
                    exits.append(state)
                    return None, where
                elif isinstance(s, ast.Raise):
                    stmt_reads(s, state, where)
                    return None, where
                else:
                    f = stmt_reads(s, state, where)
                    state |= f.writes_attrs
            return state, where

        end, _ = block(init.body, set(), "before super().__init__" if a.super_init_stmt is not None else "")
        if end is not None:
            exits.append(end)
        return set.intersection(*exits) if exits else set()

    def _scan_method(self, a: ClassAnalysis, owner: ClassInfo, fn: ast.FunctionDef, satisfied, who: str):
        sn = first_param(fn) if not is_static(fn) else None
        if sn is None:
            return
        f = collect(fn, sn)
        lines = _attr_lines(fn, sn)
        for attr in sorted(f.reads_attrs | f.mutates_attrs | f.calls_methods):
            if satisfied(attr) or attr not in a.members:
                continue
            use = "calls" if attr in f.calls_methods else "reads"
            self._need(a, attr, Evidence(owner.file, lines.get(attr, fn.lineno), f"{who} {use} self.{attr}"))
        for line, what in f.dynamic:
            a.unsafe.append(Hazard(owner.file, line, f"{what} in {who}"))

    def _base_member(self, a: ClassAnalysis, name: str):
        """(member, class) of the new base or its ancestors in the tree, else None."""
        todo = [a.base]
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

    def _prune_class_attrs(self, a: ClassAnalysis):
        """A class attribute P declares with the same value as the new base needs no copy."""
        for name in list(a.kept):
            m, owner = a.members[name]
            if m.kind != "class_attribute":
                continue
            b = self._base_member(a, name)
            if b is not None and b[0].kind == "class_attribute" and _value_dump(b[0].node) == _value_dump(m.node):
                del a.kept[name]

    def _prune_unprovided(self, a: ClassAnalysis):
        """Instance attributes that P assigns only in methods that never run on C give C nothing."""
        for name in list(a.kept):
            m, owner = a.members[name]
            if m.kind != "instance_attribute":
                continue
            providers = {meth for meth, _ in m.assigned_in}
            runs = ("__init__" in providers and self._init_runs) or any(
                p in a.kept or (p in a.members and a.members[p][0].kind in ("method", "property") and p in a.kept) for p in providers
            )
            if not runs:
                del a.kept[name]
                a.hazards.append(Hazard(owner.file, m.line, f"{a.cls.name} reads self.{name}, but only {owner.name}.{'/'.join(sorted(providers))} assigns it, which never runs on {a.cls.name}: nothing to inline", changes_meaning=False))

    # ---- closure over P ----------------------------------------------------------
    def _need(self, a: ClassAnalysis, name: str, ev: Evidence) -> bool:
        new = name not in a.kept
        lst = a.kept.setdefault(name, [])
        if all((e.file, e.line, e.use) != (ev.file, ev.line, ev.use) for e in lst):
            lst.append(ev)
        if new:
            self._queue.append(name)
        return new

    def _closure(self, a: ClassAnalysis):
        """Follow kept members into P's code, and slice P.__init__, until nothing new is needed."""
        self._queue = list(a.kept)
        for name, (m, owner) in a.members.items():
            if m.kind == "method" and name in IMPLICIT_DUNDERS and name not in self.child_defines:
                self._need(a, name, Evidence(owner.file, m.line, f"special method {name}, called implicitly by Python"))
        satisfied = self._child_satisfied(a)
        scanned = set()
        while True:
            while self._queue:
                name = self._queue.pop()
                if name in scanned or name not in a.members:
                    continue
                scanned.add(name)
                m, owner = a.members[name]
                if m.kind in ("method", "property") and m.node is not None and (name not in self.child_defines or name in self._super_reached):
                    self._scan_method(a, owner, m.node, satisfied, f"{owner.name}.{name} (kept)")
                    if m.kind == "property":
                        for extra in owner.node.body:
                            if isinstance(extra, ast.FunctionDef) and extra.name == name and extra is not m.node:
                                self._scan_method(a, owner, extra, satisfied, f"{owner.name}.{name} (kept)")
            before = set(a.kept)
            self._slice_parent_init(a)
            if set(a.kept) == before and not self._queue:
                break

    def _slice_parent_init(self, a: ClassAnalysis):
        init = a.parent_init
        owner = a.parent_init_owner
        if init is None or not self._init_runs:
            a.init_slice = None
            return
        sn = first_param(init)
        needed = {
            n for n in a.kept
            if a.members[n][0].kind == "instance_attribute" and any(meth == "__init__" for meth, _ in a.members[n][0].assigned_in)
        }
        a.init_consts = _bind_consts(init, a.super_init_call) if a.super_init_call is not None else {}
        foreign = {c.name for c in a.chain} | {a.base.rsplit(".", 1)[-1]}
        # P's super().__init__() reaches B, or, with other bases beside P, the next class in C's MRO.
        keep_super = a.base not in ("builtins.object", "object") or len(a.cls.bases) > 1
        a.fusions = self._fusions(a, init, sn) if a.super_init_stmt is not None else []
        skip = {pos(f.parent_loop) for f in a.fusions}
        a.read_through = self._read_through(a, init, sn) if a.fusions else {}
        res = Slicer(init, sn, consts=a.init_consts, foreign_classes=foreign, keep_super=keep_super, skip=skip,
                     replace={p: v for p, (v, _) in a.read_through.items()}).run(needed)
        if a.fusions and any(_reads_after(init, f.parent_loop, f.attr, res, sn, a.read_through) for f in a.fusions):
            a.fusions, a.read_through = [], {}
            res = Slicer(init, sn, consts=a.init_consts, foreign_classes=foreign, keep_super=keep_super).run(needed)
        a.read_through = {p: v for p, v in a.read_through.items() if p in res.kept}
        a.init_slice = res
        for f in a.fusions:
            res.fusions.append(f)
        satisfied = self._child_satisfied(a)
        # What the kept statements read or call.
        for attr, lines in sorted(res.reads_attrs.items()):
            if attr in a.members and not (attr in self.child_defines and a.members[attr][0].kind != "instance_attribute"):
                line = lines[0] if lines else init.lineno
                self._need(a, attr, Evidence(owner.file, line, f"read by kept statement of {owner.name}.__init__"))
        for meth, lines in sorted(res.calls_methods.items()):
            if meth in self.child_defines:
                ev = Evidence(owner.file, lines[0], f"{owner.name}.__init__ calls self.{meth}, which {a.cls.name} overrides (dispatch while constructing)")
                fn = a.cls.methods.get(meth)
                a.hazards.append(Hazard(ev.file, ev.line, ev.use, changes_meaning=False))
                if fn is not None:
                    self._scan_method(a, a.cls, fn, lambda _x: False, f"{a.cls.name}.{meth} (called while constructing)")
            elif meth in a.members:
                self._need(a, meth, Evidence(owner.file, lines[0], f"called by kept statement of {owner.name}.__init__"))
        # Attributes that kept statements define count as kept (dependencies).
        for s in walk(init):
            if isinstance(s, ast.stmt) and pos(s) in res.kept:
                f = collect(s, sn) if not isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)) else None
                if f is None:
                    continue
                for attr in f.writes_attrs:
                    if attr in a.members and attr not in a.kept and not satisfied(attr):
                        self._need(a, attr, Evidence(owner.file, s.lineno, f"defined by a kept statement of {owner.name}.__init__ (a dependency)"))
        # Dropped statements with effects beyond the instance.
        a.side_effects = [
            SideEffect(owner.file, s.lineno, _first_line(owner.module, s), why)
            for s, why in res.dropped
        ]
        for f in a.fusions:
            elem = f.parent_loop.body[0].value.args[0]
            built = dotted_name(elem.func).rsplit(".", 1)[-1] if isinstance(elem, ast.Call) and dotted_name(elem.func) else "an element"
            a.side_effects.append(SideEffect(owner.file, f.parent_loop.lineno, _first_line(owner.module, f.parent_loop),
                                             f"constructs {built} for each element of self.{f.attr}, which {a.cls.name} overwrites at line {f.child_store.lineno} before any read"))
        for line, what in collect(init, sn).dynamic:
            a.unsafe.append(Hazard(owner.file, line, f"{what} in {owner.name}.__init__ (it may define attributes nobody can list)"))

    def _read_through(self, a: ClassAnalysis, pinit: ast.FunctionDef, psn: str) -> dict:
        """``self.X = self.L[k].Y`` after a fused loop: read Y from what the dropped element's
        constructor assigns it (``self.Y = expr`` of its parameters), not through the element.

        Returns {position of the statement: (new value as ast, source text)}.
        """
        out = {}
        pmod = a.parent.module
        for f in a.fusions:
            elem = f.parent_loop.body[0].value.args[0]
            if not isinstance(elem, ast.Call):
                continue
            k = self.index.resolve_class(pmod.qualify(elem.func))
            kinit = k.methods.get("__init__") if k is not None else None
            if kinit is None:
                continue
            ksn = first_param(kinit)
            binding = bind_arguments(kinit, elem)
            if binding.opaque:
                continue
            bound = binding.bound
            after = False
            for stmt in pinit.body:
                if stmt is f.parent_loop:
                    after = True
                    continue
                if not after or not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                    continue
                v = stmt.value
                if not (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Subscript)
                        and isinstance(v.value.value, ast.Attribute) and v.value.value.attr == f.attr
                        and isinstance(v.value.value.value, ast.Name) and v.value.value.value.id == psn
                        and isinstance(v.value.slice, ast.Constant)):
                    continue
                expr = _constructor_value(kinit, ksn, v.attr)
                if expr is None:
                    continue
                mapping = {}
                for name in {n.id for n in walk(expr) if isinstance(n, ast.Name)}:
                    arg = bound.get(name)
                    if not (isinstance(arg, ast.Name) and not _rebound(pinit, arg.id)) and not isinstance(arg, ast.Constant):
                        mapping = None
                        break
                    mapping[name] = ast.unparse(arg)
                if mapping is None:
                    continue
                new = _substitute(expr, mapping)
                out[pos(stmt)] = (new, ast.unparse(new))
                a.hazards.append(Hazard(pmod.rel, stmt.lineno,
                    f"self.{stmt.targets[0].attr} now reads `{ast.unparse(new)}`, the value {k.name}.__init__ gives "
                    f"`{v.attr}` ({k.file}:{expr.lineno}), instead of reading it through the dropped self.{f.attr}[{v.value.slice.value}]",
                    changes_meaning=False))
        return out

    def _fusions(self, a: ClassAnalysis, pinit: ast.FunctionDef, psn: str) -> list[Fusion]:
        """Parent loops ``for i in range(n): self.L.append(E)`` whose every element C overwrites."""
        cinit = a.cls.methods["__init__"]
        csn = first_param(cinit)
        body = cinit.body
        try:
            start = body.index(a.super_init_stmt) + 1
        except ValueError:
            return []
        out = []
        for i, ploop in enumerate(pinit.body):
            if not (isinstance(ploop, ast.For) and isinstance(ploop.target, ast.Name) and len(ploop.body) == 1 and not ploop.orelse):
                continue
            call = ploop.body[0]
            if not (isinstance(call, ast.Expr) and isinstance(call.value, ast.Call) and isinstance(call.value.func, ast.Attribute)
                    and call.value.func.attr == "append" and len(call.value.args) == 1 and not call.value.keywords):
                continue
            recv = call.value.func.value
            if not (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == psn):
                continue
            attr = recv.attr
            if not (_is_range_count(ploop.iter) and i > 0 and _assigns_empty_list(pinit.body[i - 1], attr, psn)):
                continue
            for cl in body[start:]:
                if isinstance(cl, ast.For) and ast.dump(cl.iter) == ast.dump(ploop.iter) and isinstance(cl.target, ast.Name) and not cl.orelse:
                    store = _first_index_store(cl, attr, csn)
                    if store is not None:
                        out.append(Fusion(attr, ploop, cl, store))
                    break
                if attr in collect(cl, csn).reads_attrs | collect(cl, csn).mutates_attrs:
                    break
        return out

    # ---- the rest of the checkout ------------------------------------------------
    def _external(self, a: ClassAnalysis, out: Scanned):
        satisfied = self._child_satisfied(a)
        cands = sorted(n for n in a.members if n not in a.kept and not satisfied(n) and not n.startswith("__"))
        if not cands:
            return
        flow = Flow(self.index, a.cls)
        flow.site_filter = lambda m, call: self._in_dropped_parent_code(a, m, call)
        self._flow = flow
        rx = re.compile(r"(?:\.|['\"])(" + "|".join(re.escape(c) for c in cands) + r")\b")
        cand_set = set(cands)
        chain_nodes = {id(c.node) for c in a.chain} | {id(a.cls.node)}
        chain_files = {c.file for c in a.chain} | {a.cls.file}
        tree = self.index.tree
        files = tree.grep(rx, words=tuple(cands))
        for i, rel in enumerate(files):
            if self.progress:
                self.progress(i + 1, len(files), f"uses of {a.parent.name}'s members")
            # A file whose every mention is of members already kept is not even parsed
            # (most of the cost of a run is parsing).
            if not self.all_uses and set(rx.findall(tree.peek(rel) or "")) <= set(a.kept):
                continue
            mod = self.index.module(rel)
            if mod is None:
                a.skipped_files[rel] = self.index.syntax_errors.get(rel) or self.index.tree.unreadable.get(rel, "unreadable")
                continue
            for node in mod.nodes:
                hit = _attr_use(node, cand_set)
                if hit is None:
                    continue
                name, recv, how, line = hit
                if name in a.kept and not self.all_uses:
                    continue
                if rel in chain_files and _inside_any(mod, node, chain_nodes):
                    continue
                verdict, note = flow.receiver(mod, recv, node)
                if verdict == NO:
                    continue
                kind = a.members[name][0].kind
                if how == "write" and kind not in ("property",):
                    continue
                sure = "an instance of" if verdict == YES else "possibly an instance of"
                ev = Evidence(rel, line, f"{how} of .{name} on {ast.unparse(recv)[:60]} ({sure} {a.cls.name}; {note})")
                self._need(a, name, ev)
                out.needs.append((name, ev))
        self._closure(a)
        out.closed = True

    def _in_dropped_parent_code(self, a: ClassAnalysis, mod: ModuleInfo, node: ast.AST) -> bool:
        fn, owner = enclosing_class(mod, node)
        if owner is None or owner not in a.chain or fn is None:
            return False
        if fn.name == "__init__":
            sl = a.init_slice
            stmt = next((s for s in enclosing(mod, node) if isinstance(s, ast.stmt) and s in list(walk(fn)) and not isinstance(s, (ast.FunctionDef,))), None)
            return sl is not None and stmt is not None and pos(stmt) not in sl.kept
        return fn.name not in a.kept

    # ---- type checks -------------------------------------------------------------
    def _hazards(self, a: ClassAnalysis):
        p = a.parent
        flow = self._flow or Flow(self.index, a.cls)
        rx = re.compile(rf"\b{re.escape(p.name)}\b")
        for rel in self.index.tree.grep(rx, words=(p.name,)):
            mod = self.index.module(rel)
            if mod is None:
                continue
            mro_file = "__mro__" in mod.text or ".mro()" in mod.text or "__bases__" in mod.text
            for node in mod.nodes:
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
                    types = _type_refs(mod, node.args[1])
                    if p.qualname not in types:
                        continue
                    if a.cls.qualname in types or any(t in set(self.index.ancestors(a.cls)) - {x.qualname for x in a.chain} for t in types if t != p.qualname):
                        continue
                    if node.func.id == "isinstance":
                        verdict, _ = flow.receiver(mod, node.args[0], node)
                        if verdict == NO or _inside_any(mod, node, {id(p.node)}) and not _in_kept_method(a, mod, node):
                            continue
                    a.hazards.append(Hazard(rel, node.lineno, f"{ast.unparse(node)[:100]} would no longer match {a.cls.name} after reparenting"))
                elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                    refs = [mod.qualify(e) for e in node.elts if dotted_name(e)]
                    if p.qualname in refs and a.cls.qualname not in refs and _looks_like_type_list(mod, node):
                        a.hazards.append(Hazard(rel, node.lineno, f"{p.name} listed among types without {a.cls.name}: a type check through this list would no longer match {a.cls.name}"))
                elif isinstance(node, ast.Constant) and node.value == p.name and rel != p.file:
                    a.hazards.append(Hazard(
                        rel, node.lineno,
                        f"class-name string {p.name!r}: " + ("this file walks __mro__/__bases__, so a name check may change meaning" if mro_file else "exact type-name checks are unaffected by reparenting"),
                        changes_meaning=mro_file,
                    ))

    # ---- verdict ----------------------------------------------------------------
    def _decide(self, a: ClassAnalysis):
        if a.unsafe:
            a.decision = "unsafe"
            a.reason = "cannot be decided statically: " + "; ".join(f"{h.what} ({h.file}:{h.line})" for h in a.unsafe[:3])
            return
        reach = [s for s in a.super_calls if s.reaches_parent]
        if reach:
            s = reach[0]
            a.decision = "decline"
            a.reason = (
                f"{a.cls.name}.{s.in_method} falls back to {s.resolves_to} through super() at run time "
                f"({s.file}:{s.line}), so {a.parent.name} really is reused"
            )
            return
        meaning = [h for h in a.hazards if h.changes_meaning]
        if meaning:
            h = meaning[0]
            a.decision = "decline"
            a.reason = f"a type check would change meaning: {h.what} ({h.file}:{h.line})"
            return
        r = a.reuse
        methods_kept = [n for n in a.kept if a.kind(n) in ("method", "property")]
        code = {n: _span(m.node) for n, (m, _) in a.members.items() if m.kind in ("method", "property")}
        copied = sum(code[n] for n in methods_kept if n in code)
        if code and copied * 2 > sum(code.values()):
            a.decision = "decline"
            a.reason = (
                f"{a.cls.name} would need {copied} of {sum(code.values())} lines of {a.parent.name}'s methods "
                f"({', '.join(sorted(methods_kept))}): the parent's logic is really reused"
            )
            return
        init = a.init_reuse
        if len(a.kept) == len(a.members) and init["statements_kept"] == init["statements_total"]:
            a.decision = "decline"
            a.reason = f"nothing to gain: {a.cls.name} uses every member of {a.parent.name}"
            return
        if init["statements_kept"] == init["statements_total"]:
            a.decision = "decline"
            a.reason = (
                f"nothing to gain: {a.cls.name} never runs work of {a.parent.name}.__init__ that it could skip"
                if init["statements_total"] else f"nothing to gain: {a.parent.name} has no __init__ work to skip"
            )
            return
        a.decision = "decouple"
        init = a.init_reuse
        a.reason = (
            f"{a.cls.name} uses {r['members_used']} of {r['members_total']} members of {a.parent.name}"
            f" ({len(methods_kept)} methods) and {init['statements_kept']} of {init['statements_total']} statements of its __init__"
        )


# ---- helpers ------------------------------------------------------------------------


def _norm_object(q: str) -> str:
    return "builtins.object" if q in ("object", "builtins.object") else q


def _matches(qual: str, spec: str) -> bool:
    spec = spec.replace(":", ".")
    return qual == spec or qual.rsplit(".", 1)[-1] == spec


def _find_super_init(init: ast.FunctionDef, cls: ClassInfo, parent: ClassInfo):
    for node in walk(init):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr == "__init__":
                if is_super_call(f.value):
                    return node, call
                if dotted_name(f.value) and dotted_name(f.value).rsplit(".", 1)[-1] == parent.name:
                    return node, call
    return None, None


def _bind_consts(pinit: ast.FunctionDef, call: ast.Call) -> dict[str, object]:
    """Parameters of P.__init__ bound to literals by C's super().__init__(...) call, or by defaults."""
    b = bind_arguments(pinit, call)
    if b.opaque:
        return {}
    out = {n: v.value for n, v in b.bound.items() if isinstance(v, ast.Constant)}
    out.update({n: d.value for n, d in b.defaults.items() if n not in b.bound and isinstance(d, ast.Constant)})
    return out


INIT_GENERATORS = {"dataclass", "dataclasses.dataclass", "attr.s", "attr.attrs", "attrs.define", "attr.define", "define", "frozen", "attrs.frozen", "mutable"}


def _generates_init(cls: ClassInfo) -> bool:
    """A class decorator such as @dataclass writes an __init__ that does not call the parent's."""
    from .index import decorator_name

    if "__init__" in cls.methods:
        return False
    return any(decorator_name(d) in INIT_GENERATORS for d in cls.node.decorator_list)


def _span(node: ast.AST | None) -> int:
    if node is None:
        return 0
    return (getattr(node, "end_lineno", node.lineno) or node.lineno) - node.lineno + 1


def _value_dump(stmt: ast.AST | None) -> str | None:
    value = getattr(stmt, "value", None)
    return ast.dump(value) if value is not None else None


def _attr_lines(node: ast.AST, selfname: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for n in walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == selfname:
            if n.attr not in out or n.lineno < out[n.attr]:
                out[n.attr] = n.lineno
    return out


def _first_line(mod: ModuleInfo, node: ast.AST) -> str:
    return mod.lines[node.lineno - 1].strip()


def _is_range_count(it: ast.AST) -> bool:
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1 and not it.keywords


def _assigns_empty_list(stmt: ast.stmt, attr: str, sn: str) -> bool:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t, v = stmt.targets[0], stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        t, v = stmt.target, stmt.value
    else:
        return False
    return (isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == sn
            and isinstance(v, ast.List) and not v.elts)


def _first_index_store(loop: ast.For, attr: str, sn: str) -> ast.Assign | None:
    """``self.attr[i] = E`` at the top of the loop body, before anything else touches self.attr."""
    var = loop.target.id
    for s in loop.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr == attr
                    and isinstance(t.value.value, ast.Name) and t.value.value.id == sn
                    and isinstance(t.slice, ast.Name) and t.slice.id == var):
                f = collect(s.value, sn)
                if attr in f.reads_attrs | f.mutates_attrs:
                    return None
                return s
        f = collect(s, sn)
        if attr in f.reads_attrs | f.mutates_attrs | f.writes_attrs or isinstance(s, (ast.Break, ast.Continue)) or _has_jump(s):
            return None
    return None


def _has_jump(s: ast.stmt) -> bool:
    return any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise)) for n in walk(s))


def _constructor_value(kinit: ast.FunctionDef, ksn: str, attr: str) -> ast.AST | None:
    """The expression ``__init__`` assigns to ``self.attr`` once, unconditionally, from its
    parameters alone (no calls, no other self reads); None if there is no such single assignment."""
    top = [s for s in kinit.body if isinstance(s, ast.Assign) and len(s.targets) == 1
           and isinstance(s.targets[0], ast.Attribute) and s.targets[0].attr == attr
           and isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == ksn]
    writes = [n for n in walk(kinit) if isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Store)]
    if len(top) != 1 or len(writes) != 1:
        return None
    value = top[0].value
    params = {p.arg for p in kinit.args.posonlyargs + kinit.args.args + kinit.args.kwonlyargs} - {ksn}
    for n in walk(value):
        if isinstance(n, (ast.Call, ast.Subscript, ast.Lambda, ast.NamedExpr)):
            return None
        if isinstance(n, ast.Name) and (n.id not in params or _rebound(kinit, n.id)):
            return None
    return value


def _rebound(fn: ast.FunctionDef, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(fn))


def _substitute(expr: ast.AST, mapping: dict[str, str]) -> ast.AST:
    class Sub(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in mapping:
                return ast.copy_location(ast.parse(mapping[node.id], mode="eval").body, node)
            return node

    import copy

    return ast.fix_missing_locations(Sub().visit(copy.deepcopy(expr)))


def _reads_after(init: ast.FunctionDef, loop: ast.For, attr: str, res: SliceResult, sn: str, replaced: dict) -> bool:
    after = False
    for s in init.body:
        if s is loop:
            after = True
            continue
        if pos(s) in replaced:
            continue
        if after and pos(s) in res.kept:
            f = collect(s, sn)
            if attr in f.reads_attrs | f.mutates_attrs:
                return True
    return False


def _attr_use(node: ast.AST, names: set[str]):
    """(name, receiver, how) for ``recv.name`` or getattr/hasattr/setattr(recv, "name"), else None."""
    if isinstance(node, ast.Attribute) and node.attr in names:
        how = "write" if isinstance(node.ctx, ast.Store) else "read"
        return node.attr, node.value, how, getattr(node, "end_lineno", node.lineno)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2:
        lit = node.args[1]
        if isinstance(lit, ast.Constant) and lit.value in names:
            how = "write" if node.func.id == "setattr" else f"{node.func.id}()"
            return lit.value, node.args[0], how, lit.lineno
    return None


def _inside_any(mod: ModuleInfo, node: ast.AST, ids: set[int]) -> bool:
    return any(id(anc) in ids for anc in enclosing(mod, node))


def _in_kept_method(a: ClassAnalysis, mod: ModuleInfo, node: ast.AST) -> bool:
    fn, owner = enclosing_class(mod, node)
    return fn is not None and fn.name in a.kept


def _type_refs(mod: ModuleInfo, spec: ast.AST) -> list[str]:
    elts = spec.elts if isinstance(spec, (ast.Tuple, ast.List)) else [spec]
    return [mod.qualify(e) for e in elts if dotted_name(e)]


def _looks_like_type_list(mod: ModuleInfo, node: ast.AST) -> bool:
    """A literal of classes that feeds a type check (isinstance/issubclass/`in type(x).__mro__`)."""
    par = None
    for anc in enclosing(mod, node):
        par = anc
        break
    if isinstance(par, ast.Call) and isinstance(par.func, ast.Name) and par.func.id in ("isinstance", "issubclass"):
        return False  # handled as an isinstance call
    text = mod.text
    return "isinstance(" in text or "issubclass(" in text
