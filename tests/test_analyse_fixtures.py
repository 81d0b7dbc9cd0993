"""Each fixture under fixtures/analysis/ is a small package with the report facts it must produce."""

import json

import pytest

from conftest import FIXTURES, run_cli

from codemod.rules import by_id

CASES = sorted(p.name for p in (FIXTURES / "analysis").iterdir() if (p / "expect.json").exists())


def assert_rule_ids_documented(report):
    """Every record that says why carries the id of a documented rule (docs/rules.md)."""
    known = set(by_id())
    for c in report["classes"]:
        ids = [c["rule"]] + [e["rule"] for k in c["kept"] for e in k["evidence"]]
        ids += [h["rule"] for h in c["hazards"]] + [s["rule"] for s in c["dropped_side_effects"] + c["kept_for_effect"]]
        ids += [c["refused_by"]] if "refused_by" in c else []
        assert set(ids) <= known, set(ids) - known


def _entry(report, name):
    short = name.split(":")[-1]
    [entry] = [c for c in report["classes"] if c["name"] == short]
    return entry


@pytest.mark.parametrize("case", CASES)
def test_fixture_report(case, tmp_path):
    root = FIXTURES / "analysis" / case
    expect = json.loads((root / "expect.json").read_text())
    args = [root, "--class", expect["class"], "--output", tmp_path, "--analyse-only"]
    if "parent" in expect and ":" not in expect["parent"]:
        args += ["--parent", expect["parent"]]
    code, _, err = run_cli(*args)
    assert code == expect.get("exit", 0), err
    assert "Traceback" not in err
    report = json.loads((tmp_path / "report.json").read_text())
    assert_rule_ids_documented(report)
    entry = _entry(report, expect["class"])
    assert entry["decision"] == expect["decision"], entry["reason"]
    if "reason_contains" in expect:
        assert expect["reason_contains"] in entry["reason"]
    if "nothing_to_do" in expect:
        assert entry["nothing_to_do"] is expect["nothing_to_do"]
    if ":" in expect.get("parent", ""):
        assert entry["parent"] == expect["parent"]
    if "new_base" in expect:
        assert entry["new_base"] == expect["new_base"]
    kept = {k["member"]: k for k in entry["kept"]}
    if "kept" in expect:
        assert {m: k["kind"] for m, k in kept.items()} == expect["kept"]
        for k in kept.values():
            assert k["evidence"], f"{k['member']} kept without evidence"
            for ev in k["evidence"]:
                assert (root / ev["file"]).is_file() and ev["line"] > 0 and ev["use"]
    for k in kept.values():
        # The line that does the read: a ``def`` or ``class`` line reads nothing. DC104 and DC109
        # keep a member for what it is (a dunder, an abstract method's implementation), with no
        # reader to name: they point at its definition.
        for ev in (e for e in k["evidence"] if e["rule"] not in ("DC104", "DC109")):
            line = (root / ev["file"]).read_text().splitlines()[ev["line"] - 1].lstrip()
            assert not line.startswith(("def ", "async def ", "class ", "@")), (k["member"], ev)
    for member, where in expect.get("evidence", {}).items():
        seen = {f"{e['file']}:{e['line']}" for e in kept[member]["evidence"]}
        assert set(where) <= seen, seen
    dropped = {d["member"] for d in entry["dropped"]}
    assert set(expect.get("dropped", [])) <= dropped
    hazards = " | ".join(h["what"] for h in entry["hazards"])
    for text in expect.get("hazards_contain", []):
        assert text in hazards
    for text in expect.get("hazards_absent", []):
        assert text not in hazards
    effects = " | ".join(f"{s['code']} {s['why']}" for s in entry["dropped_side_effects"])
    for text in expect.get("side_effects_contain", []):
        assert text in effects
    for_effect = " | ".join(f"{s['code']} {s['why']}" for s in entry["kept_for_effect"])
    for text in expect.get("kept_for_effect_contain", []):
        assert text in for_effect
    for sc in expect.get("super_calls", []):
        assert any(all(s.get(k) == v for k, v in sc.items()) for s in entry["super_calls"]), entry["super_calls"]
