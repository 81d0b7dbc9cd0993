"""Type tests in their indirect forms (issue 25, item 7): the parent as a key that a walk along
an instance's MRO finds (DC209), ``k is P`` along such a walk (DC206), and registrations on a
dispatcher that looks along the MRO (``functools.singledispatch``, an ABC's ``register``: DC209).
Each declines (DC503) as ``isinstance(x, P)`` does; each near miss is patched.

Each case runs on the original package and on the patched one (``run_both``); a declined case
is also shown, by the last test, to change behaviour were it patched.
"""

import pytest
from ruletools import analyse, hazards_of, run_both

HEAVY = """
import abc
import functools
import inspect


class Heavy:
    def __init__(self):
        self.big = bytearray(1 << 20)


class Other:
    pass
"""
CHILD = """
from .base import Heavy


class Child(Heavy):
    def __init__(self):
        super().__init__()
        self.small = 1
"""
SCRIPT = "from pkg.base import handle\nfrom pkg.child import Child\nprint(handle(Child()))"


def package(code: str, child: str = CHILD) -> dict[str, str]:
    return {"base.py": HEAVY + "\n\n" + code, "child.py": child}


DECLINED = {
    "walk-in": (
        "HANDLERS = {Heavy: 'heavy', object: 'object'}\n\n\n"
        "def handle(x):\n    for k in type(x).__mro__:\n        if k in HANDLERS:\n            return HANDLERS[k]\n", "DC209"),
    "walk-get": (
        "HANDLERS = {Heavy: 'heavy', object: 'object'}\n\n\n"
        "def handle(x):\n    for k in type(x).__mro__:\n        found = HANDLERS.get(k)\n        if found:\n            return found\n", "DC209"),
    "mro-call-and-a-store": (
        "HANDLERS = {}\nHANDLERS[Heavy] = 'heavy'\nHANDLERS[object] = 'object'\n\n\n"
        "def handle(x):\n    for k in type(x).mro():\n        if k in HANDLERS:\n            return HANDLERS[k]\n", "DC209"),
    "getmro-in-a-comprehension": (
        "class Registry:\n    table = {Heavy: 'heavy', object: 'object'}\n\n    def find(self, x):\n"
        "        return next(self.table[k] for k in inspect.getmro(x.__class__) if k in self.table)\n\n\n"
        "def handle(x):\n    return Registry().find(x)\n", "DC209"),
    "filed-through-a-function": (
        "HANDLERS = {}\n\n\ndef register(cls, what):\n    HANDLERS[cls] = what\n\n\n"
        "register(Heavy, 'heavy')\nregister(object, 'object')\n\n\n"
        "def handle(x):\n    return [HANDLERS[k] for k in reversed(type(x).__mro__) if k in HANDLERS][-1]\n", "DC209"),
    "compared-along-the-walk": (
        "def handle(x):\n    for k in type(x).__mro__:\n        if k is Heavy:\n            return 'heavy'\n    return 'object'\n", "DC206"),
    "singledispatch-decorator": (
        "@functools.singledispatch\ndef handle(x):\n    return 'object'\n\n\n"
        "@handle.register(Heavy)\ndef _(x):\n    return 'heavy'\n", "DC209"),
    "singledispatch-call": (
        "@functools.singledispatch\ndef handle(x):\n    return 'object'\n\n\n"
        "def _heavy(x):\n    return 'heavy'\n\n\nhandle.register(Heavy, _heavy)\n", "DC209"),
    "singledispatch-annotation": (
        "@functools.singledispatch\ndef handle(x):\n    return 'object'\n\n\n"
        "@handle.register\ndef _(x: Heavy):\n    return 'heavy'\n", "DC209"),
    "singledispatchmethod": (
        "class Show:\n    @functools.singledispatchmethod\n    def show(self, x):\n        return 'object'\n\n"
        "    @show.register\n    def _(self, x: Heavy):\n        return 'heavy'\n\n\n"
        "def handle(x):\n    return Show().show(x)\n", "DC209"),
    "abc-virtual-subclass": (
        "class Big(abc.ABC):\n    pass\n\n\nBig.register(Heavy)\n\n\n"
        "def handle(x):\n    return 'heavy' if isinstance(x, Big) else 'object'\n", "DC209"),
}


