"""DC602 fold-constants after argument substitution: a test on a parameter bound to a literal
never reaches the patch as a comparison of two literals (``if 2 < 1: raise ...``), and a
parameter bound again in the parent's ``__init__`` is not decided by the literal it was passed.

Each case runs the original and the patched package and compares what construction does."""

import ast

import pytest

from ruletools import run_both

CHILD = """
from .base import Parent


class Child(Parent):
    def __init__(self):
        super().__init__({args})

    def size(self):
        return self.workers
"""

# The parent's __init__ allocates a table the class never reads: that is what the patch saves.
BASE = """
class Parent:
    def __init__(self, workers=2, name="pool"):
        self.table = [bytearray(1 << 10) for _ in range(4)]
{body}
"""


def _files(args: str, body: str) -> dict[str, str]:
    return {"base.py": BASE.format(body="\n".join("        " + line for line in body.strip("\n").splitlines())),
            "child.py": CHILD.format(args=args)}


def literal_tests(text: str) -> list[str]:
    """The ``if`` tests of ``text`` that compare literals only: what substitution left unfolded."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            operands = [node.test.left, *node.test.comparators]
            if all(isinstance(o, ast.Constant) or (isinstance(o, (ast.Tuple, ast.List, ast.Set))
                                                   and all(isinstance(e, ast.Constant) for e in o.elts)) for o in operands):
                out.append(ast.unparse(node.test))
    return out


PROBE = "from pkg.child import Child\nprint(Child().size())"
VALIDATION = "if workers < 1:\n    raise ValueError('need a worker')\nself.workers = workers"


@pytest.mark.parametrize("args, body", [
    pytest.param("2", VALIDATION, id="positional"),
    pytest.param("workers=2", VALIDATION, id="keyword"),
    pytest.param("", VALIDATION, id="default"),
    pytest.param("2", "if workers is None:\n    pass\nelif workers < 1:\n    raise ValueError('need a worker')\nself.workers = workers",
                 id="elif"),
    pytest.param("2, 'x'", "if name == '':\n    raise ValueError('no name')\nif 0 < workers < 1:\n    raise ValueError('x')\nself.workers = workers",
                 id="string-and-chain"),
    pytest.param("2", "self.workers = 0\nfor _ in range(3):\n    if workers < 1:\n        raise ValueError('x')\n    self.workers += workers",
                 id="inside-a-loop"),
    pytest.param("2", "try:\n    if workers < 1:\n        raise ValueError('x')\n    self.workers = workers\nexcept KeyError:\n    self.workers = 0",
                 id="inside-try"),
    pytest.param("2, 'fast'", "if name not in ('fast', 'slow'):\n    raise ValueError('no such mode')\nself.workers = workers", id="not-in-a-tuple"),
    pytest.param("2, 'fast'", "if name in ['fast', 'slow']:\n    self.workers = workers\nelse:\n    raise ValueError('no such mode')",
                 id="in-a-list"),
    pytest.param("2, 'fast'", "if name in {'fast'} and workers not in (0, -1):\n    self.workers = workers\nelse:\n    raise ValueError('x')",
                 id="in-a-set-and-not-in"),
])
def test_a_validation_on_a_literal_argument_folds_away(tmp_path, args, body):
    before, after, text = run_both(tmp_path, _files(args, body), PROBE, stress=True)
    assert text is not None and "table" not in text
    assert literal_tests(text) == [], text
    assert "raise ValueError" not in text
    assert before == after


@pytest.mark.parametrize("args, body", [
    pytest.param("0", VALIDATION, id="compare"),
    pytest.param("2, 'odd'", "if name not in ('fast', 'slow'):\n    raise ValueError('need a worker')\nself.workers = workers", id="not-in"),
])
def test_the_branch_that_always_runs_stays(tmp_path, args, body):
    before, after, text = run_both(tmp_path, _files(args, body), PROBE, stress=True)
    assert literal_tests(text) == [] and "raise ValueError" in text
    assert before == after == "raised ValueError need a worker\n"


@pytest.mark.parametrize("body", [
    pytest.param("workers = workers - 5\nif workers < 1:\n    raise ValueError('x')\nself.workers = workers", id="assigned"),
    pytest.param("workers -= 5\nif workers < 1:\n    raise ValueError('x')\nself.workers = workers", id="augmented"),
    pytest.param("for workers in (0,):\n    pass\nif workers < 1:\n    raise ValueError('x')\nself.workers = workers", id="loop-target"),
    pytest.param("if workers < 1:\n    raise ValueError('x')\nworkers = 0\nself.workers = workers", id="bound-after-the-test"),
    pytest.param("import contextlib\nwith contextlib.nullcontext(0) as workers:\n    pass\nif workers < 1:\n    raise ValueError('x')\n"
                 "self.workers = workers", id="with-target"),
])
def test_near_miss_a_parameter_bound_again_is_not_decided_by_its_argument(tmp_path, body):
    before, after, text = run_both(tmp_path, _files("2", body), PROBE, stress=True)
    assert text is not None
    assert before == after
