"""DC301 dynamic-self-access: refuse a class whose attributes are reached by computed names.

## What it does
Marks the class unsafe when the class, the parent's ``__init__``, a kept member of the
parent, or any class that stays in the class's MRO after reparenting (the new base and its
ancestors in the tree, the class's other bases) reads or writes ``self`` through a name from
data: ``getattr(self, name)``, ``setattr(self, name, v)``, ``hasattr``/``delattr`` with a name
that is not one of literals the code spells (``codemod/literal_names.py``: those are reads, or
for ``setattr`` writes, of each name), ``vars(self)`` or ``self.__dict__``; or when a metaclass of the tree that
builds the class (set on it or on a class that stays in its MRO, and that metaclass's bases)
does so to the class it is given (``cls``), or walks that class's MRO (``cls.__mro__``,
``cls.__bases__``, ``cls.mro()``, ``inspect.getmro(cls)``): pygments' ``RegexLexerMeta`` merges the ``tokens``
of every class along it, so a parent's ``tokens`` is read without being named.

The parent's store and pickling hooks are the exception DC302 describes: ``self.__dict__[name] =
value`` handing on the store a ``__setattr__`` was given, and a ``__getstate__``/``__setstate__``/
``__reduce__``/``__reduce_ex__`` moving the whole ``self.__dict__``, reach no member by a computed
name (``codemod/attribute_hooks.py``).

The indirect forms count the same (``codemod/reflection.py``): ``getattr`` and its siblings
passed as values (``functools.reduce(getattr, path.split("."), self)``, ``map(getattr, objs,
names)``, ``partial(getattr, obj)``), and ``operator.attrgetter``/``methodcaller`` given a name
that is not a literal. These are rare, so unlike the direct form they are also looked for in
the whole tree, and the first object each reads on is typed as DC108 types a receiver: one that
may be an instance of the class (typed as the class, a subclass or a base, or made there)
refuses the class too; one that cannot be is let pass; one of unknown type, or not written out
(an ``attrgetter(name)`` handed to ``sorted``), is listed among the hazards checked and under
the report's Risks, without refusing, as the direct form is let pass (see below). Candidates
come from the word index (``attrgetter``, ``methodcaller``; or an accessor beside ``map``,
``partial``, ``reduce`` or ``starmap``, whose text then has the accessor followed by ``,`` or
``)``), so most files are never read for it, and few are parsed.

The direct form outside the class (``getattr(obj, name)`` and its siblings, with a name from
data: a parameter, a setting, a file) is looked for in the files that name the class, a
subclass, the parent or one of the parent's ancestors in the tree beside an accessor
(``reflection.class_site_files``: those whose text gives an accessor something other than a
plain literal), where an object typed as one of them is written, and judged the same way, the
typing parsing at most two modules for each: refused on an object that may be the class (a parameter annotated as the parent,
``objects[root]`` of a ``**objects`` parameter that a call site fills with an instance), listed
under Risk with its ``file:line`` on one of unknown type. ``setattr`` counts there only where
the parent has a property: a store otherwise makes an instance attribute with or without the
parent's member.

## Why
Which members such code needs cannot be listed: a dropped member could be the one a
computed name reaches at run time. Nothing is guessed.

## Known problems
A literal name (``getattr(self, "x")``, ``attrgetter("x")``, ``methodcaller("x")``), or one
of spelt literals, is an ordinary read (DC108), not this rule. Classes outside the tree are not
looked at. The direct form in a file that names none of the class's kin is not seen, even on an
instance handed there through a call: such calls sit in some 1,400 of SGLang's 4,700 files
(DC108's known problems). An object there that only a typing past two modules would show to
be the class is listed under Risk, not refused. ``reduce(getattr, path, obj)`` with a literal path is refused like a
computed one: it is not read as a chain of spelt names. Of a chain (``reduce(getattr, "a.b".split("."), obj)``, a computed
``attrgetter`` name with a dot) only the first object is typed: the later steps read on the
values of its attributes, which are not followed, as the direct ``getattr(obj.a, name)`` is not.
An accessor under another name (``get = getattr``, ``attrgetter`` imported ``as``), or passed to
an applier other than those four, is not seen. An object of unknown type is not refused: on
SGLang 0.5.23 the one site, ``attrgetter(f.name)(obj)`` in ``multimodal_gen/configs/utils.py``,
is of unknown type only because a test passes it a dataclass defined in a function, and
refusing there would refuse every class of the tree; so a C that reaches such a site through
code the typing does not follow (``objs = [c]; map(getattr, objs, names)``) loses the member it
reads (pinned as strict expected failures in ``tests/rules/test_indirect_reflection.py``).

## Fix safety
No patch is written (exit 3); the report lists where the computed access is.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name, first_param, is_static, walk
from ..facts import collect
from ..literal_names import names as literal_names
from ..model import ClassAnalysis, Hazard, Receiver
from ..reflection import ACCESSORS, APPLIER_WORDS, GETTER_WORDS, UNKNOWN, UNKNOWN_RECEIVER, class_site_files, computed_access, computed_name, shown

ID = "DC301"
NAME = "dynamic-self-access"
# Modules the typing of a direct site's object may parse: these sites are many more than the
# indirect ones, and one that is not typed within it is listed under Risk, not let pass unsaid.
DIRECT_PARSES = 2


def record(a: ClassAnalysis, file: str, line: int, what: str) -> None:
    a.unsafe.append(Hazard(file, line, what, rule=ID))


def check_staying(st) -> None:
    """Computed access on self in the classes that stay in C's MRO, and on the class in the
    metaclasses that build it."""
    for c in st.staying_classes():
        for name, fn in c.methods.items():
            sn = first_param(fn) if not is_static(fn) else None
            if sn is None:
                continue
            for line, what in collect(fn, sn).dynamic:
                record(st.a, c.file, line, f"{what} in {c.name}.{name}, which stays in {st.a.cls.name}'s MRO after reparenting")
    for meta in _metaclasses(st):
        for name, fn in meta.methods.items():
            sn = first_param(fn) if not is_static(fn) else None
            if sn is None:
                continue
            found = collect(fn, sn).dynamic + _mro_walks(fn, sn)
            for line, what in found[:1]:
                record(st.a, meta.file, line, f"{what} in {meta.name}.{name}, the metaclass that builds {st.a.cls.name}")


def _metaclasses(st) -> list:
    """The tree's metaclasses named by ``metaclass=`` on C or a class that stays in its MRO,
    with their ancestors in the tree."""
    index, out, seen = st.index, [], set()
    for c in [st.a.cls, *st.staying_classes()]:
        for k in c.node.keywords:
            if k.arg != "metaclass" or dotted_name(k.value) is None:
                continue
            top = index.resolve_class(c.module.qualify(k.value))
            for q in ([top.qualname, *index.ancestors(top)] if top is not None else []):
                m = index.resolve_class(q)
                if m is not None and id(m) not in seen:
                    seen.add(id(m))
                    out.append(m)
    return out


def _mro_walks(fn: ast.AST, sn: str) -> list[tuple[int, str]]:
    """Where ``fn`` walks the MRO, or the bases, of its first parameter ``sn``."""
    out = []
    for node in walk(fn):
        if isinstance(node, ast.Attribute) and node.attr in ("__mro__", "__bases__", "mro") and isinstance(node.value, ast.Name) and node.value.id == sn:
            out.append((node.lineno, f"{sn}.{node.attr}"))
        elif (isinstance(node, ast.Call) and dotted_name(node.func) in ("inspect.getmro", "getmro") and node.args
              and isinstance(node.args[0], ast.Name) and node.args[0].id == sn):
            out.append((node.lineno, f"getmro({sn})"))
    return out


def check_outside(st) -> None:
    """The indirect forms of computed access anywhere in the tree: refused on an object that may
    be an instance of the class (typed as it, a subclass or a base); listed among the hazards
    checked, without refusing, on one whose type is unknown, as the direct form is let pass."""
    from ..receiver_typing.typing_flow import SHOWN

    a = st.a
    own = {id(c.node) for c in [*a.chain, *st.staying_classes()]} | {id(a.cls.node)}
    flow = None
    sites = [(*site, None) for site in _outside_sites(st.index)] + _direct_sites(st)
    for mod, node, receivers, what, parses in sites:
        if st.in_dropped_parent_code(mod, node):
            continue
        unknown = None
        for recv in receivers:
            if recv is UNKNOWN:
                unknown = unknown or "what it reads on is not written here"
                continue
            if _own_self(mod, recv, node, own):
                continue  # C's own code and the parent's kept code: collect() saw it
            flow = flow or st.receivers()
            verdict, note, strength = flow.classify(mod, recv, node, parses)
            if verdict == Receiver.YES or (verdict == Receiver.MAYBE and strength == SHOWN):
                record(a, mod.rel, node.lineno, f"{what}, on an object that may be a {a.cls.name} ({note})")
                break
            if verdict == Receiver.MAYBE:
                unknown = unknown or note
        else:
            if unknown:
                a.hazards.append(Hazard(mod.rel, node.lineno, (
                    f"{what}{UNKNOWN_RECEIVER}({unknown}): not refused, like a computed getattr(x, name) "
                    f"outside the class, though a member dropped from {a.cls.name} and read there would fail"),
                    changes_meaning=False, rule=ID))


def _direct_sites(st) -> list:
    """``getattr(obj, name)`` and its siblings, with a name from data (not one of literals the
    code spells: ``literal_names``), in the files that name the class or its kin
    (``reflection.class_site_files``): (module, node, receivers, what, the typing's budget)."""
    # A store makes an instance attribute whatever the parent had, unless the name is a
    # property's, whose setter runs: setattr counts only where the parent has one.
    stores = any(m.kind == "property" for m, _ in st.a.members.values())
    found = []
    for rel in class_site_files(st):
        mod = st.index.module(rel)
        for node in mod.nodes if mod is not None else ():
            name = computed_name(node) if node.__class__ is ast.Call else None
            if name is not None and (stores or node.func.id != "setattr") and literal_names(name, mod.parents) is None:
                found.append((mod, node, [node.args[0]], f"{node.func.id}({shown(node.args[0])}, {shown(name)}) (a computed name)",
                              DIRECT_PARSES))
    return found


def _outside_sites(index) -> list:
    """Every site of the tree, found once per run: (module, node, receivers, what)."""
    return index.once("reflection sites", lambda: _find_outside_sites(index))


def _find_outside_sites(index) -> list:
    tree = index.tree
    # An accessor passed as a value needs an applier beside it: both words, then the text has
    # it followed by a comma or a parenthesis (`reduce(getattr, ...)`, `partial(getattr)`).
    appliers = set(tree.files_with_words(APPLIER_WORDS))
    passed = tree.grep(_passed, words=tuple(sorted(ACCESSORS)), among=appliers)
    found = []
    for rel in sorted(set(passed) | set(tree.files_with_words(GETTER_WORDS))):
        mod = index.module(rel)
        if mod is None:
            continue
        parents = mod.parents
        for node in mod.nodes:
            hit = computed_access(node, parents)
            if hit is not None:
                found.append((mod, node, *hit))
    return found


# A regex that starts with the accessors' names costs several times the rest of the run on these
# files (Python's re has no fast search for an alternation): "attr" is searched for, the name
# before it checked by hand.
_ATTR_VALUE = re.compile(r"attr\s*[,)]")


def _passed(text: str) -> bool:
    for m in _ATTR_VALUE.finditer(text):
        i = m.start()
        if i >= 3 and text[i - 3:i] in _HEADS and not (text[i - 4:i - 3].isalnum() or text[i - 4:i - 3] == "_"):
            return True
    return False


_HEADS = {a[:3] for a in ACCESSORS}


def _own_self(mod, recv, node, own: set[int]) -> bool:
    """Whether ``recv`` is the first parameter of a method of C or of the chain."""
    from ..receiver_typing.typing_flow import enclosing_class

    fn, owner = enclosing_class(mod, node)
    return (owner is not None and id(owner.node) in own and fn is not None and not is_static(fn)
            and isinstance(recv, ast.Name) and recv.id == first_param(fn))
