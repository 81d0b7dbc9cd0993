"""What an expression may evaluate to: names, operands, cycles and the budget (codemod/receiver_typing/type_exprs.py)."""

import pytest

from codemod.receiver_typing import type_exprs
from codemod.model import Receiver
from codemod.receiver_typing.typing_flow import Flow

from typetools import classified, classify_reads, package, verdict, verdicts

NO, MAYBE, YES = Receiver.NO, Receiver.MAYBE, Receiver.YES


def test_no_change_a_plain_construction(tmp_path):
    assert verdict(tmp_path, "from .base import Other\n\n\ndef f():\n    x = Other()\n    return x.cache\n") == NO


@pytest.mark.parametrize("user, expected", [
    pytest.param("from .base import Other, Child\n\n\ndef f(a):\n    x = Other() or Child()\n    return x.cache\n", YES,
                 id="or-is-one-of-its-operands"),
    pytest.param("from .base import Other\n\n\ndef f(a):\n    x = a and Other()\n    return x.cache\n", MAYBE,
                 id="and-with-an-unknown-operand"),
    pytest.param("from .base import Other, Child\n\n\ndef f(a):\n    x = Other() if a else Child()\n    return x.cache\n", YES,
                 id="conditional-either-branch"),
    pytest.param("from .base import Other\n\n\ndef f(a):\n    x = Other() if a else Other()\n    return x.cache\n", NO,
                 id="conditional-both-unrelated"),
])
def test_operands(tmp_path, user, expected):
    assert verdict(tmp_path, user) == expected


@pytest.mark.parametrize("user, expected", [
    pytest.param("from .base import Other\n\nx = Other()\n\n\ndef f():\n    def g():\n        return x.cache\n    return g\n", NO,
                 id="a-free-name-is-the-enclosing-scopes"),
    pytest.param("from .base import Child\n\nx = Child()\n\n\ndef f():\n    def g():\n        return x.cache\n    return g\n", YES,
                 id="near-miss-the-enclosing-binding-is-the-class"),
    pytest.param("from .base import Other\n\n\ndef f(make):\n    global x\n    x = Other()\n    return x.cache\n", MAYBE,
                 id="a-global-is-bound-elsewhere-too"),
])
def test_scopes(tmp_path, user, expected):
    assert verdict(tmp_path, user) == expected


CYCLE = """
from .base import Other


class A:
    def __init__(self, b):
        self.link = b.back
        self.link = Other()


class B:
    def __init__(self, a):
        self.back = a.link
"""


def test_a_cycle_adds_nothing_of_its_own(tmp_path):
    """``.link`` and ``.back`` are each stored from the other: their only outside source is Other()."""
    user = "def f(z):\n    return z.link.cache\n"
    assert verdict(tmp_path, user, cycle=CYCLE) == NO


def test_near_miss_a_cycle_fed_from_outside(tmp_path):
    fed = CYCLE + "\n\ndef feed(b, c):\n    b.back = c\n"
    assert verdict(tmp_path, "def f(z):\n    return z.link.cache\n", cycle=fed) == MAYBE


def test_over_budget_is_unknown_and_stays_local(tmp_path, monkeypatch):
    """A receiver whose typing needs more steps than the budget is unknown; the answers cut short
    on its way are not kept, so a later receiver through them, with a fresh budget, is typed."""
    chain = "from .base import Other\n\n\ndef f():\n    x0 = Other()\n" + "".join(f"    x{i} = x{i - 1}\n" for i in range(1, 12))
    monkeypatch.setattr(type_exprs, "BUDGET", 5)
    assert verdicts(tmp_path, chain + "    x3.cache\n    x11.cache\n    return x8.cache\n") == [NO, MAYBE, NO]


CHAIN = {
    "m1": "from .m2 import f2\n\n\ndef f1():\n    return f2()\n",
    "m2": "from .m3 import f3\n\n\ndef f2():\n    return f3()\n",
    "m3": "from .base import Other\n\n\ndef f3():\n    return Other()\n",
}


def test_too_many_modules_to_parse_is_unknown_and_stays_local(tmp_path, monkeypatch):
    """Typing ``f1()`` parses m1, m2 and m3; with two parses allowed it is unknown. Nothing cut
    short is kept, so ``f2()`` next (m2 already parsed, m3 the one parse it needs) is typed."""
    user = "from .m1 import f1\nfrom .m2 import f2\n\n\ndef g():\n    f1().cache\n    return f2().cache\n"
    monkeypatch.setattr(type_exprs, "PARSES", 2)
    assert verdicts(tmp_path, user, **CHAIN) == [MAYBE, NO]


def test_near_miss_enough_parses(tmp_path, monkeypatch):
    """m1, m2, m3, and base: whether ``Other()`` makes an Other depends on its class (``__new__``)."""
    monkeypatch.setattr(type_exprs, "PARSES", 4)
    user = "from .m1 import f1\n\n\ndef g():\n    return f1().cache\n"
    assert verdicts(tmp_path, user, **CHAIN) == [NO]


def test_the_note_says_when_the_budget_ran_out(tmp_path, monkeypatch):
    """A reviewer reading the evidence can tell a receiver the typing gave up on from one
    whose source is plainly unknown."""
    monkeypatch.setattr(type_exprs, "PARSES", 2)
    found = classified(tmp_path, "from .m1 import f1\n\n\ndef g(p):\n    p.cache\n    return f1().cache\n", **CHAIN)
    assert [note for _, note, _ in found] == [
        "its type is unknown: g() has no call site in the tree (pkg/user.py:4)",
        "its sources go further than the typing follows",
    ]


def test_the_budget_does_not_depend_on_other_classes_work(tmp_path, monkeypatch):
    """What one class's typing is told does not change with the other classes of the run: a
    module that another class's typing parsed first still counts against this one's budget."""
    index = package(tmp_path, "from .m1 import f1\n\n\ndef g():\n    return f1().cache\n", **CHAIN)
    classes = index.module("pkg/base.py").classes
    [(before, _, _)] = classify_reads(index, Flow(index, classes["Other"]))  # parses m1, m2 and m3
    monkeypatch.setattr(type_exprs, "PARSES", 2)
    [(after, _, _)] = classify_reads(index, Flow(index, classes["Child"]))
    assert (before, after) == (YES, MAYBE)


def test_modules_the_class_searched_anyway_are_free(tmp_path, monkeypatch):
    index = package(tmp_path, "from .m1 import f1\n\n\ndef g():\n    return f1().cache\n", **CHAIN)
    monkeypatch.setattr(type_exprs, "PARSES", 0)
    flow = Flow(index, index.module("pkg/base.py").classes["Child"])
    for rel in ("pkg/m1.py", "pkg/m2.py", "pkg/m3.py", "pkg/base.py"):
        flow.types.looked_at(rel)
    [(verdict_, _, _)] = classify_reads(index, flow)
    assert verdict_ == NO
