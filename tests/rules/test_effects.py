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
