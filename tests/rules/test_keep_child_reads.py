"""DC101 child-reads-self: what the class itself reads through ``self`` is kept."""

import pytest
from ruletools import analyse, kept_by

ID = "DC101"
BASE = """
class Parent:
    def __init__(self, n):
        self.pool = [0] * n
        self.n = n
"""


def test_no_change_when_the_class_reads_nothing(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                super().__init__(n)
        """})
    assert kept_by(a, ID) == set()


CASES = [
    pytest.param("""
        def total(self):
            return self.n
    """, {"n"}, id="read-in-a-method"),
    pytest.param("""
        def total(self):
            return (lambda: self.n)()
    """, {"n"}, id="read-in-a-lambda"),
    pytest.param("""
        def grow(self):
            self.pool.append(1)
    """, {"pool"}, id="mutation-is-a-read"),
]
NEAR_MISSES = [
    pytest.param("""
        def total(self, other):
            return other.n
    """, id="another-object"),
    pytest.param("""
        def total(self):
            self.n = 3
            return 1
    """, id="a-write-only"),
]


def child(method: str) -> dict:
    body = "\n".join("    " + line[4:] if line.strip() else "" for line in method.strip("\n").splitlines())
    return {"base.py": BASE, "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n"
            "    def __init__(self, n):\n        super().__init__(n)\n\n" + body + "\n"}


@pytest.mark.parametrize("method, kept", CASES)
def test_keeps_what_the_class_reads(tmp_path, method, kept):
    a, _ = analyse(tmp_path, child(method))
    assert kept_by(a, ID) == kept
    assert all(e.rule == ID for e in a.kept[next(iter(kept))] if e.file.endswith("child.py"))


@pytest.mark.parametrize("method", NEAR_MISSES)
def test_near_misses_keep_nothing(tmp_path, method):
    a, _ = analyse(tmp_path, child(method))
    assert kept_by(a, ID) == set()


def test_an_assignment_the_parent_overwrites_is_not_the_class_own(tmp_path):
    files = {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                self.n = n * 2
                super().__init__(n)
                print(self.n, self.pool)
        """}
    a, _ = analyse(tmp_path, files)
    # self.n is read after super().__init__, which assigns it again: P's value is read.
    assert kept_by(a, ID) == {"n", "pool"}


def test_near_miss_an_assignment_before_super_that_the_parent_leaves_alone(tmp_path):
    files = {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                self.extra = n * 2
                super().__init__(n)
                print(self.extra, self.pool)
        """}
    a, _ = analyse(tmp_path, files)
    assert kept_by(a, ID) == {"pool"}


def test_init_assignment_on_every_path_satisfies_later_methods(tmp_path):
    files = {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                super().__init__(n)
                self.n = 0

            def total(self):
                return self.n
        """}
    a, _ = analyse(tmp_path, files)
    assert "n" not in kept_by(a, ID)


PROPERTY = """
class Parent:
    def __init__(self, n):
        self.pool = [0] * n
        self._n = n

    @property
    def n(self):
        return self._n

    @n.setter
    def n(self, value):
        self._n = max(0, value)
"""


@pytest.mark.parametrize("where", ["__init__", "method"])
def test_an_assignment_to_a_parent_property_keeps_it(tmp_path, where):
    body = ("    def __init__(self, n):\n        super().__init__(n)\n        self.n = -1\n" if where == "__init__"
            else "    def reset(self):\n        self.n = -1\n")
    a, _ = analyse(tmp_path, {"base.py": PROPERTY, "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n" + body})
    assert "n" in kept_by(a, ID)


def test_near_miss_an_assignment_to_a_plain_attribute(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def reset(self):\n        self.n = -1\n"})
    assert kept_by(a, ID) == set()
