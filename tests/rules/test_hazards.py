"""DC201-DC204: type checks and metaclasses that would change meaning after reparenting (the class declines, DC503)."""

import pytest
from ruletools import analyse, hazards_of, run_both

FILES = {
    "base.py": """
        class Meta(type):
            pass


        class Parent:
            def __init__(self):
                self.pool = [0] * 8
                self.n = 1
        """,
    "child.py": """
        from .base import Parent


        class Child(Parent):
            def total(self):
                return self.n
        """,
}


def test_no_change_without_type_checks(tmp_path):
    a, v = analyse(tmp_path, FILES)
    assert [h for h in a.hazards if h.changes_meaning] == [] and v.rule == "DC501"


@pytest.mark.parametrize("rule, user", [
    pytest.param("DC201", "from .base import Parent\n\n\ndef f(x):\n    return isinstance(x, Parent)\n", id="isinstance"),
    pytest.param("DC201", "from .base import Parent\n\n\ndef f(x):\n    return issubclass(x, (int, Parent))\n", id="issubclass-tuple"),
    pytest.param("DC202", "from .base import Parent\n\nTYPES = (Parent, int)\n\n\ndef f(x):\n    return isinstance(x, TYPES)\n", id="type-list"),
    pytest.param("DC203", "def f(x):\n    return 'Parent' in [c.__name__ for c in type(x).__mro__]\n", id="name-in-mro-walk"),
    pytest.param("DC205", "from .base import Parent\n\n\ndef f(g):\n    try:\n        g()\n    except Parent:\n        return 1\n", id="except-clause"),
    pytest.param("DC205", "from .base import Parent\n\n\ndef f(g):\n    try:\n        g()\n    except (KeyError, Parent) as e:\n        return e\n", id="except-tuple"),
    pytest.param("DC205", "import pytest\n\nfrom .base import Parent\n\n\ndef test_it():\n    with pytest.raises(Parent):\n        pass\n", id="pytest-raises"),
    pytest.param("DC205", "import contextlib\n\nfrom .base import Parent\n\n\ndef f(g):\n    with contextlib.suppress(Parent):\n        g()\n", id="suppress"),
    pytest.param("DC206", "from .base import Parent\n\n\ndef f(x):\n    return Parent in type(x).__mro__\n", id="in-mro"),
    pytest.param("DC206", "from .base import Parent\n\n\ndef f(cls):\n    return Parent not in cls.mro()\n", id="not-in-mro-call"),
    pytest.param("DC207", "from .base import Parent\n\n\ndef f(x):\n    match x:\n        case Parent(n=1):\n            return 1\n    return 0\n", id="match-class"),
])
def test_type_checks_decline(tmp_path, rule, user):
    a, v = analyse(tmp_path, {**FILES, "user.py": user})
    assert hazards_of(a, rule)
    assert v.rule == "DC503" and v.decision == "decline"


@pytest.mark.parametrize("user", [
    pytest.param("from .base import Parent\nfrom .child import Child\n\n\ndef f(x):\n    return isinstance(x, (Parent, Child))\n", id="names-the-class-too"),
    pytest.param("from .base import Parent\n\n\ndef f(x: int):\n    return isinstance(x, Parent)\n", id="receiver-cannot-be-the-class"),
    pytest.param("from .base import Parent\n\nTYPES = (Parent, int)\n", id="type-list-without-type-checks"),
    pytest.param("def f(x):\n    return type(x).__name__ == 'Parent'\n", id="exact-name-check"),
    pytest.param("from .base import Parent\nfrom .child import Child\n\n\ndef f(g):\n    try:\n        g()\n    except (Parent, Child):\n        return 1\n", id="except-names-the-class-too"),
    pytest.param("from .base import Parent\n\n\ndef f(g):\n    try:\n        g()\n    except Exception:\n        return Parent\n", id="except-another-type"),
    pytest.param("from .base import Parent\n\n\ndef f(x):\n    return type(x) is Parent or x.__class__ == Parent\n", id="exact-type-checks"),
    pytest.param("from .base import Parent\n\n\ndef f(x):\n    return Parent in [1, 2]\n", id="in-a-plain-list"),
    pytest.param("from .base import Parent\nfrom .child import Child\n\n\ndef f(x):\n    match x:\n        case Child():\n            return 2\n        case Parent():\n            return 1\n    return 0\n", id="match-the-class-first"),
])
def test_near_misses_do_not_decline(tmp_path, user):
    a, v = analyse(tmp_path, {**FILES, "user.py": user})
    assert [h.what for h in a.hazards if h.changes_meaning] == []
    assert v.rule == "DC501"


