"""Where a module-level function, a method or a class's ``__init__`` is called from: every call
site in the tree, or why they cannot all be known.

``type_names`` follows a parameter to the arguments at these sites. The list is complete only
when every mention of the function's name is a call, or a use that cannot call it: an import,
a definition, an annotation, a class tested by ``isinstance``/``issubclass`` or caught by
``except``, a base in a class statement, a comparison, or the object of an attribute read. Any
other mention (an alias, ``functools.partial(f, x)``, ``map(f, xs)``, a dict of factories, a
decorator that wraps it, a store that replaces it) hands the function to code that may call it
with anything, and the answer is unknown, with the place that says so.

A method's sites are the calls of an attribute of its name on any receiver (``x.m(...)``,
``self.m(...)``, ``super().m(...)``, ``K.m(obj, ...)`` with the instance as first argument),
with the same checks on every other mention of the name.

For ``__init__`` of a class K the sites are the calls of K and of every subclass without an
``__init__`` of its own; ``super().__init__(...)`` and ``X.__init__(self, ...)`` in the
subclasses' methods; and ``cls(...)``, ``type(x)(...)`` and ``x.__class__(...)`` in the methods
of K, its subclasses and its ancestors (a classmethod inherited from a base makes a K when
called on K). Mentions of K and of those subclasses are checked as for a function.

## Known limits
A name is matched by its spelling, not by what it is bound to, so another function of the same
name adds its call sites too (more arguments than can arrive: still sound). A mention through a
string is seen only as the literal second argument of ``getattr``. A ``super().__init__`` call
is counted for every subclass, though the MRO may send it elsewhere (again only more). Callers
outside the tree are not seen (``type_exprs`` says so). A decorator other than those in
``TRANSPARENT`` makes a function's sites unknown.
"""

from __future__ import annotations

import ast

from ..ast_util import decorator_name, dotted_name, first_param, is_super_call, walk
from ..index import ClassInfo, Index, ModuleInfo
from ..word_search import WordPattern

# Decorators that return the function itself, or a wrapper that calls it with the same arguments.
TRANSPARENT = {"functools.lru_cache", "lru_cache", "functools.cache", "cache", "functools.wraps",
               "typing.overload", "overload", "staticmethod", "abc.abstractmethod", "abstractmethod"}
_HARMLESS_PARENTS = (ast.Compare, ast.ExceptHandler, ast.Import, ast.ImportFrom)


class Sites:
    """One answer: the call sites, each ``(module, call, shift)`` where ``shift`` is how many
    leading positional arguments the callee's first parameters do not see (1 for
    ``X.__init__(self, ...)``); or ``None`` sites with ``why`` saying what hides them."""

    def __init__(self, sites: list | None, why: str | None = None):
        self.sites = sites
        self.why = why


def function_sites(index: Index, mod: ModuleInfo, fn: ast.FunctionDef) -> Sites:
    """The call sites of a module-level function ``fn`` of ``mod``."""
    odd = next((d for d in fn.decorator_list if decorator_name(d) not in TRANSPARENT), None)
    if odd is not None:
        return Sites(None, f"{fn.name}() is decorated by `{decorator_name(odd)}`, which may call it with anything ({mod.rel}:{fn.lineno})")
    out: list = []
    why = _mentions(index, fn.name, out)
    return Sites(None if why else out, why)


def method_sites(index: Index, cls: ClassInfo, fn: ast.FunctionDef) -> Sites:
    """The call sites of a method ``fn`` of ``cls``: every call of an attribute of that name,
    whatever its receiver (a call on another class's method of the same name only adds
    arguments), ``shift`` 1 where the receiver is a class (``K.method(obj, ...)``)."""
    odd = next((d for d in fn.decorator_list if decorator_name(d) not in TRANSPARENT - {"staticmethod"}), None)
    if odd is not None:
        return Sites(None, f"{fn.name}() is decorated by `{decorator_name(odd)}`, which may call it with anything ({cls.file}:{fn.lineno})")
    found: list = []
    why = _mentions(index, fn.name, found)
    if why:
        return Sites(None, why)
    out = []
    for mod, call, _ in found:
        func = call.func
        unbound = (func.__class__ is ast.Attribute and dotted_name(func.value) is not None
                   and not is_super_call(func.value) and index.resolve_class(mod.qualify(func.value)) is not None)
        out.append((mod, call, 1 if unbound else 0))
    return Sites(out)


