"""What a name or a parameter holds: its bindings in its scope, and the arguments at every call
site of its function.

A mixin of ``type_exprs.Types`` (it calls ``expr_types``, ``value_types``, ``attr_types``,
``unknown``, ``cut_here`` and ``_memo`` there); that module's docstring says what an answer proves.

A name takes every binding in its scope (an assignment, an annotation, a ``for`` target over an
attribute or a literal, a plain ``def``, ``*args`` and ``**kwargs``); a free name, the enclosing
scope's. A module's global also takes the stores into it as an attribute of the module from
other modules (``user.c = v``, where ``user`` names that module). A parameter whose annotation does
not decide takes the arguments at every call site of its function (``call_sites``: for a
module-level function or an ``__init__``, unknown when a mention of the name may hand it to
other code; for a method, only where the elements of a container it is handed are asked for,
``type_containers``), and its default where a call leaves it out; a call site in code the rewrite drops
does not count.
Every other way of binding the name makes it unknown, so that none passes for no binding at
all: unpacking (except a literal of the same shape, taken position by position), an augmented
assignment, a ``with`` or ``except`` target, ``:=``, an import, a match capture, a decorated
``def``, a class statement, a ``global`` or ``nonlocal`` declaration, a lambda's parameter.
"""

from __future__ import annotations

import ast

from ..ast_util import decorator_name, dotted_name, names_bound, walk
from .call_sites import function_sites, init_sites, method_sites
from ..index import ModuleInfo, OverBudget, enclosing_def, scope_of
from ..model import Receiver
from .type_annotations import UNREACHED, annotation_types, shown_code


