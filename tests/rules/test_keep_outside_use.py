"""DC108 outside-use: code elsewhere reads a member on something that may be the class."""

import pytest
from ruletools import analyse, kept_by

ID = "DC108"
FILES = {
    "base.py": """
        class Parent:
            def __init__(self, n):
                self.pool = [0] * n
                self.n = n
                self.cache = {}
        """,
    "child.py": """
        from .base import Parent


        class Child(Parent):
            def __init__(self, n):
                super().__init__(n)
        """,
    "other.py": """
        class Other:
            cache = None
        """,
}


def test_no_change_without_outside_uses(tmp_path):
    a, _ = analyse(tmp_path, FILES)
    assert kept_by(a, ID) == set()


@pytest.mark.parametrize("user", [
    pytest.param("from .child import Child\n\n\ndef f(c: Child):\n    return c.cache\n", id="annotated"),
    pytest.param("def f(c):\n    return c.cache\n", id="unknown-receiver"),
    pytest.param("def f(c):\n    return getattr(c, 'cache', None)\n", id="getattr-literal"),
])
def test_outside_uses_keep(tmp_path, user):
    a, _ = analyse(tmp_path, {**FILES, "user.py": user})
    assert kept_by(a, ID) == {"cache"}
    [ev] = [e for e in a.kept["cache"] if e.rule == ID]
    assert ev.file == "pkg/user.py"


@pytest.mark.parametrize("user", [
    pytest.param("from .other import Other\n\n\ndef f(c: Other):\n    return c.cache\n", id="annotated-unrelated"),
    pytest.param("from .other import Other\n\n\ndef f(c):\n    if isinstance(c, Other):\n        return c.cache\n", id="isinstance-guard"),
    pytest.param("from .other import Other\n\n\ndef f():\n    c = Other()\n    return c.cache\n", id="constructed-here"),
])
def test_near_misses_on_receivers_that_cannot_be_the_class(tmp_path, user):
    a, _ = analyse(tmp_path, {**FILES, "user.py": user})
    assert kept_by(a, ID) == set()


# ---- receivers typed through their sources: a store elsewhere can put the class there -----

HOLDER = """
    from .other import Other


    class Holder:
        def __init__(self):
            self.backend = Other()

        def size(self):
            return self.backend.cache
    """


@pytest.mark.parametrize("more, kept", [
    pytest.param({}, set(), id="only-the-holders-own-store"),
    pytest.param({"sub.py": "from .holder import Holder\nfrom .child import Child\n\n\nclass Sub(Holder):\n"
                            "    def __init__(self):\n        self.backend = Child(1)\n"}, {"cache"}, id="a-subclass-stores-the-class"),
    pytest.param({"wire.py": "from .child import Child\n\n\ndef wire(h):\n    h.backend = Child(1)\n"}, {"cache"},
                 id="code-elsewhere-stores-the-class"),
    pytest.param({"wire.py": "from .child import Child\n\n\ndef wire(h):\n    h.backend = Child(1) or None\n"}, {"cache"},
                 id="an-or-is-one-of-its-operands"),
    pytest.param({"wire.py": "from .other import Other\n\n\ndef wire(h):\n    h.backend = Other()\n"}, set(),
                 id="near-miss-code-elsewhere-stores-an-unrelated-class"),
])
def test_what_can_reach_an_attribute(tmp_path, more, kept):
    a, _ = analyse(tmp_path, {**FILES, "holder.py": HOLDER, **more})
    assert kept_by(a, ID) == kept


# ---- how strongly each use is established, and the order the report shows them in -------

WEAK = "def f(c):\n    return c.cache\n"
STRONG = "from .base import Parent\n\n\ndef g(p: Parent):\n    return p.cache\n"


@pytest.mark.parametrize("user, strength", [
    pytest.param("from .child import Child\n\n\ndef f(c: Child):\n    return c.cache\n", "shown", id="annotated-class"),
    pytest.param(STRONG, "shown", id="annotated-base"),
    pytest.param("def f(c):\n    if isinstance(c, object):\n        return c.cache\n", "unknown", id="guard-object"),
    pytest.param(WEAK, "unknown", id="unknown-receiver"),
    pytest.param("from typing import Any\n\n\ndef f(c: Any):\n    return c.cache\n", "unknown", id="typed-any"),
])
def test_each_use_says_how_strongly_it_is_established(tmp_path, user, strength):
    a, _ = analyse(tmp_path, {**FILES, "user.py": user})
    [ev] = [e for e in a.kept["cache"] if e.rule == ID]
    assert ev.strength == strength


