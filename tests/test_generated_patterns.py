"""Generated hierarchies with the patterns that broke patches on other people's code, original vs patched.

A grammar composes a three-level hierarchy (``Base`` -> ``Parent`` -> ``Child``) from pieces
seen in real code: the parent's ``__init__`` calling its own helpers and hooks through ``self``
(some overridden by the child), an explicit ``Base.__init__(self, ...)``, bound methods stored
while constructing, properties with setters, cached properties, special methods used
implicitly (an operator among them), class attributes overridden in the child, keyword and ``**kwargs`` forwarding,
default arguments, module helpers whose names the child's module binds to other objects,
an exception family caught with ``except Parent`` elsewhere, an outside holder that gets the
instance through a subclass's store, a store by other code, or ``c or None``, validations (``raise``,
``assert``, a checking method or module function), and hand-offs of the instance (a module
registry, a global dict, a callback list, a holder that keeps it to itself, a holder that
registers it; the probe counts what is published), a child method that falls back to
the parent's through ``super()`` (or reads one of its members through ``super()`` as a value), and the shapes of issue 25: a parent with a second base (a
cooperative mixin, before or after), ``super(Parent, self)``, the child calling the parent's
``__init__`` under an import alias or not defining one (the parent's signature is then written
into it, its default read from a module constant that the child's module may bind otherwise), a
class attribute merged along the MRO, an assignment in the
parent's ``__init__`` that runs a property setter, ``getattr`` passed to ``functools.reduce``,
and a table keyed by class that a walk along the instance's MRO looks up; computed attribute names (issue 37)
spelt as literals, read from data, or applied through ``**kwargs``; and the shapes of issue 37:
a logger named after the module in the parent's ``__init__``, a kept file or event whose header or
``set()`` the slice would drop, ``singledispatchmethod`` registrations under ``_``, and a guard on a
runtime-checkable Protocol (for a method of the child's own, or one it overrides). The tool runs on each; where it
patches, a probe runs against the original and the patched package in fresh interpreters, and
their transcripts must be equal, as must every attribute the patched instance still has.
A decline or a refusal is never a failure; a patch that changes behaviour is.

300 examples by default; ``--slow`` runs 2,000. A counterexample is saved under
``output/counterexamples/`` as a tree that can become a fixture.
"""

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import REPO, write_files
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from codemod.cli import main as decouple_main

ATTRS = ["alpha", "beta", "gamma", "delta"]
HIDDEN = ["logger", "journal", "event", "dispatch", "protocol", "protocol-overridden"]
# What each hidden shape adds: lines of the parent's __init__, parent methods, what the child's look() returns.
_HIDDEN_INIT = {"logger": ["        self.log_name = logging.getLogger(__name__).name"],
                "journal": ["        self.journal = io.StringIO()", "        self.journal.write('header;')"],
                "event": ["        self.ready = threading.Event()", "        self.ready.set()"]}
_HIDDEN_METHODS = {"dispatch": "    @functools.singledispatchmethod\n    def fmt(self, x):\n        return 'obj'\n\n"
                               "    @fmt.register\n    def _(self, x: int):\n        return 'int:' + self.label\n\n"
                               "    @fmt.register\n    def _(self, x: str):\n        return 'str'\n",
                    # The guard asks for a method the parent defines and the child overrides.
                    "protocol-overridden": "    def look(self):\n        return 'parent look'\n"}
_HIDDEN_LOOK = {"logger": ["self.log_name"], "journal": ["self.journal.getvalue()"], "event": ["self.ready.is_set()"],
                "dispatch": ["self.fmt(1)", "self.fmt('a')", "self.fmt(2.5)"]}
_PROTOCOL = ("\n\nfrom typing import Protocol, runtime_checkable\n\n\n@runtime_checkable\nclass HasLook(Protocol):\n"
             "    def look(self): ...\n\n\ndef proto(x):\n    return x.gamma if isinstance(x, HasLook) else None\n")