class Names:
    """What names and parameters hold, for ``Types``."""

    def _param_flow(self, mod: ModuleInfo, fn: ast.FunctionDef, pname: str, element: bool = False) -> list[str] | None:
        """Types of a parameter (of its elements, with ``element``) from the arguments at every
        call site in the tree."""
        return self._memo(("param", mod.rel, fn.lineno, pname, element), lambda: self._param_sites(mod, fn, pname, element))

    def _param_sites(self, mod: ModuleInfo, fn: ast.FunctionDef, pname: str, element: bool = False) -> list[str] | None:
        found = self._site_args(mod, fn, pname, containers=element)
        if found is None:
            return None
        args, defaulted, sites, filtered = found
        out: list[str] = []
        for site_mod, arg, call in args:
            t = self.element_types(site_mod, arg, call, via=call) if element else self.expr_types(site_mod, arg, call)
            if t is None:
                return None
            out += t
        if defaulted:
            default = _default(fn, pname)
            t = [] if default is None else (self.element_types(mod, default, fn) if element else self.expr_types(mod, default, fn))
            if t is None:
                return None
            out += t
        return out if sites else ([UNREACHED] if filtered else None)

    def _site_args(self, mod: ModuleInfo, fn: ast.FunctionDef, pname: str, containers: bool = False):
        """(the argument given for ``pname`` at each call site of ``fn``, as (module, expression,
        call); whether a site leaves it to its default; how many sites count; how many sit in
        code the rewrite drops), or None when the sites cannot be told. A method's sites are
        looked for only with ``containers``: where what is asked for is what a container handed
        to it holds (a binder that walks a list of backends, a table of factories)."""
        called = self._call_sites(mod, fn, containers)
        if called is None:
            return None
        callee, params, found = called
        if pname not in params and pname not in [a.arg for a in fn.args.kwonlyargs]:
            return None
        idx = params.index(pname) if pname in params else None
        args = []
        sites = filtered = 0
        defaulted = False
        for site_mod, call, shift in found.sites:
            if self.site_filter is not None and self.site_filter(site_mod, call):
                filtered += 1
                continue
            sites += 1
            arg = next((k.value for k in call.keywords if k.arg == pname), None)
            if arg is None and idx is not None:
                if any(isinstance(a, ast.Starred) for a in call.args[: idx + shift + 1]) or any(k.arg is None for k in call.keywords):
                    self.unknown(f"a call of {callee}() passes * or ** arguments ({site_mod.rel}:{call.lineno})")
                    return None
                if idx + shift < len(call.args):
                    arg = call.args[idx + shift]
            if arg is None:
                defaulted = True
                continue
            args.append((site_mod, arg, call))
        # Every call site sits in code the rewrite drops: nothing reaches this parameter.
        if not sites and not filtered:
            self.unknown(f"{callee}() has no call site in the tree ({mod.rel}:{fn.lineno})")
        return args, defaulted, sites, filtered

    def _call_sites(self, mod: ModuleInfo, fn: ast.FunctionDef, containers: bool = False):
        """(the name its calls spell, its positional parameters as they see them, its ``Sites``),
        or None when they cannot be told (``_site_args`` says which functions are followed)."""
        _, cls = enclosing_def(mod, fn.body[0]) if fn.body else (None, None)
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if fn.name == "__init__" and cls is not None:
            callee, params = cls.name, params[1:]
            found = self._sites(("init sites", cls.qualname), lambda: init_sites(self.index, cls))
        elif cls is None and fn in mod.tree.body:
            callee = fn.name
            found = self._sites(("function sites", mod.rel, fn.name), lambda: function_sites(self.index, mod, fn))
        elif cls is not None and fn in cls.node.body and containers:
            # The first parameter is the instance unless the method is static.
            static = any(decorator_name(d) == "staticmethod" for d in fn.decorator_list)
            callee, params = fn.name, params if static else params[1:]
            found = self._sites(("method sites", cls.qualname, fn.name), lambda: method_sites(self.index, cls, fn))
        else:
            self.unknown(f"what {fn.name}() is called with is not followed ({mod.rel}:{fn.lineno})")
            return None
        if found.sites is None:
            self.unknown(found.why)
            return None
        return callee, params, found

    def _sites(self, key: tuple, find):
        """``find()``, once per function or class for the whole run of this class."""
        if key not in self._memos:
            self._memos[key] = find()
        return self._memos[key]

    def _name_types(self, mod: ModuleInfo, name: str, scope: ast.AST) -> list[str] | None:
        """Types of a name from its bindings in ``scope`` (a function, a lambda or the module)."""
        return self._memo(("name", mod.rel, id(scope), name), lambda: self._name_sources(mod, name, scope))

    def _name_sources(self, mod: ModuleInfo, name: str, scope: ast.AST) -> list[str] | None:
        fn = None if isinstance(scope, ast.Module) else scope
        if isinstance(fn, ast.Lambda):
            a = fn.args
            if any(p.arg == name for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]):
                self.unknown(f"{name} is a lambda's parameter ({mod.rel}:{fn.lineno})")
                return None
        out: list[str] = []
        found = False
        if fn is not None:
            for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
                if a.arg == name:
                    found = True
                    t = annotation_types(mod, a.annotation)
                    if t is None or self.rel.combine(t) == Receiver.MAYBE:
                        try:
                            flowed = self._param_flow(mod, fn, name)
                        except OverBudget:
                            if t is None:
                                raise
                            flowed = None  # the annotation still holds, as far as it goes
                            self.cut_here()
                        t = flowed if flowed is not None else t
                    if t is None:
                        return None
                    out += t
        if fn is not None and any(x is not None and x.arg == name for x in (fn.args.vararg, fn.args.kwarg)):
            found = True
            out.append("builtins.tuple" if fn.args.vararg is not None and fn.args.vararg.arg == name else "builtins.dict")
        for node in mod.nodes if scope is mod.tree else walk(scope):
            if node.__class__ not in BINDING_NODES:
                continue  # an expression, most of a scope's nodes: binds nothing
            hit, t = self._binding(mod, node, name)
            if not hit:
                continue
            found = True
            if t is None:
                return None
            out += t
        if not found and fn is not None:
            return self._name_types(mod, name, scope_of(mod, fn))  # a free name: the enclosing scope's
        if not found:
            self.unknown(f"{name} is imported or bound where it is not followed ({mod.rel})")
            return None
        if fn is None:
            # A module's global is also an attribute of the module: other modules may store it.
            for store in self._stores(name):
                if store is None:
                    return None
                smod, node, value, recv = store
                if dotted_name(recv) is None or smod.qualify(recv) != mod.name:
                    continue
                t = self._stored_types(smod, node, value, False, scope_of(smod, node))
                if t is None:
                    return None
                out += t
        return out

    def _binding(self, mod: ModuleInfo, node: ast.AST, name: str) -> tuple[bool, list[str] | None]:
        """(whether ``node`` binds ``name``, what it binds it to: None when that is not followed).
        Every way of binding a name is listed, so that none is taken for no binding at all."""
        if isinstance(node, ast.Assign):
            hits = [t for t in node.targets if name in names_bound(t)]
            if not hits:
                return False, None
            if all(isinstance(t, ast.Name) for t in hits):
                return True, self.expr_types(mod, node.value, node)
            parts = [_unpacked(t, node.value, name) for t in hits if not isinstance(t, ast.Name)]
            position = _position(hits, name) if isinstance(node.value, ast.Call) else None
            if position is not None:  # stamp, backend = make(): type_dispatch
                return True, self.unpacked_from_call(mod, node.value, *position)
            if any(p is None for p in parts):
                self.unknown(f"{name} is unpacked from {shown_code(node.value)}, which is not followed ({mod.rel}:{node.lineno})")
                return True, None
            out: list[str] = []
            for part in [node.value for t in hits if isinstance(t, ast.Name)] + [q for p in parts for q in p]:
                t = self.expr_types(mod, part, node)
                if t is None:
                    return True, None
                out += t
            return True, out
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return True, annotation_types(mod, node.annotation)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and name in names_bound(node.target):
            if not isinstance(node.target, ast.Name):
                self.unknown(f"{name} is unpacked from the elements of {shown_code(node.iter)} ({mod.rel}:{node.iter.lineno})")
                return True, None
            it = node.iter
            if isinstance(it, ast.Attribute):
                holders = self._holders(mod, it.value, node)  # for b in self.backends: the holder's stores
                return True, (self._held_types(holders, it.attr, True) if holders is not None else self.attr_types(it.attr, element=True))
            if isinstance(it, (ast.List, ast.Tuple)):
                return True, self.value_types(mod, it, element=True)
            if isinstance(it, ast.Name):
                return True, self.element_types(mod, it, node)
            self.unknown(f"{name} is an element of {shown_code(it)}, which is not followed ({mod.rel}:{it.lineno})")
            return True, None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name and not node.decorator_list:
            return True, ["builtins.function"]
        how = _opaque_binding(node, name)
        if how is None:
            return False, None
        line = getattr(node, "lineno", None) or getattr(mod.parents.get(id(node)), "lineno", "?")
        self.unknown(f"{name} is bound by {how} ({mod.rel}:{line})")
        return True, None


