"""A new user's first hour (issue 28): the installed ``decouple`` on a small project of their own.

Each test runs the console script the package installs, as a subprocess, on a throw-away
project: a heavy base class, a light subclass and a module that uses it.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import tree_hashes, write_files

SCRIPT = Path(sys.executable).with_name("decouple")

ENGINE = '''\
import sqlite3

REGISTRY = {}


class Engine:
    def submit(self, job):
        return job


class HeavyEngine(Engine):
    def __init__(self, name):
        self.name = name
        self.db = sqlite3.connect(":memory:")
        self.buffer = [0] * 1_000_000
        REGISTRY[name] = self

    def submit(self, job):
        return (self.name, job)

    def flush(self):
        self.db.commit()
'''
LIGHT = '''\
from .engine import HeavyEngine


class LightEngine(HeavyEngine):
    def __init__(self, name):
        super().__init__(name)
        self.jobs = []

    def run(self, job):
        self.jobs.append(job)
        return self.name
'''
APP = '''\
from .light import LightEngine


def main():
    e = LightEngine("x")
    return e.run(1), e.submit(2)
'''
SELECT = ("--class", "LightEngine")


def project(root: Path, **extra: str) -> Path:
    """The throw-away project; ``extra``: more files, ``shop/x.py`` spelt ``shop__x_py``."""
    files = {"shop/__init__.py": "", "shop/engine.py": ENGINE, "shop/light.py": LIGHT, "shop/app.py": APP}
    files.update({k.replace("__", "/").replace("_py", ".py"): v for k, v in extra.items()})
    return write_files(root, files)


def git(tree: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=tree, check=True, capture_output=True)


def committed(tree: Path) -> Path:
    git(tree, "init", "-q")
    git(tree, "add", ".")
    git(tree, "commit", "-qm", "x")
    return tree


def decouple(*args, cwd: Path, env: dict | None = None):
    """The installed console script: exit code, stdout, stderr."""
    full = {k: v for k, v in os.environ.items() if k != "DECOUPLE_DEBUG"}
    full.update(env or {})
    proc = subprocess.run([str(SCRIPT), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=full)
    return proc.returncode, proc.stdout, proc.stderr


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("decouple: error")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(autouse=True)
def _installed(tmp_path, monkeypatch):
    if not SCRIPT.exists():
        pytest.skip("the decouple console script is not installed beside this interpreter")
    monkeypatch.setenv("DECOUPLE_CACHE_DIR", str(tmp_path / "cache"))


# ---- the tool deletes nothing it did not write ---------------------------------------


def test_output_into_the_project_keeps_the_users_files_folder(tmp_path):
    tree = committed(project(tmp_path / "p", docs__files__important_txt="mine\n"))
    before = tree_hashes(tree)
    code, out, err = decouple(".", *SELECT, "--output", "docs", cwd=tree)
    assert code == 2, err
    assert one_error_line(err) == ("decouple: error: docs/files was not written by decouple (no .decouple-output beside "
                                   "it); give --output a new or empty folder, or remove it")
    assert tree_hashes(tree) == before and out == ""


def test_own_output_folder_is_cleared_and_rewritten(tmp_path):
    tree = project(tmp_path / "p")
    for _ in range(2):
        code, _, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
        assert code == 0, err
    assert (tree / "out" / ".decouple-output").is_file() and (tree / "out" / "patch.diff").is_file()
    # A report a person wrote in a folder the tool did not make is theirs too.
    (tree / "notes").mkdir()
    (tree / "notes" / "report.md").write_text("my notes\n")
    code, _, err = decouple(".", *SELECT, "--output", "notes", cwd=tree)
    assert code == 2 and "notes/report.md was not written by decouple" in one_error_line(err)
    assert (tree / "notes" / "report.md").read_text() == "my notes\n"


def test_output_naming_a_file_says_so(tmp_path):
    tree = project(tmp_path / "p")
    (tree / "out").write_text("x")
    code, _, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
    assert code == 2
    assert one_error_line(err) == "decouple: error: cannot write to out: it is a file; give --output a folder"


# ---- git that cannot answer ------------------------------------------------------------


def test_write_refuses_when_git_cannot_say_what_is_uncommitted(tmp_path):
    tree = committed(project(tmp_path / "p"))
    (tree / "shop" / "light.py").write_text(LIGHT + "# my edit\n")
    # What "dubious ownership" does to every git command: it fails. A broken .git does the same
    # for any user, root included.
    shutil.rmtree(tree / ".git")
    (tree / ".git").mkdir()
    before = tree_hashes(tree)
    code, _, err = decouple(".", *SELECT, "--write", cwd=tree)
    assert code == 2
    line = one_error_line(err)
    assert line.startswith("decouple: error: cannot tell which files under . have uncommitted changes (fatal: not a git repository")
    assert line.endswith("); fix git there, or pass --force to write anyway")
    assert tree_hashes(tree) == before
    code, _, err = decouple(".", *SELECT, "--write", "--force", cwd=tree)
    assert code == 0, err
    assert "# my edit" in (tree / "shop" / "light.py").read_text()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs to own files as another user")
def test_write_refuses_a_repository_of_dubious_ownership(tmp_path):
    tree = committed(project(tmp_path / "p"))
    for p in [tree, *tree.rglob("*")]:
        os.lchown(p, 4321, 4321)
    before = tree_hashes(tree)
    code, _, err = decouple(".", *SELECT, "--write", cwd=tree, env={"GIT_CONFIG_GLOBAL": os.devnull})
    assert code == 2 and "detected dubious ownership" in one_error_line(err)
    assert tree_hashes(tree) == before


def test_write_outside_version_control_is_as_before(tmp_path):
    tree = project(tmp_path / "p")
    code, out, err = decouple(".", *SELECT, "--write", cwd=tree)
    assert code == 0, err
    assert out == "wrote shop/light.py (1 class decoupled, 0 declined)\n"


# ---- permissions -----------------------------------------------------------------------


@pytest.mark.parametrize("mask", [0o022, 0o002])
def test_outputs_follow_the_umask(tmp_path, mask):
    tree = project(tmp_path / "p")
    old = os.umask(mask)
    try:
        code, _, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
        code2, _, err2 = decouple(".", *SELECT, "--write", "--emit-tests", cwd=tree)
    finally:
        os.umask(old)
    assert code == 0 and code2 == 0, err + err2
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tree / "out").iterdir()}
    modes["light.py"] = stat.S_IMODE((tree / "shop" / "light.py").stat().st_mode)
    modes["test"] = stat.S_IMODE(next((tree / "tests").glob("test_*.py")).stat().st_mode)
    assert modes == {".decouple-output": 0o666 & ~mask, "report.md": 0o666 & ~mask, "report.json": 0o666 & ~mask,
                     "patch.diff": 0o666 & ~mask, "files": 0o777 & ~mask, "light.py": 0o644, "test": 0o666 & ~mask}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_that_cannot_be_written_is_named_not_the_temporary_file(tmp_path):
    tree = project(tmp_path / "p")
    (tree / "shop").chmod(0o555)
    try:
        code, _, err = decouple(".", *SELECT, "--write", cwd=tree)
    finally:
        (tree / "shop").chmod(0o755)
    assert code == 2
    assert one_error_line(err) == "decouple: error: cannot write shop/light.py: Permission denied"


# ---- files that do not parse ---------------------------------------------------------


def test_the_class_module_that_does_not_parse_is_named_with_its_line(tmp_path):
    tree = project(tmp_path / "p", shop__light_py=LIGHT + "\n\ndef broken(:\n    pass\n")
    for args in (SELECT, ("--class", "shop.light:LightEngine"), ("--parent", "HeavyEngine")):
        code, out, err = decouple(".", *args, "--check", cwd=tree)
        assert code == 2 and out == ""
        assert one_error_line(err).startswith("decouple: error: cannot parse shop/light.py:14: invalid syntax (Python 3.")
    # The parent's module too: not "parent HeavyEngine is not under ROOT".
    tree = project(tmp_path / "q", shop__engine_py=ENGINE + "x = (\n")
    code, _, err = decouple(".", *SELECT, "--check", cwd=tree)
    assert code == 2 and one_error_line(err).startswith("decouple: error: cannot parse shop/engine.py:23: '(' was never closed")


NEWER_SYNTAX = "type Result = str\n\n\ndef go(light):\n    return light.submit(1)\n"


def test_an_unparsable_file_using_a_member_the_patch_would_drop_refuses_the_run(tmp_path):
    # Python 3.12 syntax, read by an older parser: light.submit(...) there is the only use of
    # submit, which the patch would otherwise drop.
    tree = project(tmp_path / "p", shop__app_py=APP.replace(", e.submit(2)", ""), shop__jobs_py=NEWER_SYNTAX)
    before = tree_hashes(tree)
    if sys.version_info >= (3, 12):
        code, out, err = decouple(".", *SELECT, "--diff", cwd=tree)
        assert code == 0 and "def submit(self, job):" in out, err  # the file is read, submit kept
        return
    code, out, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
    assert code == 3, err
    assert ("LightEngine: unsafe: cannot be decided statically: shop/jobs.py cannot be parsed (invalid syntax) and "
            "names submit, so a use there cannot be ruled out (shop/jobs.py:1)") in err
    report = json.loads((tree / "out" / "report.json").read_text())
    assert [h["rule"] for h in report["classes"][0]["hazards"] if h["file"] == "shop/jobs.py"] == ["DC306"]
    assert not (tree / "out" / "patch.diff").exists()
    assert tree_hashes(tree) == {**before, **{k: v for k, v in tree_hashes(tree).items() if k.startswith("out/")}}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="needs a parser older than the file's syntax")
def test_an_unparsable_file_naming_only_kept_members_is_a_warning(tmp_path):
    # The near miss: the file sorts before app.py, so it is read while submit is still to be
    # decided; app.py then keeps submit, and nothing the file names is dropped.
    tree = project(tmp_path / "p", shop__a312_py=NEWER_SYNTAX)
    code, out, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
    assert code == 0, err
    warning = ("cannot parse shop/a312.py:1: invalid syntax; it names none of the classes, parents or dropped members, "
               "so the run went on without it")
    assert f"decouple: warning: {warning}\n" in err and err.count("warning") == 1
    assert f"- {warning}" in (tree / "out" / "report.md").read_text()
    assert "def submit(self, job):" in (tree / "out" / "patch.diff").read_text()


# ---- how ROOT and the classes are found --------------------------------------------------

TABLE = '[project]\nname = "shop"\n\n[tool.decouple]\nclasses = ["LightEngine"]\n'


def test_no_root_runs_on_the_nearest_project_with_a_decouple_table(tmp_path):
    tree = project(tmp_path / "p")
    (tree / "pyproject.toml").write_text(TABLE)
    (tree / "docs").mkdir()
    # From a sub-folder, as ruff finds its settings; files are named from where it runs, as
    # ruff names them (absolute outside the working folder).
    code, out, err = decouple("--check", cwd=tree / "shop")
    assert code == 1, err
    assert out.startswith("light.py:4: LightEngine would be decoupled from HeavyEngine: ")
    code, out, err = decouple("--check", cwd=tree / "docs")
    assert out.startswith(f"{tree / 'shop' / 'light.py'}:4: LightEngine would be decoupled from HeavyEngine: ")
    # A pyproject.toml without the table on the way up is passed over.
    (tree / "shop" / "pyproject.toml").write_text('[tool.ruff]\nline-length = 100\n')
    code, out, _ = decouple("--check", cwd=tree / "shop")
    assert code == 1 and out.startswith("light.py:4: ")


def test_an_empty_classes_list_is_an_error(tmp_path):
    tree = project(tmp_path / "p")
    (tree / "pyproject.toml").write_text('[tool.decouple]\nclasses = []\n')
    for args in ([], ["."]):
        code, out, err = decouple(*args, "--check", cwd=tree)
        assert code == 2 and out == ""
        assert one_error_line(err) == ("decouple: error: pyproject.toml: [tool.decouple] classes must be a non-empty "
                                       "list of class names, got []")


def test_root_without_a_class_says_what_to_pass(tmp_path):
    tree = project(tmp_path / "p")
    code, out, err = decouple(".", "--check", cwd=tree)
    assert code == 2 and out == ""
    assert one_error_line(err) == ("decouple: error: nothing to decouple in .: pass --class NAME or --parent NAME, "
                                   "or list them in its pyproject.toml ([tool.decouple] classes = [...])")


# ---- after --write, the same check passes ----------------------------------------------


@pytest.mark.parametrize("markers", [[], ["--no-markers"]])
def test_every_check_after_write_says_already_decoupled(tmp_path, markers):
    tree = committed(project(tmp_path / "p"))
    select = ("--class", "LightEngine", "--parent", "HeavyEngine")
    code, out, err = decouple(".", *select, "--write", *markers, cwd=tree)
    assert code == 0 and out == "wrote shop/light.py (1 class decoupled, 0 declined)\n", err
    git(tree, "commit", "-qam", "decoupled")
    why = "its marker comment" if not markers else "no class of its MRO is HeavyEngine"
    for mode in (["--check"], ["--check", "--format", "github"], ["--write"], ["--diff"]):
        code, out, err = decouple(".", *select, *mode, *markers, cwd=tree)
        assert code == 0, err
        assert f"LightEngine: already decoupled from HeavyEngine ({why}): nothing to do\n" in err
        assert "decline" not in err
        if mode == ["--write"]:
            assert out == "nothing to write (0 classes decoupled, 1 already decoupled, 0 declined)\n"
    if markers:
        # Without --no-markers, a parent the class has no trace of is bad input, not a pass.
        code, _, err = decouple(".", *select, "--check", cwd=tree)
        assert code == 2 and one_error_line(err).endswith("(a class decoupled with --no-markers has no trace of it: "
                                                          "check with --no-markers too)")
    # A parent further up the MRO than a direct base is still bad input.
    write_files(tree, {"shop/lighter.py": "from .light import LightEngine\n\n\nclass Lighter(LightEngine):\n    pass\n"})
    code, _, err = decouple(".", "--class", "Lighter", "--parent", "Engine", "--check", cwd=tree)
    assert code == 2 and "Lighter does not inherit Engine directly (its bases: LightEngine)" in one_error_line(err)


QUIET = '''\
from .engine import HeavyEngine


class QuietEngine(HeavyEngine):
    def __init__(self, name):
        super().__init__(name)

    def label(self):
        return self.name
'''


@pytest.mark.parametrize("markers", [[], ["--no-markers"]])
def test_the_parent_alone_after_write_finds_every_subclass_already_decoupled(tmp_path, markers):
    """``--parent P`` without ``--class``: after a --write that decoupled every subclass of P, the
    same check passes (issue 37) instead of "no subclass of P found"."""
    tree = committed(project(tmp_path / "p", shop__quiet_py=QUIET))
    code, out, err = decouple(".", "--parent", "HeavyEngine", "--write", *markers, cwd=tree)
    assert code == 0 and out == "wrote shop/light.py, shop/quiet.py (2 classes decoupled, 0 declined)\n", err
    git(tree, "commit", "-qam", "decoupled")
    for mode in (["--check"], ["--write"], ["--diff"]):
        code, out, err = decouple(".", "--parent", "HeavyEngine", *mode, *markers, cwd=tree)
        assert code == 0, err
        if markers:
            assert err.endswith("HeavyEngine: no subclass of it left under .: nothing to do (a class decoupled from it "
                                "with --no-markers keeps no trace of it)\n"), err
        else:
            for cls in ("LightEngine", "QuietEngine"):
                assert f"{cls}: already decoupled from HeavyEngine (its marker comment): nothing to do\n" in err
        assert "decline" not in err and "error" not in err
    if not markers:
        # The near miss: a marker names the parent, yet one subclass is still to do: exit 1 for it alone.
        write_files(tree, {"shop/again.py": QUIET.replace("QuietEngine", "AgainEngine")})
        code, out, err = decouple(".", "--parent", "HeavyEngine", "--check", cwd=tree)
        assert code == 1 and "AgainEngine would be decoupled from HeavyEngine" in out and "QuietEngine" not in out, (out, err)
        assert "QuietEngine: already decoupled from HeavyEngine" in err


def test_a_marker_naming_another_parent_is_no_trace_of_this_one(tmp_path):
    marked = LIGHT.replace("class LightEngine(HeavyEngine):", "class LightEngine(Engine):  # decouple: decoupled from Other")
    tree = project(tmp_path / "p", shop__light_py=marked.replace("from .engine import HeavyEngine", "from .engine import Engine"))
    code, out, err = decouple(".", "--parent", "HeavyEngine", "--check", cwd=tree)
    assert code == 2 and "no subclass of HeavyEngine found under ." in err


def test_verdict_line_counts_agree_in_number(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--check", cwd=tree)
    assert code == 1
    code, out, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
    assert ("LightEngine: decouple: uses 2 of 5 members of HeavyEngine (1 method) and 2 of 4 statements of its "
            "__init__\n") in err


# ---- the report speaks of the user's code --------------------------------------------


def test_report_on_code_that_is_not_sglang(tmp_path):
    tree = project(tmp_path / "p")
    code, _, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
    assert code == 0, err
    md = (tree / "out" / "report.md").read_text()
    diff = (tree / "out" / "patch.diff").read_text()
    assert "GPU" not in md and "attention kit" not in md
    # The same report on a class that decouple verify knows says how to run it.
    from codemod.gpu import VERIFIED_CLASSES
    from codemod.report_md import render_md

    rep = json.loads((tree / "out" / "report.json").read_text())
    rep["classes"][0]["qualname"] = VERIFIED_CLASSES[0]
    assert "- Not run on a GPU: `decouple verify --output DIR`" in render_md(rep)
    # The imports listed are the diff's, spelt as the diff spells them.
    assert "+from .engine import REGISTRY, Engine\n" in diff and "-from .engine import HeavyEngine\n" in diff
    [c] = rep["classes"]
    assert {"import added: `from .engine import REGISTRY, Engine`", "import removed: `from .engine import HeavyEngine`"} <= set(c["inlined"])
    # Every call and allocation that no longer runs is listed (report.json's), and the numbers read right.
    effects = {(e["file"], e["line"], e["code"], e["why"].split(":")[0]) for e in c["dropped_side_effects"]}
    assert {("shop/engine.py", 14, 'self.db = sqlite3.connect(":memory:")', "call with possible side effects"),
            ("shop/engine.py", 15, "self.buffer = [0] * 1_000_000", "allocation")} <= effects
    assert "which makes 1 allocation and 1 other call that `LightEngine` never uses" in md
    assert "`LightEngine` inherits `HeavyEngine` but uses 2 of its 5 members" in md
    assert "2 of the 4 statements of `HeavyEngine.__init__` no longer run" in md
    assert "1 hand-off of the instance kept" in md


def test_report_counts_validations_in_the_singular(tmp_path):
    engine = ENGINE.replace("        self.name = name\n", "        if not name:\n            raise ValueError(name)\n        self.name = name\n")
    tree = project(tmp_path / "p", shop__engine_py=engine)
    code, _, err = decouple(".", *SELECT, "--output", "out", cwd=tree)
    assert code == 0, err
    assert "- Validations: the one `HeavyEngine.__init__` has is kept;" in (tree / "out" / "report.md").read_text()


# ---- one message style: what failed, on what path, what to do ------------------------------


@pytest.mark.parametrize("args, says", [
    (("nope", *SELECT), "ROOT nope does not exist; give the folder that holds the sources"),
    (("shop/app.py", *SELECT), "ROOT shop/app.py is not a directory; give the folder that holds the sources"),
    ((".", *SELECT, "--base", "Nope"), "--base Nope is not an ancestor of HeavyEngine; give one of its ancestors (Engine)"),
    ((".", "--parent", "LightEngine"), "no subclass of LightEngine found under ., nor a class whose marker says it was "
                                       "decoupled from it; check --parent, or name the class with --class (a class decoupled "
                                       "with --no-markers has no trace of it: check with --no-markers too)"),
    ((".", "--class", "LightEngin"), "class LightEngin not found under .; did you mean LightEngine?"),
])
def test_errors_say_what_failed_where_and_what_to_do(tmp_path, args, says):
    tree = project(tmp_path / "p")
    code, out, err = decouple(*args, "--check", cwd=tree)
    assert (code, out) == (2, "")
    assert one_error_line(err) == f"decouple: error: {says}"


# ---- the user's own project first (issue 38) ---------------------------------------------

MOD = '''\
import sqlite3


class Service:
    def ping(self):
        return 1


class HeavyService(Service):
    def __init__(self):
        self.db = sqlite3.connect(":memory:")
        self.buffer = [0] * 1_000_000

    def flush(self):
        self.db.commit()


class QuickService(HeavyService):
    def __init__(self):
        super().__init__()
        self.jobs = []

    def run(self):
        return self.ping()
'''


def own_project(root: Path, pyproject: str = '[project]\nname = "pkg"\n') -> Path:
    """A user's project as they have it: src/ layout, pytest tests, a pyproject.toml without the table, in git."""
    write_files(root, {"src/pkg/__init__.py": "", "src/pkg/mod.py": MOD, "pyproject.toml": pyproject,
                       "tests/test_mod.py": "from pkg.mod import QuickService\n\n\ndef test_run():\n    assert QuickService().run() == 1\n"})
    return committed(root)


