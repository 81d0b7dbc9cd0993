"""Each claim report.md makes is true of the tree as it will be: a check that no longer runs is
said to no longer fail only where nothing still built runs it (DC407's ``still_runs_in``), and
the GPU results are shown only for the patch they ran (``provenance``). Each with a near miss."""

import json

import pytest

from conftest import run_cli, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": '''
class Base:
    pass


class Thing:
    def __init__(self, runner):
        if runner.bad:
            raise ValueError("bad runner")


class Heavy(Base):
    def __init__(self, runner, skip=False):
        assert runner.ok, "runner not ok"
        self.runner = runner
        self.thing = Thing(runner)


class Multi:
    def __init__(self, runner, n):
        self.n = n
        self.items = []
        for i in range(self.n):
            self.items.append(Heavy(runner, skip=True))
''',
    "pkg/child.py": '''
from .base import Heavy, Multi


class Child(Heavy):
    def __init__(self, runner, skip=False):
        super().__init__(runner, skip)

    def use(self):
        return self.runner


class MultiChild(Multi):
    def __init__(self, runner, n):
        super().__init__(runner, n)
        for i in range(self.n):
            self.items[i] = Child(runner, skip=True)

    def go(self):
        return self.items
''',
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = write_files(tmp_path_factory.mktemp("proj"), {k: v.lstrip("\n") for k, v in FILES.items()})
    code, _, err = run_cli(root, "--class", "Child", "--class", "MultiChild", "--output", root / "out")
    assert code == 0, err
    rep = json.loads((root / "out" / "report.json").read_text())
    return root, (root / "out" / "report.md").read_text(), {c["name"]: c for c in rep["classes"]}


def test_a_check_the_per_step_objects_still_run_is_not_said_to_no_longer_fail(run):
    _, md, classes = run
    c, m = classes["Child"], classes["MultiChild"]
    assert c["decision"] == m["decision"] == "decouple", (c["reason"], m["reason"])
    [r] = m["risk"]["raising_calls"]
    # MultiChild no longer builds Heavy, whose assert Child (which it still builds) keeps.
    assert r["call"].startswith("Heavy(") and r["still_runs_in"]["class"] == "Child"
    assert "while constructing `MultiChild`" not in md
    # Near miss: Thing's ValueError runs nowhere after the patch: Child's item says so.
    [t] = c["risk"]["raising_calls"]
    assert t["call"].startswith("Thing(") and "still_runs_in" not in t
    assert "no longer fails while constructing `Child`" in md


def test_gpu_results_of_another_patch_are_not_shown(run, tmp_path):
    import hashlib

    from codemod import report

    root, _, _ = run
    out = root / "out"
    rep = json.loads((out / "report.json").read_text())
    verify = {"tally": {"original": {"passed": 3}, "patched": {"passed": 3}}, "outputs_compared": 3, "outputs_bitwise_equal": 3,
              "gpu": "NVIDIA H200"}
    (out / "verify.json").write_text(json.dumps({**verify, "patch_sha256": "f" * 64}))
    report.write(out, rep)
    assert "3 of 3" not in (out / "report.md").read_text()
    digest = hashlib.sha256((out / "patch.diff").read_bytes()).hexdigest()
    (out / "verify.json").write_text(json.dumps({**verify, "patch_sha256": digest}))
    report.write(out, rep)
    md = (out / "report.md").read_text()
    assert "| outputs bitwise equal to the original's | | 3 of 3 |" in md and f"(`{digest[:12]}`)" in md
    (out / "verify.json").unlink()


@pytest.mark.parametrize("ratio, others, said", [
    pytest.param(1.019, [0.983], "within noise, 1.019x the original's, 0.983x to 0.983x in 1 other stored run", id="within-noise"),
    pytest.param(1.19, [], "1.190x the original's |", id="near-miss-a-real-difference"),
])
def test_latency_is_within_noise_only_when_every_run_is(ratio, others, said):
    from codemod.report_figures import gpu_table

    verify = {"latency_gpu_bound": {"median_ms": {"original": 0.1, "patched": 0.1 * ratio}, "ratio": ratio},
              "other_latency_ratios": others, "patch_sha256": "a" * 64}
    [row] = [line for line in gpu_table(verify) if line.startswith("| decode")]
    assert said in row and ("within noise" in row) == (ratio < 1.05) and "unchanged" not in row
