"""DC104 implicit-dunder: the parent's special methods are kept unless the class defines them."""

import pytest
from ruletools import analyse, kept_by

ID = "DC104"


def files(parent_methods: str, child_methods: str = "    pass\n") -> dict:
    return {
        "base.py": "class Parent:\n    def __init__(self):\n        self.pool = [0]\n\n" + parent_methods,
        "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n" + child_methods,
    }


def test_no_change_without_special_methods(tmp_path):
    a, _ = analyse(tmp_path, files("    def size(self):\n        return 1\n"))
    assert kept_by(a, ID) == set()


@pytest.mark.parametrize("name", ["__repr__", "__len__", "__eq__", "__enter__", "__next__", "__get__", "__set_name__", "__add__",
                                  "__html__"])
def test_special_methods_are_kept(tmp_path, name):
    a, _ = analyse(tmp_path, files(f"    def {name}(self, *args):\n        return 0\n"))
    assert kept_by(a, ID) == {name}


@pytest.mark.parametrize("stmt, name", [("    __hash__ = None\n", "__hash__"), ("    __match_args__ = ('pool',)\n", "__match_args__")])
def test_special_attributes_are_kept(tmp_path, stmt, name):
    a, _ = analyse(tmp_path, files(stmt))
    assert kept_by(a, ID) == {name}


@pytest.mark.parametrize("parent, child", [
    pytest.param("    def __repr__(self):\n        return 'p'\n", "    def __repr__(self):\n        return 'c'\n", id="overridden"),
    pytest.param("    def _private__(self):\n        return 0\n", "    pass\n", id="not-a-dunder"),
    pytest.param("    __doc__ = 'text'\n", "    pass\n", id="every-class-has-its-own"),
])
def test_near_misses(tmp_path, parent, child):
    a, _ = analyse(tmp_path, files(parent, child))
    assert kept_by(a, ID) == set()