def status(tree: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tree, capture_output=True,
                          text=True, check=True).stdout


def test_scan_in_a_project_scans_it_and_downloads_nothing(tmp_path, monkeypatch):
    tree = own_project(tmp_path / "p")
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    monkeypatch.delenv("DECOUPLE_CACHE_DIR")
    env = {"XDG_CACHE_HOME": str(xdg)}
    for cwd in (tree, tree / "src" / "pkg"):
        code, out, err = decouple("scan", "--no-cache", cwd=cwd, env=env)
        assert code == 0, err
        assert "QuickService" in out and "HeavyService" in out and "sglang" not in (out + err).lower()
        assert list(xdg.iterdir()) == [], "the scan wrote to the user cache (a download?)"
    # With the cache on, the cache holds this project's index and runs, never a release.
    code, _, err = decouple("scan", cwd=tree, env=env)
    assert code == 0, err
    assert not (xdg / "decouple" / "releases").exists() and "downloading" not in err
    assert status(tree) == ""


def test_check_in_a_project_without_a_table_says_what_to_pass(tmp_path):
    tree = own_project(tmp_path / "p")
    code, out, err = decouple("--check", cwd=tree / "src")
    assert (code, out) == (2, "")
    # Named as ruff names files: from the working folder when under it, else absolute.
    assert one_error_line(err) == (f"decouple: error: nothing to decouple in {tree}: pass --class NAME or --parent NAME, "
                                   "or list them in its pyproject.toml ([tool.decouple] classes = [...])")
    assert not (Path(os.environ["DECOUPLE_CACHE_DIR"]) / "releases").exists()


