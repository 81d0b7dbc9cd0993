"""DC301-DC303: what cannot be decided statically makes the class unsafe (DC509: exit 3, no patch)."""

import pytest
from ruletools import analyse, hazards_of

PARENT = """
class Base:
    def __init_subclass__(cls, **kw):
        pass


class Parent(Base{keywords}):
    def __init__(self):
        self.pool = [0] * 8
        self.n = 1
{methods}
"""
CHILD = """
from .base import Parent


class Child(Parent):
    def total(self, name):
{body}
"""


def files(keywords="", methods="", body="        return self.n"):
    return {"base.py": PARENT.format(keywords=keywords, methods=methods), "child.py": CHILD.format(body=body)}


def test_no_change_for_plain_code(tmp_path):
    a, v = analyse(tmp_path, files())
    assert a.unsafe == [] and v.decision == "decouple"


@pytest.mark.parametrize("rule, kw", [
    pytest.param("DC301", dict(body="        return getattr(self, name)"), id="computed-getattr"),
    pytest.param("DC301", dict(body="        return vars(self)"), id="vars-self"),
    pytest.param("DC301", dict(body="        return self.__dict__"), id="dunder-dict"),
    pytest.param("DC302", dict(methods="\n    def __getattr__(self, name):\n        return 0\n"), id="getattr-hook"),
    pytest.param("DC303", dict(keywords=", flag=True"), id="class-keyword"),
])
def test_unsafe(tmp_path, rule, kw):
    a, v = analyse(tmp_path, files(**kw))
    assert hazards_of(a, rule)
    assert v.rule == "DC509" and v.decision == "unsafe"


@pytest.mark.parametrize("kw", [
    pytest.param(dict(body="        return getattr(self, 'n')"), id="literal-getattr"),
    pytest.param(dict(body="        return vars(name)"), id="vars-of-another-object"),
    pytest.param(dict(methods="\n    def getattr_safe(self, name):\n        return 0\n"), id="not-a-hook"),
    pytest.param(dict(keywords=", metaclass=type"), id="metaclass-keyword"),
])
def test_near_misses(tmp_path, kw):
    a, v = analyse(tmp_path, files(**kw))
    assert a.unsafe == [] and v.decision != "unsafe"
