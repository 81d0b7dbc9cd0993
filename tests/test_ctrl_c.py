"""Ctrl-C at each stage a run can be in: one line, exit 130, no process left, nothing half-written.

No test guesses when the run gets somewhere: ``DECOUPLE_TEST_HOOK=STAGE`` makes the process
at STAGE send Ctrl-C to the run's process group, as a terminal does (the workers get it too),
and a worker that sent it waits until the main process ends it. So each test stops the run at
the same point however loaded the machine is.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import tree_hashes, write_files
from test_cli_newuser import LIGHT, project

from codemod.interrupt import STAGES

# Enough files for the worker processes (1,000), each using members of another class's object,
# so that the search has work in every one of them.
OTHER = "class Other:\n    def submit(self, j):\n        return j\n\n\ndef f(x: Other):\n    return x.submit(1)\n"
N = 6
PARENT = "class Parent:\n    def __init__(self, a):\n        self.kept = a\n        self.heavy = [0] * 1000\n"
CHILD = "from .parent import Parent\n\n\nclass Child{i}(Parent):\n    def get(self):\n        return self.kept\n"
CHILDREN = [a for i in range(N) for a in ("--class", f"Child{i}")]


def big_project(root: Path) -> Path:
    tree = project(root, **{f"shop__m{i}_py": OTHER for i in range(1100)})
    (tree / "shop" / "light.py").write_text(LIGHT + "\n\nclass Lighter(HeavyEngine):\n    pass\n")
    return tree


def children_project(root: Path) -> Path:
    files = {"pkg/__init__.py": "", "pkg/parent.py": PARENT}
    files.update({f"pkg/child{i}.py": CHILD.format(i=i) for i in range(N)})
    return write_files(root, files)


def run(tree: Path, *args: str, stage: str | None = None, cache: Path):
    """The run in a session of its own, as from a terminal: exit code, stdout, stderr; and no
    process of its group may outlive it."""
    env = {k: v for k, v in os.environ.items() if k not in ("DECOUPLE_DEBUG", "DECOUPLE_TEST_HOOK")}
    env.update(DECOUPLE_CACHE_DIR=str(cache), PYTHONPATH=str(Path(__file__).resolve().parents[1]), PYTHONFAULTHANDLER="1")
    if stage is not None:
        env["DECOUPLE_TEST_HOOK"] = stage
    proc = subprocess.Popen([sys.executable, "-m", "codemod", *args], cwd=tree, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGABRT)  # each process prints where it waits (PYTHONFAULTHANDLER)
        out, err = proc.communicate()
        pytest.fail(f"the run did not end: {err}")
    finally:
        left = _alive(proc.pid)
        if left:
            os.killpg(proc.pid, signal.SIGKILL)
    assert not left, f"a process of the run outlived it: {err}"
    return proc.returncode, out, err


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def temporaries(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".decouple-tmp") or p.name.startswith((".files-", ".wheel-"))]


def test_every_stage_is_tested():
    tested = {"word-index-worker", "scan-worker", "scan-pool-worker", "before-first-write", "between-writes"}
    assert set(STAGES) == tested


def test_an_unknown_stage_is_one_error_line(tmp_path):
    tree = project(tmp_path / "p")
    code, out, err = run(tree, ".", "--class", "LightEngine", stage="nowhere", cache=tmp_path / "cache")
    assert code == 2 and out == "" and err.startswith("decouple: error: DECOUPLE_TEST_HOOK=nowhere: give one of word-index-worker")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("stage", ["word-index-worker", "scan-worker"])
def test_ctrl_c_while_a_worker_runs(tmp_path, stage):
    if stage == "word-index-worker" and (os.cpu_count() or 1) < 2:
        pytest.skip("the word index has a worker process from 2 cores")
    tree = big_project(tmp_path / "p")
    before = tree_hashes(tree)
    code, out, err = run(tree, ".", "--class", "LightEngine", "--class", "Lighter", "--write", "--no-cache",
                         stage=stage, cache=tmp_path / "cache")
    assert (code, out, err) == (130, "", "decouple: interrupted\n")
    assert tree_hashes(tree) == before and not temporaries(tmp_path)


def test_ctrl_c_while_decouple_scans_workers_run(tmp_path):
    tree = children_project(tmp_path / "p")
    before = tree_hashes(tree)
    code, out, err = run(tree, "scan", ".", "--no-cache", stage="scan-pool-worker", cache=tmp_path / "cache")
    assert code == 130 and out == ""
    said = err.splitlines()
    # What the scan said before its workers started, then one line.
    assert said[-1] == "decouple: interrupted" and all(line.startswith("decouple scan: ") for line in said[:-1]), err
    assert tree_hashes(tree) == before and not temporaries(tmp_path) and not (tmp_path / "cache").exists()


def _verdicts(tmp_path) -> tuple[str, dict]:
    """An uninterrupted run on a copy: what it says on stderr, and each file it patches."""
    reference = children_project(tmp_path / "reference")
    code, _, err = run(reference, ".", *CHILDREN, "--output", str(tmp_path / "out"), "--no-cache", cache=tmp_path / "cache")
    assert code == 0, err
    files = tmp_path / "out" / "files"
    return err, {str(p.relative_to(files)): p.read_bytes() for p in sorted(files.rglob("*.py"))}


def test_ctrl_c_before_the_first_replacement_writes_nothing(tmp_path):
    said, _ = _verdicts(tmp_path)
    tree = children_project(tmp_path / "p")
    before = tree_hashes(tree)
    code, out, err = run(tree, ".", *CHILDREN, "--write", "--no-cache", stage="before-first-write", cache=tmp_path / "cache")
    # The verdicts are said before anything is written; the interruption adds one line.
    assert (code, out, err) == (130, "", said + "decouple: interrupted\n")
    assert tree_hashes(tree) == before and not temporaries(tmp_path)


def test_ctrl_c_between_two_replacements_stops_after_the_first_and_names_it(tmp_path):
    said, patched = _verdicts(tmp_path)
    assert len(patched) == N
    tree = children_project(tmp_path / "p")
    original = {rel: (tree / rel).read_bytes() for rel in patched}
    code, out, err = run(tree, ".", *CHILDREN, "--write", "--no-cache", stage="between-writes", cache=tmp_path / "cache")
    now = {rel: (tree / rel).read_bytes() for rel in patched}
    written = [rel for rel in patched if now[rel] != original[rel]]
    assert len(written) == 1 and now[written[0]] == patched[written[0]]
    assert (code, out) == (130, "")
    assert err == said + f"decouple: interrupted after writing {written[0]}; the patch's other {N - 1} files are unchanged\n"
    assert not temporaries(tmp_path)
    # A second run writes the rest: the first file is left as it is.
    code, _, err = run(tree, ".", *CHILDREN, "--write", "--no-cache", cache=tmp_path / "cache")
    assert code == 0, err
    assert {rel: (tree / rel).read_bytes() for rel in patched} == patched


def test_without_the_hook_the_same_runs_finish(tmp_path):
    """Near miss: the runs above, unhooked, do what they do (so it is the hook that stops them)."""
    tree = children_project(tmp_path / "p")
    before = tree_hashes(tree)
    code, _, err = run(tree, "scan", ".", "--no-cache", cache=tmp_path / "cache")
    assert code == 0 and "decouple: interrupted" not in err
    code, _, err = run(tree, ".", *CHILDREN, "--write", "--no-cache", cache=tmp_path / "cache")
    assert code == 0 and "interrupted" not in err and tree_hashes(tree) != before


def test_a_usage_error_after_the_workers_started_leaves_no_process(tmp_path):
    """The one-line error of a name looked up once the word index's workers run: each worker
    has more to send than a pipe holds, and nobody reads it any more; none may outlive the run
    (nor keep the pipe that the caller reads the output from open)."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("the word index has a worker process from 2 cores")
    words = "\n".join(f"def f{{i}}_{k}(a{{i}}_{k}):\n    return a{{i}}_{k}\n" for k in range(40))
    tree = project(tmp_path / "p", **{f"shop__m{i}_py": words.format(i=i) for i in range(1100)})
    code, out, err = run(tree, ".", "--class", "nowhere:Thing", "--no-cache", cache=tmp_path / "cache")
    assert (code, out) == (2, "") and err.startswith("decouple: error: module nowhere not found"), err
