"""Whether one read runs before another on every path (codemod/receiver_typing/dominance.py)."""

import ast

import pytest

from codemod.receiver_typing.dominance import always_follows, runs_before
from codemod.index import ModuleInfo


def ask(test, src: str) -> bool:
    """``test(the read of .r, the read of .t)`` in ``src``."""
    tree = ast.parse(src)
    mod = ModuleInfo("m", "m.py", tree, src, False)
    reads = {n.attr: n for n in mod.nodes if isinstance(n, ast.Attribute)}
    return test(mod, reads["r"], reads["t"])


def first_before(src: str) -> bool:
    return ask(runs_before, src)


def test_no_change_straight_line():
    assert first_before("def f(x):\n    x.r\n    return x.t\n")


@pytest.mark.parametrize("src, expected", [
    pytest.param("def f(x):\n    return x.t + x.r\n", True, id="the-same-statement"),
    pytest.param("def f(x):\n    if x.r:\n        return x.t\n", True, id="the-test-of-an-if-around-it"),
    pytest.param("def f(x, ys):\n    for y in x.r:\n        x.t\n", True, id="the-iterable-of-a-loop-around-it"),
    pytest.param("def f(x):\n    with x.r:\n        x.t\n", True, id="a-with-item"),
    pytest.param("def f(x):\n    try:\n        x.r\n        x.t\n    except AttributeError:\n        pass\n", True, id="earlier-in-the-same-try"),
    pytest.param("def f(x):\n    x.t\n    x.r\n", False, id="after"),
    pytest.param("def f(x, a):\n    if a:\n        x.r\n    x.t\n", False, id="under-an-if"),
    pytest.param("def f(x):\n    try:\n        x.r\n    except AttributeError:\n        pass\n    x.t\n", False, id="caught-before"),
    pytest.param("def f(x, a):\n    y = a or x.r\n    x.t\n", False, id="after-or"),
    pytest.param("def f(x, a):\n    y = x.r if a else 0\n    x.t\n", False, id="a-branch-of-a-conditional"),
    pytest.param("def f(x, ys):\n    [x.r for y in ys]\n    x.t\n", False, id="a-comprehension"),
    pytest.param("def f(x, ys):\n    for y in ys:\n        x.r\n    x.t\n", False, id="a-loop-body-before"),
    pytest.param("def f(x, g=lambda: 0):\n    g = lambda: x.r\n    x.t\n", False, id="a-lambda"),
    pytest.param("def f(x=X.r):\n    x.t\n", False, id="a-default-runs-where-the-function-is-defined"),
])
def test_runs_before(src, expected):
    assert first_before(src) is expected


def last_follows(src: str) -> bool:
    return ask(always_follows, src)


@pytest.mark.parametrize("src, expected", [
    pytest.param("def f(x):\n    y = x.t\n    z = y + 1\n    x.r()\n", True, id="plain-statements-between"),
    pytest.param("def f(x):\n    y = x.t\n    if y:\n        return y\n    x.r()\n", False, id="a-way-out-between"),
    pytest.param("def f(x):\n    return x.t\n    x.r()\n", False, id="t-returns"),
    pytest.param("async def f(x):\n    y = x.t\n    await g()\n    x.r()\n", False, id="an-await-between"),
    pytest.param("def f(x):\n    with m:\n        y = x.t\n        x.r()\n", False, id="inside-a-with"),
    pytest.param("def f(x, a):\n    y = x.t\n    z = a and x.r\n", False, id="r-under-a-condition"),
    pytest.param("def f(x):\n    x.r()\n    y = x.t\n", False, id="before-is-not-after"),
])
def test_always_follows(src, expected):
    assert last_follows(src) is expected
