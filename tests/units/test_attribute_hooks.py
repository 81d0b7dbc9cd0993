"""``attribute_hooks.silent_for``: whether a store hook, for one attribute's name, does nothing but the store."""

import ast

import pytest

from codemod.attribute_hooks import silent_for, whole_state_lines

SETATTR = "def __setattr__(self, name, value):\n    if {test}:\n        print(name)\n    super().__setattr__(name, value)\n"


def _fn(src: str) -> ast.FunctionDef:
    return ast.parse(src).body[0]


@pytest.mark.parametrize("test, attr, silent", [
    pytest.param("name == 'a' and value", "b", True, id="and-decided-false-by-the-name"),
    pytest.param("name == 'a' and value", "a", False, id="and-left-to-the-value"),
    pytest.param("value and name == 'a'", "b", False, id="undecided-operand-first"),
    pytest.param("check() or name != 'a'", "b", False, id="call-before-the-deciding-operand"),
    pytest.param("name != 'a' or check()", "b", False, id="or-decided-true"),
    pytest.param("name == 'a' or name == 'b'", "c", True, id="or-decided-false"),
    pytest.param("name.startswith('_')", "pool", True, id="startswith-false"),
    pytest.param("name.startswith('_')", "_pool", False, id="startswith-true"),
    pytest.param("not name in ('a', 'b')", "a", True, id="not-in-a-tuple"),
    pytest.param("name == KEY", "a", False, id="compared-to-a-global"),
])
def test_the_path_the_name_takes(test, attr, silent):
    assert silent_for(_fn(SETATTR.format(test=test)), attr) is silent


@pytest.mark.parametrize("body, silent", [
    pytest.param("object.__setattr__(self, name, value)", True, id="object"),
    pytest.param("self.__dict__[name] = value", True, id="instance-dict"),
    pytest.param("super().__setattr__(name, value)", True, id="super"),
    pytest.param("super().__setattr__(name, float(value))", False, id="value-changed"),
    pytest.param("object.__setattr__(self, 'count', 1)\n    object.__setattr__(self, name, value)", False, id="another-store"),
    pytest.param("self.log.append(name)\n    object.__setattr__(self, name, value)", False, id="a-call"),
    pytest.param("if value is None:\n        return\n    object.__setattr__(self, name, value)", True, id="swallowed-none"),
])
def test_what_the_hook_does(body, silent):
    assert silent_for(_fn(f"def __setattr__(self, name, value):\n    {body}\n"), "pool") is silent


@pytest.mark.parametrize("src, whole", [
    pytest.param("def __getstate__(self):\n    state = self.__dict__.copy()\n    del state['lock']\n    return state\n", True, id="copy"),
    pytest.param("def __setstate__(self, state):\n    self.__dict__.update(state)\n", True, id="update"),
    pytest.param("def __reduce__(self):\n    return (type(self), (), self.__dict__)\n", True, id="returned-in-a-tuple"),
    pytest.param("def __getstate__(self):\n    state = dict(vars(self))\n    for k in list(state):\n        state.pop(k)\n    return state\n",
                 False, id="computed-key"),
])
def test_whole_state(src, whole):
    got = whole_state_lines(_fn(src))
    assert (got is not None) is whole
    if whole:
        assert sum(got[0].values()) == 1
