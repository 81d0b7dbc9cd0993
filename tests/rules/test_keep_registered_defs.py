"""DC113 keep-registered-defs: definitions of the parent's body that register on a kept member
under a throw-away name (``@fmt.register`` on ``_``), copied with it, all of them, in order; or
refused where the copy would register on the class's own objects. Patched and run against the
original in fresh interpreters, near misses beside them."""

import pytest
from ruletools import UNUSED, analyse, hazards_of, kept_by, run_both

HEAD = '''
import functools


class Parent:
    def __init__(self, n):
        self.n = n
        self.big = bytearray(1 << 16)
'''


def files(members: str, key: str, child_extra: str = "") -> dict[str, str]:
    child = ("from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n):\n        super().__init__(n)\n\n"
             "    def total(self):\n        return (self.n, KEY(self))\n" + child_extra + f"\n\nKEY = {key}\n")
    return {"base.py": HEAD + members + UNUSED, "child.py": child}


PROBE = "from pkg.child import Child\nc = Child(3)\nprint(c.total())\n"
DISPATCH_KEY = "lambda c: (c.fmt(1), c.fmt('a'), c.fmt(1.0), c.fmt([1]))"

SINGLEDISPATCH = '''
    @functools.singledispatchmethod
    def fmt(self, x):
        return "obj"

    @fmt.register
    def _(self, x: int):
        return "int" + str(self.n)

    @fmt.register
    def _(self, x: str):
        return "str"
'''

CASES = [
    pytest.param(SINGLEDISPATCH, DISPATCH_KEY, {"_"}, id="singledispatchmethod-underscores"),
    pytest.param('''
    @functools.singledispatchmethod
    def fmt(self, x):
        return "obj"

    @fmt.register(int)
    def _fmt_int(self, x):
        return "int"

    @fmt.register(str)
    def _(self, x):
        return "str"

    @fmt.register(list)
    def _(self, x):
        return "list" + self.suffix

    suffix = "!"
''', DISPATCH_KEY, {"_", "_fmt_int"}, id="register-with-types-mixed-names"),
    pytest.param('''
    @property
    def v(self):
        return self.n * 10

    @v.setter
    def set_v(self, x):
        self.n = x
''', "lambda c: (c.v, setattr(c, 'set_v', 4), c.v, c.set_v)", {"set_v"}, id="setter-under-another-name"),
]


@pytest.mark.parametrize("members, key, registered", CASES)
def test_every_registration_on_a_kept_member_is_copied(tmp_path, members, key, registered):
    a, v = analyse(tmp_path / "a", files(members, key))
    assert v.decision == "decouple" and registered <= kept_by(a, "DC113")
    before, after, patched = run_both(tmp_path / "b", files(members, key), PROBE)
    assert patched is not None and "bytearray" not in patched
    assert after == before and "Error" not in before


def test_the_registrations_are_copied_after_the_dispatcher_in_order(tmp_path):
    _, _, patched = run_both(tmp_path, files(SINGLEDISPATCH, DISPATCH_KEY), PROBE)
    at = [patched.index(s) for s in ("def fmt(", "x: int", "x: str")]
    assert at == sorted(at)


def test_a_registration_on_the_class_s_own_dispatcher_is_refused(tmp_path):
    # The child's own fmt: the parent's registrations went to the parent's dispatcher, never to
    # the child's; a copy of ``_`` (kept: the child calls it) would register on the child's.
    child = '''
    @functools.singledispatchmethod
    def fmt(self, x):
        return "child"

    def last(self):
        return self._(2)
'''
    fs = files(SINGLEDISPATCH, "lambda c: (c.fmt(1), c.last())", child)
    fs["child.py"] = "import functools\n\n" + fs["child.py"]
    a, v = analyse(tmp_path, fs)
    assert v.decision == "unsafe" and hazards_of(a, "DC113")


def test_a_registration_that_would_rebind_the_class_s_own_name_is_refused(tmp_path):
    child = '''
    def _(self):
        return "own"
'''
    a, v = analyse(tmp_path, files(SINGLEDISPATCH, "lambda c: (c.fmt(1), c._())", child))
    assert v.decision == "unsafe" and any("rebind" in h for h in hazards_of(a, "DC113"))


def test_a_property_assigned_then_decorated_by_itself_is_refused_by_name(tmp_path):
    members = '''
    v = property()

    @v.getter
    def v(self):
        return self.n + 1
'''
    a, v = analyse(tmp_path, files(members, "lambda c: c.v"))
    assert v.decision == "unsafe" and any("assigned in the class body" in h for h in hazards_of(a, "DC113"))


def test_near_miss_a_dispatcher_the_class_replaces_copies_no_registration(tmp_path):
    # The child defines fmt and never reaches the parent's: neither it nor its ``_`` is copied.
    child = '''
    def fmt(self, x):
        return "child"
'''
    fs = files(SINGLEDISPATCH, DISPATCH_KEY, child)
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "_" not in a.kept and not hazards_of(a, "DC113")
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and "register" not in patched and after == before


def test_near_miss_a_decorator_rooted_outside_the_body_keeps_nothing(tmp_path):
    members = '''
    def fmt(self, x):
        return "plain"

    @staticmethod
    def _(x):
        return x
'''
    a, v = analyse(tmp_path / "a", files(members, "lambda c: c.fmt(1)"))
    assert v.decision == "decouple" and "_" not in a.kept
    before, after, patched = run_both(tmp_path / "b", files(members, "lambda c: c.fmt(1)"), PROBE)
    assert patched is not None and "staticmethod" not in patched and after == before
