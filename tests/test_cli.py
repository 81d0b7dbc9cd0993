"""Exit codes, modes and one-line errors of the command line."""

import subprocess

from conftest import FIXTURES, copy_tree, run_cli, tree_hashes

from codemod.console import display_path

CASE = FIXTURES / "rewrite" / "inline_init" / "input"


def git_repo(tree):
    """``tree`` as a git work tree with everything committed."""
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    subprocess.run(["git", "add", "."], cwd=tree, check=True)
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"], cwd=tree, check=True)
    return tree


def test_root_that_is_not_a_directory(tmp_path):
    f = tmp_path / "file.py"
    f.write_text("x = 1\n")
    code, _, err = run_cli(f, "--class", "X")
    assert code == 2 and err.strip().count("\n") == 0 and "not a directory" in err


def test_missing_root_and_class(tmp_path):
    code, _, err = run_cli(tmp_path / "nope", "--class", "X")
    assert code == 2 and "does not exist" in err
    code, _, err = run_cli(CASE, "--class", "Nope", "--output", tmp_path / "o")
    assert code == 2 and "class Nope not found" in err and "Traceback" not in err


def test_ambiguous_bare_name_lists_candidates(tmp_path):
    code, _, err = run_cli(FIXTURES / "cli" / "ambiguous", "--class", "Backend", "--output", tmp_path)
    assert code == 2
    assert "pkg.a:Backend" in err and "pkg.b:Backend" in err
    code, _, err = run_cli(FIXTURES / "cli" / "ambiguous", "--class", "pkg.a:Backend", "--output", tmp_path)
    assert code == 0, err


def test_unsafe_is_exit_3_with_report_and_no_patch(tmp_path):
    root = FIXTURES / "analysis" / "unsafe_computed_getattr"
    code, _, err = run_cli(root, "--class", "Child", "--output", tmp_path)
    assert code == 3
    assert (tmp_path / "report.json").exists() and not (tmp_path / "patch.diff").exists()


