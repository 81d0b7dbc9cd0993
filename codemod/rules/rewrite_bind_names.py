"""DC608 name-binding: every free name of the inlined and copied code means what it meant in the parent's module.

## What it does
Lists the free names of the code the rewrite moves into the class's module: the globals the
kept statements of the parent's ``__init__`` read (and the defaults of its parameters that the
inlined code takes, evaluated in the parent's module), and the free names of every copied
method, property and class attribute. Each is bound in the parent's module (an import, a
module-level definition, or a builtin). When the class's module binds the same name to
something else, or only under ``if TYPE_CHECKING:`` (where the parent's module binds it at run
time), or the class's ``__init__`` has a local of that name where the statements are inlined,
the moved code would use the wrong object (or none): the name is then imported under an
alias (``from <where the parent's module gets it> import <name> as <name>_<module>``) and the
moved code is renamed to the alias. A name the class's module does not bind at all is left
to the imports rule (DC607), which imports it from where the parent's module does.
``super(X, obj)`` in moved code names where the lookup starts: X, the parent (the last class
of the chain), becomes the class itself, whose ``super()`` now starts at the new base as the
parent's did. A computed first argument (``type(self)``, ``self.__class__``) or a class inside
a longer chain refuses the rewrite.

## Why
Without it, a patch can compile, pass pyflakes and still call a different function: for
example a module-level ``helper`` or ``logger`` that both modules define.

## Known problems
Names are compared by what they resolve to through the tree's imports and re-exports; two
imports of the same object by unrelated paths outside the tree count as different (and get
an alias, which is safe). A name bound only by a star import in the parent's module is resolved
through the star's module (its ``__all__`` when literal, else its public names) when that
module is in the tree; otherwise the rewrite is refused (DC510). A nested function's parameters count as bound
for the whole method. In what is evaluated where it stands (a parameter's default, a class
attribute's value, a decorator) a lambda's parameters and a comprehension's targets are bound
inside it, as Python scopes them; a walrus inside a comprehension counts as no read.

## Fix safety
Safe: the alias is imported from where the parent's module gets the object, so it is the
same object.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re

import libcst as cst

from ..ast_util import bind_arguments, child_blocks, first_param, pos, snake_case, walk
from ..errors import UnsafeError
from ..index import ModuleInfo
from . import rewrite_copy_annotations, rewrite_place_reads
from .rewrite_imports import type_checking_names

ID = "DC608"
NAME = "name-binding"
_BUILTINS = set(dir(builtins))


def plan(index, a, bases: set[str] = frozenset()) -> dict[str, tuple[str, str, str | None]]:
    """Free name -> (alias, module to import from, object or None for a plain module import).
    ``bases``: the names the subscripts of the bases C takes from P read (DC304)."""
    pmod, cmod = a.parent.module, a.cls.module
    inlined, copied = inlined_free(a), set().union(*(copied_free(a).values()), bases)

    def unbound(name: str) -> bool:
        return _binding(pmod, name) in (None, f"builtins.{name}")

    rewrite_place_reads.check(a, inlined_parts(a) + defaults_read(a), [n for ns in copied_nodes(a).values() for n in ns],
                              inlined | copied, unbound)
    cinit = a.cls.methods.get("__init__")
    init_locals = _bound_in(cinit) if cinit is not None else set()
    taken = _module_names(cmod) | init_locals
    # Bound in the class's module only for type checkers, where the parent's binds it for real.
    unseen = type_checking_names(cmod) - type_checking_names(pmod)
    out = {}
    for name in sorted(inlined | copied):
        theirs = _binding(pmod, name)
        if theirs is None:
            raise UnsafeError(f"{a.parent.name}'s code uses {name!r}, which {pmod.rel} binds only through a star import (or not at all)", ID)
        ours = _binding(cmod, name)
        clash_local = name in inlined and name in init_locals
        if not clash_local and name not in unseen and (ours is None or _resolve(index, ours) == _resolve(index, theirs)):
            continue
        alias = f"{name}_{snake_case(pmod.name.rsplit('.', 1)[-1])}"
        while alias in taken:
            alias += "_"
        taken.add(alias)
        if theirs == f"{pmod.name}.{name}":
            out[name] = (alias, pmod.name, name)
        else:
            module, _, obj = theirs.rpartition(".")
            out[name] = (alias, module, obj) if module else (alias, theirs, None)
    return out


def base_alias(cmod: ModuleInfo, name: str, module: str) -> str:
    """How the class's module may spell the new base ``module.name`` once imported: ``name``,
    unless the module already binds ``name`` to something else (the class itself, say)."""
    alias = name
    taken = _module_names(cmod)
    while alias in taken and cmod.imports.get(alias) != f"{module}.{name}":
        alias = f"{name}_{snake_case(module.rsplit('.', 1)[-1])}" if alias == name else alias + "_"
    return alias


def _binding(mod: ModuleInfo, name: str) -> str | None:
    """What ``name`` refers to at module level of ``mod``, qualified; None when unbound."""
    if name in mod.imports:
        return mod.imports[name]
    if name in _module_names(mod, imports=False):
        return f"{mod.name}.{name}"
    if mod.star_binding(name) is not None:
        return mod.star_binding(name)
    if name in _BUILTINS:
        return f"builtins.{name}"
    return None


def _resolve(index, qual: str, seen=None) -> str:
    """Follow re-exports in the tree: ``pkg.a.X`` that ``pkg.a`` imports from ``pkg.b`` is ``pkg.b.X``."""
    seen = seen or set()
    modname, _, name = qual.rpartition(".")
    mod = index.module_by_name(modname) if modname else None
    if mod is None or qual in seen or name not in mod.imports:
        return qual
    seen.add(qual)
    return _resolve(index, mod.imports[name], seen)


def _module_names(mod: ModuleInfo, imports: bool = True) -> set[str]:
    """Names bound at module level (in if/try blocks too)."""
    return (set(mod.imports) | mod.own_names) if imports else mod.own_names


def _bound_in(fn: ast.AST) -> set[str]:
    """Every name a function binds anywhere inside it (parameters, assignments, imports, defs)."""
    out = set()
    for n in walk(fn):
        if isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(x.asname or x.name).split(".")[0] for x in n.names}
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn:
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out -= set(n.names)
    return out


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _free_loads(node: ast.AST, bound: frozenset = frozenset()) -> set[str]:
    """The names ``node`` (an expression evaluated where it stands: a default, a class
    attribute's value) reads from the scope around it: a lambda's parameters and a
    comprehension's targets are bound inside them, not read there."""
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) and node.id not in bound else set()
    if isinstance(node, ast.Lambda):
        a = node.args
        params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p is not None]
        out = set().union(*(_free_loads(d, bound) for d in a.defaults + [d for d in a.kw_defaults if d is not None]))
        return out | _free_loads(node.body, bound | {p.arg for p in params})
    if isinstance(node, _COMPREHENSIONS):
        out, inner = set(), bound
        for i, gen in enumerate(node.generators):
            # the first iterable is evaluated in the scope around; the rest see the targets
            out |= _free_loads(gen.iter, bound if i == 0 else inner)
            inner = inner | {n.id for n in walk(gen.target) if isinstance(n, ast.Name)}
            out |= set().union(*(_free_loads(c, inner) for c in gen.ifs))
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return out | set().union(*(_free_loads(e, inner) for e in parts))
    return set().union(*(_free_loads(c, bound) for c in ast.iter_child_nodes(node)))


