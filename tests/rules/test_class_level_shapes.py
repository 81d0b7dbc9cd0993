"""Class-level shapes of issue 37, before and after: a property the class shadows (DC605), the
parent's class-level annotations (DC615), slots in both classes (DC305) and name-mangled members
(DC601/DC605), each pinned as the exact patched ``pkg/child.py`` and executed against the original
in fresh interpreters, with near misses beside them that must be patched otherwise or refused.
"""

import pytest
import test_slots
from ruletools import UNUSED, analyse, dedent, hazards_of, patch, refused_as_it_was, run_both

PROPERTY_PARENT = """
class Parent:
    def __init__(self, n):
        self.n = n
        self.pool = [0] * 100

    @property
    def name(self):
        return "parent-" + str(self.n)
""" + UNUSED
PROPERTY_CHILD = """
from .base import Parent


class Child(Parent):
{shadow}
    def __init__(self, n):
        super().__init__(n)

    def total(self):
        return (self.name, self.n)
"""
PROPERTY_PROBE = """
from pkg.child import Child
c = Child(3)
name, n = c.total()
print(name() if callable(name) else name, n, type(getattr(Child, "name")).__name__)
"""

ANNOTATED_PARENT = """
from typing import ClassVar, Optional


class Parent:
    x: int
    y: int = 0
    w: Optional[int] = 5
    label: "str"
    kinds: ClassVar[list] = []
    __secret: float

    def __init__(self, n):
        self.n = n
        self.x = n
        self.pool = [0] * 100

    def total(self):
        return self.n + self.x + self.w
"""
ANNOTATED_CHILD = """
from .base import Parent


{decorator}class Child(Parent):
    \"\"\"A child.\"\"\"

    z: float = 1.0
    label: bytes

    def __init__(self, n):
        super().__init__(n)

    def get(self):
        return self.total()
"""
# What get_type_hints says (as a dict: an annotated assignment DC605 copies comes later in
# the class body), what a dataclass-like reader that merges the MRO's own __annotations__ says,
# and that no declaration became a class attribute (y and kinds are dropped: unused).
ANNOTATED_PROBE = """
import typing
from pkg.child import Child
print(sorted(typing.get_type_hints(Child).items()))
merged = {}
for k in reversed(Child.__mro__):
    merged.update(vars(k).get("__annotations__", {}))
print(sorted(merged.items()), [n for n in ("x", "w", "label", "_Parent__secret") if hasattr(Child, n)])
print(Child(3).get())
"""

SLOTS_PARENT = test_slots.PARENT.format(slots="__slots__ = ('n', '__secret', 'pool', '__weakref__')\n")
SLOTS_CHILD = test_slots.CHILD.format(slots='("own",)')
SLOTS_PROBE = """
import weakref
from pkg.child import Child
c = Child(3)
print(c.get(), weakref.ref(c)() is c, hasattr(c, "__dict__"), c.n, c._Parent__secret)
try:
    c.stray = 1
except AttributeError:
    print("AttributeError")
"""

MANGLED_PARENT = """
class Parent:
    def __init__(self, n):
        self.n = n
        self.__cache = {}
        self.pool = [0] * 100

    def lookup(self, key):
        if key not in self.__cache:
            self.__cache[key] = self.__compute(key)
        return self.__cache[key]

    def __compute(self, key):
        return key * self.n
""" + UNUSED
MANGLED_CHILD = """
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)
        self.__cache = "child's own"

    def get(self, key):
        return self.lookup(key), self.lookup(key), self.__cache
"""
MANGLED_PROBE = """
from pkg.child import Child
c = Child(3)
print(c.get(2), sorted(k for k in vars(c) if k != "pool"), [n for n in dir(Child) if "compute" in n])
"""

INLINED = "        # decouple: inlined from Parent.__init__\n"
ANNOTATED_AFTER = (
    'from typing import ClassVar, Optional\n\n\nclass Child:\n    """A child."""\n\n'
    "    # decouple: inlined from Parent's annotations\n    x: int\n    y: int\n    kinds: ClassVar[list]\n    _Parent__secret: float\n\n"
    "    z: float = 1.0\n    label: bytes\n\n    # decouple: inlined from Parent.w\n    w: Optional[int] = 5\n\n"
    "    def __init__(self, n):\n" + INLINED + "        self.n = n\n        self.x = n\n\n"
    "    def get(self):\n        return self.total()\n\n"
    "    # decouple: inlined from Parent.total\n    def total(self):\n        return self.n + self.x + self.w\n")

