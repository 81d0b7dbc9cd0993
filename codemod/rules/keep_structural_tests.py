"""DC114 keep-structural-tests: a structural type test proves nothing about what an object is not, and keeps what it tests for.

## What it does
A class is structural when ``isinstance`` against it asks more than the object's class's bases:

- a ``Protocol`` (one that lists ``typing.Protocol`` or ``typing_extensions.Protocol`` among its
  own bases; a class deriving from a protocol without doing so is a plain class);
- a class that defines ``__subclasshook__`` or derives from one that does, or whose metaclass
  defines ``__instancecheck__`` or ``__subclasscheck__``;
- an abstract base class (``abc.ABC``, a metaclass derived from ``ABCMeta``, a protocol or a
  standard abstract class among its bases) on which, or on a subclass of which, the tree
  registers a class (``Sink.register(Child)``, ``@Sink.register``);
- the standard library's abstract classes (``collections.abc``'s, as ``collections.abc`` or
  ``typing`` spell them, ``numbers``, ``importlib.abc``, ``abc.ABC``, ``os.PathLike``,
  ``contextlib``'s and ``io``'s abstract bases).

Two things follow. The receiver typing never takes such a class, from an ``isinstance`` guard or
an annotation, as proof that an object is not an instance of the class (only what a constructor
of it builds is exactly it). And where the tree tests an object that may be an instance of the
class with ``isinstance``/``issubclass`` against a structural class, the members of the parent
that the test asks for are kept: what a ``Protocol`` declares (its methods and annotated
attributes, and its ``Protocol`` bases'), the names a ``__subclasshook__`` spells as strings
(``hasattr(C, "close")``), the special methods a standard one-method ABC looks for (``Sized``:
``__len__``).

## Why
``isinstance(x, HasTotal)`` is true for an instance of the class whenever it has ``total``,
whatever its bases: an ``x.gamma`` read under that guard is a use of ``gamma`` on it, and dropping
``gamma`` makes the read raise. ``isinstance(c, HasGamma)`` is true before the patch because the
instance has ``gamma`` and false after it when ``gamma`` is dropped. Neither shows in the class's
bases, and every check on the patched file passes.

## Known problems
A ``__subclasshook__`` that decides by names it computes is not read: only its string constants
count. A test whose class is held in a variable is not found. A registration made outside the
tree, or through a name the tree does not spell as ``X.register``, is not seen, nor one whose
receiver's last name is neither a class defined in the tree nor bound by an ``as`` in its file (a
variable holding the class): an abstract class with none in the tree still counts as proof. The typing of a method's ``self`` as its class
counts a protocol the class is as structural too, which keeps more than it needs. Every protocol
counts, runtime-checkable or not: before Python 3.10 ``isinstance`` against a protocol of data
members alone works without ``@runtime_checkable``.

## Fix safety
Keeping is safe, and so is counting a receiver as a possible instance: both keep more.
"""

from __future__ import annotations

import ast
import re

from .. import text_facts, tree_wide
from ..ast_util import binding_count, dotted_name
from ..index import enclosing
from ..model import Evidence, Receiver
from ..star_imports import passing

ID = "DC114"
NAME = "keep-structural-tests"

_PROTOCOLS = {"typing.Protocol", "typing_extensions.Protocol"}
_ABC_META = {"abc.ABCMeta"}
_HOOKS = ("__instancecheck__", "__subclasscheck__")  # on a metaclass; __subclasshook__ on the class
_REGISTER = re.compile(r"\.register\b")
_SELF_ABSTRACT = {"ABC", "Protocol"}  # abstract by their own qualified name, bases or none
_STDLIB = {"os.PathLike", "contextlib.AbstractContextManager", "contextlib.AbstractAsyncContextManager",
           "io.IOBase", "io.RawIOBase", "io.BufferedIOBase", "io.TextIOBase", "abc.ABC"}
_STDLIB_MODULES = ("numbers.", "importlib.abc.")
# The abstract classes of collections.abc, as collections.abc and typing spell them.
_COLLECTIONS = {"Mapping", "MutableMapping", "Sequence", "MutableSequence", "Set", "MutableSet", "AbstractSet",
                "MappingView", "KeysView", "ItemsView", "ValuesView", "Generator", "Coroutine", "AsyncGenerator", "ByteString"}