def inlined_free(a) -> set[str]:
    """Globals the kept statements of P's __init__ read."""
    init = a.parent_init
    if init is None:
        return set()
    out = set().union(*(_loads(n) for n in inlined_parts(a)))
    out -= _bound_in(init) | {first_param(init)}
    return out | set().union(*(_free_loads(d) for d in defaults_read(a)))


def inlined_parts(a) -> list[ast.AST]:
    """What runs of the kept statements of P's __init__ once inlined: each simple statement, and
    the header of each compound one (its body's statements are listed on their own)."""
    init, sl = a.parent_init, a.init_slice
    if init is None or sl is None or not sl.kept:
        return []
    return [n for s in walk(init) if isinstance(s, ast.stmt) and pos(s) in sl.kept and s is not init
            for n in ([s] if not isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)) else _header(s))]


def defaults_read(a) -> list[ast.expr]:
    """The defaults the inline rule writes into the class: of the parameters the
    slice reads and the class's call leaves to their defaults (or to a forwarded mapping). A
    default is evaluated in the parent's module, so its names are bound as the kept statements' are.
    A class without an ``__init__`` gets the parent's whole signature (``add_init``): every default
    and annotation of it is read where the class is defined."""
    init, sl, call = a.parent_init, a.init_slice, a.super_init_call
    if init is None:
        return []
    args = init.args
    if "__init__" not in a.cls.methods:
        params = args.posonlyargs + args.args + args.kwonlyargs + [p for p in (args.vararg, args.kwarg) if p is not None]
        exprs = list(args.defaults) + [d for d in args.kw_defaults if d is not None]
        exprs += [p.annotation for p in params if p.annotation is not None] + ([init.returns] if init.returns is not None else [])
        return exprs
    if call is None or sl is None:
        return []
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(p, d) for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    bound = bind_arguments(init, call).bound
    return [d for p, d in pairs if p.arg in sl.free_locals and p.arg not in bound]