def test_a_run_without_output_leaves_git_status_clean(tmp_path):
    tree = own_project(tmp_path / "p")
    code, out, err = decouple("--class", "QuickService", cwd=tree / "src" / "pkg")
    assert code == 0, err
    # The report goes to ROOT's .decouple/, not to the working folder.
    own = tree / ".decouple"
    assert out == f"wrote {own}/patch.diff, {own}/report.md, {own}/report.json, {own}/files/ (1 class decoupled, 0 declined)\n"
    assert sorted(p.name for p in (tree / "src" / "pkg").iterdir()) == ["__init__.py", "mod.py"]
    assert (tree / ".decouple" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (tree / ".decouple" / "files" / "src" / "pkg" / "mod.py").is_file()
    assert status(tree) == ""
    # Its patched copies are never read as source: without the marker, the class would be found twice.
    (tree / ".decouple" / ".decouple-output").unlink()
    code, out, err = decouple("--class", "QuickService", "--check", cwd=tree)
    assert code == 1 and out.startswith("src/pkg/mod.py:18: QuickService would be decoupled from HeavyService"), err


@pytest.mark.parametrize("folder, held", [("src", "src/pkg/__init__.py"), (".", "src/pkg/__init__.py"),
                                          ("src/pkg", "src/pkg/__init__.py"), ("..", "ROOT . lies in it")])
def test_output_into_the_projects_sources_is_refused(tmp_path, folder, held):
    tree = own_project(tmp_path / "p")
    code, out, err = decouple("--class", "QuickService", "-o", folder, cwd=tree)
    assert (code, out) == (2, "")
    assert one_error_line(err) == (f"decouple: error: --output {folder} holds the project's sources ({held}); give a "
                                   "folder of its own, or leave --output out to write .decouple/")
    assert status(tree) == "" and not (tmp_path / "report.json").exists()


def test_output_folder_of_the_tool_inside_the_project_is_reused(tmp_path):
    # The near miss: a folder of its own inside ROOT, which holds .py files (files/) once written.
    tree = own_project(tmp_path / "p")
    for _ in range(2):
        code, _, err = decouple("--class", "QuickService", "-o", "reports", cwd=tree)
        assert code == 0, err
    assert (tree / "reports" / "files" / "src" / "pkg" / "mod.py").is_file()
    assert not (tree / "reports" / ".gitignore").exists()  # a folder the user names is theirs to ignore or keep


@pytest.mark.parametrize("name", ["tool.decoupel", "tool.Decouple", "tool.decoupl", "decouple"])
def test_a_misspelt_table_is_a_warning(tmp_path, name):
    tree = own_project(tmp_path / "p", f'[project]\nname = "pkg"\n\n[{name}]\nclasses = ["QuickService"]\n')
    code, out, err = decouple("--check", cwd=tree)
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (f"decouple: warning: pyproject.toml has [{name}], not [tool.decouple]: "
                                   "its settings are not read")
    assert one_error_line(err).startswith("decouple: error: nothing to decouple in .")


def test_other_tables_are_no_warning(tmp_path):
    tree = own_project(tmp_path / "p", '[project]\nname = "pkg"\n\n[tool.coverage]\nx = 1\n[tool.ruff]\nline-length = 100\n')
    code, out, err = decouple("--class", "QuickService", "--check", cwd=tree)
    assert code == 1 and "warning" not in err, err


def test_check_and_diff_do_not_run_the_tables_tests(tmp_path):
    ran = tmp_path / "ran"
    tree = own_project(tmp_path / "p", f'[tool.decouple]\nclasses = ["QuickService"]\ntest = "touch {ran}"\n')
    code, out, err = decouple("--check", cwd=tree)
    assert code == 1 and out.startswith("src/pkg/mod.py:18: QuickService would be decoupled"), err
    for mode in (["--diff"], ["--analyse-only"]):
        code, _, err = decouple(*mode, cwd=tree)
        assert code == 0, err
    assert not ran.exists() and "tests:" not in err
    # On the command line, --test runs with --check too; and a run that writes runs the table's.
    code, _, err = decouple("--check", "--test", f"touch {ran}", cwd=tree)
    assert code == 1 and ran.exists(), err
    ran.unlink()
    code, _, err = decouple("-o", "out", cwd=tree)
    assert code == 0 and ran.exists() and f"decouple: tests: `touch {ran}` exits 0 before the patch" in err


def test_outside_any_project_says_to_give_root_or_sglang(tmp_path):
    from codemod.config import find_project

    empty = tmp_path / "empty"
    empty.mkdir()
    if find_project(empty) is not None:
        pytest.skip(f"the temporary folder lies in a project ({find_project(empty)})")
    for args in (["--check"], ["scan"], ["--class", "X"]):
        code, out, err = decouple(*args, cwd=empty)
        assert (code, out) == (2, "")
        assert one_error_line(err) == (f"decouple: error: no project found (no pyproject.toml, setup.cfg, setup.py or "
                                       f"{'.git'} from {empty} up): give ROOT, or --sglang to run on sglang 0.5.23 from PyPI")
    assert list(empty.iterdir()) == [] and not (Path(os.environ["DECOUPLE_CACHE_DIR"]) / "releases").exists()


def fake_release(version: str) -> Path:
    """A release already in the cache, as fetch_release leaves one, so that --sglang needs no network."""
    target = Path(os.environ["DECOUPLE_CACHE_DIR"]) / "releases" / f"sglang-{version}"
    write_files(target / "src", {"sglang/__init__.py": "", "sglang/mod.py": MOD})
    (target / "COMPLETE").write_text("sglang.whl\n")
    return target / "src"


def test_sglang_is_asked_for_by_name(tmp_path):
    src = fake_release("9.9.9")
    tree = own_project(tmp_path / "p", '[tool.decouple]\nclasses = ["Nope"]\n')
    code, out, err = decouple("--sglang", "9.9.9", "--class", "QuickService", "--check", cwd=tree)
    assert code == 1, err  # the working folder's table is its project's, not the release's
    assert out.startswith(f"{src / 'sglang' / 'mod.py'}:18: QuickService would be decoupled from HeavyService")
    code, out, err = decouple("scan", "--sglang", "9.9.9", "--format", "json", cwd=tree)
    assert code == 0 and [r["class"] for r in json.loads(out)] == ["QuickService"], err
    # Its report goes to .decouple/ in the working folder, which keeps itself out of git.
    code, out, err = decouple("--sglang", "9.9.9", "--class", "QuickService", cwd=tree)
    assert code == 0 and out.startswith("wrote .decouple/patch.diff"), err
    assert status(tree) == ""
    # The pinned release is the default version; with no class, its two TRTLLM backends.
    from codemod.discover import DEFAULT_VERSION, release_dir

    assert release_dir("sglang").name == f"sglang-{DEFAULT_VERSION}"
    fake_release(DEFAULT_VERSION)
    code, _, err = decouple("--sglang", "--check", cwd=tree)
    assert code == 2 and one_error_line(err) == "decouple: error: class TRTLLMHAAttnBackend not found under " + str(
        Path(os.environ["DECOUPLE_CACHE_DIR"]) / "releases" / f"sglang-{DEFAULT_VERSION}" / "src")


@pytest.mark.parametrize("args, says", [
    (("--sglang", "./p"), "--sglang takes a release version such as 0.5.23, got './p'"),
    (("p", "--sglang"), "ROOT p and --sglang both name the tree to work on; give one of them"),
    (("scan", "p", "--sglang", "0.5.23"), "ROOT p and --sglang both name the tree to work on; give one of them"),
])
def test_sglang_with_a_root_or_a_path_is_an_error(tmp_path, args, says):
    own_project(tmp_path / "p")
    code, out, err = decouple(*args, cwd=tmp_path)
    assert (code, out) == (2, "") and one_error_line(err) == f"decouple: error: {says}"


def test_help_lists_the_subcommands(tmp_path):
    code, out, _ = decouple("--help", cwd=tmp_path)
    usage = out.split("\n\n", 1)[0]
    assert code == 0 and usage.startswith("usage: decouple [-h] [--sglang [VERSION]]")
    assert "\n       decouple scan [-h] [--sglang [VERSION]]" in usage and "\n       decouple verify [-h]" in usage
