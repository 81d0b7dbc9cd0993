"""What a call returns: the functions and methods it can run, and what they return.

A mixin of ``type_exprs.Types`` (it calls ``expr_types``, ``_holders``, ``_subs``, ``ancestor_classes``
and ``_memo`` there); that module's docstring says what an answer proves.

``self`` in a method is an instance of its class or a subclass (unknown when the method binds
it again). A method called unbound on another object (``K.m(obj)``, ``type(x).m(obj)``,
``types.MethodType(K.m, obj)``) is not seen: finding those sites cost 1.2x to 6x cold on
SGLang, since every method typed needs its own search. A call runs: a function of the tree, named directly or through an import; for ``owner.m(...)``,
the first ``m`` along the ancestors of each class ``owner`` may be, and every override of it in
their subclasses (only the first for a class called by name: ``Cls.m(...)``), unless a store
can put something else in ``.m`` on such an instance (``self.m = ...``, ``Cls.m = ...``, a
store elsewhere: ``type_attrs``), which makes it unknown; for ``cls(...)``
in a classmethod (``cls`` bound nowhere else) and ``type(x)(...)``, the class itself or a
subclass, where none of them defines ``__new__`` or names a metaclass that answers the call;
for ``X.__new__(Y)``, a ``Y`` when the ``__new__`` that runs is ``object``'s. What it returns is its return
annotation when that decides, else the union of its return statements. A decorator that may
change the result (any not in ``_SAME_RETURN``) leaves only the annotation. A generator or a
coroutine is never an instance of the class.
"""

from __future__ import annotations

import ast

from ..ast_util import binding_count, decorator_name, dotted_name, first_param, is_static
from ..index import ClassInfo, ModuleInfo, OverBudget, enclosing_def, scope_of
from ..model import Receiver
from .type_annotations import EXACT, PLAIN_METACLASSES, PROPERTIES, annotation_types, shown_code

# Decorators that leave what the function returns as it is.
_SAME_RETURN = {"staticmethod", "classmethod", "abstractmethod", "abc.abstractmethod", "override",
                "typing.override", "functools.lru_cache", "lru_cache", "functools.cache", "cache",
                "torch.no_grad", "torch.inference_mode", "torch.compiler.disable"}


_COPIES = {"copy.copy", "copy.deepcopy"}


