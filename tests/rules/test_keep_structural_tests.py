"""DC114 keep-structural-tests: ``isinstance`` against a Protocol, an abstract class (registrations,
``__subclasshook__``) or the standard library's abstract classes proves nothing of what an object
is not, and keeps the parent's members the test asks for. Each case is patched and run against
the original in fresh interpreters; near misses (nominal classes, an object a constructor built)
beside them."""

import pytest
from ruletools import UNUSED, analyse, kept_by, run_both

BASE = '''
class Parent:
    def __init__(self, n):
        self.n = n
        self.gamma = n * 2
        self.big = bytearray(1 << 16)

    def __len__(self):
        return self.n

    def describe(self):
        return "parent"
''' + UNUSED

CHILD = '''
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

    def total(self):
        return self.n
'''

HAS_TOTAL = '''
from typing import Protocol, runtime_checkable


@runtime_checkable
class HasTotal(Protocol):
    def total(self): ...

'''

PROBE = "from pkg.child import Child\nfrom pkg import user\nc = Child(3)\nprint(c.total(), user.read(c))\n"

GUARDS = [
    pytest.param(HAS_TOTAL + '''
def read(x):
    if isinstance(x, HasTotal):
        return x.gamma
    return None
''', id="runtime-checkable-protocol"),
    pytest.param('''
import abc


class Totalled(abc.ABC):
    @classmethod
    def __subclasshook__(cls, C):
        return callable(getattr(C, "total", None))


def read(x):
    if isinstance(x, Totalled):
        return x.gamma
    return None
''', id="subclasshook"),
    pytest.param('''
import abc


class Sink(abc.ABC):
    pass


def read(x):
    Sink.register(type(x))
    if isinstance(x, Sink):
        return x.gamma
    return None
''', id="abc-registered-elsewhere"),
    pytest.param('''
class Meta(type):
    def __instancecheck__(cls, obj):
        return hasattr(obj, "total")


class Anything(metaclass=Meta):
    pass


def read(x):
    return x.gamma if isinstance(x, Anything) else None
''', id="metaclass-instancecheck"),
    pytest.param('''
from typing import Protocol


class HasTotal(Protocol):
    def total(self): ...


def read(x: HasTotal):
    return x.gamma
''', id="protocol-annotation"),
]


