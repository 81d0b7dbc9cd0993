"""Whether a hasattr test of a member can matter on an instance (codemod/receiver_typing/hasattr_tests.py)."""

import ast

import pytest

from codemod.receiver_typing.hasattr_tests import lacking_partner
from codemod.index import ModuleInfo

LACKED = {"select", "other"}  # the names no instance has, in these cases


def partner(src: str) -> str | None:
    """``lacking_partner`` for the test of ``.m`` in ``src``."""
    tree = ast.parse(src)
    mod = ModuleInfo("m", "m.py", tree, src, False)
    [call] = [n for n in mod.nodes if isinstance(n, ast.Call) and len(n.args) == 2
              and isinstance(n.args[1], ast.Constant) and n.args[1].value == "m"]
    return lacking_partner(mod, call, LACKED.__contains__)


def test_no_change_a_test_alone():
    assert partner("def f(x):\n    return hasattr(x, 'm')\n") is None


@pytest.mark.parametrize("src, expected", [
    pytest.param("def f(x):\n    return hasattr(x, 'm') and hasattr(x, 'select')\n", "select", id="right-after"),
    pytest.param("def f(x):\n    return hasattr(x, 'select') and hasattr(x, 'm')\n", "select", id="before"),
    pytest.param("def f(x, a):\n    return hasattr(x, 'select') and a() and hasattr(x, 'm')\n", "select", id="before-with-code-between"),
    pytest.param("def f(x):\n    if hasattr(x, 'p') and hasattr(x, 'm') and hasattr(x, 'select'):\n        pass\n", "select",
                 id="in-a-longer-chain"),
])
def test_a_test_decided_by_a_lacking_name(src, expected):
    assert partner(src) == expected


@pytest.mark.parametrize("src", [
    pytest.param("def f(x):\n    return hasattr(x, 'm') and hasattr(x, 'p')\n", id="the-other-name-may-be-there"),
    pytest.param("def f(x):\n    return hasattr(x, 'm') or hasattr(x, 'select')\n", id="an-or"),
    pytest.param("def f(x, y):\n    return hasattr(x, 'm') and hasattr(y, 'select')\n", id="another-object"),
    pytest.param("def f(x):\n    return hasattr(x, 'm') and hasattr(x, 'p') and hasattr(x, 'select')\n", id="a-test-between"),
    pytest.param("def f(x, a):\n    return hasattr(x, 'm') and a() and hasattr(x, 'select')\n", id="code-between-that-would-be-skipped"),
    pytest.param("def f(x, y):\n    return hasattr(x, 'm') and (x := y) and hasattr(x, 'select')\n", id="a-walrus"),
    pytest.param("def f(x, y):\n    return hasattr(x, 'select') and (x := y) and hasattr(x, 'm')\n", id="a-walrus-after-the-partner"),
    pytest.param("def f(o):\n    return hasattr(o.x, 'm') and hasattr(o.x, 'select')\n", id="an-attribute-may-change-between"),
    pytest.param("def hasattr(o, n):\n    return True\n\n\ndef f(x):\n    return hasattr(x, 'm') and hasattr(x, 'select')\n",
                 id="hasattr-defined-here"),
    pytest.param("from helpers import *\n\n\ndef f(x):\n    return hasattr(x, 'm') and hasattr(x, 'select')\n", id="a-star-import"),
    pytest.param("def f(x, hasattr=hasattr):\n    return hasattr(x, 'm') and hasattr(x, 'select')\n", id="a-parameter-named-hasattr"),
    pytest.param("def f(x):\n    return (hasattr(x, 'm') or x) and hasattr(x, 'select')\n", id="not-an-operand-of-the-and"),
])
def test_near_misses(src):
    assert partner(src) is None