# The one route to the child that pkg/carrier.py holds besides Other: with no other route in the
# file, a receiver the typing gets wrong there drops ATTR, and the probe sees it.
_HOLDER = "\n\nclass Holder:\n    def __init__(self):\n        self.backend = Other()\n\n    def read(self):\n        return self.backend.ATTR\n"
CARRIERS = {
    "none": "",
    "subclass": _HOLDER + "\n\nclass Sub(Holder):\n    def __init__(self, backend):\n        self.backend = backend\n",
    "wire": _HOLDER + "\n\ndef wire(h, c):\n    h.backend = c\n    return h.read()\n",
    "or": _HOLDER + "\n\ndef wire_or(h, c):\n    h.backend = c or None\n    return h.read()\n",
    "index": "\n\nclass Box:\n    def __init__(self):\n        self.items = [Other()]\n\n    def read(self):\n        return self.items[-1].ATTR\n"
             "\n\ndef wire_index(c):\n    box = Box()\n    box.items[0] = c\n    return box.read()\n",
    "inherit": "\n\nclass Keeper:\n    def __init__(self, backend):\n        self.backend = backend\n\n    def read(self):\n        return self.backend.ATTR\n"
               "\n\nclass Heir(Keeper):\n    pass\n\n\nKEPT = Keeper(Other()).read()\n",
    "unpack": "\n\ndef pair(c):\n    return c, 0\n\n\ndef wire_unpack(c):\n    x = Other()\n    x, _ = pair(c)\n    return x.ATTR\n",
    "callback": "\n\ndef read_it(x):\n    return x.ATTR\n\n\ndef apply(fn, c):\n    return fn(c)\n\n\nKEPT = read_it(Other())\n",
    "rebound": "\n\nclass Maker:\n    @classmethod\n    def pick(cls, c):\n        cls = c\n        return cls\n\n\ndef wire_rebound(c):\n    return Maker.pick(c).ATTR\n",
    "duck": "\n\ndef duck(x):\n    return hasattr(x, 'ATTR') and hasattr(x, 'nowhere_else')\n",
    "duck-kept": "\n\ndef duck(x):\n    return hasattr(x, 'label') and hasattr(x, 'ATTR')\n",
    # Reflection and type tests in their indirect forms: getattr passed as a value, and a table
    # keyed by class that a walk along the instance's MRO looks up (a hand-written singledispatch).
    "reduce": "\n\nimport functools\n\n\ndef wire_reduce(c, path='ATTR'):\n    return functools.reduce(getattr, path.split('.'), c)\n",
    # Computed names (issue 37): spelt as literals they are reads of each (a loop over a tuple,
    # a module constant, a dict literal's items); from data, or through **kwargs, on an object
    # typed as the child they refuse it.
    "spelt": "\n\ndef spelt(x):\n    return [getattr(x, a) for a in ('ATTR', 'label')]\n",
    "spelt-constant": "\n\nFIELDS = {'ATTR': 1, 'kind': 2}\n\n\ndef spelt_constant(x):\n    return {k: getattr(x, k) for k, _ in FIELDS.items()}\n",
    "data-name": "\n\nimport json\n\nfrom .child import Child\n\n\ndef from_data(x: Child, raw='[\"ATTR\"]'):\n"
                 "    return [getattr(x, n) for n in json.loads(raw)]\n",
    "kwargs-reduce": "\n\nimport functools\n\n\ndef render_kw(tpl, **objects):\n"
                     "    return [functools.reduce(getattr, path, objects[root]) for root, path in tpl]\n",
    "dispatch": "\n\nfrom .parent import Parent\n\nHANDLERS = {Parent: 'parent', object: 'object'}\n\n\n"
                "def dispatch(x):\n    for k in type(x).__mro__:\n        if k in HANDLERS:\n            return HANDLERS[k]\n",
}


