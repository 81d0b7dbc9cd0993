"""DC105 init-slice-reads and DC106 init-slice-defines: what the kept statements of the parent's __init__ need."""

import pytest
from ruletools import CHILD_READING_N as CHILD
from ruletools import analyse, kept_by


def parent(init_body: str, extra: str = "") -> dict:
    body = "\n".join("        " + line for line in init_body.strip().splitlines())
    return {"base.py": f"class Parent:\n    def __init__(self, n):\n{body}\n{extra}", "child.py": CHILD}


def test_no_change_when_the_kept_statement_reads_nothing_of_self(tmp_path):
    a, _ = analyse(tmp_path, parent("self.n = n\nself.pool = [0] * n"))
    assert kept_by(a, "DC105") == set() and kept_by(a, "DC106") == set()


@pytest.mark.parametrize("init, extra, kept", [
    pytest.param("self.scale = 2\nself.n = n * self.scale", "", {"scale"}, id="reads-an-attribute"),
    pytest.param("self.n = self.normalise(n)", "\n    def normalise(self, n):\n        return abs(n)\n", {"normalise"}, id="calls-a-method"),
])
def test_init_slice_reads(tmp_path, init, extra, kept):
    a, _ = analyse(tmp_path, parent(init, extra))
    assert kept_by(a, "DC105") == kept


def test_init_slice_read_near_miss_a_dropped_statement_reads_it(tmp_path):
    a, _ = analyse(tmp_path, parent("self.scale = 2\nself.n = n\nself.other = self.scale * 3"))
    assert kept_by(a, "DC105") == set()
    assert "scale" not in a.kept


def test_init_slice_defines_the_other_targets_of_a_kept_statement(tmp_path):
    a, _ = analyse(tmp_path, parent("self.n, self.m = n, n + 1"))
    assert kept_by(a, "DC106") == {"m"}


def test_init_slice_defines_near_miss_separate_statements(tmp_path):
    a, _ = analyse(tmp_path, parent("self.n = n\nself.m = n + 1"))
    assert kept_by(a, "DC106") == set() and "m" not in a.kept