@pytest.mark.parametrize("user", GUARDS)
def test_a_structural_guard_does_not_rule_the_class_out(tmp_path, user):
    fs = {"base.py": BASE, "child.py": CHILD, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "gamma" in a.kept
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and after == before == "3 6\n"


TESTED = [
    pytest.param('''
from typing import Protocol, runtime_checkable


@runtime_checkable
class HasGamma(Protocol):
    gamma: int


def read(x):
    return isinstance(x, HasGamma)
''', "gamma", id="protocol-attribute"),
    pytest.param('''
import abc


class Gammaed(abc.ABC):
    @classmethod
    def __subclasshook__(cls, C):
        return True if "describe" in dir(C) else NotImplemented


def read(x):
    return isinstance(x, Gammaed)
''', "describe", id="subclasshook-spells-the-name"),
    pytest.param('''
from collections.abc import Sized


def read(x):
    return isinstance(x, Sized)
''', "__len__", id="stdlib-sized"),
]


@pytest.mark.parametrize("user, member", TESTED)
def test_what_a_structural_test_asks_for_is_kept(tmp_path, user, member):
    fs = {"base.py": BASE, "child.py": CHILD, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    # The special methods are kept as used implicitly anyway (DC104); the rest for the test alone.
    assert v.decision == "decouple" and member in (a.kept if member.startswith("__") else kept_by(a, "DC114"))
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and after == before == "3 True\n"


NEAR_MISSES = [
    # A nominal class the instance is not: the guard rules it out, gamma goes.
    pytest.param('''
class Other:
    gamma = 0


def read(x):
    if isinstance(x, Other):
        return x.gamma
    return None
''', id="nominal-class"),
    # What a constructor built is exactly that class, whatever protocol it meets.
    pytest.param(HAS_TOTAL + '''
class Impl:
    gamma = 5

    def total(self):
        return 0


def read(x):
    y = Impl()
    if isinstance(y, HasTotal):
        return y.gamma
    return None
''', id="built-by-a-constructor"),
    # A protocol that asks only for what the class defines itself keeps nothing of the parent's.
    pytest.param(HAS_TOTAL + '''
def read(x):
    return isinstance(x, HasTotal) and 5
''', id="protocol-of-the-class-s-own"),
]


@pytest.mark.parametrize("user", NEAR_MISSES)
def test_near_miss_nominal_tests_still_drop(tmp_path, user):
    fs = {"base.py": BASE, "child.py": CHILD, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "gamma" not in a.kept and not kept_by(a, "DC114")
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and "gamma" not in patched and after == before


SINKS = '''
import abc


class Sink(abc.ABC):
    pass
'''

SUBSINKS = "from .sinks import Sink\n\n\nclass SubSink(Sink):\n    pass\n"


@pytest.mark.parametrize("user", [
    pytest.param('''
from .sinks import Sink as Drain


def read(x):
    Drain.register(type(x))
    if isinstance(x, Drain):
        return x.gamma
    return None
''', id="registered-through-an-alias"),
    pytest.param('''
from . import sinks


def read(x):
    sinks.Sink.register(type(x))
    if isinstance(x, sinks.Sink):
        return x.gamma
    return None
''', id="registered-through-the-module"),
    pytest.param('''
from .subsinks import SubSink
from .sinks import Sink


def read(x):
    SubSink.register(type(x))
    if isinstance(x, Sink):
        return x.gamma
    return None
''', id="registered-on-an-abstract-subclass-defined-elsewhere"),
])
def test_a_registration_spelt_through_another_name_is_found(tmp_path, user):
    """The search for registrations skips, unparsed, a receiver whose last name is no class of the
    tree and no alias of its file: an alias and a module path must still be found."""
    fs = {"base.py": BASE, "child.py": CHILD, "sinks.py": SINKS, "subsinks.py": SUBSINKS, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "gamma" in a.kept
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and after == before == "3 6\n"


def test_near_miss_a_register_method_of_a_plain_class_registers_nothing(tmp_path):
    """``Registry.register(...)`` on a class that is not abstract is its own method: no
    ``isinstance`` against a class of the tree takes the registered class, so the nominal test
    still rules the class out (and the file is not parsed for it)."""
    user = (
        "from .registry import Registry\n\n\nclass Other:\n    gamma = 0\n\n\n"
        "def read(x):\n    Registry.register(type(x))\n    if isinstance(x, Other):\n        return x.gamma\n    return None\n"
    )
    registry = "class Registry:\n    seen = []\n\n    @classmethod\n    def register(cls, t):\n        cls.seen.append(t)\n"
    fs = {"base.py": BASE, "child.py": CHILD, "registry.py": registry, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "gamma" not in a.kept and not kept_by(a, "DC114")
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and after == before == "3 None\n"


@pytest.mark.parametrize("sinks", [
    pytest.param("import abc\nimport sys\n\nif sys.version_info >= (3,):\n    class Sink(abc.ABC):\n        pass\nelse:\n    class Sink:\n        pass\n",
                 id="a-bare-definition-beside-one-with-a-base"),
    pytest.param("import abc\n\n\nclass Sink(\n    abc.ABC,\n):\n    pass\n", id="the-bases-on-lines-of-their-own"),
])
def test_an_abstract_class_also_spelt_without_bases_is_read(tmp_path, sinks):
    """Class statements without bases are decided unparsed (no ancestor, no metaclass): a file
    that also defines the name with bases, or spells its bases on other lines, is still read."""
    user = "from .sinks import Sink\n\n\ndef read(x):\n    Sink.register(type(x))\n    if isinstance(x, Sink):\n        return x.gamma\n    return None\n"
    fs = {"base.py": BASE, "child.py": CHILD, "sinks.py": sinks, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "gamma" in a.kept
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and after == before == "3 6\n"


PROTOS = '''
from typing import Protocol, runtime_checkable


@runtime_checkable
class HasGamma(Protocol):
    gamma: int
'''


@pytest.mark.parametrize("user, extra", [
    pytest.param('''
from typing import Protocol, runtime_checkable

from .protos import HasGamma


@runtime_checkable
class HasGammaAndTotal(HasGamma, Protocol):
    def total(self): ...


def read(x):
    return isinstance(x, HasGammaAndTotal)
''', {"protos.py": PROTOS}, id="protocol-subclass-in-a-file-that-never-names-the-member"),
    pytest.param('''
from typing import Protocol as Proto, runtime_checkable


@runtime_checkable
class HasGamma(Proto):
    gamma: int


def read(x):
    return isinstance(x, HasGamma)
''', {}, id="protocol-imported-under-another-name"),
])
def test_a_protocol_found_through_its_bases_or_an_alias_keeps_what_it_tests(tmp_path, user, extra):
    """The protocol files are parsed only when they name a member the class may drop or a
    structural class found so far, or import Protocol under another name: the member a
    protocol inherits from another file's, and a protocol whose base is an alias, still count."""
    fs = {"base.py": BASE, "child.py": CHILD, "user.py": user, **extra}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "gamma" in kept_by(a, "DC114")
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and after == before == "3 True\n"


OVERRIDING_CHILD = CHILD + '''
    def describe(self):
        return "child"
'''


def test_what_the_class_overrides_is_what_the_test_finds(tmp_path):
    """The test asks for ``describe``, which the class defines itself: the parent's is no answer to
    it, and is not kept (a copy under the same name, after the class's own, would replace it)."""
    user = '''
from typing import Protocol, runtime_checkable


@runtime_checkable
class Describes(Protocol):
    def describe(self): ...


def read(x):
    return x.describe() if isinstance(x, Describes) else None
'''
    fs = {"base.py": BASE, "child.py": OVERRIDING_CHILD, "user.py": user}
    a, v = analyse(tmp_path / "a", fs)
    assert v.decision == "decouple" and "describe" not in a.kept and not kept_by(a, "DC114")
    before, after, patched = run_both(tmp_path / "b", fs, PROBE)
    assert patched is not None and patched.count("def describe") == 1 and after == before == "3 child\n"
