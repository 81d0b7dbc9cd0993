"""Before/after pairs: fixtures/rewrite/<case>/input -> expected, one case per rewrite rule.

Each case also runs its probe.py against the original and the patched package, in fresh
interpreters, and the two must print the same thing (differential execution).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, REPORT_LINES, copy_tree, paragraphs, run_cli, tree_hashes

CASES = sorted(p.name for p in (FIXTURES / "rewrite").iterdir() if (p / "case.json").exists())


def class_args(case_dir):
    spec = json.loads((case_dir / "case.json").read_text())["class"]
    out = []
    for name in spec if isinstance(spec, list) else [spec]:
        out += ["--class", name]
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run the tool once per case, on a copy of its input outside this repository (inside it,
    the patch would carry the repository's paths): (case dir, output dir, exit code, stderr)."""
    out = {}
    for case in CASES:
        d = FIXTURES / "rewrite" / case
        o = tmp_path_factory.mktemp(case)
        tree = copy_tree(d / "input", tmp_path_factory.mktemp(f"{case}-input") / "input")
        code, _, err = run_cli(tree, *class_args(d), "--output", o)
        out[case] = (d, o, code, err)
    return out


@pytest.mark.parametrize("case", CASES)
def test_snapshot(case, runs, request):
    d, o, code, err = runs[case]
    assert code == 0, err
    expected = d / "expected"
    produced = o / "files"
    if request.config.getoption("--update-snapshots"):
        if expected.exists():
            shutil.rmtree(expected)
        if produced.exists():
            shutil.copytree(produced, expected)
    if not expected.exists():
        assert not produced.exists() and not (o / "patch.diff").exists(), "a no-op case must write no patch"
        return
    got = {str(p.relative_to(produced)): p.read_text() for p in produced.rglob("*.py")}
    want = {str(p.relative_to(expected)): p.read_text() for p in expected.rglob("*.py")}
    assert got == want


@pytest.mark.parametrize("case", CASES)
def test_report_says_each_thing_once_within_its_budget(case, runs):
    _, o, _, _ = runs[case]
    md = (o / "report.md").read_text()
    assert len(md.splitlines()) <= REPORT_LINES
    said = paragraphs(md)
    assert [p for p in said if said.count(p) > 1] == []


@pytest.mark.parametrize("case", CASES)
def test_patch_applies_and_is_idempotent(case, runs, tmp_path):
    d, o, code, err = runs[case]
    tree = copy_tree(d / "input", tmp_path / "tree")
    if not (o / "patch.diff").exists():
        return
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    proc = subprocess.run(["git", "apply", str(o / "patch.diff")], cwd=tree, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for rel in (o / "files").rglob("*.py"):
        assert (tree / rel.relative_to(o / "files")).read_text() == rel.read_text()
    again, out, err = run_cli(tree, *class_args(d), "--check", "--diff")
    assert again == 0, err
    assert out == ""


def probe(package_root: Path, script: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(package_root), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=package_root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("case", CASES)
def test_differential_behaviour(case, runs, tmp_path):
    d, o, code, err = runs[case]
    original = copy_tree(d / "input", tmp_path / "original")
    patched = copy_tree(d / "input", tmp_path / "patched")
    if (o / "files").exists():
        for f in (o / "files").rglob("*.py"):
            shutil.copy(f, patched / f.relative_to(o / "files"))
    before = probe(original, d / "probe.py")
    after = probe(patched, d / "probe.py")
    assert before.replace("'Parent', ", "").replace("'Registry', ", "") == after


@pytest.mark.parametrize("case", CASES)
def test_input_untouched(case, tmp_path):
    d = FIXTURES / "rewrite" / case
    tree = copy_tree(d / "input", tmp_path / "tree")
    before = tree_hashes(tree)
    for mode in (["--diff"], ["--check"], ["--output", tmp_path / "out"]):
        run_cli(tree, *class_args(d), *mode)
    assert tree_hashes(tree) == before
