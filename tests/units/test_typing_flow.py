"""Receiver typing alone: may this expression be an instance of the class? (codemod/receiver_typing/typing_flow.py)."""

import pytest

from codemod.model import Receiver

from typetools import BASE, verdict

def receiver_of(tmp_path, user: str) -> Receiver:
    """The verdict on the receiver of the last ``.cache`` read in ``user``."""
    return verdict(tmp_path, user)


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


@pytest.mark.parametrize("base_of_parent, expected", [
    pytest.param("library.Module", Receiver.MAYBE, id="an-outside-base-may-give-it"),
    pytest.param("abc.ABC", Receiver.NO, id="near-miss-abc-gives-nothing"),
])
def test_a_read_the_class_lacks_proves_nothing_when_a_base_is_outside(tmp_path, base_of_parent, expected):
    """``c.train()`` rules ``c`` out only if no ancestor outside the tree can give the class a ``train``."""
    base = BASE.replace("class Parent:", f"import abc\nimport library\n\n\nclass Parent({base_of_parent}):")
    user = "def f(c):\n    c.train()\n    return c.cache\n"
    assert verdict(tmp_path, user, base=base) == expected


@pytest.mark.parametrize("user", [
    pytest.param("def f(c):\n    if hasattr(c, 'train'):\n        c.train()\n    return c.cache\n", id="under-a-hasattr-test"),
    pytest.param("def f(c):\n    x = c.cache\n    if x:\n        return x\n    c.not_a_member_anywhere()\n", id="after-a-way-out"),
    pytest.param("def f(c):\n    try:\n        x = c.cache\n        c.not_a_member_anywhere()\n    except AttributeError:\n        return 0\n",
                 id="after-it-inside-a-try"),
    pytest.param("def f(c):\n    try:\n        c.not_a_member_anywhere()\n    except AttributeError:\n        pass\n    return c.cache\n",
                 id="caught"),
    pytest.param("def f(c, on):\n    y = on and c.not_a_member_anywhere\n    return c.cache\n", id="after-and"),
    pytest.param("def f(c, xs):\n    for x in xs:\n        c.not_a_member_anywhere()\n    return c.cache\n", id="in-a-loop-before"),
])
def test_a_read_the_class_lacks_proves_nothing_unless_it_runs_first(tmp_path, user):
    assert receiver_of(tmp_path, user) == Receiver.MAYBE


@pytest.mark.parametrize("user", [
    pytest.param("def f(c):\n    c.not_a_member_anywhere()\n    return c.cache\n", id="an-earlier-statement"),
    pytest.param("def f(c):\n    if c.not_a_member_anywhere:\n        return c.cache\n", id="the-test-of-an-if-around-it"),
    pytest.param("def f(c):\n    with c.not_a_member_anywhere():\n        return c.cache\n", id="a-with-item-around-it"),
    pytest.param("def f(c):\n    x = c.cache\n    y = x + 1\n    c.not_a_member_anywhere()\n    return y\n", id="always-after-it"),
])
def test_near_miss_a_read_that_runs_first_still_rules_it_out(tmp_path, user):
    assert receiver_of(tmp_path, user) == Receiver.NO


@pytest.mark.parametrize("user, expected, note", [
    pytest.param("class Reader:\n    def f(self):\n        self.not_a_member_anywhere\n        return self.cache\n",
                 Receiver.NO, "typed Reader", id="self-of-an-unrelated-class-typed-first"),
    pytest.param("class Reader:\n    @classmethod\n    def f(cls):\n        return cls.cache\n",
                 Receiver.NO, "typed Reader", id="cls-of-an-unrelated-class"),
    pytest.param("from .base import Child\n\n\nclass Sub(Child):\n    def f(self):\n        self.not_a_member_anywhere\n"
                 "        return self.cache\n", Receiver.NO, "the same object also has .not_a_member_anywhere",
                 id="near-miss-self-that-may-be-the-class-falls-back-to-the-co-read"),
    pytest.param("from .base import Child\n\n\nclass Sub(Child):\n    def f(self):\n        return self.cache\n",
                 Receiver.YES, "typed Sub", id="near-miss-self-of-a-subclass"),
    pytest.param("class Reader:\n    @staticmethod\n    def f(self):\n        self.not_a_member_anywhere\n        return self.cache\n",
                 Receiver.NO, "the same object also has .not_a_member_anywhere", id="near-miss-a-static-method's-first-parameter"),
])
def test_a_method_s_own_self_is_typed_before_its_other_reads(tmp_path, user, expected, note):
    """The order of the two ways to rule a receiver out changes no verdict, only which one the note names."""
    from typetools import classified

    got_verdict, got_note, _ = classified(tmp_path, user)[-1]
    assert got_verdict == expected
    assert got_note.startswith(note)
