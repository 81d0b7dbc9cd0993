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

## Known limits
Names are matched by spelling within their scope, nested functions included: a nested
function's own variable of the same name can only make the answer unknown. Elements are
followed one level deep.
"""

from __future__ import annotations

import ast

from ..index import ModuleInfo, scope_of
from .type_annotations import shown_code
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


def _walk_scope(scope: ast.AST):
    """The nodes of a function's body (its parameters' defaults and annotations are outside)."""
    from ..ast_util import walk

    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for stmt in scope.body:
            yield from walk(stmt)
    else:
        yield from walk(scope)
