"""DC305 slots: a class with ``__slots__`` of its own gets the places its parent gave its instances, executed original vs patched."""

import pytest
from ruletools import analyse, hazards_of, run_both

PARENT = """
class Base:
    __slots__ = ()


class Parent(Base):
    {slots}
    def __init__(self, n):
        self.n = n
        self.__secret = n * 2
        self.pool = [0] * 100

    def total(self):
        return self.n + self.__secret
"""
CHILD = """
from .base import Parent


class Child(Parent):
    __slots__ = {slots}

    def __init__(self, n):
        super().__init__(n)
        self.own = 1

    def get(self):
        return self.total(), self.own
"""
PROBE = """
import weakref
from pkg.child import Child
c = Child(3)
print(c.get(), weakref.ref(c)() is c if hasattr(type(c), "__weakref__") else "no weakref", hasattr(c, "__dict__"))
try:
    c.stray = 1
    print("stray stored", sorted(k for k in vars(c) if k != "pool"))
except AttributeError as exc:
    print("AttributeError")
"""


@pytest.mark.parametrize("parent_slots, child_slots, written", [
    pytest.param("__slots__ = ('n', '__secret', 'pool', '__weakref__')\n", '("own",)',
                 '__slots__ = ("own", "n", "_Parent__secret", "__weakref__")', id="both-slotted"),
    pytest.param("__slots__ = ['n', '__secret', 'pool', '__dict__']\n", "'own'",
                 '__slots__ = ("own", "n", "_Parent__secret", "__dict__")', id="parent-dict-slot"),
    pytest.param("", '("own",)', '__slots__ = ("own", "__dict__", "__weakref__")', id="parent-without-slots"),
])
def test_the_child_s_slots_take_what_the_parent_gave_its_instances(tmp_path, parent_slots, child_slots, written):
    files = {"base.py": PARENT.format(slots=parent_slots), "child.py": CHILD.format(slots=child_slots)}
    before, after, patched = run_both(tmp_path, files, PROBE)
    assert patched is not None and written in patched, patched
    assert before == after and "raised" not in before, (before, after)


def test_a_slot_of_a_dropped_member_is_left_out(tmp_path):
    files = {"base.py": PARENT.format(slots="__slots__ = ('n', '__secret', 'pool')\n"), "child.py": CHILD.format(slots="()")}
    before, after, patched = run_both(tmp_path, files, PROBE)
    assert "'pool'" not in patched and before == after


def test_a_computed_slots_is_refused(tmp_path):
    files = {"base.py": "NAMES = ('n', 'pool')\n" + PARENT.format(slots="__slots__ = NAMES\n"), "child.py": CHILD.format(slots="()")}
    a, v = analyse(tmp_path, files)
    assert hazards_of(a, "DC305") == ["Parent's __slots__ is not a literal string, tuple or list of strings"] and v.rule == "DC509"


def test_a_new_base_outside_the_tree_is_refused_when_the_dict_must_stay(tmp_path):
    files = {"base.py": "import numbers\n" + PARENT.format(slots="").replace("class Parent(Base)", "class Parent(numbers.Number)"),
             "child.py": CHILD.format(slots="()")}
    a, v = analyse(tmp_path, files)
    assert hazards_of(a, "DC305") == ["Child's instances had __dict__ and __weakref__ through Parent; whether Number, outside the tree, "
                                      "gives them is not known"]


def test_near_miss_a_child_without_slots_only_gets_the_note(tmp_path):
    files = {"base.py": PARENT.format(slots="__slots__ = ('n', '__secret', 'pool')\n"), "child.py": CHILD.format(slots="()").replace("    __slots__ = ()\n\n", "")}
    before, after, patched = run_both(tmp_path, files, PROBE)
    assert "__slots__" not in patched and before.replace("False", "True", 1).split()[:4] == after.split()[:4]
