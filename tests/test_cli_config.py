"""``[tool.decouple]`` in ROOT's pyproject.toml: defaults for a bare ``decouple ROOT --check``."""

import pytest
from conftest import FIXTURES, copy_tree, run_cli, tree_hashes

CASE = FIXTURES / "rewrite" / "inline_init" / "input"
FINDING = "pkg/child.py:4: Child would be decoupled from Parent"


def tree_with(tmp_path, pyproject: str):
    tree = copy_tree(CASE, tmp_path / "tree")
    (tree / "pyproject.toml").write_text(pyproject)
    return tree


def test_pyproject_supplies_the_selection(tmp_path):
    tree = tree_with(tmp_path, '[project]\nname = "shop"\n\n[tool.decouple]\nclasses = ["Child"]\nparent = "Parent"\nbase = "Base"\n')
    before = tree_hashes(tree)
    code, out, err = run_cli(".", "--check", cwd=tree)
    assert code == 1, err
    assert out.startswith(FINDING)
    assert tree_hashes(tree) == before


def test_pyproject_supplies_the_limits(tmp_path):
    tree = tree_with(tmp_path, '[tool.decouple]\nclasses = ["Child"]\nmax-copied-share = 0\n')
    code, out, err = run_cli(".", "--check", cwd=tree)
    assert code == 0 and out == "" and "the parent's logic is really reused" in err
    # The command line wins over the file, key by key.
    code, out, _ = run_cli(".", "--check", "--max-copied-share", "1", cwd=tree)
    assert code == 1 and out.startswith(FINDING)


SKIPS_NOTHING = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Parent:\n    def __init__(self, n):\n        self.n = n\n\n    def unused(self):\n        return [self.n] * 3\n",
    "pkg/child.py": "from pkg.base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n",
}


@pytest.mark.parametrize("how", ["flag", "file"])
def test_any_gain_decouples_a_class_that_skips_no_init_work(tmp_path, how):
    from conftest import write_files

    tree = write_files(tmp_path / "tree", SKIPS_NOTHING)
    code, out, err = run_cli(".", "--class", "Child", "--check", cwd=tree)
    assert code == 0 and out == "" and "never runs work of Parent.__init__ that it could skip" in err
    if how == "file":
        (tree / "pyproject.toml").write_text("[tool.decouple]\nany-gain = true\n")
    code, out, err = run_cli(".", "--class", "Child", "--check", *(["--any-gain"] if how == "flag" else []), cwd=tree)
    assert code == 1 and out.startswith("pkg/child.py:4: Child would be decoupled from Parent"), err


def test_command_line_selection_replaces_the_files(tmp_path):
    # The file's classes and parent go together: --class on the command line replaces both.
    tree = tree_with(tmp_path, '[tool.decouple]\nclasses = ["Nope"]\nparent = "Base"\n')
    code, _, err = run_cli(".", "--check", cwd=tree)
    assert code == 2 and "class Nope not found" in err
    code, out, err = run_cli(".", "--check", "--class", "Child", cwd=tree)
    assert code == 1 and out.startswith(FINDING), err


def test_a_pyproject_without_the_table_is_ignored(tmp_path):
    tree = tree_with(tmp_path, '[project]\nname = "shop"\n[tool.ruff]\nline-length = 100\n')
    code, out, _ = run_cli(".", "--class", "Child", "--check", cwd=tree)
    assert code == 1 and out.startswith(FINDING)


@pytest.mark.parametrize("text, says", [
    ('[tool.decouple]\nclasses = "Child"\n', "[tool.decouple] classes must be a non-empty list of class names, got 'Child'"),
    ('[tool.decouple]\nclass = ["Child"]\n', "unknown key 'class' in [tool.decouple]"),
    ('[tool.decouple]\nmax-copied-share = 2\n', "max-copied-share must be a number from 0 to 1, got 2"),
    ('[tool.decouple]\nplain-gain = "yes"\n', "plain-gain must be true or false"),
    ('[tool.decouple]\nany-gain = 1\n', "any-gain must be true or false"),
    ('[tool]\ndecouple = 3\n', "tool.decouple must be a table"),
    ('[tool.decouple\nclasses = []\n', "not valid TOML"),
])
def test_a_malformed_table_is_one_line_exit_2(tmp_path, text, says):
    tree = tree_with(tmp_path, text)
    code, out, err = run_cli(tree, "--check")
    assert code == 2 and out == ""
    assert err.startswith(f"decouple: error: {tree / 'pyproject.toml'}: ") and err.count("\n") == 1
    assert says in err


def test_without_a_toml_parser_only_a_table_is_an_error(tmp_path, monkeypatch):
    # Python 3.10 without tomli: a pyproject.toml that cannot hold the table is still read as having none.
    from codemod import config
    from codemod.errors import UsageError

    monkeypatch.setattr(config, "tomllib", None)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n')
    assert config.load(str(tmp_path)) == {}
    (tmp_path / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["Child"]\n')
    with pytest.raises(UsageError, match="needs Python 3.11 or the tomli package"):
        config.load(str(tmp_path))
