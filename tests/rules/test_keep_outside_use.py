"""DC108 outside-use: code elsewhere reads a member on something that may be the class."""

import pytest
from ruletools import analyse, kept_by

ID = "DC108"
FILES = {
    "base.py": """
        class Parent:
            def __init__(self, n):
                self.pool = [0] * n
                self.n = n
                self.cache = {}
        """,
    "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                super().__init__(n)
        """,
    "other.py": """
        class Other:
            cache = None
        """,
}


def test_no_change_without_outside_uses(tmp_path):
    a, _ = analyse(tmp_path, FILES)
    assert kept_by(a, ID) == set()


@pytest.mark.parametrize("user", [
    pytest.param("from .child import Child\n\n\ndef f(c: Child):\n    return c.cache\n", id="annotated"),
    pytest.param("def f(c):\n    return c.cache\n", id="unknown-receiver"),
    pytest.param("def f(c):\n    return getattr(c, 'cache', None)\n", id="getattr-literal"),
])
def test_outside_uses_keep(tmp_path, user):
    a, _ = analyse(tmp_path, {**FILES, "user.py": user})
    assert kept_by(a, ID) == {"cache"}
    [ev] = [e for e in a.kept["cache"] if e.rule == ID]
    assert ev.file == "pkg/user.py"


@pytest.mark.parametrize("user", [
    pytest.param("from .other import Other\n\n\ndef f(c: Other):\n    return c.cache\n", id="annotated-unrelated"),
    pytest.param("from .other import Other\n\n\ndef f(c):\n    if isinstance(c, Other):\n        return c.cache\n", id="isinstance-guard"),
    pytest.param("from .other import Other\n\n\ndef f():\n    c = Other()\n    return c.cache\n", id="constructed-here"),
])
def test_near_misses_on_receivers_that_cannot_be_the_class(tmp_path, user):
    a, _ = analyse(tmp_path, {**FILES, "user.py": user})
    assert kept_by(a, ID) == set()
