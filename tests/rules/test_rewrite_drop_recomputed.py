"""DC612 drop-recomputed: a parent assignment the class repeats is inlined once, its dependents
moved after the repeat; original and patched run and must agree on every attribute."""

import pytest
from ruletools import analyse, patch, run_both

BASE = """
class Pool:
    def __init__(self, n):
        self.slots = [0] * n


class Parent:
    def __init__(self, n, shared=None):
        self.n = n
        self.shared = self._pick(shared)
        self.has_shared = self.shared is not None
        self.pool = Pool(n * 10)

    @staticmethod
    def _pick(shared):
        return shared
"""
CHILD = """
from .base import Parent


class Child(Parent):
    def __init__(self, n, shared=None):
        super().__init__(n, shared)
        self.width = n * 2
{repeat}

    @staticmethod
    def _pick(shared):
        return None if shared == "" else shared

    def total(self):
        return self.has_shared, self.shared, self.width
"""
REPEAT = "        self.shared = self._pick(shared)"


def files(repeat: str = REPEAT) -> dict:
    return {"base.py": BASE, "child.py": CHILD.format(repeat=repeat)}


def test_no_change_without_a_repeat(tmp_path):
    after, v = patch(tmp_path, files("        self.extra = 1"))
    assert after.count("self._pick(shared)") == 1 and after.index("self.has_shared") > after.index("self._pick(shared)")


def test_a_repeated_assignment_is_inlined_once_and_its_dependent_moves(tmp_path):
    after, v = patch(tmp_path, files())
    assert after.count("self._pick(shared)") == 1
    assert after.index("self.shared = self._pick(shared)\n        self.has_shared = self.shared is not None") > after.index("self.width")


def test_the_moved_dependent_sees_the_same_value(tmp_path):
    before, after, patched = run_both(tmp_path, files(), """
        from pkg.child import Child
        for shared in (None, "", "x"):
            c = Child(3, shared)
            print(c.total(), {k: vars(c)[k] for k in ("has_shared", "shared", "width")})
    """)
    assert patched is not None and after == before and "Error" not in before


@pytest.mark.parametrize("repeat, why", [
    pytest.param("        print(self.has_shared)\n" + REPEAT, "read-before-the-repeat", id="dependent-read-before-the-repeat"),
    pytest.param("        self.shared = self._pick(n)", "other-argument", id="repeat-with-another-argument"),
    pytest.param("        shared = 'y'\n" + REPEAT, "rebound", id="argument-rebound-before-the-repeat"),
    pytest.param("        if n:\n    " + REPEAT, "in-a-branch", id="repeat-inside-a-branch"),
])
def test_near_miss_keeps_both(tmp_path, repeat, why):
    after, v = patch(tmp_path, files(repeat))
    assert v.decision == "decouple" and after.count("self._pick(") == 2, why


def test_near_miss_a_method_that_assigns_on_self_is_not_dropped(tmp_path):
    child = CHILD.format(repeat=REPEAT).replace('        return None if shared == "" else shared', '        return shared')
    child = child.replace("    @staticmethod\n    def _pick(shared):\n        return shared", "    def _pick(self, shared):\n        self.calls = 1\n        return shared")
    after, v = patch(tmp_path, {"base.py": BASE, "child.py": child})
    assert after.count("self._pick(shared)") == 2
