"""``decouple scan``, first pass: every class of the tree that pays for a parent's ``__init__``
work it does not use (Fowler's "refused bequest"), with an estimate of what it would save.

The pass is cheap on purpose, so that it can cover a whole tree:

1. a text pass over every file finds the class statements and the names of their bases (no parse);
2. only the files that define a class some other class names as a base are parsed, as
   sketches (``sketch``: imports and the classes of interest), and a
   parent whose ``__init__`` (its own, or the nearest ancestor's along first bases) does nothing
   but plain assignments is set aside: no subclass could save anything by leaving it;
3. the files of the subclasses of the remaining parents are parsed, each base is resolved as the
   analysis resolves it (``Index.resolve_class``), and the parent's ``__init__`` is sliced
   (``slice.Slicer``) for the members the class names in its own code (``self.<name>``) and what
   the parent's methods it names read in turn. What the slice drops is classified by the same
   effect rules as a normal run's report (``slice.side_effect``), and an allocation is sized by
   ``dropped_work.allocation_bytes``.

It sees only the class's own code: a use of the parent's members elsewhere in the tree, a
``super()`` call at run time, a type check that names the parent, are the full analysis's to
find (``scan.report``), and may decline a class the estimate ranks high.
"""

from __future__ import annotations

import ast
import gc
import re
from dataclasses import dataclass, field
from types import SimpleNamespace

from ..ast_util import first_param, is_super_call, pos, walk
from ..discover import Tree
from ..dropped_work import allocation_bytes
from ..index import ClassInfo, Index
from ..rules import (
    effect_allocation,
    effect_call,
    effect_construction,
    effect_outside_write,
    effect_registration,
)
from ..rules import rewrite_fuse_loops as fuse_loops
from ..super_init import find_super_init, generates_init
from ..slice import Slicer, _bind_consts
from ..word_search import WordPattern
from .sketch import Sizes, SketchIndex, class_statements, def_names

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_WRITES = (effect_outside_write.ID, effect_registration.ID)
_DEPTH = 8  # ancestors followed up first bases to the one whose __init__ runs

# What each part of the work an instance stops paying weighs in the ranking: every statement
# skipped counts once, and a statement that does more than bind a name counts again by what it does.
WEIGHTS = {"statement": 1, "call": 2, "loop": 3, "write": 3, "construction": 4, "allocation": 4}
MIB = 1 << 20
REPEATED = 2  # a construction in a loop counts this many times: the loop is there to run more than once
INTERFACE_SHARE = 0.5  # of the lines of the public methods the class inherits untouched


