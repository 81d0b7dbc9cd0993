"""The fact collector alone: what one statement reads, writes, mutates and calls (codemod/facts.py)."""

import ast

import pytest

from codemod.facts import collect


def facts(src: str, locals_=None):
    return collect(ast.parse(src).body[0], "self", locals_)


def test_no_change_a_statement_without_self():
    f = facts("x = y + 1", {"x", "y"})
    assert (f.reads_attrs, f.writes_attrs, f.mutates_attrs, f.calls_methods) == (set(), set(), set(), set())
    assert f.reads_locals == {"y"} and f.writes_locals == {"x"}


@pytest.mark.parametrize("src, field, expected", [
    pytest.param("self.a = self.b", "writes_attrs", {"a"}, id="write"),
    pytest.param("self.a = self.b", "reads_attrs", {"b"}, id="read"),
    pytest.param("self.a[0] = 1", "mutates_attrs", {"a"}, id="item-store-mutates"),
    pytest.param("self.a.append(1)", "mutates_attrs", {"a"}, id="mutator-call"),
    pytest.param("self.a += 1", "reads_attrs", {"a"}, id="augmented-reads-first"),
    pytest.param("self.go(1)", "calls_methods", {"go"}, id="method-call"),
    pytest.param("x = getattr(self, 'a')", "reads_attrs", {"a"}, id="getattr-literal"),
    pytest.param("setattr(self, 'a', 1)", "writes_attrs", {"a"}, id="setattr-literal"),
    pytest.param("f = lambda: self.a", "reads_attrs", {"a"}, id="lambda-sees-self"),
])
def test_self_facts(src, field, expected):
    assert getattr(facts(src, set()), field) == expected


@pytest.mark.parametrize("src", [
    pytest.param("f = lambda self: self.a", id="lambda-rebinds-self"),
    pytest.param("if True:\n    def g(self):\n        return self.a", id="nested-def-rebinds-self"),
    pytest.param("other.a = self_like.b", id="another-object"),
])
def test_near_misses_are_not_reads_of_self(src):
    f = facts(src, set())
    assert f.reads_attrs == set() and f.writes_attrs == set()


def test_dynamic_access_is_recorded():
    assert [what for _, what in facts("x = getattr(self, name)", {"x", "name"}).dynamic] == ["getattr(self, <computed name>)"]
    assert [what for _, what in facts("x = self.__dict__", {"x"}).dynamic] == ["self.__dict__"]


def test_writes_outside_the_instance_and_locals():
    f = facts("REGISTRY[key] = self", {"key"})
    assert f.external_writes == [(1, "REGISTRY[key]")]
    f = facts("box[key] = self", {"key", "box"})
    assert f.external_writes == [] and f.mutates_locals == {"box"}


def test_super_calls():
    assert facts("super().go(1)", set()).super_calls == [(1, "go")]