CASES = [
    pytest.param(
        {"base.py": PROPERTY_PARENT, "child.py": PROPERTY_CHILD.format(shadow='    name = "child"\n')}, PROPERTY_PROBE,
        'class Child:\n    name = "child"\n\n    def __init__(self, n):\n' + INLINED + "        self.n = n\n\n"
        "    def total(self):\n        return (self.name, self.n)\n",
        id="DC605-a-property-the-class-shadows-with-an-attribute-is-not-copied"),
    pytest.param(
        {"base.py": ANNOTATED_PARENT, "child.py": ANNOTATED_CHILD.format(decorator="")}, ANNOTATED_PROBE, ANNOTATED_AFTER,
        id="DC615-the-parent-s-annotations-are-declared"),
    pytest.param(
        {"base.py": SLOTS_PARENT, "child.py": SLOTS_CHILD}, SLOTS_PROBE,
        'from .base import Base\n\n\nclass Child(Base):\n    __slots__ = ("own", "n", "_Parent__secret", "__weakref__")\n\n'
        "    def __init__(self, n):\n" + INLINED + "        self.n = n\n        self._Parent__secret = n * 2\n        self.own = 1\n\n"
        "    def get(self):\n        return self.total(), self.own\n\n"
        "    # decouple: inlined from Parent.total\n    def total(self):\n        return self.n + self._Parent__secret\n",
        id="DC305-slots-in-both-classes-merged"),
    pytest.param(
        {"base.py": MANGLED_PARENT, "child.py": MANGLED_CHILD}, MANGLED_PROBE,
        "class Child:\n    def __init__(self, n):\n" + INLINED + "        self.n = n\n        self._Parent__cache = {}\n"
        "        self.__cache = \"child's own\"\n\n"
        "    def get(self, key):\n        return self.lookup(key), self.lookup(key), self.__cache\n\n"
        "    # decouple: inlined from Parent.lookup\n    def lookup(self, key):\n        if key not in self._Parent__cache:\n"
        "            self._Parent__cache[key] = self._Parent__compute(key)\n        return self._Parent__cache[key]\n\n"
        "    # decouple: inlined from Parent.__compute\n    def _Parent__compute(self, key):\n        return key * self.n\n",
        id="DC605-name-mangled-members-spelt-for-the-parent"),
]


@pytest.mark.parametrize("files, probe, expected", CASES)
def test_before_after_and_executed(tmp_path, files, probe, expected):
    after, v = patch(tmp_path / "pinned", {k: dedent(t) for k, t in files.items()})
    assert v.decision == "decouple", v.reason
    assert after == expected
    before, patched_run, _ = run_both(tmp_path / "run", files, probe)
    assert before == patched_run and "raised" not in before, (before, patched_run)


# Alike, but patched otherwise: (files, probe, text the patch must hold, text it must not).
NEAR_MISSES = [
    pytest.param({"base.py": PROPERTY_PARENT, "child.py": PROPERTY_CHILD.format(shadow='    def name(self):\n        return "m"\n')},
                 PROPERTY_PROBE, '    def name(self):\n        return "m"\n', "@property", id="DC605-shadowed-by-a-method-not-copied"),
    pytest.param({"base.py": PROPERTY_PARENT, "child.py": PROPERTY_CHILD.format(shadow="    name: str\n")},
                 PROPERTY_PROBE, "    # decouple: inlined from Parent.name\n    @property\n", None,
                 id="DC605-a-bare-annotation-shadows-nothing-so-the-property-is-copied"),
    pytest.param({"base.py": PROPERTY_PARENT, "child.py": PROPERTY_CHILD.format(shadow="    kind = 1\n")},
                 PROPERTY_PROBE, "    # decouple: inlined from Parent.name\n    @property\n", None, id="DC605-not-shadowed-so-copied"),
    pytest.param({"base.py": SLOTS_PARENT, "child.py": SLOTS_CHILD.replace('    __slots__ = ("own",)\n\n', "")},
                 SLOTS_PROBE, "class Child(Base):", "__slots__", id="DC305-a-child-without-slots-gets-none"),
    pytest.param({"base.py": ANNOTATED_PARENT,
                  "child.py": ANNOTATED_CHILD.format(decorator="").replace("    label: bytes\n", "    x: str\n    label: bytes\n")},
                 ANNOTATED_PROBE, "    # decouple: inlined from Parent's annotations\n    y: int\n", "    x: int\n",
                 id="DC615-a-name-the-class-annotates-itself-is-not-declared"),
]


