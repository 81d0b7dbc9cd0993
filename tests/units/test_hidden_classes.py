"""Subclasses the index does not model (codemod/receiver_typing/hidden_classes.py)."""

import pytest

from codemod.discover import Tree
from codemod.receiver_typing.hidden_classes import HiddenClasses
from codemod.index import Index
from codemod.lookup import lookup

BASE = "class Child:\n    pass\n"


def hidden(tmp_path, user: str):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "user.py").write_text("from .base import Child\n\n\n" + user)
    index = Index(Tree.open(str(tmp_path)))
    found = HiddenClasses(index).subclass_of(lookup(index, "pkg.base:Child"))
    return None if found is None else found[1] - 3  # the line within ``user``


def test_no_change_a_module_level_subclass(tmp_path):
    assert hidden(tmp_path, "class Sub(Child):\n    pass\n") is None


@pytest.mark.parametrize("user, line", [
    pytest.param("def make():\n    class Sub(Child):\n        pass\n\n    return Sub\n", 2, id="in-a-function"),
    pytest.param("class Outer:\n    class Sub(Child):\n        pass\n", 2, id="in-a-class"),
    pytest.param("import os\n\nif os.name:\n    class Sub:\n        pass\nelse:\n    class Sub(Child):\n        pass\n", 7,
                 id="a-second-class-of-the-same-name"),
    pytest.param("from .base import Child as Base\n\n\ndef make():\n    class Sub(Base):\n        pass\n", 5, id="through-an-alias"),
    pytest.param("Sub = type('Sub', (Child,), {'label': 1})\n", 1, id="made-by-type"),
    pytest.param("from . import base\n\nSub = type('Sub', [object, base.Child], {})\n", 3, id="made-by-type-from-a-list"),
])
def test_hidden_subclasses(tmp_path, user, line):
    assert hidden(tmp_path, user) == line


@pytest.mark.parametrize("user", [
    pytest.param("def make():\n    class Sub:\n        pass\n\n    return Sub\n", id="a-nested-class-of-another-base"),
    pytest.param("Sub = type('Sub', (object,), {'label': 1})\n", id="type-with-other-bases"),
    pytest.param("def make(Child):\n    return type('Sub', (Child,), {})\n", id="a-local-that-shadows-the-name"),
    pytest.param("def make(base):\n    return type('Sub', (base,), {})\n", id="computed-bases-are-a-known-limit"),
    pytest.param("def kind(x):\n    return type(x)\n", id="type-of-one-argument"),
])
def test_near_misses(tmp_path, user):
    assert hidden(tmp_path, user) is None
