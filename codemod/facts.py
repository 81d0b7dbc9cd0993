"""Per-statement facts about ``self`` and local names: what a statement reads, writes, calls.

Shared by the usage analysis (which reads) and the slicer (which keeps or drops
statements), so that both agree on what a statement touches.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .ast_util import dotted_name, first_param, is_static, is_super_call, walk
from .literal_names import names as literal_names
from .reflection import on_name

# Calls that neither mutate their arguments nor touch global state.
PURE_CALLS = {
    "len", "isinstance", "issubclass", "getattr", "hasattr", "int", "float", "str", "bool", "tuple",
    "list", "dict", "set", "frozenset", "min", "max", "sum", "any", "all", "abs", "range", "enumerate",
    "zip", "sorted", "reversed", "type", "id", "repr", "round", "divmod", "callable", "iter", "map", "filter",
}
# Method names that mutate their receiver in place.
MUTATORS = {
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard",
    "sort", "reverse", "popitem", "fill_", "zero_", "copy_", "__setitem__",
}


@dataclass
class Facts:
    reads_attrs: set[str] = field(default_factory=set)  # self.X loaded (incl. receivers of calls)
    writes_attrs: set[str] = field(default_factory=set)  # self.X = ... (kills)
    mutates_attrs: set[str] = field(default_factory=set)  # self.X[...] = / self.X.append(...)
    calls_methods: set[str] = field(default_factory=set)  # self.m(...)
    reads_locals: set[str] = field(default_factory=set)
    writes_locals: set[str] = field(default_factory=set)
    mutates_locals: set[str] = field(default_factory=set)
    calls: list[ast.Call] = field(default_factory=list)
    dynamic: list[tuple[int, str]] = field(default_factory=list)  # (line, what) undecidable uses of self
    super_calls: list[tuple[int, str]] = field(default_factory=list)  # (line, method)
    # (line, member, the class super() names or None): super().X read as a value, not called
    super_reads: list[tuple[int, str, str | None]] = field(default_factory=list)
    external_writes: list[tuple[int, str]] = field(default_factory=list)  # writes to non-self, non-local state


def self_attr(node: ast.AST, selfname: str) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == selfname:
        return node.attr
    return None


def super_class_named(call: ast.Call) -> str | None:
    """The class a ``super(...)`` call names as its first argument (its source text), None for ``super()``."""
    return ast.unparse(call.args[0]) if call.args else None


def _chain_base(node: ast.AST, selfname: str) -> tuple[str, str] | None:
    """('A', attr) when a chain is rooted at self.attr, ('L', name) when at a local name."""
    cur = node
    while isinstance(cur, (ast.Attribute, ast.Subscript)):
        if isinstance(cur, ast.Attribute) and self_attr(cur, selfname):
            return ("A", cur.attr)
        cur = cur.value
    if isinstance(cur, ast.Name):
        return ("L", cur.id) if cur.id != selfname else None
    return None


def collect(node: ast.AST, selfname: str | None, locals_: set[str] | None = None) -> Facts:
    """Facts of one statement or expression (nested functions and lambdas included)."""
    f = Facts()
    c = _Collector(f, selfname, locals_)
    c.root = node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # The function's own first parameter *is* self: visit the body, not a nested scope.
        for stmt in node.body:
            c.visit(stmt)
    else:
        c.visit(node)
    return f


class _Collector(ast.NodeVisitor):
    def __init__(self, facts: Facts, selfname: str | None, locals_: set[str] | None):
        self.f = facts
        self.selfname = selfname
        self.locals = locals_  # names local to the enclosing function, when known
        self.shadow = 0  # >0 inside a nested scope that rebinds self
        self.called: set[int] = set()  # the super().m of the super().m(...) calls seen, not reads of m
        self.root: ast.AST | None = None  # what collect() was given
        self._parents: dict | None = None  # its parent map, built at the first computed name

    def _spelt(self, name: ast.AST) -> frozenset[str] | None:
        """The literals a computed name can only be, where the code given spells them all."""
        if self._parents is None:
            self._parents = {}
            walk(self.root, self._parents)
        return literal_names(name, self._parents)

    # -- stores -------------------------------------------------------------
    def _store(self, tgt: ast.AST, kill: bool = True):
        if isinstance(tgt, (ast.Tuple, ast.List)):
            for e in tgt.elts:
                self._store(e, kill)
            return
        if isinstance(tgt, ast.Starred):
            self._store(tgt.value, kill)
            return
        if isinstance(tgt, ast.Name):
            (self.f.writes_locals if kill else self.f.mutates_locals).add(tgt.id)
            return
        attr = self_attr(tgt, self.selfname) if self.selfname and not self.shadow else None
        if attr is not None:
            (self.f.writes_attrs if kill else self.f.mutates_attrs).add(attr)
            return
        # Subscript or attribute store on something: a mutation of its base.
        base = _chain_base(tgt, self.selfname) if self.selfname and not self.shadow else _chain_base(tgt, "\0")
        if base is None:
            self.f.external_writes.append((tgt.lineno, ast.unparse(tgt)))
        elif base[0] == "A":
            self.f.mutates_attrs.add(base[1])
        elif self.locals is not None and base[1] not in self.locals:
            self.f.external_writes.append((tgt.lineno, ast.unparse(tgt)))
        else:
            self.f.mutates_locals.add(base[1])
        # The receiver expression itself is evaluated (read).
        if isinstance(tgt, (ast.Attribute, ast.Subscript)):
            self.visit(tgt.value)
            if isinstance(tgt, ast.Subscript):
                self.visit(tgt.slice)

    def visit_Assign(self, node):
        self.visit(node.value)
        for t in node.targets:
            self._store(t)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
            self._store(node.target)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        # x += 1 reads x first.
        self.visit(ast.fix_missing_locations(ast.copy_location(_as_load(node.target), node.target)))
        self._store(node.target)

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        self._store(node.target)

    def visit_For(self, node):
        self.visit(node.iter)
        self._store(node.target)
        for s in node.body + node.orelse:
            self.visit(s)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node):
        self.visit(node.context_expr)
        if node.optional_vars is not None:
            self._store(node.optional_vars)

    def visit_Delete(self, node):
        for t in node.targets:
            self._store(t, kill=False)

    def visit_Global(self, node):
        for n in node.names:
            self.f.external_writes.append((node.lineno, f"global {n}"))

    visit_Nonlocal = visit_Global

    def visit_Import(self, node):
        for a in node.names:
            self.f.writes_locals.add((a.asname or a.name).split(".")[0])

    def visit_ImportFrom(self, node):
        for a in node.names:
            self.f.writes_locals.add(a.asname or a.name)

    def visit_comprehension(self, node):
        self.visit(node.iter)
        for c in node.ifs:
            self.visit(c)
        # Comprehension variables are local to the comprehension: not function locals.

    def _scoped(self, node, params: list[str], body):
        rebinds = self.selfname in params
        if rebinds:
            self.shadow += 1
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        for b in body if isinstance(body, list) else [body]:
            self.visit(b)
        if rebinds:
            self.shadow -= 1

    def visit_FunctionDef(self, node):
        a = node.args
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] + [x.arg for x in (a.vararg, a.kwarg) if x]
        for dflt in a.defaults + [d for d in a.kw_defaults if d is not None]:
            self.visit(dflt)
        self.f.writes_locals.add(node.name)
        self._scoped(node, params, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        a = node.args
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        self._scoped(node, params, node.body)

    def visit_ListComp(self, node):
        for g in node.generators:
            self.visit(g)
        self.visit(node.elt)

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        for g in node.generators:
            self.visit(g)
        self.visit(node.key)
        self.visit(node.value)

    # -- loads --------------------------------------------------------------
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id != self.selfname:
            self.f.reads_locals.add(node.id)
        elif isinstance(node.ctx, ast.Load) and node.id == self.selfname and self.shadow:
            pass

    def visit_Attribute(self, node):
        if isinstance(node.ctx, ast.Load) and is_super_call(node.value) and id(node) not in self.called:
            self.f.super_reads.append((node.lineno, node.attr, super_class_named(node.value)))
        attr = self_attr(node, self.selfname) if self.selfname and not self.shadow else None
        if attr is not None:
            if attr == "__dict__":
                self.f.dynamic.append((node.lineno, f"{self.selfname}.__dict__"))
            elif isinstance(node.ctx, ast.Load):
                self.f.reads_attrs.add(attr)
            return
        self.generic_visit(node)

    def visit_Call(self, node):
        self.f.calls.append(node)
        func = node.func
        sn = self.selfname if not self.shadow else None
        if isinstance(func, ast.Attribute) and is_super_call(func.value):
            self.called.add(id(func))
        if sn:
            attr = self_attr(func, sn)
            if attr is not None:
                self.f.calls_methods.add(attr)
            # self.x.append(...) and friends mutate self.x; local.append(...) mutates the local.
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                base = _chain_base(func.value, sn)
                if base and base[0] == "A":
                    self.f.mutates_attrs.add(base[1])
                elif base:
                    self.f.mutates_locals.add(base[1])
            if isinstance(func, ast.Attribute) and is_super_call(func.value):
                self.f.super_calls.append((node.lineno, func.attr))
            name = dotted_name(func)
            if name in ("getattr", "hasattr", "setattr", "delattr") and node.args:
                if isinstance(node.args[0], ast.Name) and node.args[0].id == sn:
                    lit = node.args[1] if len(node.args) > 1 else None
                    spelt = self._spelt(lit) if lit is not None else None
                    if spelt:
                        (self.f.writes_attrs if name == "setattr" else self.f.reads_attrs).update(spelt)
                    else:
                        self.f.dynamic.append((node.lineno, f"{name}({sn}, <computed name>)"))
            if name in ("setattr", "delattr") and node.args and not (isinstance(node.args[0], ast.Name) and node.args[0].id == sn):
                # setattr(self.flags, k, v) stores on self.flags as self.flags.k = v does: a mutation
                # of what the object is rooted at (wtforms' Field fills its flags so).
                self._store(ast.copy_location(ast.Attribute(value=node.args[0], attr="_", ctx=ast.Store()), node), False)
            if name == "vars" and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == sn:
                self.f.dynamic.append((node.lineno, f"vars({sn})"))
            indirect = on_name(node, sn)
            if indirect:
                self.f.dynamic.append((node.lineno, indirect))
        self.generic_visit(node)


def _as_load(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Name):
        return ast.Name(id=node.id, ctx=ast.Load())
    if isinstance(node, ast.Attribute):
        return ast.Attribute(value=node.value, attr=node.attr, ctx=ast.Load())
    if isinstance(node, ast.Subscript):
        return ast.Subscript(value=node.value, slice=node.slice, ctx=ast.Load())
    return node


# The key under which ``method_effects`` holds what an assignment to property NAME runs: NAME + SETTER.
SETTER = ".setter"


@dataclass
class MethodEffects:
    """What calling ``self.m()`` does to the instance, through every ``self`` call it makes in turn."""

    reads: set[str] = field(default_factory=set)  # attributes read (or mutated) on self
    writes: set[str] = field(default_factory=set)  # attributes it may assign
    calls: set[str] = field(default_factory=set)  # every method name reached, m included
    stays: set[str] = field(default_factory=set)  # those whose code stays on the class (its own, or the new base's)
    validates: set[str] = field(default_factory=set)  # those whose body has a raise or an assert


def method_effects(dispatch: dict[str, tuple[ast.FunctionDef, bool]]) -> dict[str, MethodEffects]:
    """For each method name, its effects as dynamic dispatch runs it.

    ``dispatch``: name -> (the function ``self.name()`` runs, whether that code stays on the
    subclass after reparenting: its own, or the new base's).
    Static methods and methods without a first parameter read and write nothing of ``self``.
    """
    direct: dict[str, Facts] = {}
    raising: set[str] = set()
    for name, (fn, _) in dispatch.items():
        sn = first_param(fn)
        direct[name] = collect(fn, sn) if sn and not is_static(fn) else Facts()
        if any(isinstance(n, (ast.Raise, ast.Assert)) for n in walk(fn)):
            raising.add(name)
    out: dict[str, MethodEffects] = {}
    for name in dispatch:
        eff = MethodEffects()
        todo, seen = [name], set()
        while todo:
            m = todo.pop()
            if m in seen or m not in dispatch:
                continue
            seen.add(m)
            f = direct[m]
            eff.reads |= f.reads_attrs | f.mutates_attrs
            eff.writes |= f.writes_attrs | f.mutates_attrs
            if dispatch[m][1]:
                eff.stays.add(m)
            if m in raising:
                eff.validates.add(m)
            todo.extend(f.calls_methods)
            todo.extend(a + SETTER for a in f.writes_attrs)  # an assignment that runs a setter calls it
        eff.calls = seen
        out[name] = eff
    return out
