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


def _def_lines(root, a) -> list[tuple[str, int, str]]:
    """Every evidence of ``a`` whose line is a ``def``, ``class`` or decorator line."""
    out = []
    for evs in a.kept.values():
        for e in evs:
            line = (root / e.file).read_text().splitlines()[e.line - 1].lstrip()
            if line.startswith(("def ", "async def ", "class ", "@")):
                out.append((e.file, e.line, e.use))
    return out


def test_an_attribute_defined_on_one_path_has_its_reader_as_evidence_not_the_def_line(tmp_path):
    # The kept ``if`` defines qo only when not skipping: the slice needs qo "at entry", but no
    # kept statement reads it; the reader that keeps it is the only evidence.
    files = parent("self.n = n\nself.skip = False\nif not self.skip:\n    self.qo = [0] * n")
    files["user.py"] = "def plan(metadata):\n    return metadata.qo[-1]\n"
    a, _ = analyse(tmp_path, files)
    assert [(e.file, e.line, e.rule) for e in a.kept["qo"]] == [("pkg/user.py", 2, "DC108")]
    assert _def_lines(tmp_path, a) == []


def test_a_read_through_a_called_method_names_the_calling_line(tmp_path):
    # ``factor`` is a class attribute: no statement of __init__ defines it, and the kept one
    # reads it only inside ``compute``.
    extra = "\n    factor = 3\n\n    def compute(self):\n        return self.factor * 2\n"
    a, _ = analyse(tmp_path, parent("self.n = n\nself.m = self.compute()", extra)
                   | {"child.py": CHILD.replace("return self.n", "return self.n + self.m")})
    assert ("pkg/base.py", 4, "DC105") in [(e.file, e.line, e.rule) for e in a.kept["factor"]]
    assert _def_lines(tmp_path, a) == []
