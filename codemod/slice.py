"""Backward slice of the parent's ``__init__``: the statements a decoupled class still needs.

Given the attributes that must exist after construction, keep the statements
that define them and everything those depend on (locals, earlier attributes,
the ``if``/``for``/``with``/``try`` around them, early returns), in their
original order. Liveness is computed backwards with kills, so a definition
that is overwritten before it is read is dropped. Tests that are constant for
the subclass (``self.__class__ is Parent``, a parameter bound to a literal) are
folded, and the branch that cannot run is neither kept nor reported.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .facts import Facts, collect, is_super_call, side_effect_kind
from .index import walk

Pos = tuple[int, int]


def pos(node: ast.AST) -> Pos:
    return (node.lineno, node.col_offset)


@dataclass
class Fusion:
    """A parent loop that appends to ``self.L`` whose elements the subclass overwrites one by one."""

    attr: str
    parent_loop: ast.For
    child_loop: ast.For
    child_store: ast.Assign  # self.L[i] = E2 inside child_loop


@dataclass
class SliceResult:
    kept: set[Pos] = field(default_factory=set)
    dead: set[Pos] = field(default_factory=set)  # never runs for the subclass (folded)
    reads_attrs: dict[str, list[int]] = field(default_factory=dict)  # needed at entry, with lines
    calls_methods: dict[str, list[int]] = field(default_factory=dict)
    free_locals: set[str] = field(default_factory=set)  # parameters (or globals) the slice reads
    dropped: list[tuple[ast.stmt, str]] = field(default_factory=list)  # (statement, side effect)
    total: int = 0
    kept_count: int = 0
    dynamic: list[tuple[int, str]] = field(default_factory=list)
    fusions: list[Fusion] = field(default_factory=list)
    folded: dict[int, bool] = field(default_factory=dict)  # line of a constant ``if`` -> branch taken


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


class Slicer:
    def __init__(self, fn: ast.FunctionDef, selfname: str, *, consts: dict[str, object], foreign_classes: set[str], keep_super: bool, skip: set[Pos] = frozenset(), replace: dict | None = None):
        self.fn = fn
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
        self._facts: dict[int, Facts] = {}

    # ---- public ----------------------------------------------------------
    def run(self, needed_attrs: set[str]) -> SliceResult:
        live = {("A", a) for a in needed_attrs}
        body = [s for s in self.fn.body if not _is_docstring(s)]
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
        if key not in self._facts:
            if isinstance(node, ast.Assign) and pos(node) in self.replace:
                node = ast.Assign(targets=node.targets, value=self.replace[pos(node)], lineno=node.lineno, col_offset=node.col_offset)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # A nested def is a statement that binds a name; its body is a scope of its own.
                node = ast.Module(body=[node], type_ignores=[])
            self._facts[key] = collect(node, self.selfname, self.locals)
        return self._facts[key]

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

    # ---- folding ---------------------------------------------------------
    def fold(self, test: ast.AST):
        """True/False when the test is constant for the subclass, else None."""
        if isinstance(test, ast.Constant):
            return bool(test.value)
        if isinstance(test, ast.Name) and test.id in self.consts:
            return bool(self.consts[test.id])
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            v = self.fold(test.operand)
            return None if v is None else not v
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
            left, right = test.left, test.comparators[0]
            if self._is_own_class(left) and isinstance(right, (ast.Name, ast.Attribute)) and ast.unparse(right).split(".")[-1] in self.foreign:
                return isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
        return None

    def _is_own_class(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Attribute) and e.attr == "__class__" and isinstance(e.value, ast.Name) and e.value.id == self.selfname:
            return True
        return (
            isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type"
            and len(e.args) == 1 and isinstance(e.args[0], ast.Name) and e.args[0].id == self.selfname
        )

    # ---- liveness --------------------------------------------------------
    def _use(self, live: set, f: Facts, line: int):
        for a in f.reads_attrs | f.mutates_attrs:
            live.add(("A", a))
            self.res.reads_attrs.setdefault(a, []).append(line)
        for m in f.calls_methods:
            self.res.calls_methods.setdefault(m, []).append(line)
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
            for _ in range(10):  # fixpoint; loop bodies are short
                lb = self._block(s.body, acc, keep_jumps=keep_jumps)
                lo = self._block(s.orelse, live, keep_jumps=keep_jumps)
                nxt = acc | lb | lo
                if nxt == acc:
                    break
                acc = nxt
            if len(self.res.kept) > before:
                self._keep(s)
                self._block(s.body, acc, keep_jumps=True)
                out = (acc - {("L", t) for t in targets}) | live
                self._use(out, header, s.lineno)
                return out
            return live
        if isinstance(s, (ast.With, ast.AsyncWith)):
            before = len(self.res.kept)
            lb = self._block(s.body, live, keep_jumps=keep_jumps)
            if len(self.res.kept) > before:
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
        is_super_init = (
            isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
            and s.value.func.attr == "__init__" and is_super_call(s.value.func.value)
        )
        if (defs & live) or (is_super_init and self.keep_super):
            self._keep(s)
            out = live - {("A", a) for a in f.writes_attrs} - {("L", n) for n in f.writes_locals}
            self._use(out, f, s.lineno)
            return out
        self._report(s)
        return live

    def _report(self, s: ast.stmt):
        why = side_effect_kind(s, self.facts(s))
        if why:
            self.res.dropped.append((s, why))

    def _count(self, stmts):
        for s in stmts:
            for n in walk(s):
                if isinstance(n, ast.stmt) and not isinstance(n, _COMPOUND) and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and pos(n) not in self.res.dead and not _is_docstring(n):
                    self.res.total += 1
                    if pos(n) in self.res.kept:
                        self.res.kept_count += 1


def _merge(a: Facts, b: Facts):
    for k in ("reads_attrs", "writes_attrs", "mutates_attrs", "calls_methods", "reads_locals", "writes_locals", "mutates_locals"):
        getattr(a, k).update(getattr(b, k))


def _is_docstring(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
