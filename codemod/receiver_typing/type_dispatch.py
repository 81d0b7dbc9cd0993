"""Calls through a table of factories, and names unpacked from what a call returns.

A mixin of ``type_exprs.Types`` (it calls ``expr_types``, ``_methods``, ``_named_callees``,
``_site_args``, ``unknown`` and ``_memo`` there); that module's docstring says what an answer
proves.

A factory is often picked from a table: ``backend_map = {"a": self._make_a, "b": make_b}``,
handed to a helper that runs ``backend_map[kind]()`` and unpacks ``stamp, backend = ...``.
Such a call runs one of the table's values. The values of a table are those of every dict
literal bound to its name in its scope (or, for a parameter, given for it at every call site
of its function, ``_site_args``) and of every ``table[k] = v`` there; each value runs what it
names (a method of what its owner may be, a function or class of the tree). Any other mention
of the name (an alias, an argument of another call, ``table.update(...)``, a return) lets code
put anything in it, and the answer is unknown. A name unpacked from a call
(``stamp, backend = make()``) takes, position by position, the parts of every tuple literal
that what the call runs returns (or that a call it returns gives); a return of anything else
makes it unknown.

## Known limits
Names are matched by spelling within their scope. A table's keys are not looked at: every
value counts, whichever the key. A value that is a lambda, a call or an attribute of something
other than an object whose class is known is unknown. Unpacking is followed one level deep,
without starred targets.
"""

from __future__ import annotations

import ast

from ..ast_util import decorator_name
from ..index import ModuleInfo, scope_of
from .type_annotations import shown_code

# Reads of a table that cannot change what it holds.
_TABLE_READERS = {"get", "keys", "values", "items", "__contains__", "__getitem__", "copy"}