@pytest.mark.parametrize("code, rule", DECLINED.values(), ids=DECLINED.keys())
def test_the_parent_found_along_the_mro_declines(tmp_path, code, rule):
    a, v = analyse(tmp_path / "a", package(code))
    assert v.decision == "decline" and v.rule == "DC503" and hazards_of(a, rule)
    before, after, patched = run_both(tmp_path / "b", package(code), SCRIPT)
    assert patched is None and before == after == "heavy\n"


@pytest.mark.parametrize("code", [DECLINED["walk-in"][0], DECLINED["singledispatch-decorator"][0]], ids=["walk", "singledispatch"])
def test_what_a_patch_would_change(tmp_path, code):
    # Reparented by hand as the rewrite would: the dispatch no longer finds Heavy.
    child = CHILD.replace("(Heavy)", "").replace("super().__init__()\n", "pass\n")
    before, after, patched = run_both(tmp_path, package(code, child), SCRIPT)
    assert before == "object\n"


PATCHED = {
    # an exact type is looked up, no walk: a Child never was found under Heavy
    "exact-type": "HANDLERS = {Heavy: 'heavy'}\n\n\ndef handle(x):\n    return HANDLERS.get(type(x), 'none')\n",
    # the table holds the class too: the walk meets it first, before and after
    "the-class-is-a-key": (
        "from .child import Child\n\nHANDLERS = {Child: 'child', Heavy: 'heavy', object: 'object'}\n\n\n"
        "def handle(x):\n    for k in type(x).__mro__:\n        if k in HANDLERS:\n            return HANDLERS[k]\n"),
    # Heavy sits in another table than the one the walk looks in
    "another-table": (
        "SIZES = {Heavy: 1 << 20}\nHANDLERS = {object: 'object'}\n\n\n"
        "def handle(x):\n    for k in type(x).__mro__:\n        if k in HANDLERS:\n            return HANDLERS[k]\n"),
    # the walk runs only on objects that cannot be a Child
    "walk-over-another-class": (
        "HANDLERS = {Heavy: 'heavy', object: 'object'}\n\n\n"
        "def lookup(x):\n    for k in type(x).__mro__:\n        if k is Heavy or k in HANDLERS:\n            return HANDLERS[k]\n\n\n"
        "def handle(x):\n    return lookup(Other()), x.small\n"),
    # the class is registered on the same dispatcher
    "singledispatch-registers-the-class": (
        "@functools.singledispatch\ndef handle(x):\n    return 'object'\n\n\n"
        "@handle.register(Heavy)\ndef _(x):\n    return 'heavy'\n"),
}


@pytest.mark.parametrize("code", PATCHED.values(), ids=PATCHED.keys())
def test_near_miss_is_patched_and_behaves_the_same(tmp_path, code):
    child = CHILD
    if code is PATCHED["singledispatch-registers-the-class"]:
        child = CHILD + "\n\nfrom .base import handle  # noqa: E402\n\n\n@handle.register(Child)\ndef _(x):\n    return 'child'\n"
    if "from .child import Child" in code:  # the table names Child: the module is imported after child's
        files = {"base.py": HEAVY, "child.py": child, "use.py": "from .base import Heavy, Other\n" + code}
        script = SCRIPT.replace("pkg.base import handle", "pkg.use import handle")
    else:
        files, script = package(code, child), SCRIPT
    a, v = analyse(tmp_path / "a", files)
    assert v.decision == "decouple" and not hazards_of(a, "DC209") and not hazards_of(a, "DC206"), v.reason
    before, after, patched = run_both(tmp_path / "b", files, script)
    assert patched is not None and "class Child:" in patched and before == after
