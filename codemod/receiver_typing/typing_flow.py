"""Where instances of the class may flow: is this receiver possibly an instance of C?

The rest of the checkout reads attributes on objects whose class is not written
down. An attribute read counts as a use of C's inherited member unless the
receiver is clearly *not* a C: an ``isinstance`` guard or an annotation pins its
type, or every source of its value (``type_exprs``) does, and none of those types
can hold a C; or the same object is read for an attribute no C has. Anything
unclear counts as a use (by name): the analysis errs towards keeping members,
never towards dropping them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..ast_util import dotted_name, first_param, is_static
from .hasattr_tests import lacking_partner
from ..index import ClassInfo, Index, ModuleInfo, enclosing, enclosing_def, scope_of
from ..model import Receiver
from ..rules.keep_structural_tests import structural
from .type_annotations import PLAIN_METACLASSES
from .type_exprs import EXACT, UNREACHED, LenientTypes, Types, annotation_types

YES, MAYBE, NO = Receiver.YES, Receiver.MAYBE, Receiver.NO
SHOWN, UNKNOWN = "shown", "unknown"  # how strongly a use on a receiver is established
_UNSET = object()
WITNESS_PARSES = 120  # modules all of a class's witnesses together may look at beyond its own search
_UNKNOWN_TYPES = {"Any", "object", "typing.Any", "builtins.object"}
_OUTSIDE_PLAIN = {"None"}  # unqualified names that still name no C
_TYPE_ALIASES = {"typing.Type", "Type", "typing_extensions.Type"}  # Type[K]: the class K or a subclass, as an object


@dataclass
class Relation:
    """How one class relates to C: the types that may hold a C instance."""

    target: ClassInfo
    index: Index

    def __post_init__(self) -> None:
        self.ancestors = set(self.index.ancestors(self.target)) | {"builtins.object", "object"}
        # A class that a subclass of C also derives from (``class D(T, C)``) may hold a C.
        self.joint = {q for sub in self.index.subclasses_deep(self.target) for q in self.index.ancestors(sub)}
        self._verdicts: dict[str, str] = {}

    def of(self, qual: str) -> str:
        """YES: is C or a subclass; MAYBE: an ancestor, a class that a subclass of C also derives
        from, a metaclass (its instances are classes, C among them), a structural class (a
        Protocol, an abstract class: DC114) unless an instance is built by it, or a name that is
        not a class (of the tree, or from outside it); NO: unrelated."""
        if qual not in self._verdicts:
            self._verdicts[qual] = self._of(qual)
        return self._verdicts[qual]

    def _of(self, qual: str) -> str:
        if qual in _UNKNOWN_TYPES:
            return MAYBE
        if qual == UNREACHED:
            return NO
        exact = qual.startswith(EXACT)
        if exact:
            qual = qual[len(EXACT):]
        if qual == self.target.qualname or self.target.qualname in self._ancestors_of(qual):
            return YES
        if not exact and structural(self.index, qual):
            return MAYBE  # isinstance against it asks more than bases (DC114): an instance may pass
        if self._metaclass(qual):
            return MAYBE  # a class object, which may be C itself: its class attributes and methods are read on it
        if self._not_a_class(qual):
            return MAYBE  # a type alias, a TypeVar, a variable bound to a class: it may be C
        if not exact and (qual in self.ancestors or qual in self.joint):
            return MAYBE
        return NO

    def _metaclass(self, qual: str) -> bool:
        """Whether ``qual`` is ``type`` (also as ``Type[...]``), a metaclass of the standard library
        or one of the tree's."""
        if qual in PLAIN_METACLASSES or qual in _TYPE_ALIASES:
            return True
        cls = self.index.resolve_class(qual)
        return cls is not None and bool(PLAIN_METACLASSES & set(self.index.ancestors(cls)))

    def _not_a_class(self, qual: str) -> bool:
        """Whether ``qual`` names no class: neither one of the tree nor a name from outside it."""
        if "." not in qual:
            return qual not in _OUTSIDE_PLAIN
        return self.index.tree.holds(qual) and self.index.resolve_class(qual) is None

    def _ancestors_of(self, qual: str) -> set[str]:
        cls = self.index.resolve_class(qual)
        if cls is None:
            return set()
        if cls.qualname == self.target.qualname:
            return set()
        return set(self.index.ancestors(cls))

    def combine(self, quals: list[str] | None) -> str:
        if quals is None or not quals:
            return MAYBE
        verdicts = {self.of(q) for q in quals}
        if YES in verdicts:
            return YES
        if verdicts == {NO}:
            return NO
        return MAYBE