@pytest.mark.parametrize("files, probe, holds, lacks", NEAR_MISSES)
def test_near_misses_executed(tmp_path, files, probe, holds, lacks):
    before, after, patched = run_both(tmp_path, files, probe)
    assert patched is not None and holds in patched, patched
    assert lacks is None or lacks not in patched, patched
    assert before == after and "raised" not in before, (before, after)


def test_a_decorated_class_whose_parent_annotates_is_refused(tmp_path):
    """``@dataclass`` reads the class's own __annotations__: declared names would be new fields."""
    child = ANNOTATED_CHILD.format(decorator="@dataclass\n").replace("from .base", "from dataclasses import dataclass\n\nfrom .base")
    probe = "import inspect\nfrom pkg.child import Child\nprint(inspect.signature(Child), Child(3).get())\n"
    what = refused_as_it_was(tmp_path, {"base.py": ANNOTATED_PARENT, "child.py": child}, probe, "DC615")
    assert what == [("Parent annotates x, y, w, kinds, __secret at class level, which get_type_hints(Child) reads; declaring them "
                     "on Child would change its own __annotations__, which @dataclass may read")]


def test_near_miss_a_decorated_class_whose_parent_annotates_nothing(tmp_path):
    base = dedent(PROPERTY_PARENT)
    child = "import functools\n" + PROPERTY_CHILD.format(shadow="").replace("class Child", "@functools.total_ordering\nclass Child")
    child = child.replace("    def total", "    def __lt__(self, other):\n        return self.n < other.n\n\n    def total")
    a, v = analyse(tmp_path, {"base.py": base, "child.py": child})
    assert hazards_of(a, "DC615") == [] and v.decision == "decouple"


def test_an_annotation_bound_only_for_type_checkers_is_refused_at_run_time(tmp_path):
    """P's module defers annotations; C's does not, so ``price: Decimal`` would run there (DC705)."""
    base = ("from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from decimal import Decimal\n\n\n"
            + dedent(PROPERTY_PARENT).replace("class Parent:\n", "class Parent:\n    price: Decimal\n\n"))
    files = {"base.py": base, "child.py": PROPERTY_CHILD.format(shadow="")}
    before, after, patched = run_both(tmp_path, files, "from pkg.child import Child\nprint(Child(3).total())\n")
    assert patched is None and before == after
    deferred = {"base.py": base, "child.py": "from __future__ import annotations\n" + dedent(PROPERTY_CHILD.format(shadow=""))}
    before, after, patched = run_both(tmp_path / "deferred", deferred, "from pkg.child import Child\nprint(Child(3).total())\n")
    assert "    price: Decimal\n" in patched and "if TYPE_CHECKING:\n    from decimal import Decimal" in patched and before == after


@pytest.mark.parametrize("base, reader", [
    pytest.param("class Base:\n    def __init_subclass__(cls, **kw):\n        cls.fields = sorted(vars(cls).get('__annotations__', {}))\n",
                 "Base's metaclass or __init_subclass__", id="staying-init-subclass"),
    pytest.param("import somewhere_else\n\n\nclass Base(somewhere_else.Model):\n    pass\n",
                 "somewhere_else.Model, from outside the tree,", id="outside-model-base"),
])
def test_a_staying_class_that_may_read_the_class_s_own_annotations_refuses(tmp_path, base, reader):
    parent = dedent(ANNOTATED_PARENT).replace("class Parent:", "class Parent(Base):")
    a, v = analyse(tmp_path, {"base.py": base + "\n\n" + parent, "child.py": ANNOTATED_CHILD.format(decorator="")})
    assert hazards_of(a, "DC615") == [(f"Parent annotates x, y, w, kinds, __secret at class level, which get_type_hints(Child) reads; "
                                       f"declaring them on Child would change its own __annotations__, which {reader} may read")]
    assert v.decision == "unsafe"
