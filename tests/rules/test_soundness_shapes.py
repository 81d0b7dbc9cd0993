"""Shapes that gave behaviour-changing patches on code we did not write (issue 25, items 1-5).

Each reduction is patched and run against the original in fresh interpreters (``run_both``):
the transcripts must be equal, or the tool must refuse with the named rule. A near miss sits
beside each. The last tests turn each fix off in turn and show that the post-conditions
(DC701-DC704, ``codemod/postconditions.py``) alone still refuse the reduction.
"""

import pytest
from conftest import FIXTURES
from ruletools import UNUSED, analyse, hazards_of, patch, run_both

def _fixture(case: str) -> dict[str, str]:
    """The package of a rewrite fixture (``fixtures/rewrite/<case>/input/pkg``), the exact output of
    which ``tests/test_rewrite_fixtures.py`` pins."""
    pkg = FIXTURES / "rewrite" / case / "input" / "pkg"
    return {p.name: p.read_text() for p in sorted(pkg.glob("*.py")) if p.name != "__init__.py"}


TWO_BASES = _fixture("parent_two_bases")
TWO_BASES_PROBE = "from pkg.child import Child\nc = Child([1, 2])\nprint(c.first(), c.describe(), isinstance(c, __import__('pkg.base').base.BaseNode))\n"

BUILTIN_BASE = _fixture("parent_builtin_base")

TWO_ARG_SUPER = _fixture("two_arg_super")

ALIAS_INIT = _fixture("parent_init_alias")

MRO_WALK = {
    "base.py": '''
class Field:
    default_error_messages = {"required": "This field is required."}

    def __init__(self, required=True):
        messages = {}
        for c in reversed(self.__class__.__mro__):
            messages.update(getattr(c, "default_error_messages", {}))
        self.error_messages = messages
        self.required = required
        self.big = bytearray(1 << 16)
''' + UNUSED,
    "child.py": '''
from .base import Field


class Child(Field):
    default_error_messages = {"invalid": "Enter a number."}

    def __init__(self):
        super().__init__()

    def error(self, key):
        return self.error_messages[key]
'''}

PROPERTY_SETTER = _fixture("property_setter_in_init")

DESCRIPTOR = {
    "base.py": '''
class Logged:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        setattr(obj, self.name, value)
        obj.log = getattr(obj, "log", []) + [value]


class Runner:
    size = Logged()

    def __init__(self, size):
        self.size = size
        self.graphs = bytearray(1 << 16)
''' + UNUSED,
    "child.py": '''
from .base import Runner


class Child(Runner):
    def __init__(self, size):
        super().__init__(size)

    def history(self):
        return self.log
'''}

SETATTR_HOOK = {
    "base.py": '''
class Tracked:
    def __setattr__(self, k, v):
        object.__setattr__(self, k, v)
        object.__setattr__(self, "_n", getattr(self, "_n", 0) + 1)


class Runner(Tracked):
    def __init__(self, size):
        self.size = size
        self.graphs = bytearray(1 << 16)
''' + UNUSED,
    "child.py": '''
from .base import Runner


class Child(Runner):
    def __init__(self, size):
        super().__init__(size)

    def count(self):
        return self._n, self.size
'''}


def _with(files, **changes):
    out = dict(files)
    for name, (old, new) in changes.items():
        assert old in out[name]
        out[name] = out[name].replace(old, new)
    return out


CASES = [
    pytest.param(TWO_BASES, TWO_BASES_PROBE, "class Child(Mixin, BaseNode):", id="parent-with-two-bases"),
    pytest.param(BUILTIN_BASE, "from pkg.child import Child\nprint(Child().add('x'))\n", "class Child(Item, _CustomDict):",
                 id="parent-with-a-builtin-among-its-bases"),
    pytest.param(TWO_ARG_SUPER, "from pkg.child import Child\nprint(Child('a').hello())\n", "super(Child, self).__init__()",
                 id="two-argument-super-in-moved-code"),
    pytest.param(ALIAS_INIT, "from pkg.child import Child\nprint(Child(1, 2).lookup())\n", "self.table = self.build_table()",
                 id="parent-init-called-through-an-alias"),
    pytest.param(PROPERTY_SETTER, "from pkg.child import Child\nc = Child(3)\nprint(c.sizes(), c.max_bs)\n", "self.max_bs = max_bs",
                 id="assignment-that-runs-a-property-setter"),
]


