"""The patch applies to the project as its maintainer has it: on a git checkout its paths are the
repository's; on a release (an unpacked wheel, site-packages) report.md gives the one
``git apply --directory=...`` line for a checkout of the same release."""

import json
import shutil
import subprocess

from conftest import FIXTURES, copy_tree, run_cli

CASE = FIXTURES / "rewrite" / "inline_init" / "input"
GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"]


def git(cwd, *args):
    proc = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def checkout(path, package_dir="pkg", folder="python", commit=True):
    """A git repository holding the fixture's package under ``folder/``."""
    copy_tree(CASE / "pkg", path / folder / package_dir)
    (path / "README").write_text("a project\n")
    git(path, "init", "-q")
    if commit:
        git(path, "add", "-A")
        git(path, "commit", "-qm", "the project")
    return path


def headers(patch: str) -> list[str]:
    return [line for line in patch.splitlines() if line.startswith("diff --git")]


def apply_line(out) -> str:
    return next(line for line in (out / "report.md").read_text().splitlines() if line.startswith("- Apply:"))


def test_on_a_checkout_the_paths_are_the_repository_s(tmp_path):
    repo = checkout(tmp_path / "repo")
    code, _, err = run_cli(repo / "python", "--class", "Child", "--output", tmp_path / "out")
    assert code == 0, err
    patch = (tmp_path / "out" / "patch.diff").read_text()
    assert headers(patch) == ["diff --git a/python/pkg/child.py b/python/pkg/child.py"]
    assert "--- a/python/pkg/child.py" in patch and "+++ b/python/pkg/child.py" in patch
    git(repo, "apply", "--check", str(tmp_path / "out" / "patch.diff"))  # from the top
    git(repo / "python" / "pkg", "apply", "--check", str(tmp_path / "out" / "patch.diff"))  # and from inside
    assert apply_line(tmp_path / "out") == ("- Apply: `git apply patch.diff` in the checkout; the paths are the repository's "
                                            "(they start at the repository's top, `python/` being ROOT).")
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert rep["patch_paths"]["paths"] == "repository" and rep["patch_paths"]["prefix"] == "python/"
    # files/ keeps ROOT's layout, and --diff prints the patch as patch.diff has it.
    assert [p.relative_to(tmp_path / "out" / "files").as_posix() for p in (tmp_path / "out" / "files").rglob("*.py")] == ["pkg/child.py"]
    code, out, err = run_cli(repo / "python", "--class", "Child", "--diff", "--no-cache")
    assert code == 0, err
    assert out == patch
    git(repo, "apply", str(tmp_path / "out" / "patch.diff"))
    assert (repo / "python" / "pkg" / "child.py").read_text() == (tmp_path / "out" / "files" / "pkg" / "child.py").read_text()


def test_check_and_write_name_files_from_root_on_a_checkout_as_elsewhere(tmp_path):
    repo = checkout(tmp_path / "repo")
    plain = copy_tree(repo / "python", tmp_path / "plain")
    said = {}
    for name, root in (("repo", repo / "python"), ("plain", plain)):
        code, out, err = run_cli(".", "--class", "Child", "--check", "--no-cache", cwd=root)
        assert code == 1, err
        said[name] = out
    assert said["repo"] == said["plain"] and "pkg/child.py" in said["repo"] and "python/" not in said["repo"]
    code, out, err = run_cli(".", "--class", "Child", "--write", "--no-cache", cwd=repo / "python")
    assert code == 0, err
    assert git(repo, "status", "--porcelain") == " M python/pkg/child.py\n"


def test_near_miss_a_tree_the_repository_does_not_track_keeps_root_s_paths(tmp_path):
    repo = checkout(tmp_path / "repo", commit=False)  # nothing added: the files are not the repository's
    code, _, err = run_cli(repo / "python", "--class", "Child", "--output", tmp_path / "out")
    assert code == 0, err
    assert headers((tmp_path / "out" / "patch.diff").read_text()) == ["diff --git a/pkg/child.py b/pkg/child.py"]
    assert json.loads((tmp_path / "out" / "report.json").read_text())["patch_paths"]["paths"] == "package"


def release(tmp_path, project, package_dir, archive):
    """A release as ``fetch_release`` leaves it: ``<project>-<version>/src`` beside COMPLETE."""
    top = tmp_path / "releases" / f"{project}-1.0"
    copy_tree(CASE / "pkg", top / "src" / package_dir)
    (top / "COMPLETE").write_text(archive + "\n")
    return top / "src"


def test_on_a_wheel_of_a_project_kept_under_python_the_report_gives_the_directory(tmp_path):
    src = release(tmp_path, "sglang", "sglang", "sglang-1.0-py3-none-any.whl")
    code, _, err = run_cli(src, "--class", "Child", "--output", tmp_path / "out")
    assert code == 0, err
    patch = tmp_path / "out" / "patch.diff"
    assert headers(patch.read_text()) == ["diff --git a/sglang/child.py b/sglang/child.py"]
    assert apply_line(tmp_path / "out") == (
        "- Apply: `git apply --directory=python patch.diff` at the top of a checkout of the same release "
        "(the paths are the installed package's; the repository keeps it under `python/`).")
    # A checkout of the same release: the package under python/, as SGLang's repository has it.
    repo = tmp_path / "checkout"
    copy_tree(src / "sglang", repo / "python" / "sglang")
    git(repo, "init", "-q")
    git(repo, "apply", "--directory=python", "--check", str(patch))
    git(repo, "apply", "--directory=python", str(patch))
    assert (repo / "python" / "sglang" / "child.py").read_text() == (tmp_path / "out" / "files" / "sglang" / "child.py").read_text()


def test_on_an_sdist_the_paths_are_the_sdist_s(tmp_path):
    src = release(tmp_path, "mylib", "mylib", "mylib-1.0.tar.gz")
    code, _, err = run_cli(src, "--class", "Child", "--output", tmp_path / "out")
    assert code == 0, err
    assert apply_line(tmp_path / "out") == ("- Apply: `git apply patch.diff` at the top of a checkout of the same release "
                                            "(laid out as its sdist is).")


def test_near_miss_a_tree_that_says_nothing_of_its_repository(tmp_path):
    tree = copy_tree(CASE, tmp_path / "site-packages")
    code, _, err = run_cli(tree, "--class", "Child", "--output", tmp_path / "out")
    assert code == 0, err
    assert headers((tmp_path / "out" / "patch.diff").read_text()) == ["diff --git a/pkg/child.py b/pkg/child.py"]
    line = apply_line(tmp_path / "out")
    assert "`git apply --directory=DIR patch.diff`" in line and "nothing in the release says which" in line
    assert json.loads((tmp_path / "out" / "report.json").read_text())["patch_paths"]["git_apply_directory"] is None
    shutil.rmtree(tmp_path / "out")
