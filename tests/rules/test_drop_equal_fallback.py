"""DC154 equal-fallback: under --keep proven, a member read elsewhere only through
``getattr(x, "X", fallback)`` whose result is the same with it and without it is dropped.

Each case is executed, original against patched; the near misses keep the member."""

from ruletools import analyse, dedent, run_both

BASE = '''
class Base:
    def __init__(self):
        self.ready = True


class Parent(Base):
    def __init__(self, n):
        super().__init__()
        self.planner = "fa2"
        self.buf = bytearray(1 << 20)
        self.n = n


class Other(Base):
    version = 4
'''
CHILD = '''
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

    def size(self):
        return self.n
'''
# The readers: a local bound once and tested, then read again only where the test returned;
# and the same nested in one expression.
RUNNER = '''
from .base import Base, Other


def probe(backend: Base):
    inner = getattr(backend, "planner", backend)
    if getattr(inner, "version", None) == 4:
        return inner.version
    if not isinstance(inner, Other):
        return "plain"
    return inner.version


def probe_nested(backend: Base):
    return getattr(getattr(backend, "planner", backend), "version", None) != 4
'''
SCRIPT = '''
from pkg.child import Child
from pkg.runner import probe, probe_nested
from pkg.base import Other
c = Child(3)
print(probe(c), probe_nested(c), probe(Other()), probe_nested(Other()), hasattr(c, "planner"))
'''


def files(runner: str = RUNNER, child: str = CHILD) -> dict[str, str]:
    return {"base.py": BASE, "child.py": child, "runner.py": runner}


def test_a_read_whose_result_is_the_same_without_the_member_drops_it_with_the_proof(tmp_path):
    a, _ = analyse(tmp_path / "a", files(), proven=True)
    assert "planner" not in a.kept
    [nested, local] = sorted(a.proofs["planner"], key=lambda e: -e.line)
    assert local.rule == "DC154" and "runner.py" in local.file
    assert ("with it the value is 'fa2', without it `backend` itself; either way "
            "`getattr(inner, 'version', None) == 4` is False, `not isinstance(inner, Other)` is True "
            "(no instance of Child has version); its reads at lines 7, 10 run on neither side") in local.use
    assert "`getattr(getattr(backend, 'planner', backend), 'version', None) != 4` is True" in nested.use
    before, after, patched = run_both(tmp_path / "run", files(), SCRIPT, proven=True)
    assert "planner" not in patched and "self.n = n" in patched
    assert before == "plain True 4 False True\n" and after == "plain True 4 False False\n"


def test_near_miss_the_default_keeps_the_member(tmp_path):
    a, _ = analyse(tmp_path, files())
    assert "planner" in a.kept and not a.proofs


def _kept_under_proven(tmp_path, runner: str, child: str = CHILD) -> None:
    a, _ = analyse(tmp_path, files(dedent(runner), child), proven=True)
    assert "planner" in a.kept and "planner" not in a.proofs, a.proofs


def test_near_miss_a_reader_that_uses_the_value_directly(tmp_path):
    _kept_under_proven(tmp_path, '''
        from .base import Base


        def probe(backend: Base):
            return getattr(backend, "planner", backend)
        ''')


def test_near_miss_a_fallback_that_differs_downstream(tmp_path):
    _kept_under_proven(tmp_path, '''
        from .base import Base


        def probe(backend: Base):
            return getattr(backend, "planner", "fa3") == "fa2"
        ''')


def test_near_miss_a_reader_without_a_fallback(tmp_path):
    _kept_under_proven(tmp_path, '''
        from .base import Base


        def probe(backend: Base):
            return getattr(getattr(backend, "planner"), "version", None) == 4
        ''')


def test_near_miss_the_class_has_the_attribute_tested(tmp_path):
    # Child answers "version" itself: without the member the test reads Child.version (4).
    _kept_under_proven(tmp_path, RUNNER, CHILD + "\n    version = 4\n")


def test_near_miss_a_later_read_the_tests_do_not_rule_out(tmp_path):
    _kept_under_proven(tmp_path, '''
        from .base import Base


        def probe(backend: Base):
            inner = getattr(backend, "planner", backend)
            if getattr(inner, "version", None) == 4:
                print("v4")
            return inner
        ''')