@pytest.mark.parametrize("files, probe, expected", CASES)
def test_the_reduction_is_patched_and_behaves_the_same(tmp_path, files, probe, expected):
    before, after, text = run_both(tmp_path, files, probe)
    assert text is not None and expected in text
    assert "raised" not in before and after == before


def test_stores_that_run_a_staying_setattr_are_all_kept(tmp_path):
    # Every store runs Tracked.__setattr__, which counts them: none can go, so there is nothing
    # to gain; forced (stress mode), the patch keeps the store of the unused buffer.
    text, v = patch(tmp_path / "default", SETATTR_HOOK)
    assert text is None and v.rule == "DC505"
    text, v = patch(tmp_path / "stress", SETATTR_HOOK, stress=True)
    assert v.decision == "decouple" and "self.graphs = bytearray(1 << 16)" in text


# The parent's __init__ reads its class attribute without walking the MRO, and the walk left
# is in a parent method that the class does not keep: nothing that runs on C walks it.
MRO_WALK_NOT_KEPT = _with(MRO_WALK, **{"base.py": (
    "        messages = {}\n        for c in reversed(self.__class__.__mro__):\n"
    "            messages.update(getattr(c, \"default_error_messages\", {}))\n        self.error_messages = messages\n",
    "        self.error_messages = dict(self.default_error_messages)\n")})
MRO_WALK_NOT_KEPT["base.py"] += "\n    def merged(self):\n        return [c.__name__ for c in type(self).__mro__]\n"

# A descriptor without __set__: the store in __init__ goes to the instance, as a plain one does.
NON_DATA_DESCRIPTOR = _with(DESCRIPTOR, **{"base.py": (
    "    def __set__(self, obj, value):\n        setattr(obj, self.name, value)\n        obj.log = getattr(obj, \"log\", []) + [value]\n", ""),
    "child.py": ("        return self.log", "        return [self.size]")})

NEAR_MISSES = [
    pytest.param(_with(TWO_BASES, **{"base.py": ("class PyNode(Mixin, BaseNode):", "class PyNode(BaseNode):")}),
                 "from pkg.child import Child\nprint(Child([1, 2]).first())\n", "class Child(BaseNode):", id="parent-with-one-base"),
    pytest.param(_with(TWO_ARG_SUPER, **{"base.py": ("super(Heavy, self).__init__()", "super().__init__()")}),
                 "from pkg.child import Child\nprint(Child('a').hello())\n", "super().__init__()", id="zero-argument-super"),
    pytest.param(_with(PROPERTY_SETTER, **{"child.py": ("return self.capture_bs", "return self.max_bs")}),
                 "from pkg.child import Child\nprint(Child(3).sizes())\n", "self.max_bs = max_bs", id="property-read-not-its-setter-effect"),
    pytest.param(NON_DATA_DESCRIPTOR, "from pkg.child import Child\nprint(Child(3).history())\n", "self.size = size",
                 id="assignment-over-a-descriptor-without-set"),
    pytest.param(MRO_WALK_NOT_KEPT,
                 "from pkg.child import Child\nc = Child()\nprint(sorted(c.error_messages), c.error('invalid'))\n",
                 "self.error_messages = dict(self.default_error_messages)", id="mro-walk-only-in-a-parent-method-not-kept"),
]


@pytest.mark.parametrize("files, probe, expected", NEAR_MISSES)
def test_near_misses_behave_the_same(tmp_path, files, probe, expected):
    before, after, text = run_both(tmp_path, files, probe)
    assert text is not None and expected in text
    assert "raised" not in before and after == before