@st.composite
def pieces(draw):
    p = {}
    p["explicit_base_init"] = draw(st.booleans())
    p["two_arg_super"] = draw(st.booleans())  # super(Parent, self).__init__(...) where not explicit
    p["mixin"] = draw(st.sampled_from(["none", "first", "second"]))  # a second base of the parent, and where
    # BaseParent.__init__(self, ...) under an import alias, or no __init__ at all (the parent's runs)
    p["child_call"] = draw(st.sampled_from(["super", "alias", "inherit"]))
    p["mro_walk"] = draw(st.booleans())  # the parent's __init__ merges a class attribute along the MRO
    p["helper_sets"] = draw(st.lists(st.sampled_from(["alpha", "gamma", "delta"]), max_size=2, unique=True))  # _setup() assigns these
    p["hook"] = draw(st.sampled_from(["none", "parent", "child", "both"]))  # configure(): who defines it
    p["stores_handler"] = draw(st.booleans())
    p["property"] = draw(st.sampled_from(["none", "plain", "setter", "setter-assigned", "cached"]))
    p["dunders"] = draw(st.lists(st.sampled_from(["__repr__", "__len__", "__eq__", "__add__"]), max_size=2, unique=True))
    p["class_attr"] = draw(st.sampled_from(["none", "same", "overridden"]))
    p["forward"] = draw(st.sampled_from(["positional", "keyword", "default", "kwargs"]))
    p["clash"] = draw(st.lists(st.sampled_from(["helper", "SCALE", "NAME"]), max_size=3, unique=True))
    p["exception"] = draw(st.booleans())
    p["validation"] = draw(st.sampled_from(["none", "raise", "assert", "self-check", "module-check"]))
    p["fallback"] = draw(st.sampled_from(["none", "label", "plan"]))  # the child overrides it and calls super()
    # Issue 37: a member read through super() as a value: a class attribute (overridden by the
    # child or not), the parent's property, a bound method called later.
    p["super_read"] = draw(st.sampled_from(["none", "none", "kind", "kind-overridden", "prop", "bound"]))
    p["registration"] = draw(st.sampled_from(["none", "module", "global-dict", "callback", "keeps-to-itself", "holder-publishes"]))
    p["child_reads"] = draw(st.lists(st.sampled_from(ATTRS + ["label", "kind", "prop"]), min_size=1, max_size=3, unique=True))
    p["child_sets_before_super"] = draw(st.sampled_from([None] + ATTRS))
    p["child_assigns_prop"] = draw(st.booleans())
    p["outside"] = draw(st.lists(st.sampled_from(ATTRS + ["label", "kind"]), max_size=2, unique=True))
    # An outside holder whose own store is of another class, read on an instance of it that got
    # the child another way: a subclass's store, a store by code elsewhere, ``c or None``.
    # Or through a route the typing must see: an element stored by index, an inherited __init__,
    # unpacking what a call returns, a function passed as a value, a classmethod's cls bound
    # again; or duck-typing tests, one that no instance passes and one it may.
    p["carrier"] = draw(st.sampled_from(["none", "subclass", "wire", "or", "index", "inherit", "unpack", "callback", "rebound", "duck",
                                            "duck-kept", "reduce", "dispatch", "spelt", "spelt-constant", "data-name", "kwargs-reduce"]))
    p["carrier_reads"] = draw(st.sampled_from(ATTRS))
    # Issue 27: tiny parent methods beside the heavy __init__ work, **kwargs the parent pops from,
    # the parent's hooks, a class-body alias of a method, a dataclass base whose generated
    # __init__ calls the parent's __post_init__.
    p["tiny"] = draw(st.lists(st.sampled_from(["static", "classmethod", "small-property", "loop"]), max_size=2, unique=True))
    p["pops"] = draw(st.booleans())
    p["parent_hook"] = draw(st.sampled_from(["none", "setattr-validates", "setattr-dict", "setattr-counts", "getstate", "new",
                                             "init-subclass"]))
    p["alias"] = draw(st.booleans())
    p["dataclass_base"] = draw(st.booleans())
    # The parent itself a dataclass: decorated around its own __init__, or with the __init__ the
    # decorator generates (fields n and name, the work in __post_init__), with eq/repr off or on.
    # Two draws in three keep the plain parent: most dataclass shapes are refused, and the rest of
    # the grammar must still reach patches often enough.
    p["dataclass_parent"] = draw(st.sampled_from(["none"] * 6 + ["decorated", "generated", "generated-default"]))
    # Issue 37's hidden shapes: moved code that reads where it is written (a logger named after the
    # module), a dropped call on a kept object (a file's header, an event set), registrations under
    # a throw-away name (singledispatchmethod's ``_``), and a structural guard (a Protocol).
    p["hidden"] = draw(st.lists(st.sampled_from(HIDDEN), max_size=2, unique=True))
    # Issue 37's declines that became patches: a generic parent (Generic[T] among its bases, or a
    # generic base Base[T]) named bare or subscripted by the child; __slots__ in the parent, in
    # both (__weakref__ too, on a slotted Base); name-mangled members; class-level annotations.
    p["generic"] = draw(st.sampled_from(["none"] * 4 + ["plain", "subscripted", "base-plain", "base-subscripted", "alias-plain"]))
    p["slots"] = draw(st.sampled_from(["none"] * 4 + ["parent", "both", "both-weakref"]))
    p["private"] = draw(st.booleans())
    p["annotations"] = draw(st.booleans())
    return p


