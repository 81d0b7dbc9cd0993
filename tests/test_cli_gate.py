"""``--test CMD`` (issue 29): the project's own tests judge the patch, on throw-away copies of ROOT.

Each CLI test runs the installed console script on a throw-away project whose tests are what
the static analysis cannot see: a class looked up by a computed name. The judging of three
runs' outcomes is tested directly on ``gate.judge``.
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import on_a_terminal, tree_hashes, write_files
from test_cli_newuser import ENGINE, LIGHT, SCRIPT, SELECT, decouple

from codemod.errors import UsageError
from codemod.gate import FAILED, PASSED, SKIPPED, Run, judge, parse_junit, uses_pytest

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"

# The class the test checks against is named by a string built at run time: no analysis sees it.
KIND_TEST = '''\
import shop.engine as engine
from shop.light import LightEngine


def test_run():
    assert LightEngine("a").run(1) == "a"


def test_kind():
    kind = getattr(engine, {kind!r} + "Engine")
    assert isinstance(LightEngine("a"), kind), "not an engine of that kind"
'''
RED_TEST = '''\
def test_red():
    assert 1 == 2, "red before any patch"
'''
# Fails on odd-numbered runs: the first run before the patch, and the run after it.
FLAKY_TEST = '''\
import os
from pathlib import Path


def test_sometimes():
    state = Path(os.environ["FLAKY_STATE"])
    n = int(state.read_text()) + 1 if state.exists() else 1
    state.write_text(str(n))
    assert n % 2 == 0, "odd run"
'''


def project(root: Path, kind: str = "Heavy", **tests: str) -> Path:
    files = {"pytest.ini": "[pytest]\n", "shop/__init__.py": "", "shop/engine.py": ENGINE, "shop/light.py": LIGHT,
             "tests/test_light.py": KIND_TEST.format(kind=kind)}
    files.update({f"tests/{name}.py": text for name, text in tests.items()})
    return write_files(root, files)


@pytest.fixture(autouse=True)
def _installed(tmp_path, monkeypatch):
    if not SCRIPT.exists():
        pytest.skip("the decouple console script is not installed beside this interpreter")
    monkeypatch.setenv("DECOUPLE_CACHE_DIR", str(tmp_path / "cache"))
    # The copies go here, so that each test can see they are gone.
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))


def no_copies_left(tmp_path: Path) -> bool:
    return not list((tmp_path / "tmp").iterdir())


def test_hidden_dependency_refuses_names_the_test_and_writes_nothing(tmp_path):
    tree = project(tmp_path / "p")
    before = tree_hashes(tree)
    code, out, err = decouple(".", *SELECT, "--test", PYTEST, "--write", "--output", tmp_path / "out", cwd=tree)
    assert code == 3, err
    assert ("decouple: passed before the patch and not after it: tests.test_light::test_kind: "
            "AssertionError: not an engine of that kind") in err.splitlines()
    assert "Traceback" not in err and "tests.test_light::test_run" not in err
    assert tree_hashes(tree) == before and no_copies_left(tmp_path)
    assert not (tmp_path / "out" / "patch.diff").exists()
    c = json.loads((tmp_path / "out" / "report.json").read_text())["classes"][0]
    assert (c["decision"], c["rule"]) == ("unsafe", "DC512")
    md = (tmp_path / "out" / "report.md").read_text()
    assert "- `tests.test_light::test_kind`: AssertionError: not an engine of that kind" in md


def test_sound_twin_passes_reports_the_counts_and_writes(tmp_path):
    tree = project(tmp_path / "p", kind="")  # checks against Engine, the new base
    before = tree_hashes(tree)
    code, out, err = decouple(".", *SELECT, "--test", PYTEST, "--write", "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    after = tree_hashes(tree)
    # The tests passed, so --write applied the patch: the one module it names, nothing else.
    assert {k for k in before if before[k] != after[k]} == {"shop/light.py"} and set(after) == set(before)
    assert (tree / "shop/light.py").read_text() == (tmp_path / "out" / "files" / "shop" / "light.py").read_text()
    assert no_copies_left(tmp_path)
    md = (tmp_path / "out" / "report.md").read_text()
    how_tested = md.split("## How tested", 1)[1].split("##", 1)[0]
    assert f"`{PYTEST}`: before the patch 2 passed, 0 failed, 0 skipped; after it 2 passed, 0 failed, 0 skipped" in how_tested
    tests = json.loads((tmp_path / "out" / "report.json").read_text())["tests"]
    assert tests["broken"] == [] and tests["seconds"] > 0


def test_red_baseline_is_named_and_not_evidence(tmp_path):
    tree = project(tmp_path / "p", kind="", test_red=RED_TEST)
    before = tree_hashes(tree)
    code, out, err = decouple(".", *SELECT, "--test", PYTEST, "--check", cwd=tree)
    assert code == 1, err  # the gate passed; --check says the class still needs the refactor
    assert ("decouple: test failed before the patch too (not evidence): tests.test_red::test_red: "
            "AssertionError: red before any patch") in err.splitlines()
    assert "LightEngine would be decoupled" in out
    assert tree_hashes(tree) == before and no_copies_left(tmp_path)


def test_flaky_test_is_named_as_flaky(tmp_path):
    tree = project(tmp_path / "p", kind="", test_flaky=FLAKY_TEST)
    before = tree_hashes(tree)
    code, _, err = decouple(".", *SELECT, "--test", PYTEST, "--diff", cwd=tree,
                            env={"FLAKY_STATE": str(tmp_path / "flaky-state")})
    assert code == 0, err
    assert "decouple: flaky test (differs between two runs before the patch; not evidence): tests.test_flaky::test_sometimes" in err
    # It failed after the patch too (the third run), and still was not evidence.
    assert (tmp_path / "flaky-state").read_text() == "3"
    assert tree_hashes(tree) == before and no_copies_left(tmp_path)


def test_other_command_judged_by_exit_status(tmp_path):
    script = "import shop.engine as e, shop.light as l; assert issubclass(l.LightEngine, getattr(e, 'Heavy' + 'Engine'))"
    tree = project(tmp_path / "p")
    before = tree_hashes(tree)
    command = f"{sys.executable} -c \"{script}\""
    code, _, err = decouple(".", *SELECT, "--test", command, "--check", cwd=tree)
    assert code == 3, err
    assert f"decouple: passed before the patch and not after it: {command}: exit 1: AssertionError" in err
    assert tree_hashes(tree) == before and no_copies_left(tmp_path)


def test_command_failing_before_the_patch_is_bad_input(tmp_path):
    tree = project(tmp_path / "p")
    before = tree_hashes(tree)
    code, _, err = decouple(".", *SELECT, "--test", "echo 'ImportError: no module named x'; exit 4", cwd=tree)
    assert code == 2
    assert err.splitlines()[-1] == ("decouple: error: the tests fail before the patch "
                                    "(\"echo 'ImportError: no module named x'; exit 4\" exits 4: ImportError: no module named x)")
    assert tree_hashes(tree) == before and no_copies_left(tmp_path) and not (tree / "output").exists()


def test_timeout_before_the_patch_is_bad_input(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--test", "sleep 60", "--test-timeout", "1", "--check", cwd=tree)
    assert code == 2 and "decouple: error: the tests time out before the patch ('sleep 60' ran past --test-timeout)" in err
    assert no_copies_left(tmp_path)


def test_kept_copies_hold_both_sides(tmp_path):
    tree = project(tmp_path / "p", kind="")
    code, _, err = decouple(".", *SELECT, "--test", "true", "--keep-test-copies", "--check", cwd=tree)
    assert code == 1, err
    kept = Path(next(line for line in err.splitlines() if "test copies are kept in" in line).rsplit(" ", 1)[1])
    assert (kept / "before-1" / "shop" / "light.py").read_text() == LIGHT
    assert (kept / "after" / "shop" / "light.py").read_text() != LIGHT


def test_ctrl_c_removes_the_copies(tmp_path):
    tree = project(tmp_path / "p")
    proc = subprocess.Popen([str(SCRIPT), ".", *SELECT, "--test", "sleep 60", "--check"], cwd=tree,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list((tmp_path / "tmp").glob("decouple-test-*/before-1")) and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "decouple: interrupted"
    assert no_copies_left(tmp_path)


def test_options_need_test_and_a_patch(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--keep-test-copies", cwd=tree)
    assert code == 2 and err.strip() == "decouple: error: --keep-test-copies only applies to --test"
    code, _, err = decouple(".", *SELECT, "--test", "true", "--analyse-only", cwd=tree)
    assert code == 2 and err.strip() == "decouple: error: --test judges a patch, and --analyse-only makes none"


def test_pyproject_test_key_runs_the_gate_of_a_run_that_writes(tmp_path):
    tree = project(tmp_path / "p")
    (tree / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["LightEngine"]\ntest = "false"\n')
    for mode in (["--write"], ["--output", "out"], []):
        code, _, err = decouple(*mode, cwd=tree)
        assert code == 2 and "decouple: error: the tests fail before the patch ('false' exits 1)" in err, mode
    (tree / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["LightEngine"]\ntest = 3\n')
    code, _, err = decouple("--check", cwd=tree)
    assert code == 2 and "[tool.decouple] test must be a shell command, got 3" in err


def test_the_copies_the_tests_run_in_leave_out_the_report_folder(tmp_path):
    # .decouple/files/ holds patched copies of the sources, which a test run could import or collect.
    tree = project(tmp_path / "p")
    (tree / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["LightEngine"]\ntest = "test ! -e .decouple"\n')
    for _ in range(2):  # the second run finds the first one's .decouple/ at ROOT
        code, out, err = decouple(cwd=tree)
        assert code == 0 and out.startswith("wrote .decouple/patch.diff"), err
    assert (tree / ".decouple" / "files" / "shop" / "light.py").is_file()


# ---- judging three runs ----------------------------------------------------------------


def runs(o1, o2, oa, rc=(0, 0, 0), errors=None):
    return ((Run("before-1", rc[0], 1.0, outcomes=o1), Run("before-2", rc[1], 1.0, outcomes=o2)),
            Run("after", rc[2], 1.0, outcomes=oa, errors=errors or {}, output_line="Segmentation fault"))


def test_judge_new_failing_entry_counts_and_flaky_does_not():
    # A module that no longer imports is a failed entry that did not exist before.
    before, after = runs({"t::a": PASSED, "t::f": PASSED}, {"t::a": PASSED, "t::f": FAILED},
                         {"t::f": FAILED, "tests.test_x": FAILED}, rc=(0, 1, 1),
                         errors={"tests.test_x": "ImportError: cannot import name HeavyEngine"})
    tests = judge("pytest", before, after)
    assert tests["flaky"] == ["t::f"]
    assert tests["broken"] == [{"test": "tests.test_x", "error": "ImportError: cannot import name HeavyEngine"}]
    assert tests["not_run_after"] == ["t::a"]


def test_judge_a_failed_run_with_no_test_to_blame_refuses():
    before, after = runs({"t::a": PASSED}, {"t::a": PASSED}, None, rc=(0, 0, -11))
    assert judge("pytest", before, after)["broken"] == [{"test": "pytest", "error": "exit -11: Segmentation fault"}]
    before, after = runs({"t::a": PASSED}, {"t::a": PASSED}, {"t::a": SKIPPED})
    assert judge("pytest", before, after)["broken"] == []
    # A test that passed before and no longer runs, in a run that says all is well, is no pass.
    before, after = runs({"t::a": PASSED, "t::b": PASSED}, {"t::a": PASSED, "t::b": PASSED}, {"t::a": PASSED})
    assert judge("pytest", before, after)["broken"] == [{"test": "t::b", "error": "did not run after the patch"}]


def test_judge_baseline_that_cannot_judge():
    before, after = runs(None, None, None, rc=(0, 1, 0))
    with pytest.raises(UsageError, match="pass in one run and fail in the other"):
        judge("make test", before, after)
    before, after = runs({}, {}, {}, rc=(4, 4, 4))
    with pytest.raises(UsageError, match="exits 4 with no failed test"):
        judge("pytest --bad", before, after)
    # pytest stopped by a collection error: one failed entry, nothing that could break.
    before, after = runs({"tests.test_x": FAILED}, {"tests.test_x": FAILED}, {"tests.test_x": FAILED}, rc=(2, 2, 2))
    before[0].errors["tests.test_x"] = "ModuleNotFoundError: No module named 'yaml'"
    with pytest.raises(UsageError, match=r"^the tests fail before the patch \('pytest': no test passed in both runs: "
                                         r"tests.test_x: ModuleNotFoundError: No module named 'yaml'\)$"):
        judge("pytest", before, after)


def test_junit_outcomes(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text('<testsuites><testsuite>'
                   '<testcase classname="t" name="a"/>'
                   '<testcase classname="t" name="b"><failure message="AssertionError: x&#10;more">tb</failure></testcase>'
                   '<testcase classname="t" name="c"><skipped/></testcase>'
                   '<testcase classname="t" name="d"/><testcase classname="t" name="d"><error message="teardown"/></testcase>'
                   '<testcase classname="" name="tests.test_x"><error message="collection failure">'
                   'ImportError while importing test module&#10;tests/test_x.py:1: in &lt;module&gt;&#10;'
                   'E   ImportError: cannot import name \'HeavyEngine\'</error></testcase>'
                   '</testsuite></testsuites>')
    assert parse_junit(xml) == ({"t::a": PASSED, "t::b": FAILED, "t::c": SKIPPED, "t::d": FAILED, "tests.test_x": FAILED},
                                {"t::b": "AssertionError: x", "t::d": "teardown",
                                 "tests.test_x": "ImportError: cannot import name 'HeavyEngine'"})
    assert parse_junit(tmp_path / "none.xml") is None
    assert uses_pytest("pytest -x") and uses_pytest("python3 -m pytest tests") and not uses_pytest("make test")


def test_progress_line_on_a_terminal(tmp_path):
    tree = project(tmp_path / "p", kind="")
    code, text = on_a_terminal([str(SCRIPT), ".", *SELECT, "--test", "sleep 2", "--check"], cwd=tree)
    assert code == 1
    for what in ("before the patch (1 of 2)", "before the patch (2 of 2)", "on the patched copy"):
        assert f"\rrunning the tests {what}: " in text
    # The line is cleared before anything else is said.
    assert "\r\x1b[Kdecouple: tests: `sleep 2` exits 0" in text


def test_a_gated_run_never_reuses_a_cached_result(tmp_path):
    tree = project(tmp_path / "p", kind="")
    code, _, err = decouple(".", *SELECT, "--check", cwd=tree)
    assert code == 1, err
    for _ in range(2):
        code, _, err = decouple(".", *SELECT, "--test", "true", "--check", cwd=tree)
        assert code == 1 and "reused the previous run's result" not in err and "decouple: tests: `true` exits 0" in err