class Dispatch:
    """Calls through tables of factories, and the parts of returned tuples, for ``Types``."""

    def table_callees(self, mod: ModuleInfo, table: ast.AST, at: ast.AST) -> list | None:
        """What ``table[key](...)`` can run: every value of the table, as ``_callees`` items."""
        values = self._table_values(mod, table, at, None)
        if values is None:
            return None
        out: list = []
        for vmod, value in values:
            if isinstance(value, ast.Attribute):
                found = self._methods(vmod, value.value, value.attr, value)
            elif isinstance(value, ast.Name):
                found = self._named_callees(vmod, value, value)
            else:
                self.unknown(f"what {shown_code(value)} runs is not followed ({vmod.rel}:{value.lineno})")
                return None
            if found is None:
                return None
            out += found
        return out

    def _table_values(self, mod: ModuleInfo, table: ast.AST, at: ast.AST, via: ast.Call | None) -> list | None:
        """(module, expression) for every value ``table`` may hold; ``via``: the call it is an
        argument of, when that call is the route being followed."""
        if isinstance(table, ast.Dict):
            if any(k is None for k in table.keys):
                self.unknown(f"a table unpacks another one ({mod.rel}:{table.lineno})")
                return None
            return [(mod, v) for v in table.values]
        if not isinstance(table, ast.Name):
            self.unknown(f"the values of {shown_code(table)} are not followed ({mod.rel}:{getattr(table, 'lineno', '?')})")
            return None
        return self._name_table(mod, table.id, scope_of(mod, at), via)

    def _name_table(self, mod: ModuleInfo, name: str, scope: ast.AST, via: ast.Call | None) -> list | None:
        from .type_containers import _walk_scope
        from .type_names import _opaque_binding

        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.unknown(f"{name} is a module's table, which other modules may change ({mod.rel})")
            return None
        out: list = []
        a = scope.args
        if any(x is not None and x.arg == name for x in (a.vararg, a.kwarg)):
            self.unknown(f"{name} collects the arguments of {scope.name}() ({mod.rel}:{scope.lineno})")
            return None
        if any(p.arg == name for p in a.posonlyargs + a.args + a.kwonlyargs):
            found = self._site_args(mod, scope, name, containers=True)
            if found is None:
                return None
            args, defaulted, sites, _ = found
            if defaulted or not sites:
                self.unknown(f"{scope.name}() is called without {name}, or not at all ({mod.rel}:{scope.lineno})")
                return None
            for site_mod, arg, call in args:
                values = self._table_values(site_mod, arg, call, call)
                if values is None:
                    return None
                out += values
        handed = {id(x) for x in ((via.args + [k.value for k in via.keywords]) if via is not None else [])}
        bound = False
        for node in _walk_scope(scope):
            if isinstance(node, ast.Name) and node.id == name:
                values = self._table_use(mod, node, handed)
                if values is None:
                    return None
                bound = bound or isinstance(node.ctx, ast.Store)
                out += values
            elif not isinstance(node, ast.Name) and _opaque_binding(node, name) is not None:
                self.unknown(f"{name} is bound by {_opaque_binding(node, name)} ({mod.rel}:{getattr(node, 'lineno', '?')})")
                return None
        if not bound and not any(p.arg == name for p in a.posonlyargs + a.args + a.kwonlyargs):
            self.unknown(f"{name} is not bound in {scope.name}() ({mod.rel}:{scope.lineno})")
            return None
        return out

    def _table_use(self, mod: ModuleInfo, node: ast.Name, handed: set[int]) -> list | None:
        """The values one mention of a table's name adds to it ([] for a read)."""
        parent = mod.parents.get(id(node))
        if isinstance(node.ctx, ast.Store):
            if isinstance(parent, ast.Assign) and parent.targets == [node] and isinstance(parent.value, ast.Dict):
                return self._table_values(mod, parent.value, parent, None)
            self.unknown(f"{node.id} is bound to something other than a dict literal ({mod.rel}:{node.lineno})")
            return None
        if id(node) in handed:
            return []
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if isinstance(parent.ctx, ast.Load):
                return []
            store = mod.parents.get(id(parent))
            if isinstance(parent.ctx, ast.Store) and isinstance(store, ast.Assign) and store.targets == [parent]:
                return [(mod, store.value)]
        if isinstance(parent, ast.Compare) and node is not parent.left and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
            return []
        if isinstance(parent, ast.Attribute) and parent.attr in _TABLE_READERS:
            return []
        self.unknown(f"{node.id} is passed on where what is put in it is not followed ({mod.rel}:{node.lineno})")
        return None

    def unpacked_from_call(self, mod: ModuleInfo, call: ast.Call, pos: int, size: int) -> list[str] | None:
        """Types of part ``pos`` of what ``call`` returns, unpacked into ``size`` names."""
        from .type_calls import _SAME_RETURN, _own_nodes

        callees = self._callees(mod, call)
        if callees is None:
            self.unknown(f"what {shown_code(call.func)} runs is not known ({mod.rel}:{call.lineno})")
            return None
        out: list[str] = []
        for item in callees:
            if isinstance(item, str):
                self.unknown(f"an instance of {item} is unpacked ({mod.rel}:{call.lineno})")
                return None
            fmod, fn, _ = item

            def compute(fmod=fmod, fn=fn):
                if isinstance(fn, ast.AsyncFunctionDef) or any(decorator_name(d) not in _SAME_RETURN for d in fn.decorator_list):
                    self.unknown(f"{fn.name}() is decorated or a coroutine ({fmod.rel}:{fn.lineno})")
                    return None
                parts: list[str] = []
                for node in _own_nodes(fn):
                    if isinstance(node, (ast.Yield, ast.YieldFrom)):
                        self.unknown(f"{fn.name}() is a generator ({fmod.rel}:{fn.lineno})")
                        return None
                    if not isinstance(node, ast.Return) or node.value is None:
                        continue  # a bare return gives None, which cannot be unpacked: nothing is bound
                    v = node.value
                    if isinstance(v, ast.Call):  # return make_pair(...): what that returns
                        t = self.unpacked_from_call(fmod, v, pos, size)
                        if t is None:
                            return None
                        parts += t
                        continue
                    if not isinstance(v, ast.Tuple) or len(v.elts) != size or any(isinstance(e, ast.Starred) for e in v.elts):
                        self.unknown(f"{fn.name}() returns {shown_code(v)}, not a tuple of {size} ({fmod.rel}:{node.lineno})")
                        return None
                    t = self.expr_types(fmod, v.elts[pos], node)
                    if t is None:
                        return None
                    parts += t
                return parts

            t = self._memo(("returned part", fmod.rel, fn.lineno, fn.col_offset, pos, size), compute)
            if t is None:
                return None
            out += t
        return out