# What the standard library's abstract classes with a ``__subclasshook__`` look for.
_ONE_METHOD_ABCS = {
    "Hashable": ("__hash__",), "Iterable": ("__iter__",), "Iterator": ("__iter__", "__next__"),
    "Reversible": ("__reversed__", "__iter__"), "Sized": ("__len__",), "Container": ("__contains__",),
    "Collection": ("__len__", "__iter__", "__contains__"), "Callable": ("__call__",), "Awaitable": ("__await__",),
    "AsyncIterable": ("__aiter__",), "AsyncIterator": ("__aiter__", "__anext__"), "Buffer": ("__buffer__",),
    "PathLike": ("__fspath__",), "AbstractContextManager": ("__enter__", "__exit__"),
    "AbstractAsyncContextManager": ("__aenter__", "__aexit__"),
}


def _stdlib_abc(qual: str) -> bool:
    module, _, short = qual.rpartition(".")
    if module in ("collections.abc", "typing", "typing_extensions"):
        return short in _COLLECTIONS or short in _ONE_METHOD_ABCS
    return qual in _STDLIB or qual.startswith(_STDLIB_MODULES)


def structural(index, qual: str) -> str | None:
    """Why ``isinstance`` against the class ``qual`` asks more than bases, or None; once per run
    and class (the receiver typing asks it of every type it meets)."""
    return index.once(f"{ID} structural {qual}", lambda: _unmetered(index, _structural, qual))


def _unmetered(index, fn, *args):
    """``fn(index, *args)`` outside any typing query's budget of modules: its answer is kept for
    the run, so what it parses must not count against whichever query asked first (what a
    receiver is told would then depend on the order of the queries)."""
    meter, index.meter = index.meter, None
    try:
        return fn(index, *args)
    finally:
        index.meter = meter


def _structural(index, qual: str) -> str | None:
    if _stdlib_abc(qual):
        return "an abstract class of the standard library"
    cls = index.resolve_class(qual)
    if cls is None:
        return None
    if set(cls.bases) & _PROTOCOLS:
        return "a Protocol"  # a subclass of one that does not list Protocol itself is a plain class
    for c in [cls, *filter(None, map(index.resolve_class, index.ancestors(cls)))]:
        if "__subclasshook__" in c.methods:
            return f"{c.name} defines __subclasshook__"
        meta = _metaclass(c)
        if meta is not None and _hooked_metaclass(index, meta):
            return f"its metaclass {meta.rsplit('.', 1)[-1]} defines how isinstance decides"
    # Registered on it or on a subclass of it: isinstance against it then takes the registered class.
    own = {qual, cls.qualname}
    if _abstract(index, cls) and any(own & {c.qualname, *index.ancestors(c)} for c in _classes(index, registrations(index))):
        return "an abstract base class, on which the tree registers classes"
    return None


def _abstract(index, cls) -> bool:
    """Whether ``cls`` has ``ABCMeta.register``: ``abc.ABC``, a protocol or a standard abstract
    class among its ancestors, or a metaclass derived from ``ABCMeta`` (a base outside the tree
    counts as plain)."""
    ancestors = index.ancestors(cls)
    if {cls.qualname, *ancestors} & (_PROTOCOLS | {"abc.ABC"}) or any(map(_stdlib_abc, ancestors)):
        return True
    for c in [cls, *filter(None, map(index.resolve_class, ancestors))]:
        meta = _metaclass(c)
        if meta is not None and (meta in _ABC_META or _abc_metaclass(index, meta)):
            return True
    return False


def registrations(index) -> set[str]:
    """The classes of the tree that ``X.register(...)`` (or ``@X.register``) registers classes on,
    looked for once per run, and only when an abstract class is met. It depends on the tree
    alone, so the scan's full analyses share one search (``tree_wide``)."""
    return tree_wide.answer(index, f"{ID} registrations", _registrations)


def _registrations(index) -> set[str]:
    tree = index.tree
    # Only a receiver whose last name is an abstract class of the tree (a registration on any
    # other counts for no class _structural asks about), or an alias its file binds, can resolve
    # to one: the others are decided without parsing the file (most of the cost).
    spelt_in: dict[str, tuple[set[str], set[str]]] = {}
    for rel in tree.grep(lambda text: ".register" in text, words=(text_facts.REGISTER_CALL,), among=set(tree.files_with_words(("register",)))):
        text = tree.searchable(rel)
        # ``self.register``/``cls.register`` read a method's own parameter (``_local`` below),
        # which resolves to no class: left out before any class of the name is looked for.
        spelt = {r for r in _registering(text) if r.split(".", 1)[0] not in ("self", "cls")} if text else set()
        if spelt:  # "class X" matches "as X" too: a needless parse, never a miss
            spelt_in[rel] = spelt, {r for r in spelt if re.search(rf"as\s+{r.rsplit('.', 1)[-1]}\b", text)}
    abstract = _abstract_names(index, {r.rsplit(".", 1)[-1] for spelt, aliased in spelt_in.values() for r in spelt - aliased})
    out: set[str] = set()
    for rel, (spelt, aliased) in spelt_in.items():
        spelt = aliased | {r for r in spelt if r.rsplit(".", 1)[-1] in abstract}
        mod = passing(index, rel) if spelt else None  # only names come out of it
        if mod is None:
            continue
        for node in mod.attributes.get("register", ()):
            receiver = dotted_name(node.value)
            if receiver not in spelt or _local(mod, node, receiver.split(".", 1)[0]):
                continue
            cls = index.resolve_class(mod.qualify(node.value))
            if cls is not None:
                out.add(cls.qualname)
    return out


