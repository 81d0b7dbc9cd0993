"""DC110 keep-validation and DC111 keep-self-handoff: statements of the parent's ``__init__`` that
define nothing the class needs but are behaviour, kept; each case runs the original and the
patched package and compares what they print, with a near miss beside it."""

import pytest
from ruletools import CHILD_READING_N as CHILD
from ruletools import analyse, patch, run_both


def base(body: str, helpers: str = "") -> str:
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return ("REGISTRY = {}\nEVENTS = []\n\n\ndef register(x):\n    REGISTRY[id(x)] = x\n\n\n"
            "def check(n):\n    if n < 0:\n        raise ValueError(f'negative: {n}')\n\n\n"
            "def summarise(obj):\n    return obj.n * 2\n\n\n"
            "class Pool:\n    def __init__(self, n):\n        self.slots = [0] * n\n\n\n"
            f"{helpers}\n\n"
            "class Parent:\n    def __init__(self, n):\n        self.n = n\n        self.pool = Pool(n)\n"
            f"{lines}\n\n    def on_event(self, e):\n        EVENTS.append((e, self.n))\n\n"
            "    def _check(self, n):\n        if n > 100:\n            raise ValueError('too big')\n\n"
            "    def describe(self):\n        parts = [str(self.n)]\n        parts.append(str(len(self.pool.slots)))\n"
            "        parts.append(type(self).__name__)\n        return ', '.join(parts)\n")


def kept_lines(a, rule):
    return [s.code for s in a.kept_for_effect if s.rule == rule]


def test_no_change_when_nothing_is_behaviour(tmp_path):
    a, v = analyse(tmp_path, {"base.py": base("self.extra = n + 1"), "child.py": CHILD})
    assert a.kept_for_effect == [] and v.decision == "decouple"


VALIDATIONS = [
    pytest.param("if n < 0:\n    raise ValueError(n)", "raise ValueError(n)", id="raise"),
    pytest.param("assert n >= 0, 'negative'", "assert n >= 0, 'negative'", id="assert"),
    pytest.param("self._check(n)", "self._check(n)", id="self-call-reaching-a-raise"),
    pytest.param("check(n)", "check(n)", id="module-function-that-raises"),
]


@pytest.mark.parametrize("body, line", VALIDATIONS)
def test_a_validation_is_kept(tmp_path, body, line):
    a, v = analyse(tmp_path, {"base.py": base(body), "child.py": CHILD})
    assert v.decision == "decouple" and kept_lines(a, "DC110") == [line.splitlines()[0]]


@pytest.mark.parametrize("body, line", VALIDATIONS)
def test_a_validation_still_rejects_what_it_rejected(tmp_path, body, line):
    script = """
        from pkg.child import Child
        for n in (3, -1, 500):
            try:
                print(n, Child(n).total())
            except (ValueError, AssertionError) as exc:
                print(n, type(exc).__name__, exc)
    """
    before, after, patched = run_both(tmp_path, {"base.py": base(body), "child.py": CHILD}, script)
    assert patched is not None and "Pool(" not in patched
    assert after == before and "Error" in before


def test_near_miss_a_raise_the_class_cannot_reach_is_not_kept(tmp_path):
    body = "if self.__class__ is Parent and n < 0:\n    raise ValueError(n)"
    a, v = analyse(tmp_path, {"base.py": base(body), "child.py": CHILD})
    assert kept_lines(a, "DC110") == [] and v.decision == "decouple"


def test_near_miss_a_module_call_that_cannot_raise_is_dropped(tmp_path):
    a, v = analyse(tmp_path, {"base.py": base("summarise(self.pool)"), "child.py": CHILD})
    assert kept_lines(a, "DC110") == [] and v.decision == "decouple"


HANDOFFS = [
    pytest.param("register(self)", id="module-registry"),
    pytest.param("REGISTRY[n] = self", id="stored-in-a-global"),
    pytest.param("EVENTS.append(self)", id="appended-to-a-global-list"),
    pytest.param("self.watch = Watcher(self)", id="constructor-that-registers"),
    pytest.param("self.listener = Listener(self.on_event)", id="bound-method-to-a-publishing-constructor"),
    pytest.param("self.later = defer(lambda: self.n)", id="a-reading-closure-kept-by-the-callee"),
    pytest.param("self.made = make_now(lambda: register(self))", id="a-closure-that-publishes-when-called"),
]
HELPERS = """
class Watcher:
    def __init__(self, owner):
        self.owner = owner
        register(owner)


class Listener:
    def __init__(self, callback):
        REGISTRY['listener'] = callback


def defer(make):
    REGISTRY['later'] = make
    return None


def make_now(make):
    return make()


class Helper:
    def __init__(self, owner):
        self.owner = owner
        self.size = owner.n + 1
        if owner is None:
            self.size = 0
"""


@pytest.mark.parametrize("body", HANDOFFS)
def test_a_handoff_that_may_publish_the_instance_is_kept(tmp_path, body):
    a, v = analyse(tmp_path, {"base.py": base(body, HELPERS), "child.py": CHILD})
    assert kept_lines(a, "DC111") == [body], [(s.rule, s.why) for s in a.kept_for_effect]


@pytest.mark.parametrize("body", HANDOFFS)
def test_a_handoff_still_publishes_the_instance(tmp_path, body):
    script = """
        from pkg.base import REGISTRY, EVENTS
        from pkg.child import Child
        c = Child(4)
        cells = lambda v: [x.cell_contents for x in getattr(v, '__closure__', None) or ()]
        found = [k for k, v in REGISTRY.items() if v is c or getattr(v, '__self__', None) is c or c in cells(v)]
        print(len(found), [type(e).__name__ for e in EVENTS])
    """
    before, after, patched = run_both(tmp_path, {"base.py": base(body, HELPERS), "child.py": CHILD}, script)
    assert patched is not None and "Pool(" not in patched
    assert after == before and not before.startswith("0 []")


@pytest.mark.parametrize("body", [
    pytest.param("self.helper = Helper(self)", id="constructor-that-keeps-it-to-itself"),
    pytest.param("self.total_n = summarise(self)", id="function-that-only-reads-it"),
    pytest.param("self.items = [self.n]", id="an-attribute-value-not-the-instance"),
    pytest.param("self.buf = make_now(lambda: bytearray(self.n))", id="a-closure-called-at-once-that-only-reads"),
])
def test_near_miss_a_handoff_that_cannot_publish_is_dropped(tmp_path, body):
    a, v = analyse(tmp_path, {"base.py": base(body, HELPERS), "child.py": CHILD})
    assert a.kept_for_effect == [] and v.decision == "decouple", [(s.rule, s.why) for s in a.kept_for_effect]


def test_near_miss_a_handoff_whose_object_is_kept_in_a_local_is_kept(tmp_path):
    a, v = analyse(tmp_path, {"base.py": base("h = Helper(self)\nregister(h)", HELPERS), "child.py": CHILD})
    # register(h) acts on what holds the instance: it stays for that, and h = Helper(self) with it
    # (h is read by a kept statement)
    assert kept_lines(a, "DC111") == ["register(h)"]
    text, _ = patch(tmp_path / "p", {"base.py": base("h = Helper(self)\nregister(h)", HELPERS), "child.py": CHILD}, stress=True)
    assert text is None or ("h = Helper(self)" in text and "register(h)" in text)
