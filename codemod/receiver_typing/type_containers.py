"""What a container held in a name can hold: a list built in one scope and handed to a function.

A mixin of ``type_exprs.Types`` (it calls ``expr_types``, ``value_types``, ``attr_types``,
``_param_flow``, ``unknown`` and ``_memo`` there); that module's docstring says what an answer
proves.

``for backend in backends`` types ``backend`` by the elements of ``backends``. A literal's are
its items, an attribute's are those of the values stored into it and added to it
(``type_elements``), and a name's are what its scope puts in it: the elements of every value
bound to it (``xs = [a, b]``, ``xs += other``), what is added to it in place (``xs.append(v)``,
``xs.extend(other)``, ``xs[k] = v``), and, for a parameter, the elements of the argument at
every call site of its function (a method's too: the binder that walks a list of backends). At
a call site the list may be handed to that very call; any other way the name leaves its scope
(an argument of another call, a return, an alias, a store elsewhere) lets code add anything, and
the answer is unknown, as is every binding not listed here.

``table[key]``, with a key not known, takes every value the table may hold, where the table is
a ``**kwargs`` parameter (every keyword a call site passes beyond the named parameters) or a
parameter handed a dict literal (or a list or tuple) at every call site; the function may only
read it (index it, ``.get``, ``.values()``, ``.items()``, ``.keys()``, iterate it, ``in``), for
code that stores into it or hands it on could put anything there (``render(tpl,
backend=EagerBackend())``, then ``reduce(getattr, path, objects[root])``).

## Known limits
Names are matched by spelling within their scope, nested functions included: a nested
function's own variable of the same name can only make the answer unknown. Elements are
followed one level deep.
"""

from __future__ import annotations

import ast

from ..index import ModuleInfo, scope_of
from .type_annotations import UNREACHED, shown_code
from .type_elements import _ADD, _EXTEND, _OUT, _READ, _element_use