@pytest.mark.parametrize("files, rule", [
    pytest.param(MRO_WALK, "DC310", id="parent-init-walks-the-mro"),
    pytest.param(DESCRIPTOR, "DC703", id="assignment-that-runs-a-data-descriptor"),
    pytest.param(_with(TWO_ARG_SUPER, **{"base.py": ("super(Heavy, self).__init__()", "super(type(self), self).__init__() if False else Base.__init__(self)\n        self.me = super(self.__class__, self).__repr__()")}),
                 "DC608", id="super-with-a-computed-class"),
    pytest.param(_with(ALIAS_INIT, **{"child.py": ("BaseParser.__init__(self, g)", "type(self).__mro__[1].__init__(self, g)")}),
                 "DC311", id="parent-init-reached-through-the-mro"),
    pytest.param(_with(ALIAS_INIT, **{"child.py": ("BaseParser.__init__(self, g)", "init = BaseParser.__init__\n        init(self, g)")}),
                 "DC311", id="parent-init-taken-as-a-value"),
])
def test_refused_with_its_rule(tmp_path, files, rule):
    text, v = patch(tmp_path, files)
    a, _ = analyse(tmp_path / "again", files)
    assert text is None and v.decision == "unsafe", v
    assert rule in (v.rule, v.refused_by) or hazards_of(a, rule), v


def test_an_mro_walk_in_the_class_itself_refuses_when_the_parent_s_init_walks_none(tmp_path):
    files = _with(MRO_WALK, **{"base.py": ("        messages = {}\n        for c in reversed(self.__class__.__mro__):\n            messages.update(getattr(c, \"default_error_messages\", {}))\n        self.error_messages = messages\n",
                                            "        self.error_messages = dict(self.default_error_messages)\n"),
                               "child.py": ("    def error", "    def walk(self):\n        return [k.__name__ for k in type(self).__mro__ if k is object]\n\n    def error")})
    files["base.py"] += "\n    def merged(self):\n        return [c for c in type(self).__mro__]\n"
    a, v = analyse(tmp_path, files)
    # The class's own walk still refuses: the parent's class attribute leaves the MRO it walks.
    assert v.decision == "unsafe" and hazards_of(a, "DC310")


# ---- the post-conditions alone ---------------------------------------------------------


def _off_two_bases(monkeypatch):
    from codemod import rewrite

    real = rewrite.base_references
    monkeypatch.setattr(rewrite, "base_references", lambda index, a, *rest: tuple(x[:1] for x in real(index, a, *rest)))


def _off_super_targets(monkeypatch):
    from codemod.rules import rewrite_bind_names

    monkeypatch.setattr(rewrite_bind_names, "retarget_super", lambda a, module, node: node)


def _off_alias(monkeypatch):
    from codemod import super_init
    from codemod.rules import unsafe_init_call

    monkeypatch.setattr(unsafe_init_call, "check", lambda st: None)
    monkeypatch.setattr(super_init, "names_class",
                        lambda index, module, expr, target: (getattr(expr, "id", None) or getattr(expr, "attr", "")) == target.name)


def _off_mro_walk(monkeypatch):
    from codemod.rules import unsafe_mro_walk

    monkeypatch.setattr(unsafe_mro_walk, "check", lambda st: None)


def _off_setters(monkeypatch):
    from codemod.state import ClassState

    monkeypatch.setattr(ClassState, "setter_effects", lambda self: {})
    monkeypatch.setattr("codemod.facts.SETTER", ".no-such-setter")
    monkeypatch.setattr("codemod.slice.SETTER", ".no-such-setter")
    monkeypatch.setattr("codemod.state.SETTER", ".no-such-setter")


def _off_setattr_hook(monkeypatch):
    from codemod import slice as slicer

    real = slicer.Slicer.__init__
    monkeypatch.setattr(slicer.Slicer, "__init__", lambda self, *a, **k: real(self, *a, **{**k, "stores_run_code": False}))


@pytest.mark.parametrize("files, switch_off, rule", [
    pytest.param(TWO_BASES, _off_two_bases, "DC701", id="two-bases"),
    pytest.param(TWO_ARG_SUPER, _off_super_targets, "DC702", id="two-argument-super"),
    pytest.param(ALIAS_INIT, _off_alias, "DC702", id="alias-init"),
    pytest.param(MRO_WALK, _off_mro_walk, "DC704", id="mro-walk"),
    pytest.param(PROPERTY_SETTER, _off_setters, "DC703", id="property-setter"),
    pytest.param(SETATTR_HOOK, _off_setattr_hook, "DC703", id="setattr-hook"),
])
def test_the_post_conditions_alone_refuse_the_reduction(tmp_path, monkeypatch, files, switch_off, rule):
    switch_off(monkeypatch)
    text, v = patch(tmp_path, files, stress=True)
    assert text is None and v.decision == "unsafe" and v.refused_by == rule, v
