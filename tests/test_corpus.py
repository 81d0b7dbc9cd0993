"""The adversarial corpus: every input ends in a safe patch, a decline, or a one-line refusal.

Each fixtures/corpus/<case>/ holds a tree and expect.json (arguments, exit code, outcome,
message). For every case: no traceback, the input tree is byte-identical afterwards, and a
patch (when there is one) behaves like the original under the case's probe.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, copy_tree, run_cli, tree_hashes

CORPUS = FIXTURES / "corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.json").exists())


def probe(root: Path, script: Path) -> str:
    proc = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def assert_one_line_error(err: str):
    assert "Traceback" not in err
    errors = [l for l in err.splitlines() if l.startswith("decouple: error")]
    assert len(errors) <= 1


@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case, tmp_path):
    d = CORPUS / case
    expect = json.loads((d / "expect.json").read_text())
    tree = copy_tree(d / "tree", tmp_path / "tree")
    before = tree_hashes(tree)
    out = tmp_path / "out"
    code, _, err = run_cli(tree, *expect["args"], "--output", out)
    assert code == expect["exit"], err
    assert_one_line_error(err)
    assert tree_hashes(tree) == before, "the input tree changed"
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    text = err + (json.dumps(report) if report else "")
    if "message" in expect:
        assert expect["message"] in text
    if expect["outcome"] != "patched":
        assert not (out / "patch.diff").exists()
        if expect["outcome"] == "declined":
            assert report["classes"][0]["decision"] == "decline"
        return
    assert (out / "patch.diff").exists()
    patched = copy_tree(tree, tmp_path / "patched")
    for f in (out / "files").rglob("*.py"):
        shutil.copyfile(f, patched / f.relative_to(out / "files"))
    changed = [patched / f.relative_to(out / "files") for f in (out / "files").rglob("*.py")]
    for f in changed:
        raw = f.read_bytes()
        if expect.get("encoding"):
            raw.decode(expect["encoding"])
            assert b"coding: latin-1" in raw
        if expect.get("crlf"):
            assert raw.count(b"\n") == raw.count(b"\r\n"), "mixed line endings"
        if "contains" in expect:
            assert expect["contains"] in raw.decode(expect.get("encoding", "utf-8")).replace("\r\n", "\n")
    if (d / "probe.py").exists():
        assert probe(tree, d / "probe.py") == probe(patched, d / "probe.py")
    # And a second run on the patched tree has nothing to do.
    again, _, err2 = run_cli(patched, *expect["args"], "--check")
    assert again == 0, err2


def _simple_tree(root: Path) -> Path:
    return copy_tree(CORPUS / "tab_indentation" / "tree", root)


def test_root_is_a_file(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("")
    code, _, err = run_cli(f, "--class", "Child")
    assert code == 2 and "is not a directory" in err
    assert_one_line_error(err)


def test_symlinked_module_inside_root_is_read(tmp_path):
    tree = _simple_tree(tmp_path / "tree")
    (tree / "pkg" / "alias.py").symlink_to(tree / "pkg" / "parent.py")
    code, _, err = run_cli(tree, "--class", "pkg.child:Child", "--output", tmp_path / "out")
    assert code == 0, err


def test_parent_outside_root_through_a_symlink_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(CORPUS / "tab_indentation" / "tree" / "pkg" / "parent.py", outside / "parent.py")
    tree = tmp_path / "tree" / "pkg"
    tree.mkdir(parents=True)
    (tree / "__init__.py").write_text("")
    shutil.copy(CORPUS / "tab_indentation" / "tree" / "pkg" / "child.py", tree / "child.py")
    (tree / "parent.py").symlink_to(outside / "parent.py")
    before = (outside / "parent.py").read_bytes()
    code, _, err = run_cli(tmp_path / "tree", "--class", "Child", "--output", tmp_path / "out")
    assert code == 2 and "not under ROOT" in err
    assert (outside / "parent.py").read_bytes() == before


def test_read_only_output_directory(tmp_path):
    tree = _simple_tree(tmp_path / "tree")
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("running as a user that can write to read-only folders (root)")
        code, _, err = run_cli(tree, "--class", "Child", "--output", out)
        assert code == 2 and "cannot write" in err
        assert_one_line_error(err)
    finally:
        out.chmod(stat.S_IRWXU)


def test_output_inside_a_file_path(tmp_path):
    tree = _simple_tree(tmp_path / "tree")
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    code, _, err = run_cli(tree, "--class", "Child", "--output", blocker / "out")
    assert code == 2 and "cannot write" in err
    assert_one_line_error(err)
