"""What a name or a parameter holds (codemod/receiver_typing/type_names.py)."""

import pytest

from codemod.receiver_typing import type_exprs
from codemod.model import Receiver

from typetools import classified, verdict

NO, MAYBE, YES = Receiver.NO, Receiver.MAYBE, Receiver.YES

TAKE = "from .base import Parent\n\n\ndef take(p: Parent):\n    return p.cache\n"
CALLERS = {
    "m1": "from .user import take\nfrom .m2 import make\n\n\ndef run():\n    return take(make())\n",
    "m2": "from .m3 import make3\n\n\ndef make():\n    return make3()\n",
    "m3": "from .base import Other\n\n\ndef make3():\n    return Other()\n",
}


def test_no_change_a_parameter_typed_by_its_callers(tmp_path):
    """take(p: Parent) is called only with an Other: p is not the class."""
    assert verdict(tmp_path, TAKE, **CALLERS) == NO


def test_over_budget_the_annotation_still_holds(tmp_path, monkeypatch):
    """Following take()'s callers needs more modules than allowed: p is then what its annotation
    says (a base of the class, so shown to be able to hold one), not unknown."""
    monkeypatch.setattr(type_exprs, "PARSES", 1)
    assert classified(tmp_path, TAKE, **CALLERS) == [(MAYBE, "typed Parent", "shown")]


@pytest.mark.parametrize("user, expected", [
    pytest.param("def f(xs):\n    g = lambda c: c.cache\n    return g\n", MAYBE, id="a-lambdas-parameter"),
    pytest.param("def f(m):\n    with m() as c:\n        return c.cache\n", MAYBE, id="a-with-target"),
    pytest.param("from .base import Other\n\n\ndef f():\n    c = Other()\n    return c.cache\n", NO, id="near-miss-an-assignment"),
])
def test_names(tmp_path, user, expected):
    assert verdict(tmp_path, user) == expected



def test_the_binding_filter_names_every_class_the_binding_tests_ask_about():
    """``_name_sources`` asks ``_binding`` only about nodes of ``BINDING_NODES``: a branch for a new
    kind of binding, added to ``_binding`` or ``_opaque_binding`` without the filter, fails here."""
    import ast
    import inspect
    import textwrap

    from codemod.receiver_typing import type_names

    tested: set[str] = set()
    for fn in (type_names.Names._binding, type_names._opaque_binding):
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        for call in ast.walk(tree):  # isinstance(node, ...): the tests of the node's own class
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "isinstance" and getattr(call.args[0], "id", None) == "node":
                kinds = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
                tested |= {k.attr for k in kinds}
            if isinstance(call, ast.Compare) and ast.unparse(call.left) == "type(node).__name__":
                tested |= {c.value for c in ast.walk(call.comparators[0]) if isinstance(c, ast.Constant)}
    assert {"Assign", "AugAssign", "Import", "ClassDef", "MatchAs"} <= tested  # the reading works
    assert {c.__name__ for c in type_names.BINDING_NODES} == {n for n in tested if hasattr(ast, n)}