def _default(fn: ast.FunctionDef, pname: str) -> ast.expr | None:
    """The default value of parameter ``pname`` of ``fn``, if it has one."""
    a = fn.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    return next((d for p, d in pairs if p.arg == pname and d is not None), None)


def _position(targets: list[ast.AST], name: str) -> tuple[int, int] | None:
    """(position, size) where the one target unpacks a call's value into names, ``name`` among
    them at that position (``a, name = f()``); None for any other shape."""
    if len(targets) != 1 or not isinstance(targets[0], (ast.Tuple, ast.List)):
        return None
    elts = targets[0].elts
    if not all(isinstance(e, ast.Name) for e in elts) or [e.id for e in elts].count(name) != 1:
        return None
    return [e.id for e in elts].index(name), len(elts)


def _unpacked(target: ast.AST, value: ast.AST, name: str) -> list[ast.AST] | None:
    """The parts of ``value`` that unpacking it into ``target`` binds ``name`` to, position by
    position, when ``value`` is a literal of the same shape; None otherwise."""
    if isinstance(target, ast.Name):
        return [value] if target.id == name else []
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))):
        return None
    if len(target.elts) != len(value.elts) or any(isinstance(e, ast.Starred) for e in target.elts + value.elts):
        return None
    out: list[ast.AST] = []
    for t, v in zip(target.elts, value.elts):
        part = _unpacked(t, v, name) if name in names_bound(t) else []
        if part is None:
            return None
        out += part
    return out


# Every class of node that ``_binding`` and ``_opaque_binding`` answer a binding for: a scope's
# other nodes are not asked (``test_type_names`` reads both functions for the classes they test).
BINDING_NODES = frozenset(getattr(ast, n) for n in (
    "Assign", "AnnAssign", "For", "AsyncFor", "comprehension", "FunctionDef", "AsyncFunctionDef", "AugAssign",
    "withitem", "NamedExpr", "ExceptHandler", "Import", "ImportFrom", "Global", "Nonlocal", "MatchAs", "MatchStar",
    "MatchMapping", "ClassDef") if hasattr(ast, n))


def _opaque_binding(node: ast.AST, name: str) -> str | None:
    """How ``node`` binds ``name`` where the value is not followed, if it does."""
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
        return "an augmented assignment"
    if isinstance(node, ast.withitem) and node.optional_vars is not None and name in names_bound(node.optional_vars):
        return "a with statement"
    if isinstance(node, ast.NamedExpr) and node.target.id == name:
        return ":="
    if isinstance(node, ast.ExceptHandler) and node.name == name:
        return "an except clause"
    if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name).split(".")[0] == name for a in node.names):
        return "an import"
    if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
        return "a global or nonlocal declaration"
    if type(node).__name__ in ("MatchAs", "MatchStar", "MatchMapping") and name in (getattr(node, "name", None), getattr(node, "rest", None)):
        return "a match pattern"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
        return "a decorated def"
    if isinstance(node, ast.ClassDef) and node.name == name:
        return "a class statement (the class object, whose class attributes may be read)"
    return None