class Containers:
    """The elements of containers held in names and parameters, for ``Types``."""

    def element_types(self, mod: ModuleInfo, expr: ast.AST, at: ast.AST, via: ast.Call | None = None) -> list[str] | None:
        """Types the elements of ``expr`` may have. ``via``: the call ``expr`` is an argument of,
        when that call is the route being followed (handing the list to it is no escape)."""
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            out: list[str] = []
            for e in expr.elts:
                t = self.element_types(mod, e.value, at, via) if isinstance(e, ast.Starred) else self.expr_types(mod, e, at)
                if t is None:
                    return None
                out += t
            return out
        if isinstance(expr, ast.ListComp):
            return self.value_types(mod, expr, element=True)
        if isinstance(expr, ast.Attribute):
            return self.attr_types(expr.attr, element=True)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self.element_types(mod, expr.left, at, via)
            right = None if left is None else self.element_types(mod, expr.right, at, via)
            return None if right is None else left + right
        if isinstance(expr, ast.Name):
            scope = scope_of(mod, at)
            return self._memo(("name elements", mod.rel, id(scope), expr.id, id(via)),
                              lambda: self._name_elements(mod, expr.id, scope, via))
        self.unknown(f"the elements of {shown_code(expr)} are not followed ({mod.rel}:{getattr(expr, 'lineno', '?')})")
        return None

    def item_types(self, mod: ModuleInfo, table: ast.Name, at: ast.AST):
        """Types of ``table[key]`` for a parameter ``table`` of the function around ``at``, or
        ``NOT_A_TABLE`` when ``table`` is no parameter (the caller's other routes then answer)."""
        fn = scope_of(mod, at)
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return NOT_A_TABLE
        a = fn.args
        kwargs = a.kwarg is not None and a.kwarg.arg == table.id
        if not kwargs and not any(p.arg == table.id for p in a.posonlyargs + a.args + a.kwonlyargs):
            return NOT_A_TABLE
        return self._memo(("items", mod.rel, fn.lineno, table.id), lambda: self._items(mod, fn, table.id, kwargs))

    def _items(self, mod: ModuleInfo, fn: ast.FunctionDef, name: str, kwargs: bool) -> list[str] | None:
        from .type_names import _default

        written = next((n for n in _walk_scope(fn) if isinstance(n, ast.Name) and n.id == name and not _table_read(mod, n)), None)
        if written is not None:
            self.unknown(f"{name} is changed or handed on where what it holds is not followed ({mod.rel}:{written.lineno})")
            return None
        out: list[str] = []
        if not kwargs:
            found = self._site_args(mod, fn, name, containers=True)
            if found is None:
                return None
            args, defaulted, sites, filtered = found
            default = _default(fn, name) if defaulted else None
            for site_mod, value, call in args + ([(mod, default, fn)] if default is not None else []):
                t = self._literal_items(site_mod, value, call)
                if t is None:
                    return None
                out += t
            return out if sites else ([UNREACHED] if filtered else None)
        called = self._call_sites(mod, fn, containers=True)
        if called is None:
            return None
        named = {p.arg for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        sites = filtered = 0
        for site_mod, call, _ in called[2].sites:
            if self.site_filter is not None and self.site_filter(site_mod, call):
                filtered += 1
                continue
            sites += 1
            for k in call.keywords:
                if k.arg is None:
                    self.unknown(f"a call of {called[0]}() passes ** arguments ({site_mod.rel}:{call.lineno})")
                    return None
                if k.arg not in named:
                    t = self.expr_types(site_mod, k.value, call)
                    if t is None:
                        return None
                    out += t
        if not sites and not filtered:
            self.unknown(f"{called[0]}() has no call site in the tree ({mod.rel}:{fn.lineno})")
        return out if sites else ([UNREACHED] if filtered else None)

    def _literal_items(self, mod: ModuleInfo, value: ast.AST, at: ast.AST) -> list[str] | None:
        """What ``value[key]`` may be, for a table written out where it is handed over."""
        if isinstance(value, ast.Dict):
            if any(k is None for k in value.keys):
                self.unknown(f"a ** entry of the dict at {mod.rel}:{value.lineno} is not followed")
                return None
            out: list[str] = []
            for v in value.values:
                t = self.expr_types(mod, v, at)
                if t is None:
                    return None
                out += t
            return out
        if isinstance(value, (ast.List, ast.Tuple)):
            return self.element_types(mod, value, at)
        if isinstance(value, ast.Name):
            t = self.item_types(mod, value, at)
            if t is not NOT_A_TABLE:
                return t
        self.unknown(f"what {shown_code(value)} holds is not followed ({mod.rel}:{getattr(value, 'lineno', '?')})")
        return None

    def _name_elements(self, mod: ModuleInfo, name: str, scope: ast.AST, via: ast.Call | None) -> list[str] | None:
        from .type_names import _opaque_binding

        fn = scope if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if isinstance(scope, ast.Lambda):
            self.unknown(f"{name} is a lambda's parameter or local ({mod.rel}:{scope.lineno})")
            return None
        out: list[str] = []
        found = False
        if fn is not None:
            a = fn.args
            if any(x is not None and x.arg == name for x in (a.vararg, a.kwarg)):
                self.unknown(f"{name} collects the arguments of {fn.name}() ({mod.rel}:{fn.lineno})")
                return None
            if any(p.arg == name for p in a.posonlyargs + a.args + a.kwonlyargs):
                found = True
                t = self._param_flow(mod, fn, name, element=True)
                if t is None:
                    return None
                out += t
        handed = {id(arg) for arg in ((via.args + [k.value for k in via.keywords]) if via is not None else [])}
        for node in _walk_scope(scope):
            if isinstance(node, ast.Name) and node.id == name:
                found = True
                t = self._name_use(mod, node, handed)
                if t is None:
                    return None
                out += t
            elif not isinstance(node, ast.Name) and _opaque_binding(node, name) is not None and not isinstance(node, ast.AugAssign):
                self.unknown(f"{name} is bound by {_opaque_binding(node, name)} ({mod.rel}:{getattr(node, 'lineno', '?')})")
                return None
        if not found and fn is not None:
            return self._name_elements(mod, name, scope_of(mod, fn), via)  # a free name: the enclosing scope's
        if not found:
            self.unknown(f"{name} is not bound in {mod.rel}")
            return None
        return out

    def _name_use(self, mod: ModuleInfo, node: ast.Name, handed: set[int]) -> list[str] | None:
        """What one mention of the name adds to the container's elements ([] for a read)."""
        parent = mod.parents.get(id(node))
        if isinstance(node.ctx, ast.Store):
            if isinstance(parent, ast.Assign) and parent.targets == [node]:
                return self.element_types(mod, parent.value, parent)
            if isinstance(parent, ast.AugAssign) and isinstance(parent.op, ast.Add):
                return self.element_types(mod, parent.value, parent)
            self.unknown(f"{node.id} is bound where its elements are not followed ({mod.rel}:{node.lineno})")
            return None
        if id(node) in handed:
            return []  # handed to the call being followed
        if isinstance(node.ctx, ast.Del):
            self.unknown(f"{node.id} is deleted, and may be bound again ({mod.rel}:{node.lineno})")
            return None
        kind, value = _element_use(mod, node)
        if kind == _READ:
            return []
        if kind == _OUT:
            self.unknown(f"{node.id} is passed on where what is added to it is not followed ({mod.rel}:{node.lineno})")
            return None
        return self.expr_types(mod, value, node) if kind == _ADD else self.element_types(mod, value, node)


NOT_A_TABLE = object()  # ``item_types``: the name is not a parameter; other routes answer
_TABLE_READS = frozenset({"get", "values", "items", "keys"})


def _table_read(mod: ModuleInfo, node: ast.Name) -> bool:
    """Whether a mention of the table only reads what it holds."""
    if not isinstance(node.ctx, ast.Load):
        return False
    parent = mod.parents.get(id(node))
    if isinstance(parent, ast.Subscript):
        return parent.value is node and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Attribute):
        call = mod.parents.get(id(parent))
        return parent.attr in _TABLE_READS and isinstance(call, ast.Call) and call.func is parent
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is node
    return isinstance(parent, ast.Compare) and parent.left is not node


def _walk_scope(scope: ast.AST):
    """The nodes of a function's body (its parameters' defaults and annotations are outside)."""
    from ..ast_util import walk

    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for stmt in scope.body:
            yield from walk(stmt)
    else:
        yield from walk(scope)
