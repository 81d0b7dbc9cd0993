"""``--trace CMD`` (issue 37): the project's tests, run once traced on a copy of ROOT, add the
parent members they read on instances of the class to the analysis's evidence (DC120).

The project's test exports engines to CSV with columns named in a data file: no analysis sees
which members that reads. The CLI tests run the installed console script; the hook itself is
tested in a plain interpreter, beside a ``sitecustomize`` it must not hide.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import tree_hashes, write_files
from test_cli_gate import _installed  # noqa: F401 (the copies go to a folder each test can see emptied)
from test_cli_newuser import ENGINE as NEWUSER_ENGINE, LIGHT, decouple

from codemod.runtime_trace import DIR_VAR, HOOK, SPEC_VAR, read_records

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
SELECT = ("--class", "LightEngine")

# The engine of the other CLI tests, with one more attribute that only a data file names.
ENGINE = NEWUSER_ENGINE.replace("""    def __init__(self, name):
        self.name = name
""", """    def __init__(self, name, region="eu"):
        self.name = name
        self.region = region
""")
# The columns come from a data file: the read of ``region`` is there at run time only. The test
# asserts on the row count, not on the values: only a run of it can tell that it needs ``region``.
EXPORT_TEST = '''\
import csv
import importlib
import io
import json
import os
from pathlib import Path

from shop.light import LightEngine

COLUMNS = json.loads((Path(__file__).parent / "columns.json").read_text())
# The engines come from a class named by the environment: what export() is given is of a type
# no static analysis can tell (a name from data on a receiver that may be the class is refused,
# DC301; here the receiver's type is unknown, so the read is a listed Risk and the member drops).
ENGINE = getattr(importlib.import_module("shop.light"), os.environ.get("EXPORT_ENGINE", "LightEngine"))


def export(engines):
    out = io.StringIO()
    writer = csv.writer(out)
    for e in engines:
        writer.writerow([getattr(e, column) for column in COLUMNS])
    return out.getvalue()


def test_run():
    assert LightEngine("a").run(1) == "a"


def test_export_writes_one_row_per_engine():
    assert export([ENGINE("a"), ENGINE("b")]).count("\\n") == 2
'''
# A helper reached only through a name built at run time: its parameter's type is unknown.
SHOP_REPORT = '''\
def region_of(engine):
    return engine.region
'''
PROVEN_TEST = '''\
import shop.report as report
from shop.light import LightEngine


def test_region():
    helper = getattr(report, "region" + "_of")
    assert helper(LightEngine("a"))
'''


def project(root: Path, **extra: str) -> Path:
    files = {"pytest.ini": "[pytest]\n", "shop/__init__.py": "", "shop/engine.py": ENGINE, "shop/light.py": LIGHT,
             "tests/columns.json": '["name", "region"]\n', "tests/test_export.py": EXPORT_TEST}
    files.update(extra)
    return write_files(root, files)


def pytest_on(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(PYTEST.split(), cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"})


def test_a_read_by_a_name_from_a_data_file_is_kept_and_the_patched_tests_pass(tmp_path):
    """The differential: the same patch without --trace breaks the test; with it, the member stays."""
    plain, traced = project(tmp_path / "plain"), project(tmp_path / "traced")
    code, _, err = decouple(".", *SELECT, "--write", cwd=plain)
    assert code == 0, err
    assert "self.region" not in (plain / "shop/light.py").read_text()
    broken = pytest_on(plain)
    assert broken.returncode == 1 and "'LightEngine' object has no attribute 'region'" in broken.stdout

    before = tree_hashes(traced)
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--output", tmp_path / "out", cwd=traced)
    assert code == 0, err
    assert tree_hashes(traced) == before and not list((tmp_path / "tmp").iterdir())  # ROOT untouched, copy gone
    assert "decouple: found only at run time (--trace): LightEngine.region at tests/test_export.py:21" in err.splitlines()
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    c = rep["classes"][0]
    assert c["decision"] == "decouple"
    [found] = c["found_at_run_time"]
    assert (found["member"], found["file"], found["line"]) == ("region", "tests/test_export.py", 21)
    assert "tests/test_export.py::test_export_writes_one_row_per_engine" in found["use"]
    [kept] = [k for k in c["kept"] if k["member"] == "region"]
    assert [(e["rule"], e["strength"]) for e in kept["evidence"]] == [("DC120", "shown")]
    assert rep["trace"]["exit_status"] == 0 and "failed" not in rep["trace"]
    md = (tmp_path / "out" / "report.md").read_text()
    section = md.split("## Found only at run time", 1)[1].split("##", 1)[0]
    assert "- `LightEngine.region` (instance attribute): `tests/test_export.py:21`" in section
    # The patch keeps the statement that sets it, and the project's tests pass on the patched tree.
    patched = (tmp_path / "out" / "files" / "shop" / "light.py").read_text()
    assert 'self.region = "eu"' in patched and "sqlite3" not in patched
    (traced / "shop/light.py").write_text(patched)
    assert pytest_on(traced).returncode == 0


def test_trace_and_test_together_pass_where_test_alone_refuses(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--test", PYTEST, "--check", cwd=tree)
    assert code == 3 and "AttributeError: 'LightEngine' object has no attribute 'region'" in err, err
    code, out, err = decouple(".", *SELECT, "--test", PYTEST, "--trace", PYTEST, "--check", cwd=tree)
    assert code == 1, err  # the gate passed: --check says the class still needs the refactor
    assert "after it 2 passed, 0 failed" in err and "LightEngine would be decoupled" in out


def test_a_member_the_static_analysis_keeps_is_not_listed(tmp_path):
    tree = project(tmp_path / "p", **{"tests/columns.json": '["name"]\n'})
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert "found_at_run_time" not in rep["classes"][0] and rep["trace"]["accesses"] >= 1
    assert {k["member"] for k in rep["classes"][0]["kept"]} == {"name"}
    assert "Every member it read the static analysis keeps too." in (tmp_path / "out" / "report.md").read_text()


# anyio's shape: a package that registers a pytest plugin has its modules loaded by pytest's
# assertion rewriter, a finder put ahead of ours; and its suite runs under blockbuster, which makes
# os.path.realpath, os.getcwd and the like raise when called inside an event loop.
REWRITTEN = "import pytest\n\npytest.register_assert_rewrite('shop')\n"
PATCHED_OS = '''\
import os

import pytest


def _blocking(*args, **kwargs):
    raise RuntimeError("blocking call")


@pytest.fixture(autouse=True)
def blockbuster(monkeypatch):
    for name in ("realpath", "abspath", "relpath", "exists"):
        monkeypatch.setattr(os.path, name, _blocking)
    monkeypatch.setattr(os, "getcwd", _blocking)
'''


def test_a_package_loaded_by_the_assertion_rewriter_is_traced(tmp_path):
    tree = project(tmp_path / "p", **{"conftest.py": REWRITTEN})
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [(f["member"], f["file"], f["line"]) for f in rep["classes"][0]["found_at_run_time"]] == [
        ("region", "tests/test_export.py", 21)]


def test_a_suite_that_patches_os_path_is_traced_and_still_passes(tmp_path):
    tree = project(tmp_path / "p", **{"tests/conftest.py": PATCHED_OS})
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert rep["trace"]["exit_status"] == 0, rep["trace"]
    assert [(f["member"], f["file"], f["line"]) for f in rep["classes"][0]["found_at_run_time"]] == [
        ("region", "tests/test_export.py", 21)]


# platformdirs' shape (4.14.5, test_runtime_dir_warning_points_at_caller): a property warns with
# stacklevel=2 and the test asserts the warning names the test's own file.
WARNS_TEST = '''\
import sys
import warnings

import pytest

from shop.light import LightEngine


class Noisy(LightEngine):
    @property
    def loud(self):
        warnings.warn("loud", UserWarning, stacklevel=2)
        return 1


def test_the_warning_names_the_caller():
    with pytest.warns(UserWarning) as record:
        assert Noisy("a").loud == 1
    assert [w.filename for w in record] == [__file__]


class Deeper(LightEngine):
    @property
    def loud(self):
        warnings.warn("deep", UserWarning, stacklevel=3)
        return 1


def read(engine):
    return engine.loud


def test_a_deeper_level_names_the_callers_caller_not_one_frame_more():
    with pytest.warns(UserWarning) as record:
        here = sys._getframe().f_lineno; read(Deeper("a"))  # noqa: E702
    assert [(w.filename, w.lineno) for w in record] == [(__file__, here)]
'''


def test_a_warning_with_a_stack_level_still_names_the_caller_when_traced(tmp_path):
    tree = project(tmp_path / "p", **{"tests/test_warns.py": WARNS_TEST})
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert rep["trace"]["exit_status"] == 0, rep["trace"]  # the wrapper's frame named the hook before
    # near miss: a level of 3 still counts the frames of the program (the helper), only the hook's is skipped
    assert rep["trace"]["accesses"] > 0


def test_a_failing_suite_still_counts_and_the_report_says_it_failed(tmp_path):
    tree = project(tmp_path / "p", **{"tests/test_red.py": "def test_red():\n    assert False\n"})
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    assert "decouple: the traced run failed (exit 1" in err
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert rep["trace"]["exit_status"] == 1 and rep["trace"]["failed"].startswith("exit 1")
    assert [f["member"] for f in rep["classes"][0]["found_at_run_time"]] == ["region"]
    assert "**the suite failed** (exit 1" in (tmp_path / "out" / "report.md").read_text()


def test_a_command_that_cannot_start_is_one_line_exit_2(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--trace", "no-such-command-here", "--check", cwd=tree)
    assert code == 2 and "Traceback" not in err
    assert err.strip().startswith("decouple: error: --trace: the command cannot start ('no-such-command-here' exits 127")


def test_under_keep_proven_a_runtime_read_is_a_shown_use(tmp_path):
    files = {"shop/report.py": SHOP_REPORT, "tests/test_proven.py": PROVEN_TEST, "tests/columns.json": '["name"]\n'}
    tree = project(tmp_path / "p", **files)
    code, _, err = decouple(".", *SELECT, "--keep", "proven", "--output", tmp_path / "plain", cwd=tree)
    assert code == 0, err
    plain = json.loads((tmp_path / "plain" / "report.json").read_text())["classes"][0]
    assert [a["member"] for a in plain["assumptions"]] == ["region"]  # dropped on the user's word
    code, _, err = decouple(".", *SELECT, "--keep", "proven", "--trace", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    c = json.loads((tmp_path / "out" / "report.json").read_text())["classes"][0]
    assert c["assumptions"] == []
    [kept] = [k for k in c["kept"] if k["member"] == "region"]
    assert kept["certain"] and kept["evidence"][0]["rule"] == "DC120"
    assert (kept["evidence"][0]["file"], kept["evidence"][0]["line"]) == ("shop/report.py", 2)


def test_trace_in_the_project_table(tmp_path):
    tree = project(tmp_path / "p", **{"pyproject.toml": f'[tool.decouple]\nclasses = ["LightEngine"]\ntrace = "{PYTEST}"\n'})
    code, _, err = decouple("--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    assert "found only at run time (--trace): LightEngine.region" in err
    bad = project(tmp_path / "q", **{"pyproject.toml": '[tool.decouple]\nclasses = ["LightEngine"]\ntrace = 3\n'})
    code, _, err = decouple("--check", cwd=bad)
    assert code == 2 and "[tool.decouple] trace must be a shell command, got 3" in err


def test_test_timeout_needs_test_or_trace(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--test-timeout", "5", "--check", cwd=tree)
    assert code == 2 and err.strip() == "decouple: error: --test-timeout only applies to --test or --trace"


# ---- the hook, in a plain interpreter ---------------------------------------------------

HOOKED = '''\
class P:
    def __init__(self):
        self.a = 1
        self.b = self.a + 1  # P's own read: the static slice's to judge

    @property
    def c(self):
        return 3

    @c.setter
    def c(self, v):
        pass


class C(P):
    pass
'''
MAIN = '''\
import os, sys
import mod

class D(mod.C):  # made later, with a hook of its own
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)

d = D()
d.b
d.c = 5
del d.a
mod.C().a
os.environ["PYTEST_CURRENT_TEST"] = "t.py::test_x (call)"
mod.C().b
print(os.environ.get("CHAINED"), type(d).__mro__[1].__name__)
if os.fork() == 0:
    mod.C().c
    os._exit(0)
os.wait()
'''
OTHER_SITE = 'import os\nos.environ["CHAINED"] = "yes"\n'


def test_hook_records_reads_writes_deletes_on_instances_and_subclasses(tmp_path):
    work = write_files(tmp_path / "w", {"mod.py": HOOKED, "main.py": MAIN, "other/sitecustomize.py": OTHER_SITE})
    site, records = tmp_path / "site", tmp_path / "records"
    site.mkdir()
    records.mkdir()
    (site / "sitecustomize.py").write_text(HOOK.read_text())
    spec = {"root": str(work), "out": str(records), "targets": [
        {"qualname": "mod.C", "class": "C", "file": "mod.py", "names": ["a", "b", "c"], "skip": [["mod.py", 1, 12]]}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env.update({SPEC_VAR: str(tmp_path / "spec.json"), DIR_VAR: str(records), "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONPATH": os.pathsep.join([str(site), str(work), str(work / "other")])})
    proc = subprocess.run([sys.executable, "main.py"], cwd=work, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["yes", "C"]  # the hidden sitecustomize ran too; no class put in the MRO
    got = {(x.kind, x.member, x.file, x.line, x.test) for x in read_records(records)["mod.C"]}
    assert got == {("read", "b", "main.py", 9, ""), ("write", "c", "main.py", 10, ""), ("delete", "a", "main.py", 11, ""),
                   ("read", "a", "main.py", 12, ""), ("read", "b", "main.py", 14, "t.py::test_x"),
                   ("read", "c", "main.py", 17, "t.py::test_x")}
    assert len(list(records.glob("*.jsonl"))) == 2  # the forked child wrote its own file


def test_records_are_read_once_each_and_a_torn_line_is_skipped(tmp_path):
    records = tmp_path / "r"
    records.mkdir()
    (records / "1.jsonl").write_text('["m.C", "read", "x", "f.py", 3, ""]\n["m.C", "read", "x", "f.py", 3, ""]\n["m.C", "re')
    assert [(a.member, a.line) for a in read_records(records)["m.C"]] == [("x", 3)]


HOOKS_TEST = '''\
import importlib
import json
import os
from pathlib import Path


def test_shutdown_hooks_run():
    # The class is named by the environment: e's type is unknown to a static analysis.
    e = getattr(importlib.import_module("shop.light"), os.environ.get("HOOK_ENGINE", "LightEngine"))("a")
    for name in json.loads((Path(__file__).parent / "hooks.json").read_text()):
        getattr(e, name)()
'''


def test_a_method_read_at_run_time_keeps_what_it_needs(tmp_path):
    """``flush`` is read by a name from a data file; the closure then keeps ``db``, which it
    reads, and the slice the statement that builds it."""
    tree = project(tmp_path / "p", **{"tests/hooks.json": '["flush"]\n', "tests/test_hooks.py": HOOKS_TEST,
                                      "tests/columns.json": '["name"]\n'})
    code, _, err = decouple(".", *SELECT, "--trace", PYTEST, "--test", PYTEST, "--output", tmp_path / "out", cwd=tree)
    assert code == 0, err
    c = json.loads((tmp_path / "out" / "report.json").read_text())["classes"][0]
    assert [f["member"] for f in c["found_at_run_time"]] == ["flush"]
    rules = {k["member"]: k["evidence"][0]["rule"] for k in c["kept"]}
    assert rules["flush"] == "DC120" and rules["db"] == "DC103" and "buffer" not in rules
    patched = (tmp_path / "out" / "files" / "shop" / "light.py").read_text()
    assert "sqlite3.connect" in patched and "def flush" in patched and "1_000_000" not in patched
