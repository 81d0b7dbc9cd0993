"""DC115: a src-layout project's tests, outside ROOT (src/), read a public attribute of the class.

cachetools' shape (8.0.2, the campaign of issue 37), in a few lines of our own: the parent's
``__init__`` stores a public attribute nothing under ``src/`` reads; the project's test reads it
on an instance built by a factory. Each case runs decouple on a copy with ``--write`` and then the
project's own test, original against patched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ruletools import dedent, write
from test_campaign_patterns import WRAPPERS, WRAPPERS_CHILD

REPO = Path(__file__).resolve().parents[2]
STRESS = ["--max-copied-share", "1", "--any-gain", "--plain-gain", "--no-cache"]
TEST = """
import unittest

from pkg.child import wrap


class WrapTest(unittest.TestCase):
    def setUp(self):
        self.calls = 0  # on the TestCase: never a Child

    def test_lock(self):
        w = wrap(len)
        self.assertIsNone(w.lock)
        self.assertEqual(w("ab"), 2)
"""


def project(root: Path, tests: bool = True) -> Path:
    write(root / "src", {"wrappers.py": WRAPPERS, "child.py": WRAPPERS_CHILD})
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0"\n')
    if tests:
        (root / "tests").mkdir()
        (root / "tests" / "test_wrap.py").write_text(dedent(TEST))
    return root


def decouple(root: Path, *extra: str) -> tuple[dict, str]:
    """(report.json, report.md) of a --write run on ``root``."""
    out = root.parent / (root.name + "-out")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "codemod", str(root), "--class", "pkg.child:Child", *STRESS, *extra,
                           "--output", str(out)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    if (out / "files").is_dir():
        shutil.copytree(out / "files", root, dirs_exist_ok=True)
    return json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


def suite(proj: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=proj,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(proj / "src")}, timeout=120, check=False)
    return "passed" if done.returncode == 0 else "failed"


def kept(rep: dict) -> dict:
    return {k["member"]: k["evidence"] for k in rep["classes"][0]["kept"]}


def test_a_public_attribute_the_projects_tests_read_outside_root_is_kept(tmp_path):
    before = project(tmp_path / "before")
    after = project(tmp_path / "after")
    rep, md = decouple(after / "src")
    assert rep["classes"][0]["decision"] == "decouple"
    assert suite(before) == suite(after) == "passed"
    [ev] = kept(rep)["lock"]
    assert (ev["rule"], ev["file"], ev["line"], ev["strength"]) == ("DC115", "tests/test_wrap.py", 12, "unknown")
    assert "calls" not in kept(rep)  # read on the TestCase's self only
    assert "self.lock = None" in (after / "src" / "pkg" / "child.py").read_text()
    assert rep["outside"] == {"project": str(after.resolve()), "files": 1, "dirs": ["tests"], "searched": True}
    assert "Outside ROOT: 1 Python file of the project" in md and "(`tests/`)" in md


def test_near_miss_the_same_project_without_the_outside_read_drops_it(tmp_path):
    proj = project(tmp_path / "p", tests=False)
    rep, _ = decouple(proj / "src")
    assert "lock" not in kept(rep) and {"member": "lock", "kind": "instance_attribute"} in rep["classes"][0]["dropped"]
    assert "self.lock" not in (proj / "src" / "pkg" / "child.py").read_text()
    assert rep["outside"]["files"] == 0


def test_near_miss_root_being_the_project_reads_its_tests_once_as_its_own(tmp_path):
    proj = project(tmp_path / "p")
    rep, md = decouple(proj)
    [ev] = kept(rep)["lock"]
    assert ev["rule"] == "DC108" and ev["file"] == "tests/test_wrap.py"
    assert "outside" not in rep and "Outside ROOT" not in md
    assert suite(proj) == "passed"


def test_the_off_switch_drops_it_and_the_projects_test_then_fails(tmp_path):
    proj = project(tmp_path / "p")
    rep, md = decouple(proj / "src", "--no-outside-uses")
    assert "lock" not in kept(rep)
    assert rep["outside"]["searched"] is False and "not read (`--no-outside-uses`)" in md
    assert suite(proj) == "failed"  # what the switch costs: the read it no longer sees


def test_a_project_file_that_changes_invalidates_the_cached_run(tmp_path):
    proj = project(tmp_path / "p", tests=False)
    env = {**os.environ, "PYTHONPATH": str(REPO), "DECOUPLE_CACHE_DIR": str(tmp_path / "cache")}

    def report() -> str:
        done = subprocess.run([sys.executable, "-m", "codemod", str(proj / "src"), "--class", "pkg.child:Child",
                               *STRESS[:-1], "--output", "-"], capture_output=True, text=True, env=env, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = report()
    assert report() == first and "DC115" not in first  # the second from the cache
    (proj / "tests").mkdir()
    (proj / "tests" / "test_wrap.py").write_text(dedent(TEST))
    assert "DC115" in report()  # a file outside ROOT that the cached run did not have