def test_check_and_diff_write_nothing(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    before = tree_hashes(tree)
    code, out, _ = run_cli(".", "--class", "Child", "--check", cwd=tree)
    assert code == 1
    assert out.startswith("pkg/child.py:4: Child would be decoupled from Parent")
    code, out, _ = run_cli(tree, "--class", "Child", "--diff")
    assert code == 0 and out.startswith("diff --git a/pkg/child.py b/pkg/child.py")
    code, out2, _ = run_cli(tree, "--class", "Child", "--check", "--diff")
    assert code == 1 and out2.endswith(out)
    assert tree_hashes(tree) == before
    assert not (tree / "output").exists()


def test_write_refuses_dirty_git_files_unless_forced(tmp_path):
    tree = git_repo(copy_tree(CASE, tmp_path / "tree"))
    (tree / "pkg" / "child.py").write_text((tree / "pkg" / "child.py").read_text() + "# local edit\n")
    code, _, err = run_cli(tree, "--class", "Child", "--write")
    assert code == 2 and "uncommitted changes in pkg/child.py" in err
    code, _, err = run_cli(tree, "--class", "Child", "--write", "--force")
    assert code == 0, err
    assert "class Child(Base):" in (tree / "pkg" / "child.py").read_text()
    assert "# local edit" in (tree / "pkg" / "child.py").read_text()
    code, _, _ = run_cli(tree, "--class", "Child", "--check")
    assert code == 0


def test_parent_selects_every_subclass(tmp_path):
    code, _, err = run_cli(FIXTURES / "rewrite" / "reparent_bases" / "input", "--parent", "Parent", "--output", tmp_path)
    assert code == 0, err
    assert "Child: decouple" in err


def test_bad_flag_combination():
    code, _, err = run_cli(CASE, "--class", "Child", "--write", "--check")
    assert code == 2 and "cannot be combined" in err


def test_refused_rewrite_is_exit_3_and_writes_no_patch(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".decouple-output").write_text("")  # a previous run's folder
    (tmp_path / "out" / "patch.diff").write_text("stale\n")
    code, _, err = run_cli(FIXTURES / "cli" / "mangled", "--class", "Child", "--output", tmp_path / "out")
    assert code == 3, err
    assert "name-mangled" in err
    assert not (tmp_path / "out" / "patch.diff").exists() and not (tmp_path / "out" / "files").exists()
    report = (tmp_path / "out" / "report.json").read_text()
    assert '"decision": "unsafe"' in report


def test_emit_tests_adds_a_test_that_pins_the_result(tmp_path):
    import sys

    tree = copy_tree(FIXTURES / "rewrite" / "example_shop" / "input", tmp_path / "tree")
    original = copy_tree(tree, tmp_path / "original")
    code, _, err = run_cli(tree, "--class", "OfflineGateway", "--write", "--emit-tests")
    assert code == 0, err
    test = tree / "tests" / "test_decouple_offline_gateway.py"
    assert test.exists()
    ok = subprocess.run([sys.executable, "-m", "unittest", "-q", str(test)], cwd=tree, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    # Against the original sources the same test fails: it pins something.
    (original / "tests").mkdir()
    (original / "tests" / test.name).write_text(test.read_text())
    bad = subprocess.run([sys.executable, "-m", "unittest", "-q", str(original / "tests" / test.name)], cwd=original, capture_output=True, text=True)
    assert bad.returncode != 0 and "test_bases" in bad.stderr


def test_parent_the_class_does_not_inherit_is_exit_2(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    before = tree_hashes(tree)
    for mode in ([], ["--check"]):
        code, out, err = run_cli(tree, "--class", "Child", "--parent", "Base", *mode, "--output", tmp_path / "o")
        assert code == 2, err
        assert err.strip() == "decouple: error: Child does not inherit Base directly (its bases: Parent); --parent names a direct base of each --class"
        assert out == ""
    assert tree_hashes(tree) == before and not (tmp_path / "o").exists()
    code, out, _ = run_cli(".", "--class", "Child", "--parent", "Parent", "--check", cwd=tree)
    assert code == 1 and out.startswith("pkg/child.py:4: Child would be decoupled from Parent")


def test_second_write_is_a_clean_no_op(tmp_path):
    tree = git_repo(copy_tree(CASE, tmp_path / "tree"))
    code, out, err = run_cli(".", "--class", "Child", "--write", cwd=tree)
    assert code == 0, err
    assert out == "wrote pkg/child.py (1 class decoupled, 0 declined)\n"
    written = tree_hashes(tree)
    for parent in ([], ["--parent", "Parent"]):
        code, out, err = run_cli(".", "--class", "Child", *parent, "--write", cwd=tree)
        assert code == 0, err
        assert "Child: already decoupled from Parent (its marker comment): nothing to do\n" in err and "uncommitted" not in err
        assert out == "nothing to write (0 classes decoupled, 1 already decoupled, 0 declined)\n"
        assert tree_hashes(tree) == written
        # The check CI runs after the fix passes with --parent too: the tool's output is not "does not inherit".
        code, _, err = run_cli(".", "--class", "Child", *parent, "--check", cwd=tree)
        assert code == 0, err


def test_version():
    from codemod import __version__

    code, out, err = run_cli("--version")
    assert code == 0 and out == f"decouple {__version__}\n" and err == ""


def test_misspelled_names_suggest_the_closest(tmp_path):
    code, out, err = run_cli(CASE, "--class", "Chlid", "--check")
    assert code == 2 and out == ""
    shown = display_path(CASE)  # as the user gave it, from the working folder
    assert err == f"decouple: error: class Chlid not found under {shown}; did you mean Child?\n"
    code, _, err = run_cli(CASE, "--class", "Child", "--parent", "Parnet", "--check")
    assert code == 2 and err.endswith(f"class Parnet not found under {shown}; did you mean Parent?\n")
    code, _, err = run_cli(CASE, "--class", "pkg.chidl:Child", "--check")
    assert code == 2 and err.endswith(f"module pkg.chidl not found under {shown}; did you mean pkg.child?\n")
    code, _, err = run_cli(CASE, "--class", "pkg.child:Chidl", "--check")
    assert code == 2 and err.endswith("class Chidl not found in module pkg.child; did you mean Child?\n")
    # Nothing close: no suggestion at all.
    code, _, err = run_cli(CASE, "--class", "Zebra", "--check")
    assert code == 2 and err == f"decouple: error: class Zebra not found under {shown}\n"


def test_the_dotted_spelling_names_the_class_as_the_colon_one_does(tmp_path):
    """``pkg.child.Child``, as a traceback or an import spells it: the same run as ``pkg.child:Child``."""
    code, out, err = run_cli(CASE, "--class", "pkg.child:Child", "--check")
    assert (run_cli(CASE, "--class", "pkg.child.Child", "--check")) == (code, out, err)
    assert code == 1 and "Child" in out
    shown = display_path(CASE)
    code, out, err = run_cli(CASE, "--class", "pkg.chidl.Child", "--check")
    assert (code, out) == (2, "")
    assert err == f"decouple: error: module pkg.chidl not found under {shown}; did you mean pkg.child?\n"
    code, _, err = run_cli(CASE, "--class", "pkg.child.Chidl", "--check")
    assert code == 2 and err.endswith("class Chidl not found in module pkg.child; did you mean Child?\n")


def test_cli_reference_synopsis_lists_every_option_as_optional():
    import re

    from conftest import REPO

    from codemod.cli import build_parser, build_scan_parser

    readme = (REPO / "docs" / "cli.md").read_text()
    synopsis = readme.split("## Usage", 1)[1].split("```", 2)[1]
    # The synopsis shows `decouple` and `decouple scan`.
    options = {o for p in (build_parser(), build_scan_parser()) for a in p._actions for o in a.option_strings
               if o.startswith("--") and o != "--help"}
    assert options == set(re.findall(r"--[a-z][a-z-]*", synopsis))
    # Everything after ROOT is optional: each option stands inside brackets.
    outside = re.sub(r"\[[^\[\]]*\]", "", re.sub(r"\[[^\[\]]*\]", "", synopsis))
    assert not re.findall(r"--(?!version)[a-z-]+", outside), outside
