"""DC609 copy-super-fallback: a ``super().m()`` fallback to cheap parent code is copied under a
private name; the original and the patched package are run and must print the same."""

import pytest
from ruletools import analyse, patch, run_both

BASE = """
class Buffer:
    def __init__(self, n):
        self.data = [0] * n


class Parent:
    def __init__(self, n):
        self.n = n
        self.scale = 3
        self.buffer = Buffer(n * 100)

    def size(self):
        return self.n * self.scale

    def fill(self, x):
        self.buffer.data[0] = x
        return self.buffer.data[0]

    def describe(self):
        lines = [str(self.n), str(self.scale)]
        lines.append(type(self).__name__)
        lines.append(str(len(self.buffer.data)))
        return ", ".join(lines)
"""


def child(body: str) -> dict:
    return {"base.py": BASE, "child.py": f"from .base import Parent\n\n\nclass Child(Parent):\n{body}"}


SIZE = "    def size(self):\n        return super().size() + 1\n"


def test_no_change_without_super_calls(tmp_path):
    after, v = patch(tmp_path, child("    def total(self):\n        return self.n\n"))
    assert "_Parent_" not in after and v.decision == "decouple"


def test_a_cheap_fallback_is_copied_under_a_private_name(tmp_path):
    after, v = patch(tmp_path, child(SIZE))
    assert v.decision == "decouple", v.reason
    assert "return self._Parent_size() + 1" in after and "def _Parent_size(self):" in after
    assert "super().size()" not in after and "Buffer(" not in after


def test_a_copied_fallback_behaves_the_same(tmp_path):
    body = SIZE + "\n    def twice(self):\n        return super().size() * 2\n"
    before, after, patched = run_both(tmp_path, child(body), """
        from pkg.child import Child
        c = Child(4)
        c.scale = 5
        print(c.size(), c.twice(), type(c).__mro__[1].__name__)
    """)
    assert patched is not None and after.split()[:2] == before.split()[:2] == ["21", "40"]


@pytest.mark.parametrize("body, why", [
    pytest.param("    def fill(self, x):\n        return super().fill(x) + 1\n", "which needs buffer", id="needs-built-state"),
    pytest.param("    @staticmethod\n    def helper():\n        return 1\n\n    def size(self):\n        return super().size()\n\n"
                 "    _Parent_size = 1\n", "through super()", id="private-name-taken"),
])
def test_near_miss_declines(tmp_path, body, why):
    a, v = analyse(tmp_path, child(body))
    assert v.rule == "DC502" and why in v.reason, v.reason


def test_the_patch_is_idempotent(tmp_path):
    files = child(SIZE)
    after, v = patch(tmp_path / "one", files)
    again, v2 = patch(tmp_path / "two", {"base.py": BASE, "child.py": after})
    assert again is None and v2.rule == "DC507", v2
