"""What an expression of the tree may evaluate to: the classes an annotation, an assignment, a
call site or a return annotation allows.

``typing_flow`` asks this for the receivers of attribute reads; every answer is a list of
qualified class names, or None when it is not clear (which counts as "may be anything").
"""

from __future__ import annotations

import ast
import re

from .ast_util import dotted_name, first_param, is_static, walk
from .index import ClassInfo, Index, ModuleInfo, enclosing_def
from .model import Receiver

UNREACHED = "<unreached>"  # the value comes only from code that no longer runs
EXACT = "="  # prefix of a type known exactly (a constructor call), not "this class or a subclass"

_CONTAINERS = {"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Set", "set", "FrozenSet", "Deque", "deque", "Iterator", "MutableSequence"}
_WRAPPERS = {"Optional", "Final", "ClassVar", "Annotated"}

def annotation_types(mod: ModuleInfo, ann: ast.AST | None, element: bool = False) -> list[str] | None:
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
        a = annotation_types(mod, ann.left, element)
        b = annotation_types(mod, ann.right, element)
        return None if a is None or b is None else a + b
    if isinstance(ann, ast.Subscript):
        head = (dotted_name(ann.value) or "").rsplit(".", 1)[-1]
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head in _WRAPPERS:
            return annotation_types(mod, args[0], element)
        if head == "Union":
            out = []
            for a in args:
                t = annotation_types(mod, a, element)
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
                t = annotation_types(mod, a, False)
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


class Types:
    """What an expression of the tree may evaluate to, for one target class (whose relation to
    each type decides when a parameter's annotation is enough, and when its call sites are needed)."""

    def __init__(self, index: Index, rel, site_filter=None):
        self.index = index
        self.rel = rel
        self.site_filter = site_filter  # (module, call) -> True to ignore a call site (code the rewrite drops)
        self._attr_types: dict[str, list[str] | None] = {}
        self._params: dict = {}

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
                return annotation_types(target, stmt.returns)
        return None

    # ---- receivers ------------------------------------------------------------
    def expr_types(self, mod: ModuleInfo, expr: ast.AST, at: ast.AST, depth: int = 0) -> list[str] | None:
        """The classes an expression may evaluate to, or None when that is not clear."""
        if depth > 4:
            return None
        fn, cls = enclosing_def(mod, at)
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
        _, cls = enclosing_def(mod, fn.body[0]) if fn.body else (None, None)
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

    def _name_types(self, mod: ModuleInfo, name: str, fn, depth: int = 0) -> list[str] | None:
        scope = fn if fn is not None else mod.tree
        out: list[str] = []
        found = False
        if fn is not None:
            for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
                if a.arg == name:
                    found = True
                    t = annotation_types(mod, a.annotation)
                    if t is None or self.rel.combine(t) == Receiver.MAYBE:
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
                t = annotation_types(mod, node.annotation)
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
                t = annotation_types(mod, stmt.annotation, element)
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
            t = annotation_types(mod, node.annotation, element)
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
                            t = annotation_types(mod, stmt.annotation, element)
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
                fn, _ = enclosing_def(mod, node)
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

