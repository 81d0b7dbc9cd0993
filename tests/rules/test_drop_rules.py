"""DC151 same-as-base and DC152 unprovided-attribute: kept members that give the class nothing are dropped."""

import pytest
from ruletools import analyse, hazards_of

CHILD = """
from .base import Parent


class Child(Parent):
    def __init__(self):
        super().__init__()

    def read(self):
        return self.{attr}
"""


@pytest.mark.parametrize("parent_value, kept", [
    pytest.param("True", False, id="same-value-dropped"),
    pytest.param("False", True, id="near-miss-other-value"),
])
def test_same_as_base(tmp_path, parent_value, kept):
    base = f"class Base:\n    flag = True\n\n\nclass Parent(Base):\n    flag = {parent_value}\n\n    def __init__(self):\n        self.pool = [0]\n"
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": CHILD.format(attr="flag")})
    assert ("flag" in a.kept) is kept


def test_unprovided_attribute_is_dropped_with_a_hazard(tmp_path):
    base = "class Parent:\n    def __init__(self):\n        self.pool = [0]\n\n    def setup(self):\n        self.late = 1\n"
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": CHILD.format(attr="late")})
    assert "late" not in a.kept
    assert any("only Parent.setup assigns it" in h for h in hazards_of(a, "DC152"))


def test_unprovided_near_miss_assigned_in_init(tmp_path):
    base = "class Parent:\n    def __init__(self):\n        self.pool = [0]\n        self.late = 1\n"
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": CHILD.format(attr="late")})
    assert "late" in a.kept and hazards_of(a, "DC152") == []


def test_unprovided_near_miss_assigned_in_a_method_the_init_calls(tmp_path):
    base = ("class Parent:\n    def __init__(self):\n        self.pool = [0]\n        self._setup()\n\n"
            "    def _setup(self):\n        self.late = 1\n")
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": CHILD.format(attr="late")})
    assert "late" in a.kept and hazards_of(a, "DC152") == []
    assert "_setup" in a.kept  # the call is kept, so the method is copied


def test_unprovided_still_dropped_when_the_class_overrides_the_called_method(tmp_path):
    base = ("class Parent:\n    def __init__(self):\n        self.pool = [0]\n        self._setup()\n\n"
            "    def _setup(self):\n        self.late = 1\n")
    child = CHILD.format(attr="late") + "\n    def _setup(self):\n        pass\n"
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": child})
    assert "late" not in a.kept and hazards_of(a, "DC152")


def test_unprovided_hazard_names_the_class_own_assignment(tmp_path):
    # The class assigns the attribute in its own setup (as TRTLLMHAAttnBackend.init_cuda_graph_state
    # does): "only Parent.setup assigns it" would be false of the patched tree; the near miss above
    # (test_unprovided_attribute_is_dropped_with_a_hazard) keeps the "only" sentence.
    base = "class Parent:\n    def __init__(self):\n        self.pool = [0]\n\n    def setup(self):\n        self.late = 1\n"
    child = CHILD.format(attr="late") + "\n    def setup(self):\n        self.late = 2\n"
    a, _ = analyse(tmp_path, {"base.py": base, "child.py": child})
    [h] = hazards_of(a, "DC152")
    assert "but only" not in h and "Child assigns self.late in its own code (`pkg/child.py:12` in setup)" in h
