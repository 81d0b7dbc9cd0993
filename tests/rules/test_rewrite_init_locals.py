"""DC617 init-local: an attribute the inlined __init__ stores and only that __init__ reads
becomes a local, and the asserts that become the same merge into one with a message.
Executed original against patched; the near misses keep the attribute."""

import pytest

from ruletools import patch, run_both

BASE = '''
class Base:
    def __init__(self):
        self.ready = True


class Parent(Base):
    def __init__(self, n, buf=None, other=None):
        super().__init__()
        self.n = n
        if n > 2:
            self.ways = 2
        else:
            self.ways = 1
        if buf is not None:
            assert self.ways == 1

        if other is not None:
            assert self.ways == 1
        self.pool = bytearray(1 << 20)
'''
CHILD = '''
from .base import Parent


class Child(Parent):
    def __init__(self, n, buf=None, other=None):
        super().__init__(n, buf, other)

    def size(self):
        return self.n
'''
SCRIPT = '''
from pkg.child import Child
for args in [(1,), (3,), (1, 1), (3, 1), (3, None, 1), (1, 1, 1)]:
    try:
        c = Child(*args)
        print(args, c.size(), hasattr(c, "ways"))
    except AssertionError:
        print(args, "AssertionError")
'''


def files(child: str = CHILD, **more: str) -> dict[str, str]:
    return {"base.py": BASE, "child.py": child, **more}


def test_an_attribute_only_the_init_reads_becomes_a_local_and_the_asserts_merge(tmp_path):
    before, after, patched = run_both(tmp_path, files(), SCRIPT)
    assert "self.ways" not in patched and "            ways = 2\n" in patched
    assert ('        if buf is not None or other is not None:\n'
            '            assert ways == 1, "buf or other is given"\n') in patched
    assert before.replace("True", "-") == after.replace("False", "-"), (before, after)
    assert before.count("AssertionError") == 2


def _kept(tmp_path, child: str = CHILD, **more: str) -> None:
    patched, v = patch(tmp_path, files(child, **more))
    assert patched is not None and "self.ways = 2" in patched, (v, patched)


def test_near_miss_read_in_another_method(tmp_path):
    _kept(tmp_path, CHILD + "\n    def width(self):\n        return self.ways\n")


def test_near_miss_read_through_getattr_elsewhere(tmp_path):
    _kept(tmp_path, **{"user.py": "from .child import Child\n\n\ndef f(c: Child):\n    return getattr(c, 'ways', 0)\n"})


def test_near_miss_read_by_a_subclass(tmp_path):
    _kept(tmp_path, CHILD + "\n\nclass Grand(Child):\n    def width(self):\n        return self.ways\n")


def test_near_miss_a_read_before_any_store(tmp_path):
    # The class's own code reads it before super().__init__ stores it: AttributeError stays one.
    _kept(tmp_path, CHILD.replace("        super().__init__(n, buf, other)",
                                  "        print(getattr(self, 'ways', None))\n        super().__init__(n, buf, other)"))


RESTORED = '''
class Parent:
    def __init__(self, n):
        self.alpha = n * 2
        self._setup(n)
        self.gamma = self.alpha + 1
        self.pool = bytearray(1 << 20)

    def _setup(self, n):
        self.alpha = n + 10
'''
RESTORED_CHILD = '''
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

    def look(self):
        return self.gamma
'''


def test_near_miss_a_helper_the_init_calls_stores_it_again(tmp_path):
    """``self._setup(n)`` stores ``alpha`` again between the __init__'s store and its read: a
    local would hold the first value (a counterexample of the generator at --slow)."""
    fs = {"base.py": RESTORED, "child.py": RESTORED_CHILD}
    before, after, patched = run_both(tmp_path, fs, "from pkg.child import Child\nprint(Child(1).look(), Child(3).look())\n")
    assert patched is not None and "self.gamma = self.alpha + 1" in patched
    assert after == before == "12 14\n"


def test_near_miss_a_copied_method_reads_it(tmp_path):
    """The helper the __init__ calls, copied into the class for ``beta``, reads ``alpha``."""
    fs = {"base.py": RESTORED.replace("        self.alpha = n + 10", "        self.beta = self.alpha * 10"),
          "child.py": RESTORED_CHILD.replace("return self.gamma", "return self.gamma + self.beta")}
    before, after, patched = run_both(tmp_path, fs, "from pkg.child import Child\nprint(Child(1).look(), Child(3).look())\n")
    assert patched is not None and "self.gamma = self.alpha + 1" in patched
    assert after == before == "23 67\n"


@pytest.mark.parametrize("src", [
    pytest.param("def __init__(self, n):\n    self.a = n\n    self.b = self.a + 1\n", id="every-statement"),
    pytest.param("def __init__(self, n):\n    x = 1; self.a = n\n    y = 2\n    if n:\n        z = [self.a for _ in ()]\n", id="semicolons-and-nesting"),
    pytest.param("def __init__(self, n):\n    self.other = n\n    print(self)\n", id="none"),
    pytest.param("def __init__(self, n=None):  # a\n    # b\n    self.a = n  # c\n", id="comments"),
])
def test_statements_without_the_names_are_not_entered_and_nothing_else_changes(src):
    """``_ToLocal`` with the statements ``_untouched`` names left out gives what a visit of
    everything gives; the statements it leaves out are the ones that spell no ``self.a``."""
    import ast

    import libcst as cst

    from codemod.cst_util import code_of
    from codemod.rules.rewrite_init_locals import _ToLocal, _untouched

    fn = cst.parse_statement(src)
    skip = _untouched(fn, ast.parse(src).body[0], {"a"}, "self")
    assert code_of(fn.visit(_ToLocal({"a"}, "self", skip))) == code_of(fn.visit(_ToLocal({"a"}, "self")))
    assert [id(s) in skip for s in fn.body.body] == ["self.a" not in code_of(s) for s in fn.body.body]