def _abstract_names(index, names: set[str]) -> set[str]:
    """Those of ``names`` that a class statement of the tree defines as an abstract class
    (``_abstract``), or as one not read (a nested class, a file that does not parse: the worst
    is assumed). The files naming any of them are read once, for all; only the definitions are
    parsed."""
    if not names:
        return set()
    tree = index.tree
    rx = re.compile(r"class[ \t]+(" + "|".join(map(re.escape, sorted(names))) + r")\b(\s*(?:\(\s*\))?\s*:)?")
    defined: dict[str, list[str]] = {}
    for rel in tree.files_with_words(tuple(sorted(names))):
        # A definition without bases or keywords (``class Registry:``) has no ancestor and no
        # metaclass, so ``_abstract`` is false for it (unless it is itself ``abc.ABC`` or a
        # ``Protocol``): a file whose every definition of the name is one is not parsed for it.
        # Any other spelling (bases, a keyword, a type parameter) is.
        with_bases = {name for name, plain in rx.findall(tree.searchable(rel) or "") if not plain or name in _SELF_ABSTRACT}
        for name in with_bases:
            defined.setdefault(name, []).append(rel)
    out = set()
    for name, rels in defined.items():
        for rel in rels:
            mod = index.module(rel)
            cls = mod.classes.get(name) if mod is not None else None
            if cls is not None and _abstract(index, cls):
                out.add(name)
            elif cls is None and (mod is None or any(n.__class__ is ast.ClassDef and n.name == name for n in mod.nodes)):
                out.add(name)
    return out


