"""DC107 constructor-dispatch: the parent's __init__ calls a method the class overrides."""

from ruletools import analyse, hazards_of, kept_by

ID = "DC107"
BASE = """
class Parent:
    def __init__(self, n):
        self.flag = True
        self.n = self.pick(n)

    def pick(self, n):
        return n
"""


def test_an_override_called_while_constructing_keeps_what_it_reads(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                super().__init__(n)

            def pick(self, n):
                return n if self.flag else 0

            def total(self):
                return self.n
        """})
    assert kept_by(a, ID) == {"flag"}
    assert any("calls self.pick, which Child overrides" in h for h in hazards_of(a, ID))


def test_near_miss_no_override_is_an_ordinary_call(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                super().__init__(n)

            def total(self):
                return self.n
        """})
    assert hazards_of(a, ID) == [] and kept_by(a, ID) == set()
    assert kept_by(a, "DC105") == {"pick"}
