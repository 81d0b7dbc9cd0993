"""What a call returns: functions, methods through the receiver's classes, classmethods (codemod/receiver_typing/type_calls.py)."""

import pytest

from codemod.model import Receiver

from typetools import verdict

NO, MAYBE, YES = Receiver.NO, Receiver.MAYBE, Receiver.YES

MAKERS = """
from .base import Child, Other


def make_other():
    return Other()


def make_child():
    return Child()


def make_either(flag):
    if flag:
        return Other()
    return Child()


def make_unknown(x):
    return x


def make_lines():
    yield Child()


class Factory:
    def other(self):
        return Other()

    @classmethod
    def build(cls):
        return cls()

    @property
    def made(self):
        return Other()

    @some_decorator
    def wrapped(self):
        return Other()


class ChildFactory(Factory):
    def other(self):
        return Child()


class Plain:
    def other(self):
        return Other()


class Base:
    def part(self):
        return Other()


class Mixin:
    def part(self):
        return Child()


class Derived(Base):
    def part(self):
        return super().part()


class Diamond(Derived, Mixin):
    pass


class Lone(Plain):
    def other(self):
        return super().other()
"""


def test_no_change_an_annotated_function(tmp_path):
    user = "from .base import Other\n\n\ndef make() -> Other:\n    ...\n\n\ndef f():\n    return make().cache\n"
    assert verdict(tmp_path, user) == NO


@pytest.mark.parametrize("user, expected", [
    pytest.param("from .makers import make_other\n\n\ndef f():\n    return make_other().cache\n", NO, id="returns-unrelated"),
    pytest.param("from .makers import make_child\n\n\ndef f():\n    return make_child().cache\n", YES, id="returns-the-class"),
    pytest.param("from .makers import make_either\n\n\ndef f():\n    return make_either(1).cache\n", YES, id="one-return-of-two"),
    pytest.param("from .makers import make_unknown\n\n\ndef f(a):\n    return make_unknown(a).cache\n", MAYBE, id="returns-a-parameter"),
    pytest.param("from .makers import make_lines\n\n\ndef f():\n    return make_lines().cache\n", NO, id="a-generator"),
    pytest.param("from .makers import Plain\n\n\ndef f():\n    return Plain().other().cache\n", NO, id="a-method-of-an-exact-class"),
    pytest.param("from .makers import Factory\n\n\ndef f(p: Factory):\n    return p.other().cache\n", YES,
                 id="an-override-in-a-subclass-counts"),
    pytest.param("from .makers import Factory\n\n\ndef f():\n    return Factory().other().cache\n", NO,
                 id="near-miss-an-exact-receiver-runs-its-own"),
    pytest.param("from .makers import Factory\n\n\ndef f():\n    return Factory.build().cache\n", NO, id="classmethod-cls"),
    pytest.param("from .makers import Factory\n\n\ndef f():\n    return Factory().made.cache\n", NO, id="a-property"),
    pytest.param("from .makers import Factory\n\n\ndef f():\n    return Factory().wrapped().cache\n", MAYBE,
                 id="an-unknown-decorator-may-change-the-result"),
    pytest.param("def f(g):\n    return g().cache\n", MAYBE, id="an-unnamed-callable"),
    pytest.param("from .makers import make_other\n\n\ndef f(make_other):\n    return make_other().cache\n", MAYBE,
                 id="a-parameter-shadows-the-function"),
    pytest.param("from .makers import Factory\n\n\ndef f(Factory):\n    return Factory.build().cache\n", MAYBE,
                 id="a-parameter-shadows-the-class"),
    pytest.param("from .base import Other\n\n\ndef f():\n    return object.__new__(Other).cache\n", NO, id="new-bypassing-init"),
    pytest.param("from .base import Child\n\n\ndef f():\n    return Child.__new__(Child).cache\n", YES, id="near-miss-new-of-the-class"),
    pytest.param("import copy\nfrom .base import Other\n\n\ndef f():\n    return copy.deepcopy(Other()).cache\n", NO, id="a-copy"),
    pytest.param("from .makers import Lone\n\n\ndef f():\n    return Lone().other().cache\n", NO, id="super-runs-the-base"),
    pytest.param("from .makers import Diamond\n\n\ndef f():\n    return Diamond().part().cache\n", YES,
                 id="super-in-a-diamond-may-run-a-sibling"),
])
def test_calls(tmp_path, user, expected):
    assert verdict(tmp_path, user, makers=MAKERS) == expected


def test_the_note_names_the_decorator(tmp_path):
    from typetools import classified

    user = "from .makers import Factory\n\n\ndef f():\n    return Factory().wrapped().cache\n"
    [(_, note, _)] = classified(tmp_path, user, makers=MAKERS)
    assert note == "its type is unknown: wrapped() has a decorator that may change what it returns (pkg/makers.py:40)"


CHAIN = {
    "getter": "from .base import Parent\nfrom .m2 import make\n\n\ndef get() -> Parent:\n    return make()\n",
    "m2": "from .m3 import make3\n\n\ndef make():\n    return make3()\n",
    "m3": "from .base import Other\n\n\ndef make3():\n    return Other()\n",
}


def test_returns_followed_past_an_annotation_that_does_not_decide(tmp_path):
    """get() -> Parent returns only an Other, which the return statements tell."""
    user = "from .getter import get\n\n\ndef f():\n    return get().cache\n"
    assert verdict(tmp_path, user, **CHAIN) == NO


def test_over_budget_the_return_annotation_still_holds(tmp_path, monkeypatch):
    """Following get()'s returns needs more modules than allowed: the call gives what its
    annotation says (a base of the class: shown to be able to hold one), not unknown."""
    from codemod.receiver_typing import type_exprs
    from typetools import classified

    monkeypatch.setattr(type_exprs, "PARSES", 2)  # getter.py and base.py, not m2.py
    user = "from .getter import get\n\n\ndef f():\n    return get().cache\n"
    assert classified(tmp_path, user, **CHAIN) == [(MAYBE, "typed Parent", "shown")]


def test_near_miss_over_budget_without_an_annotation_is_unknown(tmp_path, monkeypatch):
    from codemod.receiver_typing import type_exprs
    from typetools import classified

    monkeypatch.setattr(type_exprs, "PARSES", 1)
    user = "from .m2 import make\n\n\ndef f():\n    return make().cache\n"
    assert classified(tmp_path, user, **CHAIN) == [(MAYBE, "its sources go further than the typing follows", "unknown")]