def _local(mod, node: ast.AST, name: str) -> bool:
    """Whether ``name`` at ``node`` is a parameter or a variable of a function around it (``cls``
    in a classmethod): not a module's name, so not one to resolve through its imports (which,
    through star imports, can mean parsing a whole package to find it bound nowhere)."""
    return any(binding_count(fn, name, imports=False) for fn in enclosing(mod, node)
               if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def _registering(text: str) -> set[str]:
    """The dotted names that ``.register`` is read on in ``text`` (``Sink.register``, ``abc_mod.Sink.register``).
    Found from each ``.register`` backwards: a regex for the dotted name would be tried at every
    position of every file."""
    out = set()
    for m in _REGISTER.finditer(text):
        start = m.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
            start -= 1
        spelt = text[start:m.start()].strip(".")
        if all(part.isidentifier() for part in spelt.split(".")):
            out.add(spelt)
    return out


def _classes(index, quals: set[str]) -> list:
    return [c for c in map(index.resolve_class, sorted(quals)) if c is not None]


def tested_names(index, qual: str) -> set[str]:
    """The attribute names an ``isinstance`` against the structural class ``qual`` looks for, as
    far as they can be read."""
    if _stdlib_abc(qual):
        return set(_ONE_METHOD_ABCS.get(qual.rsplit(".", 1)[-1], ()))
    cls = index.resolve_class(qual)
    if cls is None:
        return set()
    out: set[str] = set()
    for c in [cls, *filter(None, map(index.resolve_class, index.ancestors(cls)))]:
        if set(c.bases) & _PROTOCOLS:  # a protocol lists Protocol among its own bases
            out |= {n for n, m in c.members.items() if m.kind != "instance_attribute"}
            out |= {s.target.id for s in c.node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        hook = c.methods.get("__subclasshook__")
        if hook is not None:
            out |= {n.value for n in ast.walk(hook) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        for q in filter(_stdlib_abc, c.bases):
            out |= set(_ONE_METHOD_ABCS.get(q.rsplit(".", 1)[-1], ()))
    return out


def run(st, out) -> bool:
    """Keep the parent's members that a structural test of a possible instance asks for; True
    when a member was kept."""
    a = st.a
    # What C provides itself (its own ``step``) is what the test finds on C: P's is no answer to it.
    provided = st.satisfied()
    wanted = {n for n in a.members if n not in a.kept and not provided(n)}
    if not wanted:
        return False
    index = st.index
    candidates = _structural_classes(index, wanted)
    if not candidates:
        return False
    flow = st.receivers()
    found = False
    short = {q.rsplit(".", 1)[-1]: q for q in candidates}
    for rel in index.tree.grep(lambda text: "isinstance" in text or "issubclass" in text, words=tuple(short)):
        mod = index.module(rel)
        if mod is None:
            continue
        for node in mod.nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass")
                    and len(node.args) == 2):
                continue
            spec = node.args[1]
            for e in spec.elts if isinstance(spec, (ast.Tuple, ast.List)) else [spec]:
                q = _resolved(index, mod.qualify(e)) if dotted_name(e) else None
                names = candidates.get(q, set()) - set(a.kept) if q else set()
                if not names:
                    continue
                if node.func.id == "isinstance" and flow.receiver(mod, node.args[0], node)[0] == Receiver.NO:
                    continue
                for n in sorted(names):
                    ev = Evidence(rel, node.lineno, f"{ast.unparse(node)[:80]} tests for {n} ({q.rsplit('.', 1)[-1]} is structural)", ID)
                    if st.need(n, ev):
                        out.needs.append((n, ev))
                        found = True
    return found


def _structural_classes(index, wanted: set[str]) -> dict[str, set[str]]:
    """Structural classes whose tests may ask for one of ``wanted``: qualified name -> those names."""
    out: dict[str, set[str]] = {}
    for abc_name, dunders in _ONE_METHOD_ABCS.items():
        hit = wanted & set(dunders)
        if hit:
            for prefix in ("collections.abc.", "typing."):
                out[prefix + abc_name] = hit
            if abc_name == "PathLike":
                out["os.PathLike"] = hit
    for qual, names in _tree_structural(index, wanted).items():
        hit = names & wanted
        if hit:
            out[qual] = hit
    return out


def _tree_structural(index, wanted: set[str]) -> dict[str, set[str]]:
    """The protocols and hooked classes of the tree whose tests may look for one of ``wanted``,
    with the names their tests look for.

    What a test of a protocol looks for is declared in its class or in a protocol it derives
    from, so a file defining one is parsed only when it names one of ``wanted``, or a structural
    class found so far (its protocol subclasses), until none is new. A ``__subclasshook__``
    spells its names in its own file."""
    tree = index.tree
    out: dict[str, set[str]] = {}
    done: set[str] = set()
    words = tuple(sorted(wanted))
    while words:
        rels = [rel for rel in tree.grep(_defines_structural, words=words) if rel not in done]
        found: set[str] = set()
        for rel in rels:
            done.add(rel)
            for qual, names in index.once(f"{ID} structural classes of {rel}", lambda rel=rel: _file_structural(index, rel)).items():
                out[qual] = names
                found.add(qual.rsplit(".", 1)[-1])
        words = tuple(sorted(found))
    return out


# A protocol lists Protocol in its class statement's bases (or an alias the file imports it as).
_PROTOCOL_CLASS = re.compile(r"\bclass\s+\w+\s*\([^)]*\bProtocol\b|\bProtocol\s+as\b")


def _defines_structural(text: str) -> bool:
    return "__subclasshook__" in text or ("Protocol" in text and _PROTOCOL_CLASS.search(text) is not None)


def _file_structural(index, rel: str) -> dict[str, set[str]]:
    mod = index.module(rel)
    return {cls.qualname: tested_names(index, cls.qualname) for cls in (mod.classes.values() if mod is not None else ())
            if structural(index, cls.qualname) is not None}


def _resolved(index, qual: str) -> str:
    """The class's own qualified name where the tree re-exports it."""
    cls = index.resolve_class(qual)
    return cls.qualname if cls is not None else qual


def _metaclass(cls) -> str | None:
    for kw in cls.node.keywords:
        if kw.arg == "metaclass":
            return cls.module.qualify(kw.value) if dotted_name(kw.value) else ast.unparse(kw.value)
    return None


def _hooked_metaclass(index, meta: str) -> bool:
    """Whether the metaclass ``meta`` (or a base of it) defines ``__instancecheck__``/``__subclasscheck__``."""
    m = index.resolve_class(meta)
    if m is None:
        return False
    return any(h in c.methods for c in [m, *filter(None, map(index.resolve_class, index.ancestors(m)))] for h in _HOOKS)


def _abc_metaclass(index, meta: str) -> bool:
    m = index.resolve_class(meta)
    return m is not None and bool(set(index.ancestors(m)) & _ABC_META)
