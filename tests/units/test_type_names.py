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
