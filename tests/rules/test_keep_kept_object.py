"""DC112 keep-kept-object: a dropped statement that acts on an object the patch keeps (a thread
built but not started, a file opened without its header, a bus without its callback, a list
left unfilled). Each case is patched and run against the original in fresh interpreters; near
misses beside them are patched without the statement, and behave the same."""

import pytest
from ruletools import UNUSED, analyse, dedent, run_both

CHILD = '''
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

    def total(self):
        return (self.n, KEY(self))
'''

HELPERS = '''
import io
import threading


class Bus:
    def __init__(self):
        self.subs = []

    def subscribe(self, fn):
        self.subs.append(fn)


def fill(xs, n):
    xs.extend(range(n))


def build():
    return []

'''


def files(body: str, key: str) -> dict[str, str]:
    lines = "\n".join("        " + line for line in dedent(body).strip().splitlines())
    base = (HELPERS + "\nclass Parent:\n    def __init__(self, n):\n        self.n = n\n" + lines
            + "\n        self.big = bytearray(1 << 16)\n\n    def _on(self, x):\n        return (x, self.n)\n" + UNUSED)
    base += "\n    def _start(self):\n        self._thread.start()\n        self._thread.join()\n"
    return {"base.py": base, "child.py": CHILD + f"\n\nKEY = {key}\n"}


PROBE = "from pkg.child import Child\nc = Child(3)\nprint(c.total())\n"

CASES = [
    pytest.param("""
        self.log = []
        self._thread = threading.Thread(target=self.log.append, args=(n,))
        self._thread.start()
        self._thread.join()
    """, "lambda c: (c._thread.ident is not None, c.log)", "self._thread.start()", id="thread-started"),
    pytest.param("""
        self.log = []
        self._thread = threading.Thread(target=self.log.append, args=(n,))
        self._start()
    """, "lambda c: (c._thread.ident is not None, c.log)", "self._start()", id="started-by-a-method-it-calls"),
    pytest.param("""
        self._f = io.StringIO()
        self._f.write("header")
    """, "lambda c: c._f.getvalue()", 'self._f.write("header")', id="file-header"),
    pytest.param("""
        self.bus = Bus()
        self.bus.subscribe(self._on)
    """, "lambda c: [f(1) for f in c.bus.subs]", "self.bus.subscribe(self._on)", id="callback-on-kept-bus"),
    pytest.param("""
        self.items = []
        fill(self.items, n)
    """, "lambda c: c.items", "fill(self.items, n)", id="kept-list-passed"),
    pytest.param("""
        items = build()
        fill(items, n)
        self.items = items
    """, "lambda c: c.items", "fill(items, n)", id="local-flowing-into-kept"),
    pytest.param("""
        self.table = {"rows": []}
        self.table["rows"].extend([n, n])
        fill(self.table["rows"], 2)
    """, "lambda c: c.table", 'fill(self.table["rows"], 2)', id="through-an-index"),
]


@pytest.mark.parametrize("body, key, line", CASES)
def test_a_call_on_a_kept_object_is_kept(tmp_path, body, key, line):
    a, v = analyse(tmp_path / "a", files(body, key))
    assert v.decision == "decouple"
    assert line in [s.code for s in a.kept_for_effect if s.rule == "DC112"]
    before, after, patched = run_both(tmp_path / "b", files(body, key), PROBE)
    assert patched is not None and "bytearray" not in patched
    assert after == before and "Error" not in before


NEAR_MISSES = [
    # The object the call acts on is dropped with it: nothing kept sees the call.
    pytest.param("""
        self.items = [n]
        self.spare = io.StringIO()
        self.spare.write("header")
    """, "self.spare", id="dropped-object"),
    # A pure builtin given the kept object changes nothing.
    pytest.param("""
        self.items = [n]
        len(self.items)
    """, "len(", id="pure-builtin"),
    # A call whose value is used builds from the kept object: dropped with what it builds (DC406).
    pytest.param("""
        self.items = [n]
        self.view = list(reversed(self.items))
    """, "reversed(", id="value-used"),
    # The kept object is rebound afterwards: what the call did to the first one is gone.
    pytest.param("""
        self.items = []
        fill(self.items, 5)
        self.items = [n]
    """, "fill(self.items, 5)", id="rebound-after"),
]


@pytest.mark.parametrize("body, absent", NEAR_MISSES)
def test_near_miss_a_call_on_nothing_kept_is_dropped(tmp_path, body, absent):
    key = "lambda c: c.items"
    a, v = analyse(tmp_path / "a", files(body, key))
    assert v.decision == "decouple" and not [s for s in a.kept_for_effect if s.rule == "DC112"]
    before, after, patched = run_both(tmp_path / "b", files(body, key), PROBE)
    assert patched is not None and absent not in patched
    assert after == before
