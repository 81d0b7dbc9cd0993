"""Patterns the real-world campaign found (docs/real-world.md), each in a few lines of our own.

DC109 base-hooks, DC304 generic-base, and DC606 reparenting past a base that another base
already brings.
"""

import pytest
from ruletools import analyse, hazards_of, kept_by, patch

FORMATTERS = """
class Formatter:
    def format(self, s):
        return self.field(s)

    def field(self, s):
        return s


class Escaping(Formatter):
    def field(self, s):
        return s.replace("<", "&lt;")


class Guarded(Formatter):
    def __init__(self, guard):
        self.pool = [0] * 100
        self.guard = guard
"""


def test_reparenting_past_a_base_another_base_brings(tmp_path):
    files = {"fmt.py": FORMATTERS, "child.py": "from .fmt import Escaping, Guarded\n\n\nclass Child(Guarded, Escaping):\n    pass\n"}
    after, v = patch(tmp_path, files)
    assert "class Child(Escaping):" in after and "import Formatter" not in after


def test_near_miss_a_base_unrelated_to_the_new_base_stays_beside_it(tmp_path):
    files = {"fmt.py": FORMATTERS + "\n\nclass Mixin:\n    pass\n",
             "child.py": "from .fmt import Guarded, Mixin\n\n\nclass Child(Guarded, Mixin):\n    pass\n"}
    after, v = patch(tmp_path, files)
    assert "class Child(Formatter, Mixin):" in after


ABSTRACT = """
import abc


class Source(abc.ABC):
    @abc.abstractmethod
    def read(self):
        ...


class FileSource(Source):
    def __init__(self, path):
        self.path = path
        self.buffer = bytearray(1 << 20)

    def read(self):
        return "data"

    def reopen(self):
        self.buffer = bytearray(1 << 20)
        self.path = self.path.strip()
        return self.path
"""


def test_an_implementation_of_an_abstract_method_of_the_new_base_is_kept(tmp_path):
    child = "from .io import FileSource\n\n\nclass Child(FileSource):\n    def __init__(self, text):\n        super().__init__('<m>')\n        self.text = text\n"
    a, v = analyse(tmp_path, {"io.py": ABSTRACT, "child.py": child})
    assert kept_by(a, "DC109") == {"read"}


def test_every_parent_method_counts_when_the_new_base_is_outside_the_tree(tmp_path):
    base = "import string\n\n\nclass Guarded(string.Formatter):\n    def __init__(self, g):\n        self.g = g\n        self.pool = [0] * 9\n\n    def get_field(self, name, args, kwargs):\n        return self.g(name), name\n"
    child = "from .fmt import Guarded\n\n\nclass Child(Guarded):\n    pass\n"
    a, v = analyse(tmp_path, {"fmt.py": base, "child.py": child})
    assert kept_by(a, "DC109") == {"get_field"} and v.decision == "decline"


def test_near_miss_a_builtin_base_only_calls_special_methods(tmp_path):
    base = "class Parent(dict):\n    def __init__(self):\n        super().__init__()\n        self.pool = [0] * 9\n\n    def tidy(self):\n        return sorted(self)\n"
    child = "from .base import Parent\n\n\nclass Child(Parent):\n    pass\n"
    a, v = analyse(tmp_path, {"base.py": base, "child.py": child})
    assert kept_by(a, "DC109") == set()


@pytest.mark.parametrize("child, what", [
    pytest.param("from .box import Box\n\n\nclass Child(Box[int]):\n    pass\n", "a subscripted parent", id="subscripted-parent"),
])
def test_generic_bases_are_refused_with_a_reason(tmp_path, child, what):
    box = "from typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\nclass Box(Generic[T]):\n    def __init__(self, item: T):\n        self.item = item\n        self.pool = [0] * 9\n"
    a, v = analyse(tmp_path, {"box.py": box, "child.py": child})
    assert any(what in h for h in hazards_of(a, "DC304")) and v.rule == "DC509"


def test_near_miss_a_plain_parent_with_a_plain_base(tmp_path):
    base = "class Base:\n    pass\n\n\nclass Box(Base):\n    def __init__(self, item):\n        self.item = item\n        self.pool = [0] * 9\n"
    a, v = analyse(tmp_path, {"box.py": base, "child.py": "from .box import Box\n\n\nclass Child(Box):\n    def get(self):\n        return self.item\n"})
    assert hazards_of(a, "DC304") == [] and v.decision == "decouple"