def _header(s: ast.stmt) -> list[ast.expr]:
    if isinstance(s, (ast.If, ast.While)):
        return [s.test]
    if isinstance(s, ast.For):
        return [s.iter]
    if isinstance(s, ast.With):
        return [i.context_expr for i in s.items]
    return []


def moved_free(a) -> set[str]:
    """The free names of everything the rewrite moves into the class's module."""
    return inlined_free(a).union(*copied_free(a).values())


def copied_free(a) -> dict[str, set[str]]:
    """Member name -> the free names of its code, for each member the rewrite copies."""
    out = {}
    # Decorators, defaults and class attribute values are evaluated in the class body, which sees
    # the class's own earlier definitions (``@value.setter``): those are members, not globals.
    class_level = {n for c in a.chain for n, m in c.members.items() if m.kind != "instance_attribute"}
    for name, nodes in copied_nodes(a).items():
        out[name] = set().union(*(_function_free(n, class_level) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                  else _free_loads(n) - class_level for n in nodes)) if nodes else set()
    return out


def copied_nodes(a) -> dict[str, list[ast.stmt]]:
    """Member name -> the definitions (or the class-body assignment) the rewrite copies for it."""
    out = {}
    for name in a.kept:
        m, owner = a.members[name]
        if m.kind in ("method", "property"):
            out[name] = [n for n in owner.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
        elif m.kind == "class_attribute" and m.node is not None:
            out[name] = [m.node]
    declarations = rewrite_copy_annotations.nodes(a)
    if declarations:
        out[rewrite_copy_annotations.KEY] = declarations
    return out


def _function_free(fn: ast.FunctionDef, class_level: set[str]) -> set[str]:
    in_class_body = list(fn.decorator_list) + list(fn.args.defaults) + [d for d in fn.args.kw_defaults if d is not None]
    body = set().union(*(_loads(s) for s in fn.body)) if fn.body else set()
    header = set().union(*(_free_loads(e) for e in in_class_body)) if in_class_body else set()
    return (body - _bound_in(fn)) | (header - class_level)


class _SuperTargets(cst.CSTTransformer):
    """``super(X, obj)`` in moved code: X names where the lookup starts, so it must name the
    class the code now sits in. Only the last class of the chain (the one right above the new
    base) can become C: its ``super()`` starts at the new base, as C's now does."""

    def __init__(self, a, module: ModuleInfo):
        self.a = a
        self.module = module

    def leave_Call(self, original, updated):
        f = updated.func
        if not (isinstance(f, cst.Name) and f.value == "super" and len(updated.args) == 2):
            return updated
        first = updated.args[0].value
        text = cst.Module([]).code_for_node(first)
        cname = self.a.cls.name
        try:
            expr = ast.parse(text, mode="eval").body
        except SyntaxError:  # pragma: no cover - libcst gave us an expression
            expr = None
        if not isinstance(expr, (ast.Name, ast.Attribute)) or (isinstance(expr, ast.Attribute) and expr.attr == "__class__"):
            raise UnsafeError(f"moved code calls super({text}, ...), whose class is computed at run time; "
                              f"in {cname} it would start the lookup elsewhere", ID)
        q = self.module.qualify(expr)
        chain = self.a.chain
        last = chain[-1]
        if q == last.qualname or (q.rsplit(".", 1)[-1] == last.name and len(chain) == 1):
            return updated.with_changes(args=[updated.args[0].with_changes(value=cst.Name(cname)), updated.args[1]])
        if any(q == c.qualname or q.rsplit(".", 1)[-1] == c.name for c in chain):
            raise UnsafeError(f"moved code calls super({text}, ...), which starts inside the chain that {cname} no longer inherits", ID)
        return updated


def retarget_super(a, module: ModuleInfo, node):
    """``node`` (code moved from ``module`` into C) with ``super(P, obj)`` as ``super(C, obj)``."""
    if not _two_argument_super(module.text):
        return node  # printing each moved node to look for one cost more than the rest of the rewrite
    return node.visit(_SuperTargets(a, module))


@functools.lru_cache(maxsize=16)
def _two_argument_super(text: str) -> bool:
    return re.search(r"\bsuper\(\s*[^)\s]", text) is not None
