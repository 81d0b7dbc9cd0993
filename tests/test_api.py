"""The Python API (docs/api.md): its example runs, it returns what the command line writes,
and it writes nothing under ROOT until the caller applies the patch."""

import contextlib
import dataclasses
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO, copy_tree, run_cli, tree_hashes

import codemod
from codemod import Decision, UnsafeError, UsageError, decouple
from codemod.rules.verdict_already_decoupled import ID as ALREADY_DECOUPLED

SHOP = FIXTURES / "rewrite" / "example_shop"
DOC = (REPO / "docs" / "api.md").read_text()


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DECOUPLE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def doc_block(lang: str) -> str:
    """The first ``lang`` code block of docs/api.md."""
    return re.search(rf"```{lang}\n(.*?)```", DOC, re.S).group(1)


def test_the_docs_example_runs_and_prints_what_the_doc_says(tmp_path, monkeypatch):
    tree = copy_tree(SHOP / "input", tmp_path / "shop-checkout")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    namespace = {}
    with contextlib.redirect_stdout(out):
        exec(compile(doc_block("python"), "docs/api.md", "exec"), namespace)
    assert out.getvalue() == doc_block("text")
    assert namespace["result"].patch and namespace["verdict"].decoupled
    # apply() wrote what the rewrite fixture expects, and nothing else.
    assert (tree / "shop" / "offline.py").read_text() == (SHOP / "expected" / "shop" / "offline.py").read_text()
    rest = {k: v for k, v in tree_hashes(tree).items() if k != "shop/offline.py"}
    assert rest == {k: v for k, v in tree_hashes(SHOP / "input").items() if k != "shop/offline.py"}


def test_the_result_is_what_the_command_line_writes(tmp_path, own_cache):
    tree = copy_tree(SHOP / "input", tmp_path / "tree")
    code, _, err = run_cli(tree, "--class", "OfflineGateway", "--output", tmp_path / "out", "--no-cache",
                           env={"DECOUPLE_CACHE_DIR": str(own_cache)})
    assert code == 0, err
    result = decouple(tree, ["OfflineGateway"], cache=False)
    assert result.as_json() == json.loads((tmp_path / "out" / "report.json").read_text())
    assert result.markdown() == (tmp_path / "out" / "report.md").read_text()
    assert result.patch.diff == (tmp_path / "out" / "patch.diff").read_text()
    assert result.patch.texts == {"shop/offline.py": (tmp_path / "out" / "files" / "shop" / "offline.py").read_text()}
    assert list(result.summary) == [line for line in err.splitlines() if line.startswith("OfflineGateway:")]
    entry = result.as_json()["classes"][0]
    verdict = result["shop.offline:OfflineGateway"]
    assert [k.name for k in verdict.kept] == [k["member"] for k in entry["kept"]] == ["name", "supports_refunds"]
    assert [d.name for d in verdict.dropped] == [d["member"] for d in entry["dropped"]]
    assert verdict.kept[1].evidence[0].file == "shop/checkout.py" and verdict.kept[1].evidence[0].rule == "DC108"
    assert (verdict.decision, verdict.rule, verdict.new_base) == (Decision.DECOUPLE, entry["rule"], "shop.gateway:Gateway")
    assert result.changes and not result.unsafe and not result.reused


def test_nothing_under_root_is_written_until_apply(tmp_path):
    tree = copy_tree(SHOP / "input", tmp_path / "tree")
    before = tree_hashes(tree)
    first = decouple(tree, "OfflineGateway")
    again = decouple(tree, "OfflineGateway", analyse_only=True)
    assert tree_hashes(tree) == before
    assert not again.patch and again["OfflineGateway"].decision == Decision.DECOUPLE
    assert first.apply() == ["shop/offline.py"]
    assert (tree / "shop" / "offline.py").read_text() == first.patch.files[0].after
    # The run read the file as it was: once written (or edited), the same result applies no more.
    with pytest.raises(UsageError, match="changed since decouple read it"):
        first.apply()
    assert decouple(tree, "OfflineGateway", parent="HttpGateway")["OfflineGateway"].rule == ALREADY_DECOUPLED