def test_near_miss_a_use_that_looks_strong_but_only_dropped_code_reaches(tmp_path):
    """An annotated parameter names the parent, but its only caller is code the rewrite drops:
    the use is not evidence, though a cheap look at the annotation alone would call it shown."""
    base = FILES["base.py"].replace("self.cache = {}", "self.cache = {}\n                self.helper = Helper(self)") + (
        "\n\n        class Helper:\n            def __init__(self, owner: 'Parent'):\n                self.size = len(owner.cache)\n")
    a, _ = analyse(tmp_path, {**FILES, "base.py": base, "a_user.py": WEAK})
    assert [(e.file, e.strength) for e in a.kept["cache"]] == [("pkg/a_user.py", "unknown")]


def test_a_weak_first_use_does_not_end_the_search_for_a_strong_one(tmp_path):
    # a_user.py is searched first; its receiver could not be ruled out, z_user.py's is typed.
    # z_user.py is parsed anyway (it also reads pool, not yet kept), so its strong use is found.
    a, v = analyse(tmp_path, {**FILES, "a_user.py": WEAK, "z_user.py": STRONG + "\n\ndef k(p: Parent):\n    return p.pool\n"})
    assert [(e.file, e.strength) for e in a.kept["cache"]] == [("pkg/a_user.py", "unknown"), ("pkg/z_user.py", "shown")]
    assert_strong_use_first(a, v)


def assert_strong_use_first(a, v):
    from codemod.report import class_entry

    [entry] = [k for k in class_entry(a, v, [])["kept"] if k["member"] == "cache"]
    assert entry["certain"] is True
    assert [e["file"] for e in entry["evidence"]] == ["pkg/z_user.py", "pkg/a_user.py"]


def test_a_file_mentioning_only_kept_members_is_not_parsed_for_a_stronger_use(tmp_path):
    # The cost bound: without --all-uses, z_user.py (only cache, already kept) is skipped.
    a, _ = analyse(tmp_path, {**FILES, "a_user.py": WEAK, "z_user.py": STRONG})
    assert [e.file for e in a.kept["cache"]] == ["pkg/a_user.py"]


def test_with_all_uses_the_strong_use_is_listed_first(tmp_path):
    a, v = analyse(tmp_path, {**FILES, "a_user.py": WEAK, "z_user.py": STRONG}, all_uses=True)
    assert_strong_use_first(a, v)


def test_after_a_strong_use_the_search_for_that_member_stops(tmp_path):
    a, _ = analyse(tmp_path, {**FILES, "a_user.py": STRONG, "z_user.py": WEAK})
    assert [e.file for e in a.kept["cache"]] == ["pkg/a_user.py"]


def test_members_kept_only_on_uses_not_ruled_out_are_listed_apart(tmp_path):
    from codemod.report import class_entry
    from codemod.report_md import _evidence

    files = {**FILES, "a_user.py": "def h(c):\n    return c.pool\n", "z_user.py": STRONG}
    a, v = analyse(tmp_path, files)
    entry = class_entry(a, v, [])
    assert {k["member"]: k["certain"] for k in entry["kept"]} == {"cache": True, "pool": False}
    md = "\n".join(_evidence(entry))
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    # The definite one first; the one kept on a use not ruled out says so.
    assert [r.split("`")[1] for r in rows] == ["cache", "pool"]
    assert "*not ruled out*" not in rows[0] and "*not ruled out*" in rows[1]


def test_the_class_own_use_comes_before_any_outside_use(tmp_path):
    from codemod.report import class_entry

    child = ("from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n):\n"
             "        super().__init__(n)\n\n    def size(self):\n        return len(self.cache)\n")
    files = {**FILES, "child.py": child, "a_user.py": WEAK}
    a, v = analyse(tmp_path, files)
    [entry] = [k for k in class_entry(a, v, [])["kept"] if k["member"] == "cache"]
    assert entry["evidence"][0]["strength"] == "own" and entry["certain"] is True


def test_evidence_order_puts_the_strongest_and_the_real_reader_first():
    from codemod.model import Evidence
    from codemod.report import evidence_order

    evs = [
        Evidence("pkg/z.py", 1, "read of .pool on m (possibly an instance of Child; its type is unknown)", "DC108", "unknown"),
        Evidence("pkg/a.py", 9, "read of .pool on b (possibly an instance of Child; typed Base)", "DC108", "shown"),
        Evidence("pkg/b.py", 3, "read of .pool on c (possibly an instance of Child; typed Child)", "DC108", "shown"),
        Evidence("pkg/base.py", 4, "read by kept statement of Parent.__init__", "DC105", "own"),
        Evidence("pkg/child.py", 12, "Child.size reads self.pool", "DC101", "own"),
    ]
    order = [(e.file, e.line) for e in sorted(evs, key=evidence_order("Child"))]
    assert order == [("pkg/child.py", 12), ("pkg/base.py", 4), ("pkg/b.py", 3), ("pkg/a.py", 9), ("pkg/z.py", 1)]