def render(p) -> tuple[dict[str, str], str]:
    exc = p["exception"]
    dc = p["dataclass_base"] and not exc
    base = textwrap.dedent(f"""
        import dataclasses


        @dataclasses.dataclass(eq=False)
        class Base:
            name: str = "base"
            kind = "base"
    """ if dc else f"""
        class Base{'(Exception)' if exc else ''}:
            kind = "base"

            def __init__(self, name="base"):
                {'super().__init__(name)' if exc else 'pass'}
                self.name = name
    """) + textwrap.dedent(f"""


        class Mixin:
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.mixed = len(args)

            def tag(self):
                return "mixin"
    """)
    generic, slots = p.get("generic", "none"), p.get("slots", "none")
    if slots == "both-weakref" and (dc or exc or p["mixin"] != "none"):
        slots = "both"  # a __weakref__ slot is only allowed where no base gives one yet
    if generic != "none":
        base = "from typing import Generic, TypeVar\n\nT = TypeVar('T')\n" + base
    if generic.startswith("base-"):
        base = base.replace("class Base(Exception):", "class Base(Exception, Generic[T]):").replace("class Base:", "class Base(Generic[T]):")
    if slots == "both-weakref":
        base = base.replace("    kind = \"base\"\n", "    __slots__ = ('name', '__dict__')\n    kind = \"base\"\n", 1)
    bases = {"none": "Base", "first": "Mixin, Base", "second": "Base, Mixin"}[p["mixin"]]
    if generic.startswith("base-"):
        bases = bases.replace("Base", "Base[T]")
    elif generic == "alias-plain":
        bases += ", Iterable[T]"
    elif generic != "none":
        bases += ", Generic[T]"
    init = []
    init.append('        Base.__init__(self, name)' if p["explicit_base_init"] else
                '        super(Parent, self).__init__(name)' if p["two_arg_super"] else '        super().__init__(name)')
    if p["mro_walk"]:
        init += ["        self.merged = {}", "        for k in reversed(type(self).__mro__):",
                 "            self.merged.update(vars(k).get('messages', {}))"]
    init.append("        self.pool = [0] * (n * 50)")
    init.append("        self.alpha = helper(n) * SCALE")
    init.append("        self.beta = [i * 2 for i in range(n)]")
    init.append("        self._setup(n)")
    if p["hook"] in ("parent", "both", "child"):
        init.append("        self.configure()")
    if p["stores_handler"]:
        init.append("        self.on_event = self.handle")
    init += {"none": [], "raise": ["        if n > 2:", "            raise ValueError('n too big')"],
             "assert": ["        assert n != 1, 'n is one'"], "self-check": ["        self._check(n)"],
             "module-check": ["        check(n)"]}[p["validation"]]
    init += {"none": [], "module": ["        register(self)"], "global-dict": ["        REGISTRY[n] = self"],
             "callback": ["        LISTENERS.append(self.handle)"], "keeps-to-itself": ["        self.holder = Holder(self)"],
             "holder-publishes": ["        self.watch = Watcher(self)"]}[p["registration"]]
    init.append("        self.gamma = len(self.beta) + self.alpha")
    init.append("        self.delta = self.gamma if n > 1 else -1")
    init.append("        self.prop = n" if p["property"] == "setter-assigned" else "        self._prop = n")
    init.append("        self.label = f'{name}:{n}'")
    hidden = p.get("hidden", [])
    for h in hidden:
        init += _HIDDEN_INIT.get(h, [])
    if p.get("private"):
        init.append("        self.__secret = n * 3")
    if p["pops"]:
        init += ["        self.flag = extra.pop('flag', False)", "        self.rest = sorted(extra)"]
    methods = []
    dcp = p.get("dataclass_parent", "none") if not p["pops"] else "none"
    if dc and not dcp.startswith("generated"):
        methods.append("    def __post_init__(self):\n        self.table = [i * i for i in range(64)]\n")
    methods += {"none": [], "setattr-validates": [
        "    def __setattr__(self, key, value):\n        if key == 'label' and not isinstance(value, str):\n"
        "            raise TypeError('label')\n        super().__setattr__(key, value)\n"],
        "setattr-dict": ["    def __setattr__(self, key, value):\n        if key.startswith('_prop'):\n"
                         "            self.__dict__[key] = value\n            return\n        self.__dict__[key] = value\n"],
        "setattr-counts": ["    def __setattr__(self, key, value):\n        object.__setattr__(self, 'stores', getattr(self, 'stores', 0) + 1)\n"
                           "        object.__setattr__(self, key, value)\n"],
        "getstate": ["    def __getstate__(self):\n        state = self.__dict__.copy()\n        state.pop('on_event', None)\n        return state\n\n"
                     "    def __setstate__(self, state):\n        self.__dict__.update(state)\n"],
        "new": ["    def __new__(cls, *args, **kwargs):\n        inst = super().__new__(cls)\n        inst.serial = next(SERIALS)\n        return inst\n"],
        "init-subclass": ["    def __init_subclass__(cls, **kw):\n        super().__init_subclass__(**kw)\n        SUBCLASSES.append(cls.__name__)\n"],
    }[p["parent_hook"]]
    tiny = {"static": "    @staticmethod\n    def round_up(x, m=8):\n        return (x + m - 1) // m * m\n",
            "classmethod": "    @classmethod\n    def kind_of(cls):\n        return cls.kind\n",
            "small-property": "    @property\n    def shout(self):\n        return self.label.upper()\n",
            "loop": "    def total(self, xs):\n        t = 0\n        for x in xs:\n            t += x\n        return t\n"}
    methods += [tiny[t] for t in p["tiny"]]
    if p["alias"]:
        methods.append("    def begin(self):\n        self.active = True\n        return self\n\n"
                       "    def end(self, *exc):\n        self.active = False\n\n    __enter__ = begin\n    __exit__ = end\n")
    sets = p["helper_sets"]
    methods.append("    def _setup(self, n):\n" + "".join(f"        self.{a} = n + {i} + SCALE\n" for i, a in enumerate(sets)) + "        self.ready = True\n")
    if p["hook"] in ("parent", "both"):
        methods.append("    def configure(self):\n        self.mode = 'parent'\n")
    elif p["hook"] == "child":
        methods.append("    def configure(self):\n        pass\n")
    methods.append("    def handle(self, x):\n        return ('parent', x)\n")
    methods.append("    def label_of(self, suffix=''):\n        return self.label + suffix\n")
    methods.append("    def _check(self, n):\n        if n == 3:\n            raise ValueError('three')\n")
    if p["property"] == "plain":
        methods.append("    @property\n    def prop(self):\n        return self._prop * 2\n")
    elif p["property"] == "setter":
        methods.append("    @property\n    def prop(self):\n        return self._prop * 2\n\n"
                       "    @prop.setter\n    def prop(self, value):\n        self._prop = max(0, value)\n")
    elif p["property"] == "setter-assigned":
        methods.append("    @property\n    def prop(self):\n        return self._prop * 2 + self.clamped\n\n"
                       "    @prop.setter\n    def prop(self, value):\n        self._prop = max(0, value)\n        self.clamped = int(value < 1)\n")
    elif p["property"] == "cached":
        methods.append("    @functools.cached_property\n    def prop(self):\n        return self._prop * 3\n")
    for d in p["dunders"]:
        body = {"__repr__": "return f'P({self.label})'", "__len__": "return len(self.beta)",
                "__eq__": "return isinstance(other, Parent) and self.label == other.label",
                "__add__": "return len(self.beta) + other"}[d]
        sig = "(self, other)" if d in ("__eq__", "__add__") else "(self)"
        methods.append(f"    def {d}{sig}:\n        {body}\n")
    if "__eq__" in p["dunders"]:
        methods.append("    __hash__ = None\n")
    methods += [_HIDDEN_METHODS[h] for h in hidden if h in _HIDDEN_METHODS]
    if p.get("private"):
        methods.append("    def __mix(self):\n        return self.__secret + 1\n\n    def secret_of(self):\n        return self.__mix()\n")
    if generic != "none":
        methods.append("    def first(self) -> T:\n        return self.beta[0] if self.beta else None\n")
    if generic == "alias-plain":
        methods.append("    def __iter__(self):\n        return iter(self.beta)\n")
    methods.append("    def plan(self, batch):\n        out = []\n        for item in batch:\n            slot = self.pool[item % len(self.pool)]\n"
                   "            out.append(slot + item)\n        return out\n")
    class_attr = {"none": "", "same": "    kind = 'base'\n", "overridden": "    kind = 'parent'\n"}[p["class_attr"]]
    if p["mro_walk"]:
        class_attr += "    messages = {'parent': 1}\n"
    if slots != "none":
        names = ["alpha", "beta", "pool"] + (["__secret"] if p.get("private") else []) + (["__weakref__"] if slots == "both-weakref" else [])
        class_attr += f"    __slots__ = {tuple(names)!r}\n"
    if p.get("annotations"):
        class_attr += "    gamma: int\n    delta: 'int'\n    level: int = 0\n"
    parent = (
        f"import functools\n{'import io' + chr(10) if 'journal' in hidden else ''}import itertools\n"
        f"{'import logging' + chr(10) if 'logger' in hidden else ''}{'import threading' + chr(10) if 'event' in hidden else ''}"
        f"{'from typing import Generic' + chr(10) if generic in ('plain', 'subscripted') else ''}"
        f"{'from typing import Iterable' + chr(10) if generic == 'alias-plain' else ''}"
        f"\nfrom .base import {'Base' if p['mixin'] == 'none' else 'Base, Mixin'}{', T' if generic != 'none' else ''}\n\n"
        "SCALE = 2\nNAME = 'p'\nREGISTRY = {}\nLISTENERS = []\nSUBCLASSES = []\nSERIALS = itertools.count()\n\n\ndef helper(x):\n    return x + 1\n\n\n"
        "def register(obj):\n    REGISTRY[id(obj)] = obj\n\n\ndef check(n):\n    if n == 0:\n        raise ValueError('zero')\n\n\n"
        "class Holder:\n    def __init__(self, owner):\n        self.owner = owner\n        self.size = len(owner.beta)\n\n\n"
        "class Watcher:\n    def __init__(self, owner):\n        self.owner = owner\n        register(owner)\n\n\n"
        f"class Parent({bases}):\n{class_attr}\n    def __init__(self, n, name=NAME, **extra):\n" + "\n".join(init) + "\n\n" + "\n".join(methods)
    )
    if dcp != "none":
        options = "" if dcp == "generated-default" else "(eq=False, repr=False)"
        parent = "import dataclasses\n" + parent.replace(f"class Parent({bases}):", f"@dataclasses.dataclass{options}\nclass Parent({bases}):")
    if dcp.startswith("generated"):
        # The generated __init__ stores the fields and runs __post_init__: the same work, minus super().__init__.
        parent = parent.replace("    def __init__(self, n, name=NAME, **extra):\n" + init[0] + "\n",
                                "    n: int\n    name: str = 'p'\n\n    def __post_init__(self):\n        n, name = self.n, self.name\n")
    call = {"positional": "super().__init__(n, 'c')", "keyword": "super().__init__(n, name='c')",
            "default": "super().__init__(n)", "kwargs": "super().__init__(n, **extra)"}[p["forward"]]
    if p["child_call"] == "alias":
        call = call.replace("super().__init__(", "BaseParent.__init__(self, ")
    child_init = ["    def __init__(self, n, **extra):"]
    if p["child_sets_before_super"]:
        child_init.append(f"        self.{p['child_sets_before_super']} = 'own'")
    child_init.append(f"        {call}")
    if p.get("private"):
        child_init.append("        self.__secret = 'child'")
    if p["pops"]:
        child_init.append("        self.own_extra = sorted(extra)")
    if p["child_assigns_prop"] and p["property"] == "setter":
        child_init.append("        self.prop = -5")
    child_methods = []
    if p["hook"] in ("child", "both"):
        child_methods.append("    def configure(self):\n        self.mode = 'child'\n        self.steps = [self.alpha] * 2\n")
    child_methods.append("    def handle(self, x):\n        return ('child', x)\n")
    if p["fallback"] == "label":
        child_methods.append("    def label_of(self, suffix=''):\n        return super().label_of(suffix) + '!'\n")
    elif p["fallback"] == "plan":
        child_methods.append("    def plan(self, batch):\n        return [x + 1 for x in super().plan(batch)]\n")
    sup = {"kind": "super().kind", "kind-overridden": "super().kind + self.kind", "prop": "super(Child, self).prop",
           "bound": "super().label_of"}.get(p["super_read"]) if p["super_read"] != "prop" or p["property"] != "none" else None
    if sup is not None:
        child_methods.append(f"    def sup(self):\n        got = {sup}\n        return got('~') if callable(got) else got\n")
    reads = [r for r in p["child_reads"] if r != "prop" or p["property"] != "none"]
    exprs = [f"self.{r}" for r in reads] + ["helper(1)", "SCALE"] + (["self.sup()"] if sup is not None else [])
    exprs += {"static": ["self.round_up(5)"], "classmethod": ["self.kind_of()"], "small-property": ["self.shout"],
              "loop": ["self.total([1, 2, 3])"]}[p["tiny"][0]] if p["tiny"] else []
    if p["parent_hook"] == "new":
        exprs.append("self.serial")
    if p["pops"] and p["child_call"] != "inherit":
        exprs += ["self.own_extra", "self.flag", "self.rest"]
    exprs += [e for h in hidden for e in _HIDDEN_LOOK.get(h, [])]
    exprs += (["self.secret_of()"] if p.get("private") else []) + (["self.first()"] if generic != "none" else [])
    if p.get("private") and p["child_call"] != "inherit":
        exprs.append("self.__secret")
    if p.get("annotations"):
        exprs.append("self.level")
    child_methods.append(f"    def look(self):\n        return [{', '.join(exprs)}]\n")
    if p["mro_walk"]:
        child_methods.append("    def msgs(self):\n        return sorted(self.merged)\n")
    clash = "".join({"helper": "\n\ndef helper(x):\n    return x * 100\n", "SCALE": "\nSCALE = 10\n", "NAME": "\nNAME = 'other'\n"}[c]
                    for c in p["clash"])
    if "helper" not in p["clash"]:
        clash += "\n\ndef helper(x):\n    return x + 1\n"
    if "SCALE" not in p["clash"]:
        clash += "\nSCALE = 2\n"
    imported = "Parent as BaseParent" if p["child_call"] == "alias" else "Parent"
    spelled = "BaseParent" if p["child_call"] == "alias" else "Parent"
    child_attr = "    messages = {'child': 2}\n\n" if p["mro_walk"] else ""
    if p["super_read"] == "kind-overridden":
        child_attr += "    kind = 'child'\n\n"
    if slots in ("both", "both-weakref"):
        child_attr += "    __slots__ = ('own_slot',)\n\n"
    if p["child_call"] == "inherit":
        child_init = []  # the parent's __init__ runs: the rewrite writes one with its signature
    child = (f"from .parent import {imported}\n" + clash + f"\n\nclass Child({spelled}{'[int]' if generic.endswith('subscripted') else ''}):\n" + child_attr
             + ("\n".join(child_init) + "\n\n" if child_init else "") + "\n".join(child_methods))
    # The probe observes only what code in the tree uses: what is used nowhere may go.
    seen = [f"c.{o}" for o in p["outside"]] + (["c.on_event(1)"] if p["stores_handler"] else [])
    seen += {"none": [], "subclass": ["Sub(c).read()"], "wire": ["wire(Holder(), c)"], "or": ["wire_or(Holder(), c)"],
             "index": ["wire_index(c)"], "inherit": ["Heir(c).read()"], "unpack": ["wire_unpack(c)"],
             "callback": ["apply(read_it, c)"], "rebound": ["wire_rebound(c)"], "duck": ["duck(c)"],
             "duck-kept": ["duck(c)"], "reduce": ["wire_reduce(c)"], "dispatch": ["dispatch(c)"], "spelt": ["spelt(c)"],
             "spelt-constant": ["spelt_constant(c)"], "data-name": ["from_data(c)"],
             "kwargs-reduce": [f"render_kw(((\'b\', [\'{p['carrier_reads']}\']),), b=c)"]}[p["carrier"]]
    protocol = "protocol" in hidden or "protocol-overridden" in hidden
    seen += ["proto(c)"] if protocol else []
    outside = ", ".join(seen) or "None"
    names = sorted(set(re.findall(r"^(?:class|def) (\w+)", CARRIERS[p["carrier"]], re.M)) | {"Other"})
    user = f"from .carrier import {', '.join(names)}\n\n\ndef peek(c):\n    return [{outside}]\n"
    if protocol:
        user += _PROTOCOL
    if p["carrier"] in ("reduce", "kwargs-reduce"):
        # getattr by a computed name on an object of unknown type is listed, not refused (DC301's
        # known problems, as for a plain getattr(x, name)): the route to the child is typed here,
        # so that the tool must refuse or keep what the path names.
        user = user.replace("def peek(c):", "def peek(c: Child):").replace("\n\n\ndef peek", "\nfrom .child import Child\n\n\ndef peek", 1)
    if exc:
        user = "from .parent import Parent\n\n\n" + user + textwrap.dedent("""


            def guarded(make):
                try:
                    raise make()
                except Parent:
                    return "caught"
                except Exception as exc:
                    return type(exc).__name__
        """)
    probe = textwrap.dedent(f"""
        import json
        import pickle
        from pkg import parent as P
        from pkg.child import Child
        from pkg.user import peek
        out, state = [], []
        for n in (0, 1, 3):
            try:
                c = (Child(n, name="x", **({{"flag": 1}} if {p['pops']} else {{}})) if {p['forward'] == 'kwargs'} else Child(n))
            except Exception as exc:
                out.append(type(exc).__name__)
                continue
            row = []
            calls = ["c.look()", "peek(c)", "c.label_of('?')" if {p['fallback'] == 'label'} else "c.plan([1, 2])" if {p['fallback'] == 'plan'} else "0", "repr(c) if type(c).__repr__ is not object.__repr__ else 'default-repr'",
                     "len(c) if hasattr(type(c), '__len__') else 'no-len'", "c == c", "c + 1", "c.name"]
            if {p['hook'] in ('child', 'both')}:
                calls += ["c.mode", "c.steps"]
            if {p['mixin'] != 'none'}:
                calls += ["c.tag()", "c.mixed"]
            if {p['mro_walk']}:
                calls += ["c.msgs()"]
            if {p['alias']}:
                calls += ["c.__enter__() is c", "c.active", "c.__exit__(None, None, None)", "c.active"]
            if {p['parent_hook'] == 'getstate'}:
                calls += ["type(pickle.loads(pickle.dumps(c))).__name__"]
            if {p['parent_hook'] == 'setattr-validates'}:
                calls += ["setattr(c, 'label', 3)"]
            if {p['parent_hook'] == 'init-subclass'}:
                calls += ["P.SUBCLASSES"]
            for call in calls:
                try:
                    row.append(repr(eval(call)))
                except Exception as exc:
                    row.append(type(exc).__name__)
            from pkg import parent as P
            published = list(P.REGISTRY.values()) + P.LISTENERS
            row.append(sum(1 for v in published if v is c or getattr(v, "__self__", None) is c))
            out.append(row)
            # A repr that carries an address (the default one, threading.Event's): compare the type instead.
            # Slotted attributes too, by the name Python stores them under (vars() does not show them).
            slotted = {{f"_{{k.__name__.lstrip('_')}}{{s}}" if s.startswith("__") and not s.endswith("__") else s
                        for k in type(c).__mro__ for s in vars(k).get("__slots__", ()) if s not in ("__dict__", "__weakref__")}}
            attrs = dict(vars(c)) if hasattr(c, "__dict__") else {{}}
            attrs.update({{s: getattr(c, s) for s in slotted if hasattr(c, s)}})
            state.append({{k: type(v).__name__ if " at 0x" in repr(v) else repr(v) for k, v in attrs.items() if not callable(v)}})
        # What typing and the MRO say of the class: its MRO without the parent, its parameters,
        # whether it can be subscripted, its type hints.
        import typing
        facts = [[k.__name__ for k in Child.__mro__ if k.__name__ != "Parent"], [str(v) for v in getattr(Child, "__parameters__", ())]]
        for fact in ("Child[int].__origin__.__name__", "sorted((k, str(v)) for k, v in typing.get_type_hints(Child).items())",
                     "issubclass(Child, typing.Generic)", "hasattr(Child, '__weakref__')"):
            try:
                facts.append(repr(eval(fact)))
            except Exception as exc:
                facts.append(type(exc).__name__)
        if {exc}:
            from pkg.user import guarded
            out.append(guarded(lambda: Child(2)))
        print(json.dumps({{"transcript": out, "state": state, "facts": facts}}))
    """)
    carrier = "class Other:\n    " + f"{p['carrier_reads']} = 'other'\n" + CARRIERS[p["carrier"]].replace("ATTR", p["carrier_reads"])
    return {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/parent.py": parent, "pkg/child.py": child, "pkg/user.py": user,
            "pkg/carrier.py": carrier}, probe


