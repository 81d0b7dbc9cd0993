"""DC304 generic-base: the subscripts of the bases a class takes from its parent, executed original vs patched.

Each case prints what typing and the MRO say of the class (its MRO without the parent, its
``__parameters__``, what ``Child[int]`` gives, ``typing.get_type_hints``, ``isinstance``) and what
an instance does; the patched package must print the same. A class that names a generic parent
bare stays non-generic: the parent's type variables are ``Any`` in the bases it takes over.
"""

import pytest
from ruletools import analyse, hazards_of, run_both

PROBE = """
import typing
from pkg.child import Child
print([k.__name__ for k in Child.__mro__ if k.__name__ != "Parent"])
print([str(v) for v in Child.__parameters__])
try:
    print("subscript", Child[int].__origin__.__name__)
except TypeError as exc:
    print("subscript raised TypeError")
print(typing.get_type_hints(Child))
c = Child(3)
print(c.total(), isinstance(c, Child.__mro__[-2]), isinstance(c, typing.Generic), hasattr(Child, "__class_getitem__"))
"""

SIMULATION = """
from typing import ContextManager, Generic, TypeVar

R = TypeVar("R")


class Event:
    def __init__(self, env):
        self.env = env
        self.callbacks = []


class Parent(Event, ContextManager["Parent"], Generic[R]):
    def __init__(self, n):
        super().__init__([n])
        self.n = n
        self.pool = [0] * 100

    def __exit__(self, *exc):
        self.n -= 1
"""
CHILD = """
from .base import Parent


class Child(Parent):
    def total(self):
        with self as me:
            pass
        return (me is self, self.n, self.env)
"""


def test_a_parent_with_a_subscripted_generic_among_its_bases_keeps_the_bases_its_mro_needs(tmp_path):
    """simpy's Request(Put): Put's bases are (Event, ContextManager['Put'], Generic[R]). Generic[R]
    would be Generic[Any] to a Child that names Parent bare: it leaves, and ContextManager[...]
    still brings Generic into the MRO, where it was."""
    files = {"base.py": SIMULATION, "child.py": CHILD}
    before, after, patched = run_both(tmp_path, files, PROBE)
    assert 'class Child(Event, ContextManager["Parent"]):' in patched
    assert "from .base import Event, Parent" in patched and "from typing import ContextManager\n" in patched
    assert before == after and "'Generic'" in before and "\n[]\n" in before, (before, after)
    a, _ = analyse(tmp_path / "again", files)
    assert hazards_of(a, "DC304") == [("Child names Parent plainly, so R is Any in the bases it takes over and it stays non-generic; "
                                       "only its __orig_bases__ read otherwise")]


REPOSITORY = """
from typing import Generic, TypeVar

T = TypeVar("T")


class Base(Generic[T]):
    def get(self, key) -> T:
        return self.items[key]


class Parent({bases}):
    def __init__(self, n: int):
        self.items = {{}}
        self.n = n
        self.pool = [0] * 100

    def put(self, key, item: T):
        self.items[key] = item
"""
MAPPING = """
    def __getitem__(self, key):
        return self.items[key]

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)
"""
REPO_CHILD = """
from typing import TypeVar

from .base import Parent

K = TypeVar("K")


class User:
    pass


class Child({bases}):
    def total(self):
        self.put(1, User())
        return (type(self.get(1)).__name__, self.n)
"""


@pytest.mark.parametrize("parent_bases, child_bases, written", [
    pytest.param("Base[T]", "Parent[User]", "class Child(Base[User]):", id="subscripted-parent"),
    pytest.param("Base[int]", "Parent", "class Child(Base[int]):", id="concrete-base"),
    pytest.param("Base[T], Generic[T]", "Parent[K]", "class Child(Base[K], Generic[K]):", id="generic-child"),
    pytest.param("Base[T], Generic[T]", "Parent[User]", "class Child(Base[User]):", id="generic-of-types-left-out"),
    pytest.param("Base[T]", "Parent", "class Child(Base[Any]):", id="plain-child-any"),
    pytest.param("Base[T], Generic[T]", "Parent", "class Child(Base[Any]):", id="plain-child-generic-left-out"),
    pytest.param("Base[T], Mapping[str, T]", "Parent", "class Child(Base[Any], Mapping[str, Any]):", id="plain-child-alias"),
    pytest.param("Base[int], Mapping[str, int]", "Parent", "class Child(Base[int], Mapping[str, int]):", id="plain-child-concrete"),
])
def test_the_parent_s_parameters_become_the_child_s_arguments(tmp_path, parent_bases, child_bases, written):
    base = REPOSITORY.format(bases=parent_bases)
    if "Mapping" in parent_bases:
        base = base.replace("import Generic", "import Generic, Mapping").replace("    def put", MAPPING + "\n    def put")
    files = {"base.py": base, "child.py": REPO_CHILD.format(bases=child_bases)}
    # The Mapping's methods are most of Parent (DC504): stress mode copies them.
    before, after, patched = run_both(tmp_path, files, PROBE, stress="Mapping" in parent_bases)
    assert patched is not None and written in patched, patched
    assert before == after and "raised" not in before.replace("subscript raised", ""), before


@pytest.mark.parametrize("parent, child, what", [
    pytest.param("class Parent(Generic[T]):", "Parent[int]",
                 "Generic[T] of Parent would become a Generic of types, which is no base, and no other base keeps Generic in Child's MRO",
                 id="generic-would-leave-the-mro"),
    pytest.param("class Parent(Base[Outside]):", "Parent[int]",
                 "Child inherits Parent[int], but whether Outside in Parent's bases is a type variable the tree does not say",
                 id="kind-unknown"),
    pytest.param("class Parent(Generic[T]):", "Parent",
                 "Generic[T] of Parent would become Generic[Any], which is no base, and no other base keeps Generic in Child's MRO",
                 id="plain-child-generic-would-leave-the-mro"),
    pytest.param("class Parent(Base[Outside]):", "Parent",
                 "Child inherits Parent, but whether Outside in Parent's bases is a type variable the tree does not say",
                 id="plain-child-kind-unknown"),
    pytest.param("class Parent(Base[T]):", "Parent, Generic[K]",
                 "Child adds subscripted bases of its own to Parent, which is generic in T", id="child-adds-its-own"),
])
def test_generic_bases_without_a_sound_carry_are_refused_with_the_reason(tmp_path, parent, child, what):
    base = REPOSITORY.format(bases="Base[T]").replace("class Parent(Base[T]):", parent)
    base = base.replace("from typing import", "from elsewhere import Outside\nfrom typing import")
    a, v = analyse(tmp_path, {"base.py": base, "child.py": REPO_CHILD.format(bases=child).replace("import TypeVar", "import Generic, TypeVar")})
    assert hazards_of(a, "DC304") == [what] and v.rule == "DC509"


def test_near_miss_a_plain_parent_with_a_plain_base_is_not_noted(tmp_path):
    base = "class Base:\n    pass\n\n\nclass Box(Base):\n    def __init__(self, item):\n        self.item = item\n        self.pool = [0] * 9\n"
    a, v = analyse(tmp_path, {"box.py": base, "child.py": "from .box import Box\n\n\nclass Child(Box):\n    def get(self):\n        return self.item\n"})
    assert hazards_of(a, "DC304") == [] and v.decision == "decouple"