class Calls:
    """What calls return, for ``Types``."""

    def call_types(self, mod: ModuleInfo, call: ast.Call) -> list[str] | None:
        """Types a call returns: from the return annotation or the return statements of every
        function or method it can run; None when that is not clear."""
        before = self.why
        callees = self._callees(mod, call)
        if callees is None:
            if self.why is before:
                self.unknown(f"what {shown_code(call.func)} runs is not known ({mod.rel}:{call.lineno})")
            return None
        if not callees:
            return []
        out: list[str] = []
        for item in callees:
            if isinstance(item, str):
                out.append(item)
                continue
            t = self._returns(*item)
            if t is None:
                return None
            out += t
        return out

    def _callees(self, mod: ModuleInfo, call: ast.Call) -> list | None:
        """What a call can run: (module, function, class or None) items, or a type name where the
        call makes an instance (``cls(...)``, ``type(x)(...)``); None when that is not clear."""
        func = call.func
        fn, cls = enclosing_def(mod, call)
        own = self.own_first_param(mod, call, func.id) if isinstance(func, ast.Name) else None
        if own is not None:  # cls(...): the class or a subclass; self(...) runs __call__
            if not _is_classmethod(own[0]) or not self._plain_new(own[1], subclasses=True):
                return None
            return self._self_types(*own)
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type" and len(func.args) == 1:
            t = self.expr_types(mod, func.args[0], call)
            if t is None:
                return None
            made = [q.lstrip(EXACT) for q in t]  # type(x)(...): the class of x, or a subclass
            for q in made:
                k = self.index.resolve_class(q)
                if k is not None and not self._plain_new(k, subclasses=True):
                    self.unknown(f"{k.name} or a subclass may make something else ({k.file}:{k.line})")
                    return None
            return made
        if isinstance(func, ast.Attribute) and func.attr == "__new__" and call.args:
            return self._newly_made(mod, call, func.value, call.args[0])
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and dotted_name(func.value.func) == "super":
            return self._super_methods(cls, func.attr) if cls is not None else None
        if isinstance(func, ast.Attribute) and mod.qualify(func) not in _COPIES:
            return self._methods(mod, func.value, func.attr, call)
        if isinstance(func, ast.Subscript):
            return self.table_callees(mod, func.value, call)  # table[key](...): type_dispatch
        if dotted_name(func) is None or self._shadowed(mod, func, call):
            return None
        q = mod.qualify(func)
        if q in _COPIES and len(call.args) == 1:
            t = self.expr_types(mod, call.args[0], call)  # a copy is of the same class
            return None if t is None else t
        return self._named_function(mod, q)

    def _named_function(self, mod: ModuleInfo, q: str) -> list | None:
        """The function of the tree that the qualified name ``q`` (as ``mod`` spells it) names."""
        modname, _, fname = q.rpartition(".")
        target = self.index.module_by_name(modname) if modname else mod
        if target is None:
            return None
        found = target.functions.get(fname)
        return [(target, found, None)] if found is not None else None

    def _named_callees(self, mod: ModuleInfo, func: ast.AST, at: ast.AST) -> list | None:
        """What calling the name ``func`` runs: a function of the tree, or a class of the tree
        whose construction makes exactly an instance of it (as a type name)."""
        if dotted_name(func) is None or self._shadowed(mod, func, at):
            return None
        q = mod.qualify(func)
        k = self.index.resolve_class(q) if "." in q else None
        if k is not None:
            why = self._new_answered(k)
            if why is not None:
                self.unknown(why)
                return None
            return [EXACT + k.qualname]
        return self._named_function(mod, q)

    def _methods(self, mod: ModuleInfo, owner: ast.AST, name: str, at: ast.AST) -> list | None:
        """The methods ``owner.name(...)`` can run: the first definition along each possible
        class's ancestors, and every override in its subclasses (unless the class is exact)."""
        q = mod.qualify(owner) if dotted_name(owner) and not self._shadowed(mod, owner, at) else None
        as_class = self.index.resolve_class(q) if q and "." in q else None
        if as_class is not None:
            holders = [(as_class, True)]  # Cls.method(...): Cls's own lookup
        else:
            holders = self._holders(mod, owner, at)
            if holders is None:
                return None
        out = []
        for k, exact in holders:
            first = self._lookup(k, name)
            if first is None or _is_property(first[1]):
                return None  # calling what a property gives is not followed
            out.append(first)
            if not exact:
                for sub in self._subs(k):
                    if name in sub.methods:
                        out.append((sub.module, sub.methods[name], sub))
        # What the instance answers for .name: the methods, unless a store puts something else
        # there (self.name = ..., Cls.name = ..., x.name = ... elsewhere).
        placed = self._held_types(holders, name, False)
        if placed is None or any(q != "builtins.function" for q in placed):
            if placed is not None:
                self.unknown(f".{name} may be replaced by what a store puts there")
            return None
        return out

    def own_first_param(self, mod: ModuleInfo, at: ast.AST, name: str) -> tuple[ast.FunctionDef, ClassInfo] | None:
        """(method, class) when the name ``name`` at ``at`` is the first parameter of the method
        around it, its ``self`` or ``cls``: not a static method's, nor bound by a function
        nested in the method (``def helper(self)``: there it is that function's own). Whether
        the method binds it again is for ``_self_types`` to say."""
        fn, cls = enclosing_def(mod, at)
        if fn is None or cls is None or is_static(fn) or name != first_param(fn):
            return None
        scope = scope_of(mod, at)
        while scope is not fn and not isinstance(scope, ast.Module):
            if binding_count(scope, name) > 0:
                return None
            scope = scope_of(mod, scope)
        return fn, cls

    def _newly_made(self, mod: ModuleInfo, call: ast.Call, owner: ast.AST, made: ast.AST) -> list[str] | None:
        """What ``owner.__new__(made)`` makes: a ``made`` whose ``__init__`` has not run, when the
        ``__new__`` that runs is ``object``'s (``owner`` is ``object``, ``super()`` or a class
        whose ancestors in the tree define none); else None, since one of the tree's may
        return anything."""
        _, cls = enclosing_def(mod, call)
        if isinstance(owner, ast.Call) and dotted_name(owner.func) == "super":
            plain = cls is not None and self._plain_new(cls, subclasses=True, itself=False)
        elif isinstance(owner, ast.Name) and (own := self.own_first_param(mod, call, owner.id)) is not None:
            plain = self._plain_new(own[1], subclasses=True)
        elif dotted_name(owner) is None or self._shadowed(mod, owner, call):
            plain = False
        elif mod.qualify(owner) in ("object", "builtins.object"):
            plain = True
        else:
            k = self.index.resolve_class(mod.qualify(owner))
            plain = k is not None and self._plain_new(k)
        if not plain:
            self.unknown(f"what {shown_code(call)} makes is not known (line {call.lineno} of {mod.rel})")
            return None
        if isinstance(made, ast.Name) and (own := self.own_first_param(mod, call, made.id)) is not None:
            return self._self_types(*own)
        if dotted_name(made) is None or self._shadowed(mod, made, call):
            return None
        k = self.index.resolve_class(mod.qualify(made))
        return [EXACT + k.qualname] if k is not None else None

    def _plain_new(self, cls: ClassInfo, subclasses: bool = False, itself: bool = True) -> bool:
        """Whether no class of the tree that making an instance may go through defines
        ``__new__`` or names a metaclass that may answer the call: ``cls`` (unless not
        ``itself``), its ancestors, and with ``subclasses`` its subclasses."""
        return self._new_answered(cls, subclasses, itself) is None

    def _new_answered(self, cls: ClassInfo, subclasses: bool = False, itself: bool = True) -> str | None:
        """Why making an instance of ``cls`` may give something else (see ``_plain_new``), if
        it may."""
        family = ([cls] if itself else []) + self.ancestor_classes(cls) + (self._subs(cls) if subclasses else [])
        for c in family:
            if c is None:
                continue
            if "__new__" in c.methods:
                return f"{c.name} defines __new__, which may make something else ({c.file}:{c.line})"
            meta = next((kw.value for kw in c.node.keywords if kw.arg == "metaclass"), None)
            if meta is not None and c.module.qualify(meta) not in PLAIN_METACLASSES:
                return f"{c.name}'s metaclass may answer the call ({c.file}:{c.line})"
        return None

    def _self_types(self, fn: ast.FunctionDef, cls: ClassInfo) -> list[str] | None:
        """What ``self`` of method ``fn`` of ``cls`` may be: an instance of ``cls`` or a
        subclass (for ``cls`` of a classmethod, the class or a subclass); unknown where the
        method binds the name again. A method called unbound on another object (``K.m(obj)``)
        is not seen: the module docstring says why."""
        name = first_param(fn)
        if self.bound_more_than_once(fn, name):
            self.unknown(f"{name} is bound again in {cls.name}.{fn.name} ({cls.file}:{fn.lineno})")
            return None
        leaving = self.gone.get(id(fn))
        if leaving:  # another class decoupled in this run leaves the method: it and its subclasses are not self
            return [EXACT + c.qualname for c in [cls] + self._subs(cls) if c.qualname not in leaving]
        return [cls.qualname]

    def _shadowed(self, mod: ModuleInfo, expr: ast.AST, at: ast.AST) -> bool:
        return shadowed(mod, expr, at)

    def _super_methods(self, cls: ClassInfo, name: str) -> list | None:
        """What ``super().name(...)`` in a method of ``cls`` can run: every definition after
        ``cls`` in the ancestors of ``cls`` or of a subclass (whose MRO may put a sibling next)."""
        below = {id(cls)} | {id(s) for s in self._subs(cls)}
        out, seen = [], set()
        for owner in [cls] + self._subs(cls):
            ancestors = self.ancestor_classes(owner)
            if None in ancestors:
                return None
            for c in ancestors:
                if id(c) not in below and id(c) not in seen and name in c.methods:
                    out.append((c.module, c.methods[name], c))
                seen.add(id(c))
        return out or None

    def _lookup(self, cls: ClassInfo, name: str):
        """(module, method, class) where ``name`` is first defined on ``cls`` or its ancestors
        (in the order ``ancestors`` gives); None when not found, when a class attribute of that
        name comes first, or when a base outside the tree may define it."""
        if name in cls.methods:
            return cls.module, cls.methods[name], cls
        for c in self.ancestor_classes(cls):
            if c is None:
                return None
            if name in c.methods:
                return c.module, c.methods[name], c
            if name in c.members:
                return None  # a class attribute holding a callable
        return None

    def _returns(self, mod: ModuleInfo, fn: ast.FunctionDef, cls: ClassInfo | None) -> list[str] | None:
        """What calling ``fn`` gives: its return annotation when that decides, else its return
        statements (a generator, a coroutine: neither is an instance); the annotation again
        where typing those would parse more modules than the receiver may."""

        def compute():
            ann = annotation_types(mod, fn.returns) if fn.returns is not None else None
            if ann is not None and self.rel.combine(ann) != Receiver.MAYBE:
                return ann
            if isinstance(fn, ast.AsyncFunctionDef):
                return ["builtins.coroutine"]
            if any(decorator_name(d) not in _SAME_RETURN and decorator_name(d) not in PROPERTIES for d in fn.decorator_list):
                if ann is None:
                    self.unknown(f"{fn.name}() has a decorator that may change what it returns ({mod.rel}:{fn.lineno})")
                return ann
            try:
                return self._returned(mod, fn, ann)
            except OverBudget:
                if ann is None:
                    raise
                self.cut_here()
                return ann  # the annotation still holds, as far as it goes

        return self._memo(("returns", mod.rel, fn.lineno, fn.col_offset), compute)

    def _returned(self, mod: ModuleInfo, fn: ast.FunctionDef, ann: list[str] | None) -> list[str] | None:
        """The union of what ``fn``'s return statements give (``ann`` where one cannot be told)."""
        out: list[str] = []
        for node in _own_nodes(fn):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return ["builtins.generator"]
            if isinstance(node, ast.Return) and node.value is not None:
                t = self.expr_types(mod, node.value, node)
                if t is None:
                    return ann
                out += t
        return out


def _is_property(fn: ast.FunctionDef) -> bool:
    return any(decorator_name(d) in PROPERTIES for d in fn.decorator_list)


def shadowed(mod: ModuleInfo, expr: ast.AST, at: ast.AST) -> bool:
    """Whether the name ``expr`` starts with is bound in the function around ``at`` (a
    parameter or a local, not an import), so that it need not be the module's function or
    class."""
    head = expr.value if isinstance(expr, ast.Subscript) else expr
    while isinstance(head, ast.Attribute):
        head = head.value
    scope = scope_of(mod, at)
    return isinstance(head, ast.Name) and not isinstance(scope, ast.Module) and binding_count(scope, head.id, imports=False) > 0


def _is_classmethod(fn: ast.FunctionDef) -> bool:
    return any(decorator_name(d) == "classmethod" for d in fn.decorator_list)


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, less those of the functions, lambdas and classes in it."""
    out, todo = [], list(fn.body)
    while todo:
        n = todo.pop()
        out.append(n)
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.append(c)
    return out