class Flow:
    """Receiver typing for one target class across the tree."""

    def __init__(self, index: Index, target: ClassInfo, site_filter=None, gone: dict | None = None):
        """``site_filter``: (module, call) -> True to ignore a call site (code the rewrite drops);
        ``gone``: id of a method -> the classes its ``self`` can no longer be (DC153)."""
        self.index = index
        self.rel = Relation(target, index)
        self.types = Types(index, self.rel, site_filter, gone)
        self._may_have = _UNSET
        self._lenient: LenientTypes | None = None

    def looked_at(self, rel: str) -> None:
        """A module the class's own search parsed: free for the typing (``Types.looked_at``)."""
        self.types.looked_at(rel)

    def receiver(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> tuple[str, str]:
        """(verdict, note) for whether ``recv`` may be an instance of the target."""
        verdict, note, _ = self.classify(mod, recv, at)
        return verdict, note

    def classify(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST, parses: int | None = None) -> tuple[str, str, str]:
        """(verdict, note, strength): strength SHOWN when the receiver is shown to be able to hold
        an instance (an isinstance guard, or typed as the class, a subclass or an ancestor),
        UNKNOWN when it merely could not be ruled out. ``parses``: the typing's budget of modules,
        when not the default."""
        verdict, note, typed = self._typed(mod, recv, at, parses)
        return verdict, note, SHOWN if typed else UNKNOWN

    def plainly_shown(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> bool:
        """A cheap test, without searching the tree: whether ``recv`` is a name that an enclosing
        ``isinstance`` guard, or the annotation of the parameter it is, names as the class or
        one of its bases (no name is resolved, so a subclass is not recognised)."""
        if not isinstance(recv, ast.Name):
            return False
        guard = self._isinstance_guard(mod, recv, at)
        if guard is not None:
            return self._named(guard)
        fn = scope_of(mod, at)
        if fn is mod.tree:
            return False
        a = fn.args  # type: ignore[attr-defined]
        ann = next((p.annotation for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg == recv.id), None)
        types = annotation_types(mod, ann) if ann is not None else None
        return bool(types) and self._named(types)  # type: ignore[arg-type]

    def _typed(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST, parses: int | None = None) -> tuple[str, str, bool]:
        guard = self._isinstance_guard(mod, recv, at)
        if guard is not None and all(structural(self.index, q) for q in guard):
            guard = None  # it says what the object has, not its class: the sources of its value decide
        if guard is not None and not (self.rel.combine(guard) == NO and self._rebound(mod, recv, at)):
            return self.rel.combine(guard), "isinstance guard", self._related(guard)
        types = None
        if _own_first_param(mod, recv, at):
            # A method's own ``self`` is typed from its class in a few steps, while the reads
            # ``_co_access`` compares cost a search of the tree: the typing goes first. Either
            # one ruling the target out gives NO, so the verdict is the same in either order;
            # the typing gets no module to parse here (``parses=0``), so that what later
            # receivers are told does not change, and a typing that needs one runs again below.
            types = self.types.query(mod, recv, at, 0)
            if self.types.cut_short:
                types = None
            elif types and self.rel.combine(types) == NO:
                return NO, f"typed {_shown(types)}", self._related(types)
        lacking = self._co_access(mod, recv, at)
        if lacking is not None:
            return NO, f"the same object also has .{lacking}, which {self.rel.target.name} instances lack", True
        if types is None:
            types = self.types.query(mod, recv, at, parses)
        verdict = self.rel.combine(types)
        if not types:
            if self.types.cut_short:
                why = "its sources go further than the typing follows"
            else:
                why = f"its type is unknown: {self.types.why}" if self.types.why else "its type is unknown"
            return verdict, why, False
        return verdict, f"typed {_shown(types)}", self._related(types)

    def witness(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> str | None:
        """For a receiver whose type is unknown: a note naming the class (or a subclass) when
        some route the typing follows shows an instance of it reaching ``recv``, else None.

        The typing then runs leniently (``LenientTypes``), so the answer proves only that an
        instance can get there, never that nothing else can: it may make a use stronger, never
        weaker."""
        if self._lenient is None:
            self._lenient = LenientTypes(self.index, self.rel, self.types.site_filter, self.types.gone)
            self._lenient._modules_seen = self.types._modules_seen  # looked at already: free
            self._witness_parses = WITNESS_PARSES
        types = self._lenient.query(mod, recv, at, self._witness_parses)
        self._witness_parses = max(0, self._lenient._modules_left)  # one budget for all of the class's witnesses
        hits = sorted({t for t in types or [] if self.rel.of(t) == YES})
        return f"typed {_shown(hits)} along the routes the typing follows, other sources not known" if hits else None

    def _named(self, types: list[str]) -> bool:
        """Whether some type is, by its qualified name, the class or a base (nothing is resolved)."""
        target = self.rel.target.qualname
        return any(t == target or (t in self.rel.ancestors and t not in _UNKNOWN_TYPES) for t in types)

    def _related(self, types: list[str]) -> bool:
        """Whether some type is the class, a subclass or a base of it (Any and object show nothing)."""
        return self._named(types) or any(self.rel.of(t) == YES for t in types)

    def _co_access(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> str | None:
        """An attribute read on the same object that no instance of the target has, if any.

        Such an object cannot be an instance of the target (the read would raise),
        so its other reads are not uses of the target's members.
        """
        have = self.may_have
        return None if have is None else self.types.read_lacking(mod, recv, at, have)

    def hasattr_decided(self, mod: ModuleInfo, call: ast.Call) -> str | None:
        """The name of another ``hasattr`` test in the same ``and`` as ``call`` that no instance
        of the target passes, so that ``call``'s answer cannot matter on one (``hasattr_tests``)."""
        have = self.may_have
        if have is None:
            return None
        return lacking_partner(mod, call, lambda name: self.types.never_has(name, have))

    def _rebound(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> bool:
        """Whether the name ``recv`` starts with is bound more than once in its scope (a guard on
        one binding proves nothing of another)."""
        head = recv
        while isinstance(head, (ast.Attribute, ast.Subscript)):
            head = head.value
        if not isinstance(head, ast.Name):
            return False
        return self.types.bound_more_than_once(scope_of(mod, at), head.id)

    @property
    def may_have(self) -> set[str] | None:
        """Every attribute an instance of the target may carry (its whole known hierarchy);
        None when a base outside the tree may give it others."""
        if self._may_have is _UNSET:
            self._may_have = self.types.attribute_names([self.rel.target] + self.index.subclasses_deep(self.rel.target))
        return self._may_have  # type: ignore[return-value]

    def _isinstance_guard(self, mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> list[str] | None:
        key = ast.dump(recv)
        child = at
        for anc in enclosing(mod, at):
            tests = []
            if isinstance(anc, ast.If) and child in anc.body:
                tests.append(anc.test)
            elif isinstance(anc, ast.BoolOp) and isinstance(anc.op, ast.And):
                idx = next((i for i, v in enumerate(anc.values) if v is child), None)
                if idx is not None:
                    tests.extend(anc.values[:idx])
            elif isinstance(anc, ast.IfExp) and child is anc.body:
                tests.append(anc.test)
            for t in tests:
                found = _isinstance_types(mod, t, key)
                if found is not None:
                    return found
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                break
            child = anc
        return None



def _shown(types: list[str]) -> str:
    """Up to three of the types, by their short names, for a note."""
    return ", ".join(sorted({t.lstrip(EXACT).rsplit(".", 1)[-1] for t in types})[:3])


def _isinstance_types(mod: ModuleInfo, test: ast.AST, key: str) -> list[str] | None:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for v in test.values:
            r = _isinstance_types(mod, v, key)
            if r is not None:
                return r
        return None
    if (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
        and len(test.args) == 2 and ast.dump(test.args[0]) == key
    ):
        spec = test.args[1]
        elts = spec.elts if isinstance(spec, ast.Tuple) else [spec]
        out = []
        for e in elts:
            if dotted_name(e) is None:
                return None
            out.append(mod.qualify(e))
        return out
    return None


def enclosing_class(mod: ModuleInfo, node: ast.AST) -> tuple[ast.AST | None, ClassInfo | None]:
    return enclosing_def(mod, node)


def _own_first_param(mod: ModuleInfo, recv: ast.AST, at: ast.AST) -> bool:
    """Whether ``recv`` is the bare first parameter (``self``, ``cls``) of the method around ``at``."""
    if not isinstance(recv, ast.Name):
        return False
    fn = scope_of(mod, at)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or is_static(fn):
        return False
    return first_param(fn) == recv.id and isinstance(mod.parents.get(id(fn)), ast.ClassDef)