def run_probe(root: Path, probe: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def save_counterexample(files: dict, probe: str) -> Path:
    dest = REPO / "output" / "counterexamples" / f"case-{abs(hash(json.dumps(files, sort_keys=True))) % 10**8}"
    if dest.exists():
        shutil.rmtree(dest)
    write_files(dest / "input", files)
    (dest / "probe.py").write_text(probe)
    return dest


# Found by a --slow run: getattr passed to reduce with a default path naming a member the patch
# dropped, the object reaching it through a function of unknown callers (now typed, see render).
FOUND = [dict(explicit_base_init=False, two_arg_super=False, mixin="none", child_call="super", mro_walk=False, helper_sets=[],
              hook="none", stores_handler=False, property="none", dunders=[], class_attr="none", forward="positional", clash=[],
              exception=False, validation="none", fallback="none", super_read="none", registration="none", child_reads=["alpha"],
              child_sets_before_super=None, child_assigns_prop=False, outside=[], carrier="reduce", carrier_reads="gamma",
              tiny=[], pops=False, parent_hook="none", alias=False, dataclass_base=False, dataclass_parent="none", hidden=[])]
# Each of issue 37's hidden shapes on the plainest hierarchy, so that every run patches each once.
HIDDEN_EXAMPLES = [dict(FOUND[0], carrier="none", hidden=[h]) for h in HIDDEN]
# And each of issue 37's declines that became patches, so that every run patches each once: a
# generic base named bare and subscripted, slots in the parent, in both, with __weakref__,
# name-mangled members, class-level annotations.
PATCHED_EXAMPLES = [dict(FOUND[0], carrier="none", **kw) for kw in (
    {"generic": "base-plain"}, {"generic": "base-subscripted"}, {"slots": "parent"}, {"slots": "both"}, {"slots": "both-weakref"},
    {"private": True}, {"annotations": True})]


def test_generated_patterns_behave_the_same(tmp_path_factory, request):
    n_examples = 2000 if request.config.getoption("--slow") else 300
    outcomes = {"decouple": 0, "decline": 0, "unsafe": 0}

    @settings(max_examples=n_examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(pieces())
    @example(p=FOUND[0])
    @example(p=HIDDEN_EXAMPLES[0])
    @example(p=HIDDEN_EXAMPLES[1])
    @example(p=HIDDEN_EXAMPLES[2])
    @example(p=HIDDEN_EXAMPLES[3])
    @example(p=HIDDEN_EXAMPLES[4])
    @example(p=HIDDEN_EXAMPLES[5])
    @example(p=PATCHED_EXAMPLES[0])
    @example(p=PATCHED_EXAMPLES[1])
    @example(p=PATCHED_EXAMPLES[2])
    @example(p=PATCHED_EXAMPLES[3])
    @example(p=PATCHED_EXAMPLES[4])
    @example(p=PATCHED_EXAMPLES[5])
    @example(p=PATCHED_EXAMPLES[6])
    def check(p):
        files, probe = render(p)
        root = tmp_path_factory.mktemp("g")
        orig, out = root / "orig", root / "out"
        write_files(orig, files)
        code = decouple_main([str(orig), "--class", "Child", "--output", str(out), "--no-cache"])
        assert code in (0, 3), f"exit {code}"
        decision = json.loads((out / "report.json").read_text())["classes"][0]["decision"]
        outcomes[decision] += 1
        if decision != "decouple":
            assert not (out / "patch.diff").exists()
            return
        patched = root / "patched"
        write_files(patched, files)
        for f in (out / "files").rglob("*.py"):
            (patched / f.relative_to(out / "files")).write_text(f.read_text())
        before, after = run_probe(orig, probe), run_probe(patched, probe)
        # Exceptions a dropped statement raises by accident (not a raise or an assert) are outside
        # what any slice can keep; the grammar avoids them, and an original that fails to build
        # at all says nothing.
        assume(any(isinstance(row, list) for row in before["transcript"]))
        same = before["transcript"] == after["transcript"] and before["facts"] == after["facts"] and all(
            all(old.get(k) == v for k, v in new.items()) for old, new in zip(before["state"], after["state"]))
        if not same:
            where = save_counterexample(files, probe)
            assert before == after, f"behaviour changed; saved to {where}"

    check()
    assert outcomes["decouple"] > n_examples // 10, outcomes
