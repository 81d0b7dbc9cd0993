"""DC610 format-changed-lines: the lines a patch writes follow the target's formatter; the rest stays."""

import pytest
from ruletools import patch

BASE = """
class Parent:
    def __init__(self, n):
        self.n = n
        self.pool = [0] * n


def make(first, second, third, fourth, fifth, sixth, seventh, eighth):
    return first
"""
CHILD = """
from .base import Parent, make


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)
        self.items = []
        for i in range(n):
            self.items.append(make(self.n, i, 'second_value', 'third_value', 'fourth', 'fifth', 'sixth', 'seventh'))
        untouched = make(1,2,3,4,5,6,7,8)

    def total(self):
        return self.n
"""


def test_no_change_to_untouched_lines(tmp_path):
    after, v = patch(tmp_path, {"base.py": BASE, "child.py": CHILD})
    assert "        untouched = make(1,2,3,4,5,6,7,8)\n" in after


def test_changed_lines_are_formatted_and_fit_the_line_length(tmp_path):
    base = BASE.replace("        self.n = n\n", "        self.n = n\n        self.label = make(n,  'second_value','third_value','fourth','fifth','sixth','seventh','eighth')\n")
    child = CHILD.replace("        return self.n\n", "        return self.n, self.label\n")
    after, v = patch(tmp_path, {"base.py": base, "child.py": child})
    assert v.decision == "decouple"
    assert '        self.label = make(\n            n,\n            "second_value",\n' in after
    assert max(len(l) for l in after.splitlines() if "untouched" not in l and "items.append" not in l) <= 88


@pytest.mark.parametrize("config, width", [
    pytest.param({}, 88, id="black-default"),
    pytest.param({"pyproject.toml": "[tool.black]\nline-length = 100\n"}, 100, id="black-line-length"),
    pytest.param({"pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 120, id="ruff-line-length"),
])
def test_style_comes_from_the_targets_configuration(tmp_path, config, width):
    from codemod.discover import Tree
    from codemod.rules.rewrite_format import style_of
    from ruletools import write

    write(tmp_path, {"base.py": BASE})
    for name, text in config.items():
        (tmp_path / name).write_text(text)
    assert style_of(Tree.open(tmp_path)).line_length == width


def test_a_long_added_call_is_wrapped_as_black_wraps_it():
    from codemod.rules.rewrite_format import Style, apply

    before = "x = 1\n"
    after = "x = 1\nresult = some_function(argument_number_one, argument_number_two, argument_number_three, four)\n"
    assert apply(before, after, Style("default")) == (
        "x = 1\nresult = some_function(\n    argument_number_one, argument_number_two, argument_number_three, four\n)\n")


def test_near_miss_an_unchanged_long_line_is_left_alone():
    from codemod.rules.rewrite_format import Style, apply

    long = "result = some_function(argument_number_one, argument_number_two, argument_number_three, four)\n"
    assert apply(long, long + "y = 2\n", Style("default")) == long + "y = 2\n"


def test_an_added_comment_over_the_line_length_is_wrapped():
    from codemod.rules.rewrite_format import Style, apply

    comment = "    # " + " ".join(["word"] * 30) + "\n"
    out = apply("def f():\n    pass\n", "def f():\n" + comment + "    pass\n", Style("default"))
    assert all(len(l) <= 88 and l.lstrip().startswith(("#", "def", "pass")) for l in out.splitlines())
    assert out.count("word") == 30


def test_crlf_endings_are_kept_and_the_changed_lines_formatted():
    from codemod.rules.rewrite_format import Style, apply

    before = "x = 1\r\n"
    after = "x = 1\r\ny = {'a':1}\r\n"
    assert apply(before, after, Style("default")) == 'x = 1\r\ny = {"a": 1}\r\n'


def test_near_miss_mixed_line_endings_are_left_alone():
    from codemod.rules.rewrite_format import Style, apply

    after = "x = 1\r\ny = {'a':1}\n"
    assert apply("x = 1\r\n", after, Style("default")) == after
