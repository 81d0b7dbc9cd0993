"""`decouple verify` on a machine without CUDA: its errors are one line, exit 2, and it writes nothing."""

import json

from conftest import run_cli


def test_verify_without_a_previous_run_is_one_line(tmp_path):
    code, out, err = run_cli("verify", "--output", tmp_path / "none")
    assert code == 2 and out == ""
    assert err == f"decouple: error: {tmp_path / 'none' / 'report.json'} not found: run decouple --output {tmp_path / 'none'} first\n"


def test_verify_of_a_run_without_a_patch_or_without_cuda_is_one_line(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps({"classes": []}))
    code, _, err = run_cli("verify", "--output", tmp_path)
    assert code == 2 and err.count("\n") == 1 and "produced no patch" in err
    (tmp_path / "files").mkdir()
    code, _, err = run_cli("verify", "--output", tmp_path, env={"CUDA_VISIBLE_DEVICES": ""})
    assert code == 2 and err == "decouple: error: verify needs a CUDA GPU and torch with CUDA; none here\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["files", "report.json"]


def test_verify_help_names_what_it_writes_and_a_bad_sides_is_a_usage_error():
    code, out, _ = run_cli("verify", "--help")
    assert code == 0 and "verify.json" in out and "--sides {3,4}" in out and "pinned host" in out
    code, _, err = run_cli("verify", "--sides", "5")
    assert code == 2 and err.splitlines()[-1] == "decouple verify: error: argument --sides: invalid choice: 5 (choose from 3, 4)"
