"""DC402-DC406: dropped statements of the parent's __init__ with effects beyond the instance are reported.

Validations and hand-offs of the instance are kept instead (DC110, DC111: test_keep_for_effect.py)."""

import pytest
from ruletools import CHILD_READING_N as CHILD
from ruletools import analyse, effects_of


def files(dropped: str) -> dict:
    body = "\n".join("        " + line for line in dropped.strip().splitlines())
    base = ("import os\n\nREGISTRY = {}\n\n\ndef register(x):\n    REGISTRY[id(x)] = x\n\n\ndef log(msg):\n    print(msg)\n\n\n"
            "class Pool:\n    def __init__(self, n):\n        self.n = n\n\n\n"
            f"class Parent:\n    def __init__(self, n):\n        self.n = n\n{body}\n")
    return {"base.py": base, "child.py": CHILD}


def test_no_change_for_plain_assignments(tmp_path):
    a, _ = analyse(tmp_path, files("self.extra = n + 1"))
    assert a.side_effects == []


@pytest.mark.parametrize("rule, dropped", [
    pytest.param("DC402", "REGISTRY[n] = n", id="outside-write"),
    pytest.param("DC403", "register(n)", id="registration"),
    pytest.param("DC403", "os.environ.setdefault('X', '1')", id="environment"),
    pytest.param("DC404", "self.buf = torch.empty(n)", id="allocation"),
    pytest.param("DC405", "self.pool = Pool(n)", id="construction"),
    pytest.param("DC406", "log('built')", id="call"),
    pytest.param("DC406", "self.db = sqlite3.connect(':memory:')", id="call-assigned"),
    pytest.param("DC404", "self.buffer = [0] * 1_000_000", id="repeated-list"),
    pytest.param("DC404", "self.slots = n * (None,)", id="repeated-tuple"),
])
def test_reported(tmp_path, rule, dropped):
    a, _ = analyse(tmp_path, files(dropped))
    assert effects_of(a, rule), [(s.rule, s.why) for s in a.side_effects]


@pytest.mark.parametrize("dropped", [
    pytest.param("len([n])", id="pure-builtin"),
    pytest.param("self.items = []\nself.items.append(n)", id="the-instance-own-state"),
    pytest.param("x = n + 1", id="a-local"),
    pytest.param("self.limit = len([n]) * 2", id="an-assigned-pure-builtin"),
])
def test_near_misses_are_not_reported(tmp_path, dropped):
    a, _ = analyse(tmp_path, files(dropped))
    assert a.side_effects == []


def _raising(tmp_path, dropped: str, extra: str = "") -> list[tuple[str, str]]:
    from codemod.discover import Tree
    from codemod.index import Index
    from codemod.rules.effect_raising_call import raising_calls

    f = files(dropped)
    f["base.py"] = extra + f["base.py"]
    a, _ = analyse(tmp_path, f)
    return [(r["call"], r["raises"]) for r in raising_calls(Index(Tree.open(tmp_path)), a.side_effects)]


CHECKS = ("def check(n):\n    if n < 0:\n        raise ValueError(n)\n\n\n"
          "class Checked:\n    def __init__(self, n):\n        assert n\n\n    @classmethod\n"
          "    def build(cls, n):\n        if not n:\n            raise KeyError(n)\n        return cls(n)\n\n\n")


@pytest.mark.parametrize("dropped, found", [
    # A bare ``check(n)`` is a validation, kept (DC110); a call whose value is kept only for
    # what reads it goes with that.
    pytest.param("self.ok = check(n)", ("check(...)", "ValueError"), id="function"),
    pytest.param("self.c = Checked(n)", ("Checked(...)", "AssertionError"), id="constructor"),
    pytest.param("self.c = Checked.build(n)", ("Checked.build(...)", "KeyError"), id="classmethod"),
])
def test_dc407_a_dropped_call_that_can_raise_is_listed(tmp_path, dropped, found):
    assert _raising(tmp_path, dropped, CHECKS) == [found]


@pytest.mark.parametrize("dropped", [
    pytest.param("log('built')", id="callee-never-raises"),
    pytest.param("self.db = n.connect()", id="method-of-unknown-object"),
    pytest.param("self.db = sqlite3.connect(':memory:')", id="outside-the-tree"),
])
def test_dc407_near_misses(tmp_path, dropped):
    assert _raising(tmp_path, dropped, CHECKS) == []
