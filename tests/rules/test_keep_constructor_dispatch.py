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


OVERRIDES_PICK = """
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

    def pick(self, n):
        return n if self.flag else 0

    def total(self):
        return self.n
"""


def test_an_override_called_while_constructing_keeps_what_it_reads(tmp_path):
    a, _ = analyse(tmp_path, {"base.py": BASE, "child.py": OVERRIDES_PICK})
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


def test_an_override_reached_through_a_parent_method_counts_too(tmp_path):
    base = BASE.replace("        self.n = self.pick(n)\n", "        self.n = self.prepare(n)\n") + (
        "\n    def prepare(self, n):\n        return self.pick(n)\n")
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": OVERRIDES_PICK})
    assert kept_by(a, ID) == {"flag"}
    assert any("calls self.pick, which Child overrides" in h for h in hazards_of(a, ID))


def test_a_call_that_reaches_the_class_own_code_is_kept_even_when_it_defines_nothing_needed(tmp_path):
    base = "class Parent:\n    def __init__(self, n):\n        self.pool = [0] * n\n        self.n = n\n        self.configure()\n\n    def configure(self):\n        pass\n"
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": """
        from .base import Parent


        class Child(Parent):
            def configure(self):
                self.mode = "direct"

            def total(self):
                return self.n, self.mode
        """})
    lines = a.parent.module.lines
    assert "self.configure()" in [lines[ln - 1].strip() for ln, _ in a.init_slice.kept]
