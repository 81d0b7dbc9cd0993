"""What an expression of the tree may evaluate to: the classes its sources allow.

``typing_flow`` asks this for the receivers of attribute reads; every answer is a list of
qualified class names, or None when it is not clear (which counts as "may be anything").

## What an answer proves
A list holds every class the expression can evaluate to, given that annotations are true and
that the tree holds all the code that stores into the attributes and calls the functions
involved. The sources are followed backwards: annotations; the bindings of a name in its scope
(a free name: in the enclosing one); the arguments at every call site of a parameter; the
return statements of whatever a call can run (``type_calls``; through a table of factories and
unpacked from a returned tuple, ``type_dispatch``); the operands of ``a or b`` and
``a if c else b``; and the stores that can reach an attribute (``type_attrs``): on a receiver
whose classes are known, only the stores that can reach those classes' instances, else every
store of that name in the tree.

Answers are computed on demand and memoised. A cycle (``a.x = b.y`` and ``b.y = a.x``) is
solved as a least fixpoint: it adds nothing that does not enter it from outside. Each receiver
may take ``BUDGET`` steps and look at ``PARSES`` modules beyond those its class has looked at
already (for its own search, or for earlier receivers); a receiver that needs more is unknown,
unless an annotation on the way answers it (a parameter's, a function's return: typing its
sources only narrows what the annotation allows), and nothing cut short is kept for the others.

``LenientTypes`` answers a weaker question, for ``Flow.witness`` only: which classes some
followed route shows reaching the expression, with each source it cannot follow (and the
whole-tree searches by attribute name) adding nothing. Its answers never rule a use out.

## Known limits
Annotations are trusted. A call is taken to make an instance of exactly one class when it
names, through no local binding, a class of the tree that neither it nor a base in the tree
gives a ``__new__`` or a metaclass other than ``ABCMeta`` (a base outside the tree is trusted
not to), or a capitalised name from outside the tree; any other call is typed by what it runs.
A class attribute holding an instance of a tree class with ``__get__`` is unknown (reading it
gives what ``__get__`` returns); a descriptor class from outside the tree is not recognised.
Code outside the tree (a base class from a library, a user of the
library) that stores into the tree's objects or calls its functions is not seen: a holder with
a base outside the tree (other than ``PLAIN_BASES``) falls back to every store of that name in
the tree, and a parameter with no call site in the tree is unknown. A store through a computed
name (``setattr(x, name, v)``, ``x.__dict__``, ``vars(x)``) is seen only inside the holder's
own classes, where it makes the answer unknown; elsewhere it is not seen (finding them all
would parse some 375 files of SGLang for every class). A ``__getattr__`` in the holder's
classes makes the answer unknown. The elements of a container are followed through what is
added to it in place (``type_elements``), one level deep. An attribute read on an object
proves it is not an instance of classes that do not define that attribute
(``attribute_names``), unless code stores that attribute on an object other than its own
``self`` somewhere in the tree (a computed ``setattr`` is not seen, as above).
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name
from .hidden_classes import HiddenClasses
from ..index import ClassInfo, Index, ModuleInfo, OverBudget, scope_of
from .type_annotations import EXACT, NAMELESS_BASES, PLAIN_BASES, UNREACHED, annotation_types, shown_code
from .type_attrs import Attributes
from .type_calls import Calls
from .type_containers import NOT_A_TABLE, Containers
from .type_dispatch import Dispatch
from .type_elements import Elements
from .type_stores import Stores
from .type_names import Names

__all__ = ["EXACT", "UNREACHED", "LenientTypes", "Types", "annotation_types"]

BUDGET = 400  # typing steps per receiver: one over it is unknown, and only that one
PARSES = 8  # modules one receiver's typing may look at beyond those of the class's earlier receivers
_NESTING = 60  # deeper chains than this are unknown (Python's stack is the limit)
_ROUNDS = 8  # a cycle that has not settled after this many rounds is unknown
_OVER = ("over budget",)  # the mark of an answer cut short, which is never memoised


class Types(Calls, Attributes, Elements, Containers, Dispatch, Stores, Names):
    """What an expression of the tree may evaluate to, for one target class (whose relation to
    each type decides when a parameter's annotation is enough, and when its call sites are needed)."""

    def __init__(self, index: Index, rel, site_filter=None, gone: dict | None = None):
        self.index = index
        self.rel = rel
        self.site_filter = site_filter  # (module, call) -> True to ignore a call site (code the rewrite drops)
        self.gone = gone or {}  # id of a method -> classes its self can no longer be (another class decoupled)
        self._memos: dict[tuple, list[str] | None] = {}
        self._active: set[tuple] = set()
        self._frames: list[set] = []
        self._approx: dict[tuple, list[str] | None] = {}
        self._steps = BUDGET
        self.cut_short = False  # whether the last query ran out of its budget
        self.why: str | None = None  # why the last query's answer is unknown, when known
        self._why_of: dict[tuple, str] = {}
        self._modules_seen: set[str] = set()
        self._modules_left = PARSES
        self._family: dict[str, list[ClassInfo]] = {}
        self.hidden = HiddenClasses(index)
        self._scope_reads: dict[int, tuple[dict, set[str]]] = {}
        self._bound: dict[tuple[int, str], bool] = {}

    def query(self, mod: ModuleInfo, expr: ast.AST, at: ast.AST, parses: int | None = None) -> list[str] | None:
        """``expr_types`` for one receiver, with a fresh budget of steps and of modules to parse
        (``parses``, else ``PARSES``); None (unknown) when it needs more of either (parsing is
        most of what a run costs)."""
        self._steps = BUDGET
        self.cut_short = False
        self.why = None
        self._modules_left = PARSES if parses is None else parses
        self.index.meter = self._meter
        try:
            return self.expr_types(mod, expr, at)
        except OverBudget:
            self.cut_short = True
            return None
        finally:
            self.index.meter = None

    def looked_at(self, rel: str) -> None:
        """A module this class's analysis parsed for its own search: looking at it again costs
        the typing nothing."""
        self._modules_seen.add(rel)

    def _meter(self, rel: str) -> None:
        """Charge one query for each module that no earlier query of this class looked at: what
        a receiver is told then depends on this class's own queries only, not on what other
        work of the run happened to parse first."""
        if rel in self._modules_seen:
            return
        if self._modules_left <= 0:
            raise OverBudget(rel)
        self._modules_left -= 1
        self._modules_seen.add(rel)

    def _memo(self, key: tuple, compute) -> list[str] | None:
        """``compute()``, memoised under ``key``, with cycles solved as a least fixpoint.

        A key asked for while it is being computed answers its current approximation (at
        first: no type) and marks every answer above it as resting on that guess; the key is
        then computed again until the approximation holds. Answers resting on a guess of a key
        still being computed, or cut short by the budget, are not memoised.
        """
        if key in self._memos:
            if self._memos[key] is None:
                self.why = self._why_of.get(key)
            return self._memos[key]
        frames = self._frames
        if key in self._active:
            frames[-1].add(key)
            return self._approx.get(key, [])
        if self._steps <= 0 or len(frames) >= _NESTING:
            self.cut_here()
            return None
        self._active.add(key)
        deps: set = set()
        frames.append(deps)
        outer_why, self.why = self.why, None
        try:
            for _ in range(_ROUNDS):
                self._steps -= 1
                deps.clear()
                result = compute()
                guess = self._approx.get(key, [])
                if key not in deps or _same(result, guess):
                    break
                self._approx[key] = result
            else:
                result = None
        finally:
            frames.pop()
            self._active.discard(key)
            self._approx.pop(key, None)
        deps.discard(key)
        if deps:
            if frames:
                frames[-1] |= deps
        else:
            self._memos[key] = result
            if result is None and self.why:
                self._why_of[key] = self.why
        if result is not None:
            self.why = outer_why  # what went unknown on the way was made up for
        return result

    def cut_here(self) -> None:
        """Mark the answer being worked out as cut short by the budget: it is not memoised."""
        if self._frames:
            self._frames[-1].add(_OVER)
        self.cut_short = True

    def unknown(self, reason: str) -> None:
        """Say why the answer being worked out is unknown. The last reason given before an
        answer ends unknown is taken as its cause (a None is passed straight up, or made up
        for and followed by other work)."""
        self.why = reason

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
        if isinstance(value, (ast.BoolOp, ast.IfExp)) and not element:
            # ``a or b`` and ``a if c else b`` are one of their operands, not a new object.
            parts = value.values if isinstance(value, ast.BoolOp) else [value.body, value.orelse]
            out = []
            for part in parts:
                t = self.expr_types(mod, part, part)
                if t is None:
                    return None
                out += t
            return out
        if isinstance(value, (ast.Dict, ast.DictComp, ast.JoinedStr, ast.Compare)) and not element:
            return ["builtins.object_literal"]
        if isinstance(value, ast.ListComp) and element:
            return self.value_types(mod, value.elt)
        if isinstance(value, ast.Call) and not element:
            decided, made = self._constructed(mod, value)
            return made if decided else self.call_types(mod, value)
        if isinstance(value, ast.Attribute) and not element:
            return self.attr_types(value.attr)
        self.unknown(f"{shown_code(value)} is not followed (line {getattr(value, 'lineno', '?')} of {mod.rel})")
        return None


    def _constructed(self, mod: ModuleInfo, call: ast.Call) -> tuple[bool, list[str] | None]:
        """(True, ``[EXACT + class]``) when ``call`` plainly makes an instance of one class: it
        names (not through a local binding) a class of the tree, or a capitalised name from
        outside the tree. (True, None) when it names a class of the tree but what it makes
        cannot be told: the class or a base of it in the tree defines ``__new__``, or a
        metaclass other than ``ABCMeta`` may answer the call. (False, None) when the call is
        not a construction (a function, a name bound to a class at run time): its returns
        decide."""
        name = dotted_name(call.func)
        if name is None or self._shadowed(mod, call.func, call):
            return False, None
        q = mod.qualify(call.func)
        k = self.index.resolve_class(q) if "." in q else None
        if k is None:
            outside = "." in q and not self.index.tree.holds(q) and name.rsplit(".", 1)[-1][:1].isupper()
            return (True, [EXACT + q]) if outside else (False, None)
        why = self._new_answered(k)
        if why is not None:
            self.unknown(why)
            return True, None
        return True, [EXACT + k.qualname]

    # ---- receivers ------------------------------------------------------------
    def expr_types(self, mod: ModuleInfo, expr: ast.AST, at: ast.AST) -> list[str] | None:
        """The classes an expression may evaluate to, or None when that is not clear."""
        if isinstance(expr, ast.Name):
            own = self.own_first_param(mod, at, expr.id)
            if own is not None:
                return self._self_types(*own)
            return self._name_types(mod, expr.id, scope_of(mod, at))
        if isinstance(expr, ast.Call):
            return self.value_types(mod, expr)
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            held = self.item_types(mod, expr.value, at)
            if held is not NOT_A_TABLE:
                return held
        base, element = expr, False
        if isinstance(base, ast.Subscript):
            base, element = base.value, True
        if isinstance(base, ast.Attribute):
            holders = self._holders(mod, base.value, at)
            if holders is not None:
                return self._held_types(holders, base.attr, element)
            return self.attr_types(base.attr, element)
        return self.value_types(mod, expr, element)

    def _holders(self, mod: ModuleInfo, owner: ast.AST, at: ast.AST) -> list[tuple[ClassInfo, bool]] | None:
        """The classes of the tree ``owner`` may be an instance of, each with whether it is
        exactly that class; None when some type is unknown or not a class of the tree."""
        t = self.expr_types(mod, owner, at)
        if not t:
            return None
        out = []
        for q in t:
            k = self.index.resolve_class(q.lstrip(EXACT))
            if k is None:
                return None
            out.append((k, q.startswith(EXACT)))
        return out

    def ancestor_classes(self, cls: ClassInfo, harmless: set[str] = PLAIN_BASES) -> list[ClassInfo | None]:
        """The ancestors of ``cls`` in the order ``Index.ancestors`` gives, with None for each
        base outside the tree, less those in ``harmless`` (by default the bases that give
        instances no attributes of their own choosing)."""
        key = ("ancestors", cls.qualname)
        if key not in self._memos:
            self._memos[key] = [(q, self.index.resolve_class(q)) for q in self.index.ancestors(cls)]
        return [c for q, c in self._memos[key] if c is not None or q not in harmless]

    def attribute_names(self, classes) -> set[str] | None:
        """Every attribute an instance of these classes (and so of their ancestors) may carry,
        by the definitions in the tree; None when an ancestor outside the tree may add others
        (only ``NAMELESS_BASES`` add none), or when one of them answers any name itself
        (``__getattr__``) or stores into attributes of ``self`` by computed name (``setattr(self,
        name, v)``, ``self.__dict__``, ``vars(self)``), or has a subclass the index does not model
        (``hidden_classes``), so that a read of a name none defines need not raise."""
        names: set[str] = set()
        for c in classes:
            ancestors = self.ancestor_classes(c, NAMELESS_BASES)
            if None in ancestors or self.hidden.subclass_of(c) is not None:
                return None
            for anc in [c, *ancestors]:
                names |= set(anc.members) | set(anc.declared_only)
                if any(self._method_stores(anc.module, fn)[1] for fn in anc.methods.values()):
                    return None
        return None if names & _ANSWER_ANY else names

    def _subs(self, cls: ClassInfo) -> list[ClassInfo]:
        if cls.qualname not in self._family:
            self._family[cls.qualname] = self.index.subclasses_deep(cls)
        return self._family[cls.qualname]

    def _assignment_types(self, mod, node, value, element, fn) -> list[str] | None:
        if isinstance(node, ast.AnnAssign):
            t = annotation_types(mod, node.annotation, element)
            if t is not None:
                return t
        if isinstance(value, ast.Name) and fn is not None:
            if element:
                return None
            return self._name_types(mod, value.id, scope_of(mod, node))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend", "insert"):
            return self.value_types(mod, value) if element else []  # self.attr.append(value)
        if isinstance(value, (ast.Attribute, ast.Call)) and not element:
            return self.expr_types(mod, value, node)
        return self.value_types(mod, value, element)


_ANSWER_ANY = frozenset({"__getattr__", "__getattribute__"})


def _same(a: list[str] | None, b: list[str] | None) -> bool:
    return a is None and b is None or a is not None and b is not None and set(a) == set(b)


class LenientTypes(Types):
    """Types where a part whose sources are unknown (or past the budget) adds nothing, instead
    of making the whole answer unknown. An answer is then not everything an expression may
    hold, only what the routes the typing follows show it can hold: each type in it comes from
    a construction followed step by step (``Flow.witness``). Never used to rule a use out."""

    def _lenient(self, compute) -> list[str]:
        try:
            r = compute()
        except OverBudget:
            self.cut_short = True
            return []
        return [] if r is None else r

    def expr_types(self, mod, expr, at):
        return self._lenient(lambda: super(LenientTypes, self).expr_types(mod, expr, at))

    def value_types(self, mod, value, element=False):
        return self._lenient(lambda: super(LenientTypes, self).value_types(mod, value, element))

    def element_types(self, mod, expr, at, via=None):
        return self._lenient(lambda: super(LenientTypes, self).element_types(mod, expr, at, via))

    def attr_types(self, *args, **kwargs):
        return []  # every store of the name in the tree: too wide a search to show anything

    def call_types(self, mod, call):
        return self._lenient(lambda: super(LenientTypes, self).call_types(mod, call))

    def _stores(self, attr, through=None):
        return []  # stores on other objects, anywhere in the tree: too wide a search as well

    def _stored_types(self, *args):
        return self._lenient(lambda: super(LenientTypes, self)._stored_types(*args))

    def _added_elements(self, *args, **kwargs):
        return self._lenient(lambda: super(LenientTypes, self)._added_elements(*args, **kwargs))

    def _self_stores(self, *args):
        t, hit = super()._self_stores(*args)
        return ([] if t is None else t), hit

    def _class_body_store(self, *args):
        t, hit = super()._class_body_store(*args)
        return ([] if t is None else t), hit

