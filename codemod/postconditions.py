"""Post-conditions: the patched class against the original, by a check that trusts nothing of the analysis.

The analysis decides what the class needs; the rewrite writes it. Both can be wrong on a shape
nobody wrote a rule for. These checks look only at the two texts (the class's module before
and after the patch) and the class index (which classes exist and what they define), and
compare the class as Python would build it before and after: its MRO, the classes its code
names as ``super()`` targets, the attributes construction gives an instance, and whether code
that walks the MRO loses a class. The analysis contributes one input, ``dropped``: the parent's
members it proved unused, which an instance may lose. Each check is a rule
(``codemod/rules/post_*.py``, DC70x); a violation refuses the patch (exit 3).

The MRO is computed by Python itself: a stand-in class per class of the tree (and one per class
outside it, as a leaf), built with ``type()``, so C3's order and its inconsistencies are
CPython's, not a reimplementation.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property

from .ast_util import first_param, mangled, setters, walk
from .index import ClassInfo, Index, ModuleInfo, _self_attr_targets
from .rules.unsafe_dataclass_parent import generated_init
from .rules.unsafe_generic_base import _GENERIC, typing_alias

OBJECT = "builtins.object"


class Classes:
    """The classes of the tree as the patched module leaves them: the patched module's classes
    stand in for the original ones of that module, every other class is the index's."""

    def __init__(self, index: Index, patched: ModuleInfo | None = None):
        self.index = index
        self.patched = patched

    def resolve(self, qual: str) -> ClassInfo | None:
        p = self.patched
        if p is not None and qual.startswith(p.name + "."):
            local = qual[len(p.name) + 1:]
            if local in p.classes:
                return p.classes[local]
        c = self.index.resolve_class(qual)
        if c is not None and p is not None and c.module.name == p.name and c.name in p.classes:
            return p.classes[c.name]
        return c


@dataclass
class Linearized:
    """A class's MRO: the qualified names, and the class of the tree behind each (None outside it)."""

    names: list[str]
    infos: list[ClassInfo | None]
    error: str = ""

    def index_of(self, qual: str) -> int | None:
        return self.names.index(qual) if qual in self.names else None


def linearize(classes: Classes, cls: ClassInfo) -> Linearized:
    """C's MRO as CPython computes it, over stand-in classes."""
    made: dict[str, type] = {}
    infos: dict[str, ClassInfo | None] = {}

    def key(q: str) -> str:
        c = classes.resolve(q)
        return c.qualname if c is not None else (OBJECT if q in ("object", OBJECT) else q)

    def make(q: str, c: ClassInfo | None, depth: int = 0) -> type:
        k = c.qualname if c is not None else key(q)
        if k in made:
            return made[k]
        if k == OBJECT:
            return object
        if depth > 60:
            raise TypeError("the class hierarchy is too deep or cyclic")
        bases = []
        for b in (mro_entries(classes, c) if c is not None else []):
            bc = classes.resolve(b)
            bases.append(make(b, bc, depth + 1))
        t = type("_", tuple(bases) or (object,), {"__qualname__": k})
        made[k] = t
        infos[k] = c
        return t

    try:
        t = make(cls.qualname, cls)
    except TypeError as exc:
        return Linearized([], [], str(exc))
    names = [k.__qualname__ if k is not object else OBJECT for k in t.__mro__]
    return Linearized(names, [infos.get(n) for n in names])


def mro_entries(classes: Classes, c: ClassInfo) -> list[str]:
    """The bases the class statement gives ``type()``: its bases, with ``typing.Generic`` where a
    typing alias's ``__mro_entries__`` adds it (after the last alias that no subscripted base
    follows), and without a ``Generic[...]`` that a subscripted base follows (it gives none)."""
    exprs, out = c.node.bases, []
    for i, (e, q) in enumerate(zip(exprs, c.bases)):
        later = [_generic_after(classes, x, xq) for x, xq in zip(exprs[i + 1:], c.bases[i + 1:])]
        if q in _GENERIC and isinstance(e, ast.Subscript) and "alias" in later:
            continue
        out.append(q)
        if typing_alias(q) and not any(later) and "typing.Generic" not in c.bases[i + 1:]:
            out.append("typing.Generic")
    return list(dict.fromkeys(out))


