"""DC103 kept-method-reads: a kept parent method brings what it reads."""

from ruletools import analyse, kept_by

ID = "DC103"
BASE = """
class Parent:
    def __init__(self, n):
        self.n = n
        self.scale = 2
        self.pool = [0] * n

    def size(self):
        return self.n * self.scale
"""


def test_no_change_when_no_parent_method_is_kept(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def total(self):
                return self.n
        """})
    assert kept_by(a, ID) == set()


def test_a_called_parent_method_keeps_what_it_reads(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def total(self):
                return self.size()
        """})
    assert kept_by(a, "DC101") == {"size"}
    assert kept_by(a, ID) == {"n", "scale"}
    assert "pool" not in a.kept


def test_near_miss_an_override_is_not_followed(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def size(self):
                return 1

            def total(self):
                return self.size()
        """})
    assert kept_by(a, ID) == set()
