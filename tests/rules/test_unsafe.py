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


STAYING = """
class Base:
    def visit(self, name):
        return {body}


class Parent(Base):
    def __init__(self):
        self.pool = [0] * 8
        self.n = 1

    def visit_leaf(self):
        return 1
"""


@pytest.mark.parametrize("body, rule", [
    pytest.param("getattr(self, 'visit_' + name)()", "DC301", id="reflection-in-the-new-base"),
])
def test_reflection_in_a_class_that_stays_in_the_mro(tmp_path, body, rule):
    child = "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"
    a, v = analyse(tmp_path, {"base.py": STAYING.format(body=body), "child.py": child})
    assert any("stays in Child's MRO" in h for h in hazards_of(a, rule)) and v.rule == "DC509"


def test_an_attribute_hook_in_the_new_base(tmp_path):
    base = ("class Fallback:\n    def __getattr__(self, name):\n        return None\n\n\n"
            "class Parent(Fallback):\n    def __init__(self):\n        self.pool = [0] * 8\n        self.n = 1\n")
    child = "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"
    a, v = analyse(tmp_path, {"base.py": base, "child.py": child})
    assert any("defines __getattr__ and stays" in h for h in hazards_of(a, "DC302")) and v.rule == "DC509"


def test_near_miss_a_literal_getattr_in_the_new_base(tmp_path):
    child = "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"
    a, v = analyse(tmp_path, {"base.py": STAYING.format(body="getattr(self, 'visit_leaf')()"), "child.py": child})
    assert a.unsafe == []
