"""Where instances of the class may flow: is this receiver possibly an instance of C?

The rest of the checkout reads attributes on objects whose class is not written
down. An attribute read counts as a use of C's inherited member unless the
receiver is clearly *not* a C: its type is pinned by an ``isinstance`` guard, an
annotation, or every assignment of the name or attribute it comes from, and
none of those types can hold a C. Anything unclear counts as a use (by name):
the analysis errs towards keeping members, never towards dropping them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .index import ClassInfo, Index, ModuleInfo, dotted_name, first_param, is_static, walk

YES, MAYBE, NO = "yes", "maybe", "no"
UNREACHED = "<unreached>"  # the value comes only from code that no longer runs
EXACT = "="  # prefix of a type known exactly (a constructor call), not "this class or a subclass"

_CONTAINERS = {"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Set", "set", "FrozenSet", "Deque", "deque", "Iterator", "MutableSequence"}
_WRAPPERS = {"Optional", "Final", "ClassVar", "Annotated"}
_UNKNOWN_TYPES = {"Any", "object", "typing.Any", "builtins.object"}


def enclosing(mod: ModuleInfo, node: ast.AST):
    """Yield the ancestors of a node, innermost first."""
    par = mod.parents
    cur = par.get(id(node))
    while cur is not None:
        yield cur
        cur = par.get(id(cur))


@dataclass
class Relation:
    """How one class relates to C: the types that may hold a C instance."""

    target: ClassInfo
    index: Index

    def __post_init__(self):
        self.ancestors = set(self.index.ancestors(self.target)) | {"builtins.object", "object"}

    def of(self, qual: str) -> str:
        """YES: is C or a subclass; MAYBE: an ancestor (may hold a C) or unknown; NO: unrelated."""
        if qual in _UNKNOWN_TYPES:
            return MAYBE
        if qual == UNREACHED:
            return NO
        if qual.startswith(EXACT):
            exact = qual[len(EXACT):]
            if exact == self.target.qualname or self.target.qualname in self._ancestors_of(exact):
                return YES
            return NO
        if qual == self.target.qualname or self.target.qualname in self._ancestors_of(qual):
            return YES
        if qual in self.ancestors:
            return MAYBE
        return NO

    def _ancestors_of(self, qual: str) -> set[str]:
        cls = self.index.resolve_class(qual)
        if cls is None:
            return set()
        if cls.qualname == self.target.qualname:
            return set()
        return set(self.index.ancestors(cls))

    def combine(self, quals: list[str] | None) -> str:
        if quals is None or not quals:
            return MAYBE
        verdicts = {self.of(q) for q in quals}
        if YES in verdicts:
            return YES
        if verdicts == {NO}:
            return NO
        return MAYBE


class Flow:
    """Receiver typing for one target class across the tree."""

    def __init__(self, index: Index, target: ClassInfo):
        self.index = index
        self.rel = Relation(target, index)
        self._attr_types: dict[str, list[str] | None] = {}
        self._may_have: set[str] | None = None
        self._params: dict = {}
        self._scope_loads: dict[int, dict[str, list[str]]] = {}
        self._bound: dict[tuple[int, str], bool] = {}
        self.site_filter = None  # (module, call) -> True to ignore a call site (code the rewrite drops)

    # ---- type expressions ---------------------------------------------------
    def annotation_types(self, mod: ModuleInfo, ann: ast.AST | None, element: bool = False) -> list[str] | None:
        """Qualified class names an annotation allows; None when it says nothing useful."""
        if ann is None:
            return None
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(ann, ast.Constant) and ann.value is None:
            return []
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            a = self.annotation_types(mod, ann.left, element)
            b = self.annotation_types(mod, ann.right, element)
            return None if a is None or b is None else a + b
        if isinstance(ann, ast.Subscript):
            head = (dotted_name(ann.value) or "").rsplit(".", 1)[-1]
            args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if head in _WRAPPERS:
                return self.annotation_types(mod, args[0], element)
            if head == "Union":
                out = []
                for a in args:
                    t = self.annotation_types(mod, a, element)
                    if t is None:
                        return None
                    out += t
                return out
            if head in _CONTAINERS:
                if not element:
                    return [f"builtins.{head.lower()}"]
                out = []
                for a in args:
                    if isinstance(a, ast.Constant) and a.value is Ellipsis:
                        continue
                    t = self.annotation_types(mod, a, False)
                    if t is None:
                        return None
                    out += t
                return out
            return [mod.qualify(ann.value)] if not element else None
        name = dotted_name(ann)
        if name is None:
            return None
        if element:
            return None
        return [mod.qualify(ann)]

    def value_types(self, mod: ModuleInfo, value: ast.AST | None, element: bool = False) -> list[str] | None:
        """Types an assigned value may have (or its elements, for a container)."""
        if value is None:
            return None
        if isinstance(value, ast.Constant):
            return [] if element else [f"builtins.{type(value.value).__name__}"]
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            if not element:
                return ["builtins.list"]
            out = []
            for e in value.elts:
                t = self.value_types(mod, e)
                if t is None:
                    return None
                out += t
            return out
        if isinstance(value, (ast.Dict, ast.DictComp, ast.JoinedStr, ast.Compare, ast.BoolOp)) and not element:
            return ["builtins.object_literal"]
        if isinstance(value, ast.ListComp) and element:
            return self.value_types(mod, value.elt)
        if isinstance(value, ast.Call) and not element:
            name = dotted_name(value.func)
            if name and name.rsplit(".", 1)[-1][:1].isupper():
                return [EXACT + mod.qualify(value.func)]
            return self.call_types(mod, value)
        if isinstance(value, ast.Attribute) and not element:
            return self.attr_types(value.attr)
        return None

    def call_types(self, mod: ModuleInfo, call: ast.Call) -> list[str] | None:
        """Types from the return annotation of a module-level function in the tree."""
        name = dotted_name(call.func)
        if not name:
            return None
        q = mod.qualify(call.func)
        modname, _, fname = q.rpartition(".")
        target = self.index.module_by_name(modname) if modname else None
        if target is None:
            return None
        for stmt in target.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == fname:
                return self.annotation_types(target, stmt.returns)
        return None

    # ---- receivers ------------------------------------------------------------
    def receiver(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> tuple[str, str]:
        """(verdict, note) for whether ``recv`` may be an instance of the target."""
        guard = self._isinstance_guard(mod, recv, at)
        if guard is not None:
            return self.rel.combine(guard), "isinstance guard"
        lacking = self._co_access(mod, recv, at)
        if lacking is not None:
            return NO, f"the same object also has .{lacking}, which {self.rel.target.name} instances lack"
        types = self.expr_types(mod, recv, at)
        verdict = self.rel.combine(types)
        if not types:
            return verdict, "its type is unknown"
        shown = ", ".join(sorted({t.lstrip(EXACT).rsplit(".", 1)[-1] for t in types})[:3])
        return verdict, f"typed {shown}"

    def expr_types(self, mod: ModuleInfo, expr: ast.AST, at: ast.AST, depth: int = 0) -> list[str] | None:
        """The classes an expression may evaluate to, or None when that is not clear."""
        if depth > 4:
            return None
        fn, cls = _enclosing_def(mod, at)
        if isinstance(expr, ast.Name):
            if fn is not None and cls is not None and not is_static(fn) and expr.id == first_param(fn):
                return [cls.qualname]
            return self._name_types(mod, expr.id, fn, depth)
        if isinstance(expr, ast.Call):
            return self.value_types(mod, expr)
        base, element = expr, False
        if isinstance(base, ast.Subscript):
            base, element = base.value, True
        if isinstance(base, ast.Attribute):
            owner = base.value
            if fn is not None and cls is not None and isinstance(owner, ast.Name) and owner.id == first_param(fn):
                return self._own_attr_types(mod, cls, base.attr, element)
            return self.attr_types(base.attr, element)
        return self.value_types(mod, expr, element)

    def _param_flow(self, mod: ModuleInfo, fn: ast.FunctionDef, pname: str, depth: int) -> list[str] | None:
        """Types of a parameter from the arguments at every call site in the tree."""
        key = (mod.rel, fn.lineno, pname)
        if key in self._params:
            return self._params[key]
        self._params[key] = None  # recursion resolves to "unknown"
        _, cls = _enclosing_def(mod, fn.body[0]) if fn.body else (None, None)
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if fn.name == "__init__" and cls is not None:
            callee, params = cls.name, params[1:]
        elif cls is None and fn in mod.tree.body:
            callee = fn.name
        else:
            return None
        if pname not in params and pname not in [a.arg for a in fn.args.kwonlyargs]:
            return None
        idx = params.index(pname) if pname in params else None
        out: list[str] = []
        sites = filtered = 0
        for rel in self.index.tree.grep(re.compile(rf"\b{re.escape(callee)}\("), words=(callee,)):
            site_mod = self.index.module(rel)
            if site_mod is None:
                return None
            for call in site_mod.nodes:
                if not (isinstance(call, ast.Call) and (dotted_name(call.func) or "").rsplit(".", 1)[-1] == callee):
                    continue
                if self.site_filter is not None and self.site_filter(site_mod, call):
                    filtered += 1
                    continue
                sites += 1
                arg = next((k.value for k in call.keywords if k.arg == pname), None)
                if arg is None and idx is not None:
                    if any(isinstance(a, ast.Starred) for a in call.args[: idx + 1]) or any(k.arg is None for k in call.keywords):
                        return None
                    if idx < len(call.args):
                        arg = call.args[idx]
                if arg is None:
                    continue  # the default applies
                t = self.expr_types(site_mod, arg, call, depth + 1)
                if t is None:
                    return None
                out += t
        # Every call site sits in code the rewrite drops: nothing reaches this parameter.
        result = out if sites else ([UNREACHED] if filtered else None)
        self._params[key] = result
        return result

    def _co_access(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> str | None:
        """An attribute read on the same object that no instance of the target has, if any.

        Such an object cannot be an instance of the target (the read would raise),
        so its other reads are not uses of the target's members.
        """
        if dotted_name(recv) is None:
            return None
        scope = next((n for n in enclosing(mod, at) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))), mod.tree)
        head = recv
        while isinstance(head, ast.Attribute):
            head = head.value
        if isinstance(head, ast.Name) and self._bound_more_than_once(scope, head.id):
            return None
        loads = self._loads(scope).get(ast.dump(recv), ())
        return next((attr for attr in loads if attr not in self.may_have), None)

    def _bound_more_than_once(self, scope: ast.AST, name: str) -> bool:
        key = (id(scope), name)
        if key not in self._bound:
            self._bound[key] = _bindings(scope, name) > 1
        return self._bound[key]

    def _loads(self, scope: ast.AST) -> dict[str, list[str]]:
        """Receiver (dumped) -> attribute names read on it, over one scope: built once per scope."""
        key = id(scope)
        if key not in self._scope_loads:
            out: dict[str, list[str]] = {}
            for node in walk(scope):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and not node.attr.startswith("__"):
                    if dotted_name(node.value) is not None:
                        out.setdefault(ast.dump(node.value), []).append(node.attr)
            self._scope_loads[key] = out
        return self._scope_loads[key]

    @property
    def may_have(self) -> set[str]:
        """Every attribute an instance of the target may carry (its whole known hierarchy)."""
        if self._may_have is None:
            names: set[str] = set()
            classes = [self.rel.target] + [self.index.resolve_class(q) for q in self.rel.ancestors]
            classes += self.index.subclasses_deep(self.rel.target)
            for c in classes:
                if c is not None:
                    names |= set(c.members) | set(c.declared_only)
            self._may_have = names
        return self._may_have

    def _isinstance_guard(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> list[str] | None:
        key = ast.dump(recv)
        child = at
        for anc in enclosing(mod, at):
            tests = []
            if isinstance(anc, ast.If) and child in anc.body:
                tests.append(anc.test)
            elif isinstance(anc, ast.BoolOp) and isinstance(anc.op, ast.And):
                idx = next((i for i, v in enumerate(anc.values) if v is child), None)
                if idx is not None:
                    tests.extend(anc.values[:idx])
            elif isinstance(anc, ast.IfExp) and child is anc.body:
                tests.append(anc.test)
            for t in tests:
                found = _isinstance_types(mod, t, key)
                if found is not None:
                    return found
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                break
            child = anc
        return None

    def _name_types(self, mod: ModuleInfo, name: str, fn, depth: int = 0) -> list[str] | None:
        scope = fn if fn is not None else mod.tree
        out: list[str] = []
        found = False
        if fn is not None:
            for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
                if a.arg == name:
                    found = True
                    t = self.annotation_types(mod, a.annotation)
                    if t is None or self.rel.combine(t) == MAYBE:
                        flowed = self._param_flow(mod, fn, name, depth)
                        t = flowed if flowed is not None else t
                    if t is None:
                        return None
                    out += t
        for node in walk(scope):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                found = True
                t = self.value_types(mod, node.value)
                if t is None:
                    return None
                out += t
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                found = True
                t = self.annotation_types(mod, node.annotation)
                if t is None:
                    return None
                out += t
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) and node.target.id == name:
                found = True
                it = node.iter
                if isinstance(it, ast.Attribute):
                    t = self.attr_types(it.attr, element=True)
                elif isinstance(it, (ast.List, ast.Tuple)):
                    t = self.value_types(mod, it, element=True)
                else:
                    t = None
                if t is None:
                    return None
                out += t
            elif isinstance(node, (ast.withitem,)) and isinstance(node.optional_vars, ast.Name) and node.optional_vars.id == name:
                return None
            elif isinstance(node, ast.NamedExpr) and node.target.id == name:
                return None
        return out if found else None

    def _own_attr_types(self, mod: ModuleInfo, cls: ClassInfo, attr: str, element: bool) -> list[str] | None:
        """Types of ``self.attr`` from the assignments inside one class."""
        out: list[str] = []
        found = False
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                found = True
                t = self.annotation_types(mod, stmt.annotation, element)
                if t is None:
                    return None
                out += t
        for fn in cls.methods.values():
            sn = first_param(fn)
            for node in walk(fn):
                res = _attr_assignment(node, attr, sn)
                if res is None:
                    continue
                found = True
                t = self._assignment_types(mod, node, res, element, fn)
                if t is None:
                    return None
                out += t
        return out if found else None

    def _assignment_types(self, mod, node, value, element, fn) -> list[str] | None:
        if isinstance(node, ast.AnnAssign):
            t = self.annotation_types(mod, node.annotation, element)
            if t is not None:
                return t
        if isinstance(value, ast.Name) and fn is not None:
            if element:
                return None
            return self._name_types(mod, value.id, fn)
        if isinstance(node, ast.Call):  # self.attr.append(value)
            return self.value_types(mod, value) if element else []
        return self.value_types(mod, value, element)

    def attr_types(self, attr: str, element: bool = False) -> list[str] | None:
        """Types of ``<anything>.attr`` across the whole tree (every assignment of that name)."""
        key = f"{attr}[]" if element else attr
        if key in self._attr_types:
            return self._attr_types[key]
        self._attr_types[key] = None  # a cycle (a.x = b.y; b.y = a.x) resolves to "unknown"
        a = re.escape(attr)
        # Three patterns rather than one alternation: each starts with a literal, which the
        # regex engine scans for at C speed; the line-start form runs only after a cheap hit.
        assigned = re.compile(rf"\.{a}(?:\s*(?::[^=\n]*)?=[^=]|\.(?:append|extend|insert)\()")
        declared, declared_here = re.compile(rf"{a}[ \t]*:"), re.compile(rf"^[ \t]*{a}[ \t]*:", re.M)

        def rx(text: str) -> bool:
            return bool(assigned.search(text) or declared.search(text) and declared_here.search(text))

        out: list[str] | None = []
        found = False
        for rel in self.index.tree.grep(rx, words=(attr,)):
            mod = self.index.module(rel)
            if mod is None:
                out = None
                break
            for node in mod.nodes:
                if isinstance(node, ast.ClassDef):
                    for stmt in node.body:
                        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                            found = True
                            t = self.annotation_types(mod, stmt.annotation, element)
                            if t is None:
                                out = None
                                break
                            out += t
                    if out is None:
                        break
                    continue
                value = _attr_assignment(node, attr, None)
                if value is None:
                    continue
                found = True
                fn, _ = _enclosing_def(mod, node)
                t = self._assignment_types(mod, node, value, element, fn)
                if t is None:
                    out = None
                    break
                out += t
            if out is None:
                break
        result = out if (out is None or found) else None
        self._attr_types[key] = result
        return result


def _bindings(scope: ast.AST, name: str) -> int:
    n = 0
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        n += sum(1 for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg == name)
    for node in walk(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            n += 1
    return n


def _attr_assignment(node: ast.AST, attr: str, selfname: str | None):
    """The value assigned to ``X.attr`` by this node (X = selfname when given), else None."""

    def match(t):
        return isinstance(t, ast.Attribute) and t.attr == attr and (
            selfname is None or (isinstance(t.value, ast.Name) and t.value.id == selfname)
        )

    if isinstance(node, ast.Assign) and any(match(t) for t in node.targets):
        return node.value
    if isinstance(node, ast.AnnAssign) and match(node.target):
        return node.value if node.value is not None else node.annotation
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "insert")
        and match(node.func.value) and node.args
    ):
        return node.args[-1]
    return None


def _enclosing_def(mod: ModuleInfo, node: ast.AST):
    """(method, class) around a node: the function directly in a class body, and that class.

    A nested function or lambda inside a method still sees the method's ``self``.
    Outside any class, returns (innermost function or None, None).
    """
    inner = None
    prev = node
    for anc in enclosing(mod, node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner is None:
            inner = anc
        if isinstance(anc, ast.ClassDef):
            if isinstance(prev, (ast.FunctionDef, ast.AsyncFunctionDef)) and prev in anc.body:
                cls = mod.classes.get(anc.name)
                return prev, (cls if cls is not None and cls.node is anc else None)
            return inner, None
        prev = anc
    return inner, None


def enclosing_class(mod: ModuleInfo, node: ast.AST) -> tuple[ast.AST | None, ClassInfo | None]:
    return _enclosing_def(mod, node)


def _isinstance_types(mod: ModuleInfo, test: ast.AST, key: str) -> list[str] | None:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for v in test.values:
            r = _isinstance_types(mod, v, key)
            if r is not None:
                return r
        return None
    if (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
        and len(test.args) == 2 and ast.dump(test.args[0]) == key
    ):
        spec = test.args[1]
        elts = spec.elts if isinstance(spec, ast.Tuple) else [spec]
        out = []
        for e in elts:
            if dotted_name(e) is None:
                return None
            out.append(mod.qualify(e))
        return out
    return None
