"""The second pass over classes decoupled together: members still built only to be passed on."""

from types import SimpleNamespace
from textwrap import dedent

import pytest

from codemod.model import ModulePatch
from codemod.risk import _passed_on, patched_trees

CONTAINER = """
    class Container:
        def __init__(self, n):
            self.buf = [0] * n
            self.steps = n
            self.backends = [Backend(n, buf=self.buf[i]) for i in range(self.steps)]
"""


def backend(body: str) -> str:
    return f"""
    class Backend:
        def __init__(self, n, buf=None):
            self.n = n
{body}
"""


def passed_on(container: str, backend_src: str, decoupled=("Container", "Backend"), buf_rules=("DC101",)):
    after = dedent(container) + dedent(backend_src)
    kept = {"buf": [SimpleNamespace(rule=r) for r in buf_rules], "steps": [SimpleNamespace(rule="DC101")]}
    a = SimpleNamespace(cls=SimpleNamespace(file="pkg/m.py", name="Container"), kept=kept)
    return _passed_on(a, patched_trees([ModulePatch("pkg/m.py", after, after, {})]), decoupled)


def test_no_change_when_the_member_is_read_here():
    # steps is read by the container itself (range), so only buf can be "passed on".
    assert [m["member"] for m in passed_on(CONTAINER, backend("            self.buf = buf"))] == ["buf"]


@pytest.mark.parametrize("body, how", [
    pytest.param("            pass", "never read", id="never-read"),
    pytest.param("            if buf is not None:\n                assert n > 0", "only compared with None", id="none-test"),
    pytest.param("            self.buf = buf", "read", id="stored"),
    pytest.param("            if buf is not None:\n                self.buf = buf", "read", id="none-test-then-stored"),
])
def test_what_the_receiving_class_now_does_with_it(body, how):
    [m] = passed_on(CONTAINER, backend(body))
    assert (m["member"], m["to"], m["parameter"], m["use"]["how"]) == ("buf", "Backend", "buf", how)


def test_a_class_not_decoupled_in_this_run_is_not_looked_into():
    assert passed_on(CONTAINER, backend("            pass"), decoupled=("Container",)) == []


def test_a_member_also_read_elsewhere_is_not_passed_on():
    # buf is also read by code elsewhere in the tree (DC108): it is not built only to be passed on.
    assert passed_on(CONTAINER, backend("            pass"), buf_rules=("DC101", "DC108")) == []


def test_a_member_read_for_anything_else_is_not_passed_on():
    other = CONTAINER + "\n        def size(self):\n            return len(self.buf)\n"
    assert passed_on(other, backend("            pass")) == []


def test_positional_arguments_map_to_the_parameter():
    positional = CONTAINER.replace("Backend(n, buf=self.buf[i])", "Backend(n, self.buf[i])")
    [m] = passed_on(positional, backend("            pass"))
    assert m["parameter"] == "buf" and m["use"]["how"] == "never read"
