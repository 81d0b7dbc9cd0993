"""DC108, executed: the routes by which an instance can reach a receiver elsewhere.

Each case builds a ``Child`` by one route, reads an inherited member on what it built, and runs
on the original package and on the patched one: the outputs must be the same. A route the
typing does not follow must leave the receiver unknown (the member kept), never typed as
something else. The near misses beside them are routes that plainly give no ``Child``, where
the member is dropped.
"""

import pytest
from ruletools import analyse, kept_by, run_both
from test_keep_outside_use import FILES as USE_FILES

ID = "DC108"
FILES = {
    "base.py": """
        class Parent:
            def __init__(self, n):
                self.n = n
                self.cache = {"n": n}
                self.pool = [0] * n
                self.workspace = bytearray(n)
                self.table = {i: i for i in range(n)}

            def total(self):
                return sum(self.pool) + len(self.table)
        """,
    "child.py": USE_FILES["child.py"],
    "other.py": """
        class Other:
            def __init__(self, n=0):
                self.n = n
        """,
}
HEAD = "from .child import Child\nfrom .other import Other\n\n\n"


def run_route(tmp_path, route: str) -> tuple[str, str]:
    before, after, patched = run_both(tmp_path, {**FILES, "user.py": HEAD + route}, "from pkg.user import run\nprint(run())")
    assert patched is not None and "raised" not in before, before
    return before, after


CONSTRUCTIONS = [
    pytest.param("REG = {'c': Child}\n\n\ndef run():\n    Backend = REG['c']\n    return Backend(1).cache\n", id="a-local-bound-to-a-class"),
    pytest.param("def run(Backend=Child):\n    return Backend(1).cache\n", id="a-parameter-bound-to-a-class"),
    pytest.param("def Make(n):\n    return Child(n)\n\n\ndef run():\n    return Make(1).cache\n", id="a-capitalised-function"),
    pytest.param("Alias = Child\n\n\ndef run():\n    return Alias(1).cache\n", id="a-module-alias-of-the-class"),
    pytest.param("class Weird:\n    def __new__(cls, n):\n        return Child(n)\n\n\ndef run():\n    return Weird(1).cache\n",
                 id="a-new-that-makes-another-class"),
    pytest.param("class Meta(type):\n    def __call__(cls, n):\n        return Child(n)\n\n\nclass Made(metaclass=Meta):\n    pass\n\n\n"
                 "def run():\n    return Made(1).cache\n", id="a-metaclass-that-answers-the-call"),
    pytest.param("class Tag:\n    pass\n\n\nclass Mixed(Tag, Child):\n    pass\n\n\ndef read(c: Tag):\n    return c.cache\n\n\ndef run():\n    return read(Mixed(1))\n",
                 id="a-class-that-a-subclass-also-derives-from"),
]


@pytest.mark.parametrize("route", CONSTRUCTIONS)
def test_constructions(tmp_path, route):
    before, after = run_route(tmp_path, route)
    assert after == before


@pytest.mark.parametrize("route", [
    pytest.param("def run():\n    return Other(1).cache\n", id="the-class-itself"),
    pytest.param("import collections\n\n\ndef run():\n    return collections.OrderedDict().cache\n", id="a-class-from-outside-the-tree"),
    pytest.param("import abc\n\n\nclass Plain(abc.ABC):\n    pass\n\n\ndef run():\n    return Plain().cache\n", id="an-abc"),
])
def test_near_miss_constructions_of_other_classes(tmp_path, route):
    a, _ = analyse(tmp_path, {**FILES, "user.py": HEAD + route})
    assert kept_by(a, ID) == set()
