"""What the command line prints, and where: the summary line, --output -, --check once, --format, --color."""

import json
import os
import pty
import subprocess
import sys

from conftest import FIXTURES, copy_tree, run_cli, tree_hashes

from codemod.console import check_line

CASE = FIXTURES / "rewrite" / "inline_init" / "input"
GREEN, RED, CYAN = "\033[32m", "\033[31m", "\033[36m"


def test_main_run_prints_one_summary_line(tmp_path):
    code, out, err = run_cli(CASE, "--class", "Child", "--output", "out", cwd=tmp_path)
    assert code == 0, err
    assert out == "wrote out/patch.diff, out/report.md, out/report.json, out/files/ (1 class decoupled, 0 declined)\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".decouple-output", "files", "patch.diff", "report.json", "report.md"]
    # A class with no parent is declined: only the report is written, and the line says so.
    code, out, err = run_cli(CASE, "--class", "Base", "--output", "out", cwd=tmp_path)
    assert code == 0, err
    assert out == "wrote out/report.md, out/report.json (0 classes decoupled, 1 declined)\n"
    code, out, err = run_cli(CASE, "--class", "Child", "--output", "out", "--analyse-only", cwd=tmp_path)
    assert code == 0, err
    assert out == "wrote out/report.md, out/report.json (1 class would be decoupled, 0 declined)\n"


def test_summary_of_a_refused_run_says_there_is_no_patch(tmp_path):
    code, out, _ = run_cli(FIXTURES / "cli" / "mangled", "--class", "Child", "--output", "o", cwd=tmp_path)
    assert code == 3
    assert out == "wrote o/report.md, o/report.json (0 classes decoupled, 0 declined, 1 refused as unsafe, so no patch)\n"
    assert not (tmp_path / "o" / "patch.diff").exists()


def test_output_dash_prints_the_report_and_writes_nothing(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    before = tree_hashes(tmp_path)
    code, out, err = run_cli(tree, "--class", "Child", "--output", "-", cwd=tmp_path)
    assert code == 0, err
    report = json.loads(out)  # stdout is the report and nothing else
    assert [c["decision"] for c in report["classes"]] == ["decouple"]
    assert tree_hashes(tmp_path) == before
    assert not (tmp_path / "-").exists() and not (tmp_path / "output").exists()
    assert "'-' prints report.json on" in " ".join(run_cli("--help")[1].split())


def test_output_dash_with_check_or_diff_is_a_usage_error(tmp_path):
    for mode in ("--check", "--diff"):
        code, out, err = run_cli(CASE, "--class", "Child", mode, "--output", "-", cwd=tmp_path)
        assert code == 2 and out == "" and err.count("\n") == 1 and "--output -" in err
    assert not (tmp_path / "-").exists()


def test_check_says_each_verdict_once():
    # Child would be decoupled (stdout); Base has no parent and is declined (stderr, not on stdout).
    code, out, err = run_cli(".", "--class", "Child", "--class", "Base", "--check", "--no-cache", cwd=CASE)
    assert code == 1
    assert out.splitlines() == [
        "pkg/child.py:4: Child would be decoupled from Parent: uses 4 of 9 members of Parent (1 method) "
        "and 3 of 5 statements of its __init__"]
    assert err == "Base: decline: nothing to do: Base has no parent class under ROOT\n"


def test_format_github_prints_annotations(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    code, out, err = run_cli(".", "--class", "Child", "--check", "--format", "github", cwd=tmp_path / "tree")
    assert code == 1, err
    assert out == ("::warning file=pkg/child.py,line=4::Child would be decoupled from Parent: uses 4 of 9 "
                   "members of Parent (1 method) and 3 of 5 statements of its __init__\n")
    # From another directory, the file is named from there, as Actions resolves it.
    code, out, _ = run_cli(tree, "--class", "Child", "--check", "--format", "github", cwd=tmp_path)
    assert out.startswith("::warning file=tree/pkg/child.py,line=4::")
    code, out, err = run_cli(tree, "--class", "Child", "--format", "github")
    assert code == 2 and "--format github only applies to --check" in err


def test_github_annotation_escapes_what_would_end_a_value(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = check_line("github", tmp_path, "a,b:c.py", 3, "50% done\nnext")
    assert line == "::warning file=a%2Cb%3Ac.py,line=3::50%25 done%0Anext"


def colour_run(*args, env=None):
    """stdout of a run whose stdout is a terminal (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env or {})
    proc = subprocess.Popen([sys.executable, "-m", "codemod", *map(str, args)], stdout=follower,
                            stderr=subprocess.DEVNULL, env=full_env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed (EIO on Linux)
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait() == 0
    return b"".join(chunks).decode()


def test_diff_colour_always_never_and_no_color():
    code, out, _ = run_cli(CASE, "--class", "Child", "--diff", "--color", "always")
    assert code == 0
    lines = out.splitlines()
    assert f"{RED}-from .parent import Parent\033[0m" in lines and f"{GREEN}+from pkg.base import Base\033[0m" in lines
    assert any(line.startswith(f"{CYAN}@@ ") for line in lines)
    plain = run_cli(CASE, "--class", "Child", "--diff", "--color", "never")[1]
    assert "\033[" not in plain and plain == run_cli(CASE, "--class", "Child", "--diff")[1]  # auto, not a terminal
    # Colour even wins over NO_COLOR when asked for by name; auto on a terminal colours unless NO_COLOR is set.
    assert GREEN in run_cli(CASE, "--class", "Child", "--diff", "--color", "always", env={"NO_COLOR": "1"})[1]
    assert GREEN in colour_run(CASE, "--class", "Child", "--diff")
    assert "\033[" not in colour_run(CASE, "--class", "Child", "--diff", env={"NO_COLOR": "1"})
    assert GREEN in colour_run(CASE, "--class", "Child", "--diff", env={"NO_COLOR": ""})


def test_no_markers_writes_no_comment_and_a_second_run_finds_nothing_to_do(tmp_path):
    import shutil

    src = FIXTURES / "rewrite" / "example_shop" / "input"
    tree = tmp_path / "tree"
    shutil.copytree(src, tree)
    code, _, err = run_cli(tree, "--output", tmp_path / "out", "--no-markers", "--no-cache", "--class", "OfflineGateway")
    assert code == 0, err
    patched = list((tmp_path / "out" / "files").rglob("*.py"))
    assert patched and not any("decouple:" in p.read_text() for p in patched)
    for p in patched:
        shutil.copyfile(p, tree / p.relative_to(tmp_path / "out" / "files"))
    code, out, err = run_cli(tree, "--check", "--no-cache", "--class", "OfflineGateway")
    assert code == 0, out + err


def test_the_table_turns_markers_off_and_the_command_line_back_on(tmp_path):
    tree = copy_tree(FIXTURES / "rewrite" / "example_shop" / "input", tmp_path / "tree")
    (tree / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["OfflineGateway"]\nmarkers = false\n')
    code, out, err = run_cli(tree, "--diff", "--no-cache")
    assert code == 0, err
    assert "+class OfflineGateway(Gateway):" in out and "decouple:" not in out
    code, out, err = run_cli(tree, "--diff", "--no-cache", "--markers")
    assert code == 0, err
    assert "+        # decouple: inlined from HttpGateway.__init__" in out
    (tree / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["OfflineGateway"]\nmarkers = "no"\n')
    code, _, err = run_cli(tree, "--diff", "--no-cache")
    assert code == 2 and "[tool.decouple] markers must be true or false, got 'no'" in err
