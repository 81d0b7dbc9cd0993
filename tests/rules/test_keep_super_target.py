"""DC102 super-call-target: ``super().m()`` that reaches the parent keeps ``m`` (DC609 copies it, or DC502 declines)."""

import pytest
from ruletools import analyse, kept_by

ID = "DC102"
BASE = """
class Base:
    def close(self):
        return "base"


class Parent(Base):
    def __init__(self):
        self.pool = list(range(4))

    def size(self):
        return len(self.pool)
"""


def files(body: str) -> dict:
    return {"base.py": BASE, "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n" + body}


def test_no_change_without_super_calls(tmp_path):
    a, v = analyse(tmp_path, files("    def size(self):\n        return 0\n"))
    assert kept_by(a, ID) == set() and a.super_calls == []


def test_a_super_call_into_the_parent_keeps_its_target(tmp_path):
    a, v = analyse(tmp_path, files("    def size(self):\n        return super().size() + 1\n"))
    assert kept_by(a, ID) == {"size"}
    [call] = a.super_calls
    assert (call.method, call.resolves_to, call.reaches_parent) == ("size", "Parent.size", True)
    # The copy would be all of the parent's method lines: mostly reused.
    assert v.rule == "DC504"


@pytest.mark.parametrize("body, resolves", [
    pytest.param("    def close(self):\n        return super().close()\n", "Base.close", id="target-on-the-new-base"),
    pytest.param("    def __init__(self):\n        super().__init__()\n", None, id="super-init-is-the-inline-rule"),
])
def test_near_misses_keep_nothing(tmp_path, body, resolves):
    a, _ = analyse(tmp_path, files(body))
    assert kept_by(a, ID) == set()
    assert [c.resolves_to for c in a.super_calls] == ([resolves] if resolves else [])
    assert not any(c.reaches_parent for c in a.super_calls)