def test_apply_refuses_an_edited_file_and_writes_nothing(tmp_path):
    tree = copy_tree(SHOP / "input", tmp_path / "tree")
    result = decouple(tree, "OfflineGateway")
    edited = (tree / "shop" / "offline.py").read_text() + "# an edit after the run\n"
    (tree / "shop" / "offline.py").write_text(edited)
    with pytest.raises(UsageError, match="shop/offline.py changed since"):
        result.apply()
    assert (tree / "shop" / "offline.py").read_text() == edited


def test_a_refusal_is_a_verdict_not_an_exception():
    result = decouple(FIXTURES / "cli" / "mangled", ["Child"])
    verdict = result["Child"]
    assert verdict.decision == Decision.UNSAFE and "name-mangled" in verdict.reason
    assert result.unsafe and not result.patch and result.patch.diff == ""
    assert result.apply() == []
    with pytest.raises(UnsafeError, match="name-mangled") as raised:
        result.raise_if_unsafe()
    assert raised.value.rule == verdict.refused_by and raised.value.exit_code == 3
    decouple(SHOP / "input", "OfflineGateway").raise_if_unsafe()  # a class decoupled: nothing raised


@pytest.mark.parametrize("kwargs, message", [
    ({"classes": ["Nope"]}, "class Nope not found"),
    ({}, "nothing to decouple in"),
    ({"classes": ["OfflineGateway"], "keep": "sure"}, "--keep takes possible or proven"),
    ({"classes": ["OfflineGateway"], "max_copied_share": 2}, "from 0 to 1"),
    ({"classes": ["OfflineGateway"], "assume_unused": ["Other.x"]}, "is not a class of this run"),
    ({"classes": ["OfflineGateway"], "test": " "}, "test takes a shell command"),
    ({"classes": ["OfflineGateway"], "trace": ""}, "trace takes a shell command"),
    ({"classes": ["OfflineGateway"], "keep_test_copies": True}, "only applies to test"),
    ({"classes": [3]}, "class names"),
])
def test_usage_errors_raise(kwargs, message):
    with pytest.raises(UsageError, match=message) as raised:
        decouple(SHOP / "input", **kwargs)
    assert raised.value.exit_code == 2


def test_a_root_that_is_not_a_folder(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        decouple(tmp_path / "nope", "X")


def test_records_are_frozen_and_as_json_is_a_copy():
    result = decouple(SHOP / "input", "OfflineGateway")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.classes[0].reason = "x"
    result.as_json()["classes"].clear()
    assert len(result.as_json()["classes"]) == 1
    assert "before=" not in repr(result.patch)  # the texts are there, not in the repr
    with pytest.raises(KeyError):
        result["Nope"]


def test_a_second_run_reuses_the_cached_result():
    assert not decouple(SHOP / "input", "OfflineGateway").reused
    again = decouple(SHOP / "input", "OfflineGateway")
    assert again.reused and again.patch.texts and not decouple(SHOP / "input", "OfflineGateway", cache=False).reused


def test_import_codemod_stays_cheap():
    """``import codemod`` (the command line's first import too) loads none of the API."""
    code = "import sys, codemod; print(sorted(m for m in sys.modules if m.startswith('codemod')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['codemod', 'codemod.version']"
    assert codemod.decouple is decouple
    with pytest.raises(AttributeError):
        codemod.no_such_name  # noqa: B018


def test_the_command_line_runs_through_the_session():
    """The CLI is built on the API's run, not the other way round."""
    cli = (REPO / "codemod" / "cli.py").read_text()
    api = (REPO / "codemod" / "api.py").read_text()
    assert "Session(" in cli and "Session(" in api and "cli" not in re.findall(r"from \.(\w+)", api)
    assert Path(codemod.__file__).parent == REPO / "codemod"