def _generic_after(classes: Classes, e: ast.expr, q: str) -> str:
    """What base ``e`` is to an earlier one that would add ``Generic``: "alias" for a subscript
    other than a types.GenericAlias (``list[int]``, ``collections.abc.Mapping[str, int]``),
    "generic" for a class of the tree that derives from ``Generic``, else ""."""
    if isinstance(e, ast.Subscript):
        return "" if q.startswith(("builtins.", "collections.abc.")) or "." not in q else "alias"
    k = classes.resolve(q)
    return "generic" if k is not None and _GENERIC & set(classes.index.ancestors(k)) else ""


@dataclass
class PostContext:
    """What every post-condition reads: the class before and after, and each one's MRO."""

    index: Index
    a: object  # model.ClassAnalysis: its class, parent, chain, and the members it dropped
    before: ClassInfo
    after: ClassInfo
    old: Linearized
    new: Linearized
    patched: ModuleInfo
    violations: list[tuple[str, str]] = field(default_factory=list)

    @cached_property
    def removed(self) -> set[str]:
        """The classes the refactor takes out of C's MRO on purpose: P and the classes up to the new base."""
        return {c.qualname for c in self.a.chain}

    @cached_property
    def dropped(self) -> set[str]:
        """The parent's members the analysis proved unused (an instance may lose these), and
        those the rewrite made locals of ``__init__`` because nothing else reads them (DC617)."""
        return set(self.a.members) - set(self.a.kept) | set(self.a.made_local)

    @cached_property
    def built_before(self) -> set[str]:
        """What construction stores on an instance before the patch."""
        return Construction(Classes(self.index), self.old).construct()

    @cached_property
    def built_after(self) -> set[str]:
        return Construction(Classes(self.index, self.patched), self.new).construct()

    def canonical(self, expr: ast.AST) -> str:
        """The qualified name of the class ``expr`` names in the patched module (its text if none)."""
        q = self.patched.qualify(expr)
        c = Classes(self.index, self.patched).resolve(q)
        return c.qualname if c is not None else q

    def violate(self, rule: str, message: str) -> None:
        self.violations.append((rule, message))


def patched_module(original: ModuleInfo, text: str) -> ModuleInfo | None:
    try:
        tree = ast.parse(text, filename=original.rel)
    except SyntaxError:
        return None
    return ModuleInfo(original.name, original.rel, tree, text, original.is_package, original.star_binds)


def check_module(index: Index, group: list, after_text: str) -> list[tuple[str, str]]:
    """Every violation of the post-conditions by the patched classes of one module: (rule id, message)."""
    patched = patched_module(group[0].cls.module, after_text)
    return [v for a in group for v in check(index, a, patched)]


def check(index: Index, a, patched: ModuleInfo | None) -> list[tuple[str, str]]:
    """Every violation of the post-conditions by one patched class: (rule id, message)."""
    from .rules import post_instance_state, post_mro, post_mro_walk, post_names, post_super_targets

    if patched is None:
        return []  # the compile check has refused a file that does not parse
    if a.cls.name not in patched.classes:
        return [(post_mro.ID, f"{a.cls.name} is no longer defined in the patched {a.cls.file}")]
    after = patched.classes[a.cls.name]
    ctx = PostContext(index, a, a.cls, after, linearize(Classes(index), a.cls),
                      linearize(Classes(index, patched), after), patched)
    for rule in (post_mro, post_super_targets, post_instance_state, post_mro_walk, post_names):
        rule.check(ctx)
    return ctx.violations


# ---- what construction writes on an instance ----------------------------------------------


