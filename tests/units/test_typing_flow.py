"""Receiver typing alone: may this expression be an instance of the class? (codemod/typing_flow.py)."""

import ast
import textwrap

import pytest

from codemod.discover import Tree
from codemod.index import Index
from codemod.model import Receiver
from codemod.typing_flow import Flow

BASE = """
class Parent:
    def __init__(self):
        self.cache = {}


class Child(Parent):
    pass


class Other:
    pass
"""


def receiver_of(tmp_path, user: str) -> Receiver:
    """The verdict on the receiver of the last ``.cache`` read in ``user``."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "user.py").write_text(textwrap.dedent(user))
    index = Index(Tree.open(tmp_path))
    flow = Flow(index, index.module("pkg/base.py").classes["Child"])
    mod = index.module("pkg/user.py")
    node = [n for n in mod.nodes if isinstance(n, ast.Attribute) and n.attr == "cache"][-1]
    return flow.receiver(mod, node.value, node)[0]


@pytest.mark.parametrize("user, verdict", [
    pytest.param("from .base import Child\n\n\ndef f(c: Child):\n    return c.cache\n", Receiver.YES, id="annotated-the-class"),
    pytest.param("from .base import Parent\n\n\ndef f(c: Parent):\n    return c.cache\n", Receiver.MAYBE, id="annotated-an-ancestor"),
    pytest.param("def f(c):\n    return c.cache\n", Receiver.MAYBE, id="unknown"),
    pytest.param("from .base import Child\n\n\ndef f():\n    c = Child()\n    return c.cache\n", Receiver.YES, id="constructed"),
    pytest.param("from .base import Other\n\n\ndef f(c: Other):\n    return c.cache\n", Receiver.NO, id="annotated-unrelated"),
    pytest.param("from .base import Other\n\n\ndef f(c):\n    if isinstance(c, Other):\n        return c.cache\n", Receiver.NO, id="guarded"),
    pytest.param("def f(c: int):\n    return c.cache\n", Receiver.NO, id="builtin"),
    pytest.param("def f(c):\n    return c.cache + c.not_a_member_anywhere\n", Receiver.NO, id="reads-what-the-class-lacks"),
])
def test_receiver(tmp_path, user, verdict):
    assert receiver_of(tmp_path, user) == verdict


def test_near_miss_a_name_bound_twice_is_not_pinned_by_a_co_read(tmp_path):
    user = "def f(c, d):\n    c.not_a_member_anywhere\n    c = d\n    return c.cache\n"
    assert receiver_of(tmp_path, user) == Receiver.MAYBE


@pytest.mark.parametrize("user", [
    pytest.param("def f(g):\n    try:\n        g()\n    except KeyError as c:\n        c.not_a_member_anywhere\n"
                 "    except Exception as c:\n        return c.cache\n", id="two-except-clauses"),
    pytest.param("def f(c, d):\n    if d:\n        c = d\n        c.not_a_member_anywhere\n    return c.cache\n", id="separate-branches"),
])
def test_one_binding_proves_nothing_of_another(tmp_path, user):
    assert receiver_of(tmp_path, user) == Receiver.MAYBE


def test_a_guard_on_a_name_bound_again_proves_nothing(tmp_path):
    user = ("from .base import Other\n\n\ndef f(c, make):\n    if isinstance(c, Other):\n        c = make()\n        return c.cache\n")
    assert receiver_of(tmp_path, user) == Receiver.MAYBE
