"""decouple as a LibCST codemod (docs/api.md): ``python -m libcst.tool codemod
decouple_class.DecoupleClassCommand`` leaves the files the command line writes to files/."""

import os
import subprocess
import sys

import pytest
from conftest import FIXTURES, REPO, copy_tree, run_cli, tree_hashes, write_files

from codemod.commands.shared_analysis import Record, SharedAnalysis
from codemod.errors import UsageError

SHOP = FIXTURES / "rewrite" / "example_shop" / "input"
CONFIG = "modules: ['codemod.commands']\nrepo_root: '.'\n"
# LibCST hands out files in chunks of 4 per process: with these, two processes share the work.
FILLER = {f"shop/util_{i}.py": f"def helper_{i}():\n    return {i}\n" for i in range(12)}


def libcst_codemod(tree, *args, cache):
    env = dict(os.environ, DECOUPLE_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    cmd = [sys.executable, "-m", "libcst.tool", "codemod", "decouple_class.DecoupleClassCommand", *args,
           "--no-format", "--hide-progress", "-j", "2", "."]
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stderr


def configured(src, dest):
    tree = write_files(copy_tree(src, dest), FILLER)
    (tree / ".libcst.codemod.yaml").write_text(CONFIG)
    return tree


def test_the_codemod_leaves_the_files_the_command_line_writes(tmp_path):
    tree = configured(SHOP, tmp_path / "tree")
    original = tree_hashes(tree)
    code, _, err = run_cli(tree, "--class", "OfflineGateway", "--output", tmp_path / "out", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c1")})
    assert code == 0, err
    assert tree_hashes(tree) == original
    code, err = libcst_codemod(tree, "--class", "OfflineGateway", cache=tmp_path / "c2")
    assert code == 0, err
    files = tmp_path / "out" / "files"
    patched = {p.relative_to(files).as_posix(): p.read_bytes() for p in files.rglob("*.py")}
    assert list(patched) == ["shop/offline.py"]
    assert all((tree / rel).read_bytes() == text for rel, text in patched.items())
    now = tree_hashes(tree)
    assert {k for k in now if now[k] != original.get(k)} == set(patched)
    # One analysis for the invocation: its verdict is said once, by the file that ran it.
    assert err.count("decouple: OfflineGateway: decouple:") == 1, err
    # Run again, the tree has nothing left to do.
    code, err = libcst_codemod(tree, "--class", "OfflineGateway", "--parent", "HttpGateway", cache=tmp_path / "c2")
    assert code == 0 and "already decoupled" in err, err
    assert tree_hashes(tree) == now


def test_a_refusal_fails_the_invocation_and_changes_nothing(tmp_path):
    tree = configured(FIXTURES / "cli" / "mangled", tmp_path / "tree")
    before = tree_hashes(tree)
    code, err = libcst_codemod(tree, "--class", "Child", cache=tmp_path / "c")
    assert code == 1 and "refused as unsafe" in err and "name-mangled" in err, err
    assert tree_hashes(tree) == before


def test_a_usage_error_fails_once_and_skips_the_rest(tmp_path):
    tree = configured(SHOP, tmp_path / "tree")
    before = tree_hashes(tree)
    code, err = libcst_codemod(tree, "--class", "OflineGateway", cache=tmp_path / "c")
    assert code == 1 and "did you mean OfflineGateway?" in err, err
    assert "Failed to codemod 1 files" in err and "Skipped 15 files" in err
    assert tree_hashes(tree) == before


def test_a_file_changed_since_the_analysis_is_an_error(tmp_path):
    tree = write_files(tmp_path / "tree", {"a.py": "old\n", "b.py": "x = 1\n"})
    shared = SharedAnalysis(tree, {"classes": ("C",)})
    st = os.stat(tree / "b.py")
    record = Record(stats={"b.py": [st.st_size, st.st_mtime_ns]}, files={"a.py": ["old\n", "new\n", "utf-8"]})
    assert shared.new_text(record, "a.py", "old\n") == ("new\n", "utf-8")
    assert shared.new_text(record, "a.py", "new\n") is None  # patched already
    assert shared.new_text(record, "b.py", "x = 1\n") is None
    assert shared.new_text(record, "c.py", "") is None  # not a file the analysis saw
    with pytest.raises(UsageError, match="a.py changed since"):
        shared.new_text(record, "a.py", "edited\n")
    (tree / "b.py").write_text("x = 22\n")
    with pytest.raises(UsageError, match="b.py changed since"):
        shared.new_text(record, "b.py", "x = 22\n")


def test_the_record_is_the_invocations_own(tmp_path, monkeypatch):
    """The processes of one invocation share the record; another invocation has its own."""
    monkeypatch.setenv("DECOUPLE_CACHE_DIR", str(tmp_path))
    here = SharedAnalysis(tmp_path, {"classes": ("C",)}).path
    assert SharedAnalysis(tmp_path, {"classes": ("C",)}).path == here
    assert SharedAnalysis(tmp_path, {"classes": ("D",)}).path != here
    code = ("import sys, multiprocessing as mp; from pathlib import Path\n"
            "from codemod.commands.shared_analysis import SharedAnalysis\n"
            "def path(_): return str(SharedAnalysis(Path(sys.argv[1]), {'classes': ('C',)}).path)\n"
            "if __name__ == '__main__':\n"
            "    with mp.get_context('spawn').Pool(1) as pool: child = pool.map(path, [0])[0]\n"
            "    print(path(0) == child, path(0) != sys.argv[2])\n")
    script = tmp_path / "probe.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script), str(tmp_path), str(here)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(REPO)), check=True).stdout
    assert out.split() == ["True", "True"]
