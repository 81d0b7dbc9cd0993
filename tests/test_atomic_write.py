"""--write replaces each file atomically: killed in the middle, every file is either original or fully patched."""

import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import run_cli

N = 6
PARENT = "class Parent:\n    def __init__(self, a):\n        self.kept = a\n        self.heavy = [0] * 1000\n"
CHILD = "from .parent import Parent\n\n\nclass Child{i}(Parent):\n    def get(self):\n        return self.kept\n"


def make_tree(root: Path) -> Path:
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "parent.py").write_text(PARENT)
    for i in range(N):
        (pkg / f"child{i}.py").write_text(CHILD.format(i=i))
    return root


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_killed_write_leaves_each_file_original_or_patched(tmp_path):
    args = [a for i in range(N) for a in ("--class", f"Child{i}")]
    reference = make_tree(tmp_path / "reference")
    code, _, err = run_cli(reference, *args, "--output", tmp_path / "out")
    assert code == 0, err
    patched = {f"pkg/child{i}.py": digest(tmp_path / "out" / "files" / "pkg" / f"child{i}.py") for i in range(N)}
    tree = make_tree(tmp_path / "tree")
    original = {rel: digest(tree / rel) for rel in patched}
    # Killed where a kill does most harm: one file replaced, the next not yet.
    env = dict(os.environ, DECOUPLE_TEST_HOOK="between-writes:SIGKILL")
    proc = subprocess.run([sys.executable, "-m", "codemod", str(tree), *args, "--write"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.returncode == -signal.SIGKILL
    states = {rel: ("original" if digest(tree / rel) == original[rel] else "patched" if digest(tree / rel) == patched[rel] else "BROKEN") for rel in patched}
    assert "BROKEN" not in states.values(), states
    assert "patched" in states.values() and "original" in states.values(), f"the kill did not land mid-write: {states}"
    # A rerun finishes the job: the patched files are left alone, the others are patched.
    code, _, err = run_cli(tree, *args, "--write")
    assert code == 0, err
    assert {rel: digest(tree / rel) for rel in patched} == patched
