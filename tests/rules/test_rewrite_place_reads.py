"""DC614 place-reads: code moved from the parent's module that reads where it is written
(``__name__``, ``__file__``, ``globals()``, ``locals()``, frames, ``__class__``): ``__name__`` and
``__package__`` become the parent module's values, the rest is refused. Patched cases run against
the original in fresh interpreters; near misses that only look alike are patched unchanged."""

import pytest
from ruletools import UNUSED, patch, run_both

CHILD = '''
from .base import Parent


class Child(Parent):
    def __init__(self, n, extra=2):
        super().__init__(n)
        self.extra = extra

    def total(self):
        return (self.n, self.tag)
'''

HEAD = "import inspect\nimport logging\nimport sys\nfrom sys import _getframe\n\n\n"


def in_init(expr: str) -> dict[str, str]:
    return {"base.py": HEAD + f"class Parent:\n    def __init__(self, n):\n        self.n = n\n        self.tag = {expr}\n"
                              "        self.big = bytearray(1 << 16)\n" + UNUSED, "child.py": CHILD}


def in_method(expr: str) -> dict[str, str]:
    base = (HEAD + "class Parent:\n    def __init__(self, n):\n        self.n = n\n        self.big = bytearray(1 << 16)\n\n"
            f"    @property\n    def tag(self):\n        return {expr}\n" + UNUSED)
    return {"base.py": base, "child.py": CHILD}


PROBE = "from pkg.child import Child\nc = Child(3)\nprint(c.total())\n"

FIXED = [
    pytest.param(in_init("logging.getLogger(__name__).name"), 'logging.getLogger("pkg.base")', id="logger-in-init"),
    # In a package of its own, so that its package is not the child's.
    pytest.param({"core/__init__.py": "", "core/base.py": in_init("__package__")["base.py"],
                  "child.py": CHILD.replace("from .base", "from .core.base")}, '"pkg.core"', id="package-in-init"),
    pytest.param(in_method("__name__ + '.tag'"), '"pkg.base" + ".tag"', id="name-in-copied-property"),
]


@pytest.mark.parametrize("fs, spelt", FIXED)
def test_the_module_name_moved_code_reads_is_the_parent_module_s(tmp_path, fs, spelt):
    before, after, patched = run_both(tmp_path, fs, PROBE)
    assert patched is not None and spelt in patched and "__name__" not in patched and "__package__" not in patched
    assert after == before and "pkg" in before and "raised" not in before


def test_a_default_naming_the_module_keeps_the_parent_module_s_name(tmp_path):
    fs = {"base.py": "class Parent:\n    def __init__(self, n, owner=__name__):\n        self.n = n\n        self.tag = owner\n"
                     "        self.big = bytearray(1 << 16)\n" + UNUSED, "child.py": CHILD}
    before, after, patched = run_both(tmp_path, fs, PROBE)
    assert patched is not None and '"pkg.base"' in patched
    assert after == before == "(3, 'pkg.base')\n"


REFUSED = [
    pytest.param(in_init("__file__"), "__file__", id="file"),
    pytest.param(in_init("__spec__.name"), "__spec__", id="spec"),
    pytest.param(in_method("__doc__"), "__doc__", id="module-doc-in-method"),
    pytest.param(in_init("sorted(locals())"), "locals()", id="locals-in-inlined-init"),
    pytest.param(in_init("sorted(vars())"), "vars()", id="vars-no-argument"),
    pytest.param(in_init("len(dir())"), "dir()", id="dir-no-argument"),
    pytest.param(in_method("'Parent' in globals()"), "globals()", id="globals-in-copied-method"),
    pytest.param(in_init("eval('n + 1')"), "eval()", id="eval-without-namespace"),
    pytest.param(in_init("sys._getframe().f_code.co_filename"), "sys._getframe()", id="getframe"),
    pytest.param(in_method("_getframe().f_lineno"), "sys._getframe()", id="getframe-imported-by-name"),
    pytest.param(in_init("inspect.currentframe().f_globals['__name__']"), "inspect.currentframe()", id="currentframe"),
    pytest.param(in_method("inspect.stack()[0].filename"), "inspect.stack()", id="stack"),
    pytest.param(in_method("__class__.__name__"), "__class__", id="class-cell"),
]


@pytest.mark.parametrize("fs, what", REFUSED)
def test_a_read_of_where_the_code_is_refuses_the_rewrite(tmp_path, fs, what):
    patched, v = patch(tmp_path, fs)
    assert patched is None and v.decision == "unsafe" and v.refused_by == "DC614"
    assert what in v.reason


def test_a_class_body_s_own_names_refuse_the_rewrite(tmp_path):
    base = ("class Parent:\n    where = __module__ + '.' + __qualname__\n\n    def __init__(self, n):\n        self.n = n\n"
            "        self.big = bytearray(1 << 16)\n" + UNUSED)
    child = CHILD.replace("(self.n, self.tag)", "(self.n, self.where)")
    patched, v = patch(tmp_path, {"base.py": base, "child.py": child})
    assert patched is None and v.refused_by == "DC614" and "__module__" in v.reason


NEAR_MISSES = [
    # The instance's own class: the same object before and after.
    pytest.param(in_init("type(self).__name__"), id="type-of-self"),
    pytest.param(in_init("self.__class__.__name__"), id="self-class"),
    # A copied method's locals are its own wherever it is written.
    pytest.param(in_method("sorted(locals())"), id="locals-in-copied-method"),
    # Given a namespace, eval runs in that one.
    pytest.param(in_init("eval('x + 1', {'x': n})"), id="eval-with-namespace"),
    # An attribute named like a module attribute is not one.
    pytest.param(in_init("logging.getLogger('x').name + str(len(sys.path))"), id="attribute-not-module-name"),
]


@pytest.mark.parametrize("fs", NEAR_MISSES)
def test_near_miss_what_reads_the_instance_or_its_own_function_is_patched(tmp_path, fs):
    before, after, patched = run_both(tmp_path, fs, PROBE)
    assert patched is not None and "bytearray" not in patched
    assert after == before and "raised" not in before
