"""The pre-commit hook and the GitHub Actions example run what they say, against a fixture."""

import os
import shlex
import subprocess
import sys

from conftest import FIXTURES, REPO, copy_tree

CASE = FIXTURES / "rewrite" / "inline_init" / "input"


def hook_entry() -> list[str]:
    for line in (REPO / ".pre-commit-hooks.yaml").read_text().splitlines():
        if line.strip().startswith("entry:"):
            return shlex.split(line.split(":", 1)[1])
    raise AssertionError("no entry in .pre-commit-hooks.yaml")


def as_module(cmd: list[str]) -> list[str]:
    assert cmd[0] == "decouple"
    return [sys.executable, "-m", "codemod", *cmd[1:]]


def test_pre_commit_hook_fails_until_decoupled(tmp_path):
    tree = copy_tree(CASE, tmp_path / "repo")
    cmd = as_module(hook_entry()) + [".", "--class", "Child"]
    first = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    assert first.returncode == 1, first.stderr
    assert "pkg/child.py:4: Child would be decoupled from Parent" in first.stdout
    fix = subprocess.run([sys.executable, "-m", "codemod", ".", "--class", "Child", "--write"], cwd=tree, capture_output=True, text=True)
    assert fix.returncode == 0, fix.stderr
    second = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr


def test_pre_commit_hook_on_a_project_without_a_table_checks_nothing(tmp_path):
    # The hook runs at the top of the repository, with no ROOT and, as configured by most, no args.
    tree = copy_tree(CASE, tmp_path / "repo")
    (tree / ".git").mkdir()
    cache = tmp_path / "cache"
    env = {**os.environ, "DECOUPLE_CACHE_DIR": str(cache)}
    hook = as_module(hook_entry())
    for pyproject, says in (('[project]\nname = "shop"\n', ""),
                            ('[tool.decoupel]\nclasses = ["Child"]\n', "decouple: warning: pyproject.toml has "
                             "[tool.decoupel], not [tool.decouple]: its settings are not read\n"),
                            (None, "")):
        if pyproject is None:
            (tree / "pyproject.toml").unlink()  # .git alone makes the folder the project
        else:
            (tree / "pyproject.toml").write_text(pyproject)
        proc = subprocess.run(hook, cwd=tree, capture_output=True, text=True, env=env)
        assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
        assert proc.stderr == says + ("decouple: nothing checked: no class selected in . (no --class or --parent, "
                                      "and no classes or parent in [tool.decouple] of its pyproject.toml)\n")
    assert not (cache / "releases").exists()
    # With the table, the same hook checks what it selects; its test command does not run.
    ran = tmp_path / "ran"
    (tree / "pyproject.toml").write_text(f'[tool.decouple]\nclasses = ["Child"]\ntest = "touch {ran}"\n')
    proc = subprocess.run(hook, cwd=tree, capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and proc.stdout.startswith("pkg/child.py:4: Child would be decoupled from Parent")
    assert not ran.exists()


def test_github_actions_example_runs_a_check(tmp_path):
    text = (REPO / "docs" / "github-actions-decouple.yml").read_text()
    [run] = [l.split("run:", 1)[1].strip() for l in text.splitlines() if l.strip().startswith("run: decouple")]
    cmd = shlex.split(run)
    assert "--check" in cmd
    tree = copy_tree(CASE, tmp_path / "repo")
    # The example names SGLang's classes; against the fixture, name the fixture's class instead.
    args = [a for a in cmd[1:] if a not in ("TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend", "--class")]
    proc = subprocess.run([sys.executable, "-m", "codemod", *args, "--class", "Child"], cwd=tree, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "diff --git a/pkg/child.py b/pkg/child.py" in proc.stdout
    assert proc.stdout.startswith("::warning file=pkg/child.py,line=4::Child would be decoupled from Parent")