def init_sites(index: Index, cls: ClassInfo) -> Sites:
    """The call sites that can run ``cls.__init__``."""
    subs = index.subclasses_deep(cls)
    out: list = []
    for name in dict.fromkeys([cls.name] + [s.name for s in subs if "__init__" not in s.methods]):
        why = _mentions(index, name, out)
        if why:
            return Sites(None, why)
    below = {id(s) for s in subs}
    for owner in [cls, *subs, *filter(None, (index.resolve_class(q) for q in index.ancestors(cls)))]:
        for fn in owner.methods.values():
            me = first_param(fn)
            for node in walk(fn):
                if node.__class__ is not ast.Call:
                    continue
                func = node.func
                if id(owner) in below and func.__class__ is ast.Attribute and func.attr == "__init__":
                    out.append((owner.module, node, 0 if is_super_call(func.value) else 1))
                elif _makes_own_class(func, me):
                    out.append((owner.module, node, 0))
    return Sites(out)


def _makes_own_class(func: ast.AST, me: str | None) -> bool:
    """``cls(...)``, ``type(x)(...)`` or ``x.__class__(...)``."""
    if isinstance(func, ast.Name):
        return me is not None and func.id == me
    if isinstance(func, ast.Call):
        return isinstance(func.func, ast.Name) and func.func.id == "type" and len(func.args) == 1
    return isinstance(func, ast.Attribute) and func.attr == "__class__"


def _mentions(index: Index, name: str, out: list) -> str | None:
    """Add the call sites of ``name`` across the tree to ``out``; the reason when some mention
    may hand it to other code (None when every mention is a call or harmless)."""
    word = WordPattern(name)
    for rel in index.tree.grep(lambda text: _mentioned_beyond_imports(text, word), words=(name,)):
        mod = index.module(rel)
        if mod is None:
            return f"{rel} mentions {name} but cannot be parsed"
        for node in mod.attributes.get(name, []) + mod.names.get(name, []):
            parent = mod.parents.get(id(node))
            if isinstance(parent, ast.Call) and parent.func is node:
                out.append((mod, parent, 0))
            elif not _harmless(mod, node, parent):
                return f"{name} is used as a value at {rel}:{node.lineno}, where what calls it is not followed"
        if "getattr" in mod.text:
            for node in mod.nodes:
                if (isinstance(node, ast.Call) and dotted_name(node.func) == "getattr" and len(node.args) >= 2
                        and isinstance(node.args[1], ast.Constant) and node.args[1].value == name):
                    return f"{name} is looked up by name at {rel}:{node.lineno}"
    return None


def _mentioned_beyond_imports(text: str, word: WordPattern) -> bool:
    for m in word.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        line = text[start:m.start()].lstrip()
        if not line.startswith(("from ", "import ", "#")):
            return True
    return False


def _harmless(mod: ModuleInfo, node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether this mention of the name cannot hand the function or class to a caller."""
    if not isinstance(getattr(node, "ctx", None), ast.Load):
        return False  # a store replaces it, or del removes it: what the name then calls is not known
    if isinstance(parent, _HARMLESS_PARENTS):
        return True
    if isinstance(parent, ast.Attribute) and parent.value is node:
        # K.attr: a classmethod's cls(...) is a site of its own; K.__init__ must be called here
        grand = mod.parents.get(id(parent))
        return parent.attr != "__init__" or (isinstance(grand, ast.Call) and grand.func is parent)
    if isinstance(parent, ast.ClassDef):
        return node in parent.bases  # a subclass: its calls are counted as the class's own
    if isinstance(parent, ast.Tuple):
        grand = mod.parents.get(id(parent))
        return _class_test(grand, parent)
    return _class_test(parent, node) or _in_annotation(mod, node)


def _class_test(call: ast.AST | None, arg: ast.AST) -> bool:
    """``isinstance(x, arg)`` or ``issubclass(x, arg)``."""
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("isinstance", "issubclass")
            and len(call.args) == 2 and call.args[1] is arg)


def _in_annotation(mod: ModuleInfo, node: ast.AST) -> bool:
    cur = node
    while True:
        par = mod.parents.get(id(cur))
        if isinstance(par, ast.arg) or (isinstance(par, ast.AnnAssign) and par.annotation is cur):
            return par.annotation is cur
        if isinstance(par, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return par.returns is cur
        if not isinstance(par, (ast.Subscript, ast.Tuple, ast.List, ast.BinOp, ast.Attribute)):
            return False
        cur = par