def test_metaclass_lost(tmp_path):
    files = dict(FILES, **{"base.py": FILES["base.py"].replace("class Parent:", "class Parent(metaclass=Meta):")})
    a, v = analyse(tmp_path, files)
    assert hazards_of(a, "DC204") and v.rule == "DC503"


def test_metaclass_near_miss_the_class_sets_the_same(tmp_path):
    files = {
        "base.py": FILES["base.py"].replace("class Parent:", "class Parent(metaclass=Meta):"),
        "child.py": FILES["child.py"].replace("from .base import Parent", "from .base import Meta, Parent").replace(
            "class Child(Parent):", "class Child(Parent, metaclass=Meta):"),
    }
    a, v = analyse(tmp_path, files)
    assert hazards_of(a, "DC204") == []


@pytest.mark.parametrize("module, parent, warned", [
    pytest.param("base.py", "Parent", True, id="public-name-of-a-public-module"),
    pytest.param("_impl.py", "Parent", False, id="near-miss-private-module"),
    pytest.param("base.py", "_Parent", False, id="near-miss-private-name"),
    pytest.param("_impl.py", "_Parent", True, id="listed-in-all"),
])
def test_exported_parent_is_a_warning_not_a_decline(tmp_path, module, parent, warned):
    from ruletools import analyse, hazards_of
    exports = f"__all__ = ['{parent}']\n\n\n" if module == "_impl.py" and parent == "_Parent" else ""
    base = exports + f"class {parent}:\n    def __init__(self, n):\n        self.n = n\n        self.pool = list(range(n))\n"
    child = f"from .{module[:-3]} import {parent}\n\n\nclass Child({parent}):\n    def total(self):\n        return self.n\n"
    a, v = analyse(tmp_path, {module: base, "child.py": child})
    assert bool(hazards_of(a, "DC208")) is warned and v.decision == "decouple"


# The parent reached through its package: the package's __init__ re-exports it, by * or by name.
REEXPORTS = [
    pytest.param({"__init__.py": "from .base import *  # noqa: F403\n",
                  "user.py": "import pkg\n\n\ndef f(x):\n    return isinstance(x, pkg.Parent)\n"}, "DC201", id="star-reexport"),
    pytest.param({"__init__.py": "from .base import Parent\n",
                  "user.py": "from . import Parent\n\n\ndef f(x):\n    return isinstance(x, (int, Parent))\n"}, "DC201", id="named-reexport"),
    pytest.param({"__init__.py": "from .base import *  # noqa: F403\n",
                  "user.py": "import pkg\n\n\ndef f(g):\n    try:\n        g()\n    except pkg.Parent:\n        return 1\n"}, "DC205", id="except-through-reexport"),
    pytest.param({"__init__.py": "from .base import Parent\n",
                  "user.py": "import pkg\n\nTYPES = (pkg.Parent, int)\n\n\ndef f(x):\n    return isinstance(x, TYPES)\n"}, "DC202", id="type-list-through-reexport"),
    # sqlglot's shape: ``from sqlglot import exp``, where the package binds ``exp`` to its expressions module.
    pytest.param({"__init__.py": "from pkg import base as b\n",
                  "user.py": "from pkg import b\n\n\ndef f(x):\n    return isinstance(x, b.Parent)\n"}, "DC201", id="module-alias"),
]


@pytest.mark.parametrize("extra, rule", REEXPORTS)
def test_a_type_check_through_a_reexport_declines(tmp_path, extra, rule):
    a, v = analyse(tmp_path, {**FILES, **extra})
    assert hazards_of(a, rule) and v.rule == "DC503" and v.decision == "decline"


def test_near_miss_a_reexported_class_of_the_same_name_is_another_class(tmp_path):
    """``pkg.Parent`` is another module's ``Parent``: the test never matched the class, which is decoupled."""
    extra = {"other.py": "class Parent:\n    pass\n", "__init__.py": "from .other import Parent\n",
             "user.py": "import pkg\n\n\ndef f(x):\n    return isinstance(x, pkg.Parent)\n"}
    a, v = analyse(tmp_path / "a", {**FILES, **extra})
    assert [h.what for h in a.hazards if h.changes_meaning] == [] and v.rule == "DC501"
    probe = "from pkg.child import Child\nfrom pkg.user import f\nc = Child()\nprint(f(c), c.total())\n"
    before, after, patched = run_both(tmp_path / "b", {**FILES, **extra}, probe)
    assert patched is not None and "class Child:" in patched and after == before == "False 1\n"
