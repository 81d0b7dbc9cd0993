"""DC608 name-binding: moved code keeps the objects its names meant in the parent's module."""

import pytest
from ruletools import patch

BASE = """
SCALE = 2


def helper(x):
    return x + 1


class Parent:
    def __init__(self, n):
        self.pool = [0] * (n * 100)
        self.n = helper(n) * SCALE

    def size(self):
        return helper(self.n)

    def report(self):
        rows = []
        for i, slot in enumerate(self.pool):
            if slot:
                rows.append((i, slot))
        return rows
"""
CHILD = """
from .base import Parent
{extra}

class Child(Parent):
    def __init__(self, n{param}):
        super().__init__(n)

    def describe(self):
        return self.n, self.size()
"""


def test_no_change_when_the_class_module_binds_nothing_of_the_same_name(tmp_path):
    after, v = patch(tmp_path, {"base.py": BASE, "child.py": CHILD.format(extra="", param="")})
    assert "from .base import SCALE, helper\n" in after
    assert "self.n = helper(n) * SCALE" in after and "_base" not in after


@pytest.mark.parametrize("extra, param, aliased", [
    pytest.param("\n\ndef helper(x):\n    return x * 100\n", "", {"helper"}, id="module-function-clash"),
    pytest.param("\nSCALE = 10\n", "", {"SCALE"}, id="module-constant-clash"),
    pytest.param("", ", SCALE=3", {"SCALE"}, id="a-local-of-the-class-init"),
])
def test_clashing_names_are_imported_under_an_alias(tmp_path, extra, param, aliased):
    after, v = patch(tmp_path, {"base.py": BASE, "child.py": CHILD.format(extra=extra, param=param)})
    assert v.decision == "decouple", v.reason
    for name in aliased:
        assert f"{name} as {name}_base" in after
        assert f"{name}_base" in after.split("class Child:", 1)[1]


def test_the_new_base_is_aliased_when_the_class_has_its_name(tmp_path):
    files = {
        "core.py": "class Writer:\n    def __init__(self):\n        self.opened = True\n",
        "base.py": ("from .core import Writer as CoreWriter\n\n\nclass Writer(CoreWriter):\n    def __init__(self):\n"
                    "        super().__init__()\n        self.buf = [0] * 100\n        self.mode = 'w'\n"),
        "fast.py": ("from pkg import base\n\n\nclass Writer(base.Writer):\n    def __init__(self):\n        super().__init__()\n\n"
                    "    def kind(self):\n        return self.mode\n"),
    }
    after, v = patch(tmp_path, files, cls="pkg.fast:Writer")
    assert after.startswith("from pkg.core import Writer as Writer_core\n")
    assert "class Writer(Writer_core):" in after


# DC705 post-names checks the result without trusting DC608: with the aliasing switched off,
# moved code that would read the class module's own SCALE or helper is refused.
@pytest.mark.parametrize("extra", [
    pytest.param("\n\ndef helper(x):\n    return x * 100\n", id="module-function-clash"),
    pytest.param("\nSCALE = 10\n", id="module-constant-clash"),
])
def test_the_post_condition_alone_refuses_a_clash_left_unaliased(tmp_path, monkeypatch, extra):
    from codemod.rules import rewrite_bind_names

    monkeypatch.setattr(rewrite_bind_names, "plan", lambda index, a, *rest: {})
    after, v = patch(tmp_path, {"base.py": BASE, "child.py": CHILD.format(extra=extra, param="")})
    assert after is None and v.decision == "unsafe" and v.refused_by == "DC705", v


def test_near_miss_without_a_clash_the_post_condition_passes_with_the_aliasing_off(tmp_path, monkeypatch):
    from codemod.rules import rewrite_bind_names

    monkeypatch.setattr(rewrite_bind_names, "plan", lambda index, a, *rest: {})
    after, v = patch(tmp_path, {"base.py": BASE, "child.py": CHILD.format(extra="", param="")})
    assert v.decision == "decouple", v.reason
    assert "self.n = helper(n) * SCALE" in after
