"""literal_names.names: the strings a computed attribute name can be, when the code spells them
all; None wherever the name may be anything (data, a rebinding, a container the code may grow)."""

import ast

import pytest

from codemod.ast_util import walk
from codemod.literal_names import names

SPELT = [
    ('def f(src):\n    return {a: getattr(src, a) for a in ("url", "timeout", "encoding")}', {"url", "timeout", "encoding"}),
    ('F = ("a", "b")\ndef f(o):\n    for n in F:\n        getattr(o, n)', {"a", "b"}),
    ('F = ["a", "b"]\ndef f(o):\n    for n in F:\n        getattr(o, n)', {"a", "b"}),
    ('D = {"a": 1, "b": 2}\ndef f(o):\n    for k, v in D.items():\n        getattr(o, k)', {"a", "b"}),
    ('D = {"a": 1, "b": 2}\ndef f(o):\n    for k in D:\n        getattr(o, k)', {"a", "b"}),
    ('D = {"a": 1, "b": 2}\ndef f(o):\n    return [getattr(o, k) for k in D.keys()]', {"a", "b"}),
    ('def f(o, flag):\n    return getattr(o, "a" if flag else "b")', {"a", "b"}),
    ('def f(o):\n    for p in ("x", "y"):\n        getattr(o, f"{p}_scale")', {"x_scale", "y_scale"}),
    ('def f(o):\n    return getattr(o, "ca" + "che")', {"cache"}),
    ('def f(o):\n    for i, a in enumerate(("p", "q")):\n        getattr(o, a)', {"p", "q"}),
    ('def f(o):\n    for a in sorted(["p", "q"]):\n        getattr(o, a)', {"p", "q"}),
    ('def f(o):\n    for a in "p q".split():\n        getattr(o, a)', {"p", "q"}),
    ('def f(o):\n    for a in ("x", "y"):\n        def g():\n            return getattr(o, a)\n        g()', {"x", "y"}),
]
DATA = [
    ('F = ["a", "b"]\nF.append("c")\ndef f(o):\n    for n in F:\n        getattr(o, n)', "a list the module grows"),
    ('F = ("a", "b")\ndef g():\n    global F\n    F = ("z",)\ndef f(o):\n    for n in F:\n        getattr(o, n)', "a global rebound"),
    ('def f(o, name):\n    return getattr(o, name)', "a parameter"),
    ('def f(o, cfg):\n    for a in ("x", "y"):\n        a = cfg[a]\n        getattr(o, a)', "a loop name rebound"),
    ('def f(o, cfg):\n    for a in cfg:\n        getattr(o, a)', "a loop over data"),
    ('import json\nNAMES = json.load(open("x"))\ndef f(o):\n    for a in NAMES:\n        getattr(o, a)', "a constant read from a file"),
    ('class K:\n    for a in ("x", "y"):\n        pass\n    def m(self, o):\n        return getattr(o, a)', "a class body's name, not the method's"),
    ('def f(o):\n    for a in ("x", 1):\n        getattr(o, a)', "a literal that is no string"),
    ('def f(o):\n    for a in ("x", *more):\n        getattr(o, a)', "a starred element"),
    ('def f(o):\n    return getattr(o, f"{p!r}")', "a conversion"),
    ('def f(o):\n    with open("x") as a:\n        getattr(o, a)', "a with target"),
    ('def f(o):\n    for a in ("x",):\n        del a\n        getattr(o, a)', "a deleted name"),
]


def _name_arg(src: str):
    tree = ast.parse(src)
    parents: dict = {}
    nodes = walk(tree, parents)
    call = next(n for n in nodes if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "getattr")
    return call.args[1], parents


@pytest.mark.parametrize("src,want", SPELT, ids=[s.splitlines()[-1].strip()[:40] for s, _ in SPELT])
def test_spelt_names(src, want):
    assert names(*_name_arg(src)) == frozenset(want)


@pytest.mark.parametrize("src,why", DATA, ids=[w for _, w in DATA])
def test_names_from_data_are_not_listed(src, why):
    assert names(*_name_arg(src)) is None, why
