"""report.md's rule ids: each one the prose cites links to the paragraph that says what it is."""

import re

from conftest import run_cli, write_files

from codemod.report_md import _link_rules
from codemod.rules import by_id, summaries


def test_every_rule_module_has_a_summary_line_that_matches_its_id_and_name():
    modules = by_id()
    found = summaries()
    assert set(found) == set(modules)
    assert all(found[i][0] == modules[i].NAME for i in found)


def test_ids_in_prose_are_links_and_ids_in_code_spans_are_not():
    text, cited = _link_rules("- can raise (DC407): `x` and `DC999 in code`, DC108's known problems")
    assert text == "- can raise ([DC407](#rules-cited)): `x` and `DC999 in code`, [DC108](#rules-cited)'s known problems"
    assert cited == ["DC108", "DC407"]


def test_the_report_names_each_rule_it_cites(tmp_path):
    from test_report_risk import FILES  # a dropped call that can raise: Risk cites DC407

    root = write_files(tmp_path / "proj", {k: v.lstrip("\n") for k, v in FILES.items()})
    out = tmp_path / "out"
    code, _, err = run_cli(root, "--class", "Light", "--output", out, env={"DECOUPLE_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 0, err
    md = (out / "report.md").read_text()
    linked = set(re.findall(r"\[(DC\d{3})\]\(#rules-cited\)", md))
    assert linked, md
    last = md.rstrip().splitlines()[-1]
    assert last.startswith('<a id="rules-cited"></a>Rules cited: ')
    for i in linked:
        assert f"**{i}** `{summaries()[i][0]}`" in last
    # No bare id is left in the prose outside code spans and the paragraph itself.
    prose = re.sub(r"`[^`]*`", "", md.replace(last, ""))
    assert re.findall(r"(?<!\[)\bDC\d{3}\b(?!\])", prose) == []