def _descriptor_class(classes: Classes, info: ClassInfo, name: str) -> ClassInfo | None:
    """The class of a class attribute's value when it is built by a call of a class of the tree."""
    m = info.members.get(name)
    if m is None or m.kind != "class_attribute" or not isinstance(m.node, ast.Assign):
        return None
    v = m.node.value
    if isinstance(v, ast.Call):
        return classes.resolve(info.module.qualify(v.func))
    return None


class Construction:
    """The attributes an instance gets from ``type(self).__init__`` on ``mro``: every ``self.X``
    stored by ``__init__`` and by what it calls through ``self``, ``super()``, ``X.m(self)``,
    an assignment that runs a property's setter or a data descriptor's ``__set__``. Every
    branch counts (an over-approximation, the same before and after)."""

    def __init__(self, classes: Classes, mro: Linearized):
        self.classes = classes
        self.mro = mro
        self.writes: set[str] = set()
        self.seen: set[int] = set()

    def lookup(self, name: str, start: int = 0):
        """(position in the MRO, owning class, member) of the first class from ``start`` defining ``name``."""
        for i in range(start, len(self.mro.infos)):
            c = self.mro.infos[i]
            if c is None:
                continue
            if name == "__init__":
                if "__init__" in c.methods:
                    return i, c, c.methods["__init__"]
                fn = generated_init(c)
                if fn is not None:
                    return i, c, fn
                continue
            m = c.members.get(name)
            if m is not None and m.kind != "instance_attribute":
                return i, c, m
        return None

    def run_method(self, i: int, owner: ClassInfo, fn, selfname: str | None = None) -> None:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or id(fn) in self.seen:
            return
        self.seen.add(id(fn))
        sn = selfname or first_param(fn)
        if sn is None:
            return
        for node in walk(fn):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for attr in _self_attr_targets(t, sn):
                        # Python stores a private name as the class it is written in mangles it.
                        self.store(mangled(owner.name, attr.attr))
            elif isinstance(node, ast.Call):
                self.call(i, owner, node, sn)

    def store(self, attr: str) -> None:
        self.writes.add(attr)
        found = self.lookup(attr)
        if found is None:
            return
        j, c, m = found
        setter = setters(c.node).get(attr) if m.kind == "property" else None
        if setter is not None:
            self.run_method(j, c, setter)
        elif m.kind == "class_attribute":
            d = _descriptor_class(self.classes, c, attr)
            if d is not None and "__set__" in d.methods:
                fn = d.methods["__set__"]
                args = fn.args.posonlyargs + fn.args.args
                if len(args) >= 2:
                    self.run_method(j, c, fn, selfname=args[1].arg)

    def call(self, i: int, owner: ClassInfo, node: ast.Call, sn: str) -> None:
        f = node.func
        if isinstance(f, ast.Name) and f.id == "setattr" and len(node.args) >= 2 and _is_name(node.args[0], sn):
            if isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                self.store(node.args[1].value)
            return
        if not isinstance(f, ast.Attribute):
            return
        target = f.value
        start = None
        if _is_name(target, sn):
            start = 0
        elif isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "super":
            if not target.args:
                start = i + 1
            elif len(target.args) == 2 and _is_name(target.args[1], sn):
                k = self.mro.index_of(self.qualify(owner, target.args[0]))
                start = k + 1 if k is not None else None
        elif node.args and _is_name(node.args[0], sn):
            k = self.mro.index_of(self.qualify(owner, target))
            start = k
        if start is None:
            return
        found = self.lookup(f.attr, start)
        if found is not None:
            j, c, m = found
            self.run_method(j, c, m if isinstance(m, ast.AST) else m.node)

    def qualify(self, owner: ClassInfo, expr: ast.AST) -> str:
        q = owner.module.qualify(expr)
        c = self.classes.resolve(q)
        return c.qualname if c is not None else q

    def construct(self) -> set[str]:
        found = self.lookup("__init__")
        if found is not None:
            self.run_method(*found)
        return self.writes


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