@dataclass
class Estimate:
    """One (class, parent) pair and what an instance of the class would stop paying."""

    cls: str  # module:Name
    parent: str  # module:Name, a direct base
    init_of: str  # module:Name of the class whose __init__ runs (the parent or an ancestor)
    file: str
    line: int
    skipped: int  # statements of that __init__ the class would no longer run
    init_statements: int
    constructions: list[dict] = field(default_factory=list)  # {"at", "code", "class"?, "weight"?}
    allocations: list[dict] = field(default_factory=list)  # {"at", "code", "bytes"?}
    loops: int = 0
    calls: int = 0
    writes: int = 0  # global, environment or registry writes
    needs: list[str] = field(default_factory=list)  # the parent's members the class's own code names
    copied_lines: int = 0  # lines of the parent's methods a patch would copy (those, and its public interface)
    interface_lines: int = 0  # lines of the parent's other public methods, which code elsewhere may call
    method_lines: int = 0  # lines of all the parent's methods
    first_base: bool = True  # the parent is the class's first base (what a plain run analyses)
    base: str | None = None  # the new base, when the __init__ that runs is an ancestor's

    @property
    def bytes(self) -> int:
        return sum(a.get("bytes", 0) for a in self.allocations)

    @property
    def saving(self) -> int:
        """What an instance stops paying, in points: the statements skipped, each weighted by
        what it does, an object of the tree built weighing what its own ``__init__`` does, plus a
        point per MiB the source states (capped, so one large buffer cannot hide the rest)."""
        w = WEIGHTS
        return (self.skipped * w["statement"] + self.calls * w["call"] + self.loops * w["loop"]
                + self.writes * w["write"] + sum(c.get("weight", w["construction"]) for c in self.constructions)
                + len(self.allocations) * w["allocation"] + min(self.bytes // MIB, 64))

    @property
    def copied_share(self) -> float:
        """The share of the parent's method lines a patch would likely copy: those the class
        needs, and half of its other public methods (whether code elsewhere calls them on an
        instance is the full analysis's to find)."""
        if not self.method_lines:
            return 0.0
        return round(min(1.0, (self.copied_lines + self.interface_lines * INTERFACE_SHARE) / self.method_lines), 3)

    @property
    def score(self) -> int:
        """The ranking: the saving, less the share of the parent's methods a patch would copy
        (a class that needs most of them is the parent's real heir, and the analysis declines it)."""
        return round(self.saving * (1 - self.copied_share))

    def as_dict(self) -> dict:
        return {"class": self.cls.rpartition(":")[2], "qualname": self.cls, "parent": self.parent, "init_of": self.init_of,
                "file": self.file, "line": self.line, "score": self.score, "saving": self.saving, "skipped": self.skipped,
                "init_statements": self.init_statements, "constructions": self.constructions,
                "allocations": self.allocations, "bytes": self.bytes, "loops": self.loops, "calls": self.calls,
                "writes": self.writes, "needs": self.needs, "copied_lines": self.copied_lines,
                "copied_share": self.copied_share}


@dataclass
class Plan:
    """What the text pass found: the work of the rest of the pass, which its parent files split."""

    defined: dict[str, set[str]]  # class name -> the files defining it
    bases_in: dict[str, dict[str, set[str]]]  # file -> its classes -> the base names they name
    named: set[str]  # the names classes name as bases that the tree defines
    subclass_files: dict[str, set[str]]  # such a name -> the files of classes naming it
    parent_files: list[str]  # the files defining a class of ``named``
    sizes: dict[str, int] = field(default_factory=dict)  # file -> its characters, for each file with a class statement

    def files_of(self, prel: str) -> set[str]:
        """The files the pass expects to read for the parent file ``prel``: it, and the files of
        the classes that name one of its classes as a base."""
        return {prel, *(r for n in self.bases_in.get(prel, ()) if n in self.named for r in self.subclass_files.get(n, ()))}


def plan(tree: Tree) -> Plan:
    sizes: dict[str, int] = {}
    defined, bases_in = class_statements(tree, sizes)
    named = {n for classes in bases_in.values() for names in classes.values() for n in names if n in defined}
    subclass_files: dict[str, set[str]] = {}
    for rel, classes in bases_in.items():
        for names in classes.values():
            for n in names & named:
                subclass_files.setdefault(n, set()).add(rel)
    return Plan(defined, bases_in, named, subclass_files, sorted({rel for n in named for rel in defined[n]}), sizes)


def estimate_tree(tree: Tree) -> list[Estimate]:
    """Every (class, parent) pair of the tree whose parent's ``__init__`` work the class skips
    some of, best saving first (``scan.report`` splits the parent files among processes)."""
    the_plan = plan(tree)
    return rank(estimate_files(tree, the_plan, the_plan.parent_files))


def estimate_files(tree: Tree, the_plan: Plan, parent_files: list[str], each_first_base=None, done=None,
                   claim=None) -> list[Estimate]:
    """The pairs whose parent is defined in one of ``parent_files``, in no particular order;
    ``each_first_base(index, cls, parent)``, when given, is called on each such pair where the
    parent is the class's first base, after its estimate (``replaced.find``, DC408); ``done()``,
    when given, after each parent file (the progress line); ``claim(file)``, when given, before
    each parent file: only a file it returns True for is done here (workers sharing the files)."""
    frozen = gc.get_freeze_count() == 0  # a worker froze what it inherited already
    if frozen:
        gc.freeze()
    bases_in, named = the_plan.bases_in, the_plan.named
    subclasses = {c for classes in bases_in.values() for c, names in classes.items() if names & named}
    index = SketchIndex(tree, {**dict.fromkeys(subclasses, False), **dict.fromkeys(named, True)}, the_plan.defined)
    heavy: dict[str, bool] = {}  # the class whose __init__ runs -> whether it does more than bind names
    out = []
    index.foresee([the_plan.files_of(prel) for prel in parent_files])
    # Parent by parent (a file of them at a time), so that the modules of one parent and its
    # subclasses are held together (and those the next parents need, as many as the index holds).
    for k, prel in enumerate(parent_files, 1):
        if claim is not None and not claim(prel):
            continue  # another worker's, or taken by one
        index.step = k - 1
        # Whether a parent's __init__ does work is read off the light sketch (its header and
        # __init__ are the whole sketch's): most parent files hold no such parent, and are
        # never parsed whole here. The estimates below resolve the parents in the whole sketch.
        mod = index.light(prel)
        parents = {c.name for c in (mod.classes.values() if mod is not None else ()) if c.name in named and _heavy(index, c, heavy)}
        for rel in sorted({r for n in parents for r in the_plan.subclass_files.get(n, ())}):
            # DC408 (``each_first_base``) reads more of the class than its ``__init__``.
            sub = index.light(rel) if each_first_base is None else index.module(rel)
            for cls in (sub.classes.values() if sub is not None else ()):
                for i, q in enumerate(cls.bases):
                    if q.rsplit(".", 1)[-1] in parents:
                        p = index.resolve_class(q)
                        e = estimate(index, cls, p, first=i == 0) if p is not None and p.file == prel else None
                        if e is not None:
                            out.append(e)
                        if each_first_base is not None and i == 0 and p is not None and p.file == prel:
                            each_first_base(index, cls, p)
        if done is not None:
            done()
    for rel in {*index._modules, *index._light}:  # a dropped module's cycle is broken: freed now
        index.drop(rel)
    # The pass leaves little in cycles, which a run without the collector keeps (on the 4x tree
    # of ``benchmarks/scan_scale.py``, a few hundred small objects per 200 parent files): one
    # collection at its end. One now and then would walk every module held (a thousand), for
    # a second or two each time.
    gc.collect()
    if frozen:
        gc.unfreeze()
    return out


def rank(rows: list[Estimate]) -> list[Estimate]:
    return sorted(rows, key=lambda e: (-e.score, -e.saving, e.file, e.line, e.parent))


def _heavy(index: "SketchIndex", cls: ClassInfo, memo: dict[str, bool]) -> bool:
    """Whether the ``__init__`` that runs for ``cls`` (its own or an ancestor's along first
    bases) does more than bind names: else no subclass can save anything by skipping it. The
    ancestors are read as light sketches (their headers and ``__init__`` are their whole
    sketches'): an ancestor of parents that are all set aside is never parsed whole."""
    chain = _chain(index, cls, index.resolve_light)
    if chain is None:
        return False
    owner = chain[-1]
    if owner.cli_name not in memo:
        memo[owner.cli_name] = _does_work(owner.methods["__init__"])
    return memo[owner.cli_name]


def _does_work(init: ast.FunctionDef) -> bool:
    sn = first_param(init) or "self"
    res = Slicer(init, sn, consts={}, foreign_classes=set(), keep_super=False).run(set())
    return bool(res.dropped) or any(isinstance(n, _LOOPS) for n in walk(init))


def _chain(index: Index, parent: ClassInfo, resolve=None) -> list[ClassInfo] | None:
    """The parent and its first-base ancestors up to the first that defines ``__init__``;
    ``resolve``: how a base is resolved (``Index.resolve_class`` by default)."""
    resolve = resolve or index.resolve_class
    chain, cur = [parent], parent
    while "__init__" not in cur.methods:
        nxt = resolve(cur.bases[0]) if cur.bases else None
        if nxt is None or len(chain) >= _DEPTH or nxt in chain:
            return None
        chain.append(nxt)
        cur = nxt
    return chain


def estimate(index: "SketchIndex", cls: ClassInfo, parent: ClassInfo | None, first: bool = True) -> Estimate | None:
    """What an instance of ``cls`` would stop paying of ``parent``'s construction; None when it
    pays nothing (its ``__init__`` does not run the parent's, or that ``__init__`` is not in the tree)."""
    if parent is None or (parent.file, parent.name) == (cls.file, cls.name):  # the same class, of a light sketch or not
        return None
    chain = _chain(index, parent)
    if chain is None:
        return None
    owner = chain[-1]
    init = owner.methods["__init__"]
    own_init = cls.methods.get("__init__")
    super_stmt = call = None
    if own_init is not None:
        super_stmt, call = find_super_init(index, cls, own_init, parent)
        if call is None:
            return None
    elif generates_init(cls):
        return None
    facts = _facts(index, chain)
    text = index.class_text(cls)  # the class is read as text: its sketch holds only its __init__
    own = set(def_names(text))
    needs = _needs(text, own, facts, chain) - _assigned_after(own_init, super_stmt)
    sn = first_param(init) or "self"
    consts = _bind_consts(init, call) if call is not None and owner is parent else {}
    fusions = fuse_loops.find(SimpleNamespace(cls=cls, super_init_stmt=super_stmt), init, sn) \
        if super_stmt is not None and owner is parent else []
    paid = _paid(index, chain, needs, consts, fusions, sn)
    if paid is None:
        return None
    e = Estimate(cls.cli_name, parent.cli_name, owner.cli_name, cls.file, cls.line, paid.skipped, paid.init_statements,
                 needs=sorted(needs), first_base=first, base=(owner.bases[0] if owner.bases else "builtins.object")
                 if owner is not parent else None)
    e.copied_lines = sum(facts.lines[n] for n in needs)
    e.interface_lines = sum(facts.lines[n] for n in _interface(own, facts) - needs)
    e.method_lines = facts.method_lines
    e.constructions, e.allocations = [dict(c) for c in paid.constructions], [dict(a) for a in paid.allocations]
    e.loops, e.calls, e.writes = paid.loops, paid.calls, paid.writes
    return e


@dataclass
class _Facts:
    """What the estimate reads of a parent's members (its chain up to the ``__init__`` that
    runs), for every subclass alike: worked out once per chain, not once per subclass. Names
    and numbers only: no node, which would keep the parent's module alive once the index drops it."""

    kinds: dict[str, str]  # member -> its kind
    lines: dict[str, int]  # member -> its lines, for a method or property (else 0)
    method_lines: int
    # A member -> the attributes it names on self or super() (a method's or property's; else
    # none), for the members some subclass needs: most of a parent's methods no subclass names.
    named: dict[str, frozenset[str]] = field(default_factory=dict)

    def names_in(self, name: str, chain: list[ClassInfo]) -> frozenset[str]:
        """``named[name]``, worked out from ``chain`` (the chain these facts are of) the first time."""
        if name not in self.named:
            m = next(c.members[name] for c in chain if name in c.members)  # the nearest class's, as ``kinds`` has it
            self.named[name] = frozenset(
                a.attr for a in walk(m.node) if isinstance(a, ast.Attribute) and (
                    (isinstance(a.value, ast.Name) and a.value.id == "self") or is_super_call(a.value))
            ) if m.node is not None and m.kind in ("method", "property") else frozenset()
        return self.named[name]


def _facts(index: "SketchIndex", chain: list[ClassInfo]) -> _Facts:
    key = tuple(c.cli_name for c in chain)
    if key not in index.parent_facts:
        members = {n: m for c in reversed(chain) for n, m in c.members.items() if n != "__init__"}
        lines = {n: _lines(m) for n, m in members.items()}
        index.parent_facts[key] = _Facts({n: m.kind for n, m in members.items()}, lines, sum(lines.values()))
    return index.parent_facts[key]


def _paid(index: "SketchIndex", chain: list[ClassInfo], needs: set[str], consts: dict, fusions: list, sn: str) -> Estimate | None:
    """What the ``__init__`` that runs costs a subclass that needs ``needs`` of it (the parent's
    side of an estimate, as an Estimate of no class), None when it skips nothing. Subclasses alike
    in what they need and bind share one slice: worked out once, not once per subclass."""
    owner = chain[-1]
    # A literal's type is part of the key: True, 1 and 1.0 are one key of a dict, not one value to a test.
    key = (tuple(c.cli_name for c in chain), frozenset(needs), sn,
           tuple(sorted((n, type(v).__name__, repr(v)) for n, v in consts.items())),
           tuple((pos(f.parent_loop), f.attr) for f in fusions))
    if key in index.paid:
        return index.paid[key]
    init = owner.methods["__init__"]
    res = Slicer(init, sn, consts=consts, foreign_classes={c.name for c in chain}, keep_super=True,
                 skip={pos(f.parent_loop) for f in fusions}).run(set(needs))
    skipped = res.total - res.kept_count
    e = None
    if skipped > 0:
        e = Estimate("", "", owner.cli_name, owner.file, owner.line, skipped, res.total)
        _classify(index, owner, res, e, _in_loops(init))
        for f in fusions:
            e.loops += 1
            _constructed(index, owner, f.parent_loop.body[0], e, f"for each element of self.{f.attr}", REPEATED)
        e.loops += sum(1 for n in walk(init) if isinstance(n, _LOOPS) and pos(n) not in res.kept and pos(n) not in res.dead)
    index.paid[key] = e
    return e


def _lines(m) -> int:
    if m.node is None or m.kind not in ("method", "property"):
        return 0
    return (m.node.end_lineno or m.node.lineno) - m.node.lineno + 1


def _interface(own: set[str], facts: _Facts) -> set[str]:
    """The parent's public methods the class inherits as they are: code elsewhere may call them
    on an instance (what the full analysis searches the tree for), so a patch would copy them."""
    return {n for n, kind in facts.kinds.items() if kind in ("method", "property") and not n.startswith("_") and n not in own}


def _assigned_after(init: ast.FunctionDef | None, super_stmt) -> set[str]:
    """What the class's ``__init__`` assigns on ``self`` unconditionally after calling the
    parent's: the parent's own value of it is never read by the class."""
    if init is None or super_stmt not in init.body:
        return set()
    sn = first_param(init)
    out = set()
    for stmt in init.body[init.body.index(super_stmt) + 1:]:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        out |= {t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == sn}
    return out


def _in_loops(init: ast.FunctionDef) -> set:
    """The statements of ``init`` inside a loop."""
    return {pos(n) for loop in walk(init) if isinstance(loop, _LOOPS) for s in loop.body for n in walk(s) if isinstance(n, ast.stmt)}


def _classify(index: Index, owner: ClassInfo, res, e: Estimate, looped: set = frozenset()) -> None:
    """Sort the dropped statements by what they do, as the normal report's effect rules say."""
    for stmt, _why, rule in res.dropped:
        at = f"{owner.file}:{stmt.lineno}"
        code = owner.module.lines[stmt.lineno - 1].strip()
        if rule == effect_allocation.ID:
            size = allocation_bytes(Sizes(index, owner.file), owner.file, stmt.lineno)
            e.allocations.append({"at": at, "code": code, **({"bytes": size["bytes"]} if size else {})})
        elif rule == effect_construction.ID:
            _constructed(index, owner, stmt, e, "in a loop" if pos(stmt) in looped else "", REPEATED if pos(stmt) in looped else 1)
        elif rule == effect_call.ID:
            e.calls += 1
        elif rule in _WRITES:
            e.writes += 1


def _constructed(index: "SketchIndex", owner: ClassInfo, stmt: ast.stmt, e: Estimate, how: str = "", times: int = 1) -> None:
    """A dropped construction, and, for a class of the tree, what its own ``__init__`` does."""
    at = f"{owner.file}:{stmt.lineno}"
    item = {"at": at, "code": owner.module.lines[stmt.lineno - 1].strip() + (f" ({how})" if how else "")}
    for call in (n for n in walk(stmt) if isinstance(n, ast.Call)):
        built = index.resolve_callable(owner.module, call.func)
        if built is None and index.want(owner.module.qualify(call.func).rsplit(".", 1)[-1], owner.file):
            built = index.resolve_callable(owner.module, call.func)
        if isinstance(built, ClassInfo) and "__init__" in built.methods:
            item["class"] = built.cli_name
            item["weight"] = times * (WEIGHTS["construction"] + construction_weight(index, built))
            break
    e.constructions.append(item)


def construction_weight(index: SketchIndex, cls: ClassInfo) -> int:
    """What building an instance of ``cls`` costs, in the ranking's points: its whole
    ``__init__``, none of it needed (the constructions in it count as plain ones)."""
    if cls.cli_name not in index.weights:
        init = cls.methods["__init__"]
        res = Slicer(init, first_param(init) or "self", consts={}, foreign_classes=set(), keep_super=True).run(set())
        e = Estimate(cls.cli_name, "", "", cls.file, cls.line, res.total - res.kept_count, res.total)
        for stmt, _why, rule in res.dropped:
            if rule == effect_allocation.ID:
                size = allocation_bytes(Sizes(index, cls.file), cls.file, stmt.lineno)
                e.allocations.append({"bytes": size["bytes"]} if size else {})
            elif rule == effect_construction.ID:
                e.constructions.append({})
            elif rule == effect_call.ID:
                e.calls += 1
        index.weights[cls.cli_name] = e.saving
        index.costs[cls.cli_name] = {"statements": e.skipped, "constructions": len(e.constructions),
                                     "allocations": len(e.allocations), "bytes": e.bytes, "calls": e.calls}
    return index.weights[cls.cli_name]


# ``\bself\.(\w+)`` and ``\bsuper\(...\)\.(\w+)``, up to the dot: a regex that starts with ``\b``
# is tried at every position of the text (``word_search``), and a ``rest`` that ends in ``\w+``
# could swallow a ``self`` that starts the next match.
_SELF_NAME = WordPattern("self", r"\.")
_SUPER_NAME = WordPattern("super", r"\(\s*(?:\w+\s*,\s*self\s*)?\)\.")
_WORD = re.compile(r"\w+")


def _names_after(pattern: WordPattern, text: str) -> list[str]:
    """The word right after each match of ``pattern``, where one follows."""
    out = []
    for m in pattern.finditer(text):
        w = _WORD.match(text, m.end())
        if w is not None:
            out.append(w.group())
    return out


def _needs(text: str, own: set[str], facts: _Facts, chain: list[ClassInfo]) -> set[str]:
    """The parent's members the class's own code names on ``self`` (that it does not define
    itself) or through ``super()``, and what the parent's methods among them name in turn.
    ``text``: the class's source; ``own``: the methods it defines (``def_names`` of that text).

    The class is read as text (its sketch holds only its ``__init__``): a name in a comment or
    a string counts too, which can only make the estimate need more."""
    wanted = {n for n in _names_after(_SELF_NAME, text) if n not in own} | set(_names_after(_SUPER_NAME, text))
    out: set[str] = set()
    todo = sorted(n for n in wanted if n in facts.kinds)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        todo.extend(n for n in facts.names_in(name, chain) if n in facts.kinds and n not in out)
    return out
