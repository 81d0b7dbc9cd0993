"""The SGLang 0.5.23 patch: applies to a pristine tree, passes the static checks, is idempotent,
imports on the CPU, and builds no FlashInfer wrapper, index updater or FlashInfer backend."""

import importlib.util
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, REPORT_LINES, copy_tree, paragraphs, run_cli, tree_hashes

pytestmark = pytest.mark.sglang

TARGET = "sglang/srt/layers/attention/trtllm_mha_backend.py"
FLASHINFER_OBJECTS = (
    "BatchPrefillWithPagedKVCacheWrapper", "BatchPrefillWithRaggedKVCacheWrapper",
    "BatchDecodeWithPagedKVCacheWrapper", "FlashInferIndicesUpdaterDecode",
    "FlashInferIndicesUpdaterPrefill", "FlashInferAttnBackend",
)


@pytest.fixture(scope="module")
def patched(tmp_path_factory):
    from codemod.discover import fetch_release

    root = fetch_release()
    before = tree_hashes(root)
    out = tmp_path_factory.mktemp("sglang-patch")
    code, _, err = run_cli("--sglang", "--class", "TRTLLMHAAttnBackend", "--class", "TRTLLMHAAttnMultiStepDraftBackend", "--output", out)
    assert code == 0, err
    assert tree_hashes(root) == before, "the cached release must not change"
    tree = copy_tree(root, tmp_path_factory.mktemp("pristine") / "tree")
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    proc = subprocess.run(["git", "apply", str(out / "patch.diff")], cwd=tree, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return root, tree, out


def test_patch_touches_only_the_target_and_matches_files(patched):
    _, tree, out = patched
    diff = (out / "patch.diff").read_text()
    assert [l for l in diff.splitlines() if l.startswith("diff --git")] == [f"diff --git a/{TARGET} b/{TARGET}"]
    assert (tree / TARGET).read_text() == (out / "files" / TARGET).read_text()


def test_patched_file_compiles_and_adds_no_pyflakes_finding(patched):
    from codemod.check import new_findings

    root, tree, _ = patched
    before = (root / TARGET).read_text()
    after = (tree / TARGET).read_text()
    compile(after, TARGET, "exec")
    assert new_findings(before, after, TARGET) == []
    assert "FlashInferAttnBackend" not in after.split("class TRTLLMMHAMetadata")[0], "the parent's import is gone"


def test_patch_is_in_the_targets_black_style(patched):
    # SGLang formats with black (88 columns): the patched file has no black finding the
    # original does not have, and no line the patch adds is longer than 88 columns.
    import black

    root, tree, out = patched
    mode = black.Mode(line_length=88)

    def findings(text: str) -> set[str]:
        try:
            formatted = black.format_file_contents(text, fast=True, mode=mode)
        except black.NothingChanged:
            return set()
        return {line for line in black.diff(text, formatted, "a", "b").splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")}

    assert findings((tree / TARGET).read_text()) <= findings((root / TARGET).read_text())
    added = [l[1:] for l in (out / "patch.diff").read_text().splitlines() if l.startswith("+") and not l.startswith("+++")]
    assert added and max(len(l) for l in added) <= 88


def test_report_reads_as_the_pull_request(patched):
    root, _, out = patched
    md = (out / "report.md").read_text()
    report = json.loads((out / "report.json").read_text())
    heads = [l for l in md.splitlines() if l.startswith("## ")]
    assert heads == ["## What", "## Why", "## Risk", "## How tested"]
    assert md.startswith("# Decouple TRTLLMHAAttnBackend, TRTLLMHAAttnMultiStepDraftBackend from their parents")
    assert str(root) not in md and "/.cache/" not in md
    risk = md[md.index("## Risk"):md.index("## How tested")]
    # The environment writes no longer made, with the code that reads what they wrote.
    assert "SGLANG_FLASHINFER_WORKSPACE_SIZE.set(2048 * 1024 * 1024)" in risk
    assert "sglang/srt/layers/attention/trtllm_mha_backend.py:202" in risk
    assert "Validations: all 3" in risk and "public name" in risk and "comments to review" not in risk
    [c] = [c for c in report["classes"] if c["name"] == "TRTLLMHAAttnBackend"]
    assert {w["name"] for w in c["risk"]["global_writes"]} == {"SGLANG_FLASHINFER_WORKSPACE_SIZE"}
    # Its own comment on what super().__init__() did is gone with the call, and the copied one on
    # extend_dummy_seqs_capped_by_req_pool gave FlashInfer's reason (buffers the class never reads).
    assert c["comments_to_review"] == []
    assert [(m["file"].rsplit("/", 1)[1], m["line"], m["why"].split(",")[0]) for m in c["comments_removed"]] == [
        ("flashinfer_backend.py", 322, "names kv_indptr"), ("trtllm_mha_backend.py", 200, "speaks of the parent or super()")]
    # The second pass: the draft container still builds its index buffers: the decoupled backend
    # keeps kv_indptr (so it reads kv_indptr_buf), and tests kv_last_page_len_buf against None
    # (guarding the validations it keeps).
    [d] = [c for c in report["classes"] if c["name"] == "TRTLLMHAAttnMultiStepDraftBackend"]
    assert {(m["member"], m["parameter"], m["use"]["how"]) for m in d["risk"]["passed_on"]} == {
        ("kv_indptr", "kv_indptr_buf", "read"),
        ("kv_last_page_len", "kv_last_page_len_buf", "only compared with None")}
    assert ("`kv_last_page_len` is still built here only to be passed to `TRTLLMHAAttnBackend` (as `kv_last_page_len_buf`), "
            "which now only compares it with None") in risk
    # Members kept on uses that could not be ruled out are listed apart, for review.
    assert {k["member"] for k in d["kept"] if not k["certain"]} == {"kv_index_translator", "max_context_len", "page_size", "req_to_token_pool"}
    assert {k["member"] for k in c["kept"] if not k["certain"]} == {"enable_mis", "is_multimodal", "kv_indptr", "prefill_backend", "qo_indptr"}
    # Each says what stopped the typing: a reason, or the budget.
    for k in [k for k in c["kept"] + d["kept"] if not k["certain"]]:
        use = k["evidence"][0]["use"]
        assert "its type is unknown: " in use or "its sources go further than the typing follows" in use, use
    assert sum(1 for k in c["kept"] + d["kept"] if not k["certain"]) == 9 and "not ruled out" not in md


def test_report_is_short_and_says_each_thing_once(patched):
    _, _, out = patched
    md = (out / "report.md").read_text()
    assert len(md.splitlines()) <= REPORT_LINES
    said = paragraphs(md)
    assert [p for p in said if said.count(p) > 1] == []


def test_report_answers_each_risk_and_states_the_bytes(patched):
    root, _, out = patched
    md = (out / "report.md").read_text()
    report = json.loads((out / "report.json").read_text())
    risk = md[md.index("## Risk"):md.index("## How tested")]
    # Every item ends in the tool's answer, not a question.
    assert "?" not in risk
    item = next(l for l in risk.splitlines() if "SGLANG_FLASHINFER_WORKSPACE_SIZE.set(512" in l)
    assert "SGLANG_FLASHINFER_WORKSPACE_SIZE.set(2048" in item, "one item per name written"
    assert "declared at `sglang/srt/environ.py:1221` (default 384 MiB)" in item
    assert "can run in the same process after `TRTLLMHAAttnBackend` is built" in item
    assert "`sglang/srt/layers/attention/trtllm_mha_backend.py:202` (`TRTLLMHAAttnBackend.__init__`, each later instance)" in item
    # The calls no longer made that can raise.
    assert "`DllmConfig.from_server_args(...)` (line 348; `RuntimeError` at `sglang/srt/dllm/config.py:" in risk
    # The saving per process of the EAGLE configuration: the workspace cached by name once, the
    # FlashInfer wrappers (8 MiB GPU + 8 MiB pinned host each) with every construction.
    why = md[md.index("## Why"):md.index("## Risk")]
    assert "| **one process** | | **512 MiB** | **128 MiB** | |" in why
    assert "| target: `TRTLLMHAAttnBackend` | `attention_registry.py:283` | 416 MiB | 32 MiB | " in why
    assert "| draft extend: `TRTLLMHAAttnBackend` | `draft_utils.py:509` | 32 MiB | 32 MiB | " in why
    assert "`draft_utils.py:353` | 64 MiB | 64 MiB | " in why
    assert '`get_buffer("flashinfer_workspace")` (384 MiB, once per process: `flashinfer_backend.py:457`)' in why
    assert "384 MiB each" not in md and "each time it is constructed" not in md
    mem = report["memory"]
    assert (mem["gpu_bytes"], mem["pinned_bytes"]) == (512 << 20, 128 << 20)
    assert [(r["role"], r["gpu_bytes"] >> 20, r["pinned_bytes"] >> 20) for r in mem["constructions"]] == [
        ("target", 416, 32), ("draft extend", 32, 32), ("draft, 3 steps", 64, 64)]
    # Dropped: only what instances no longer have; what the class sets itself is said apart (report.json's).
    from codemod.report_md import _evidence

    [c] = [c for c in report["classes"] if c["name"] == "TRTLLMHAAttnBackend"]
    assert (c["risk"]["memory"]["first"]["gpu_bytes"] >> 20, c["risk"]["memory"]["later"]["gpu_bytes"] >> 20) == (416, 32)
    dropped_line = next(l for l in _evidence(c) if l.startswith("- Dropped (") and "decode_wrappers" in l)
    gone, _, still = dropped_line.partition("Not dropped")
    for member in ("forward_metadata", "workspace_buffer", "page_size"):
        assert f"`{member}`" not in gone and f"`{member}`" in still
        assert c["risk"]["still_defined"][member] == "TRTLLMHAAttnBackend"
    # No evidence points at a def or class line.
    for k in [k for c in report["classes"] for k in c["kept"]]:
        for ev in k["evidence"]:
            line = (root / ev["file"]).read_text().splitlines()[ev["line"] - 1].lstrip()
            assert not line.startswith(("def ", "async def ", "class ", "@")), (k["member"], ev)


def test_gpu_numbers_fold_into_why_and_how_tested(patched, tmp_path):
    import hashlib
    import shutil

    from codemod import report as report_module

    out = tmp_path / "out"
    shutil.copytree(patched[2], out)
    rep = json.loads((out / "report.json").read_text())
    digest = hashlib.sha256((out / "patch.diff").read_bytes()).hexdigest()
    verify = {"meta": {"device": "NVIDIA H200", "torch": "2.11.0+cu130"}, "gpu": "NVIDIA H200",
              "torch_version": "2.11.0+cu130", "flashinfer_version": "0.6.1",
              "tally": {"original": {"passed": 19}, "patched": {"passed": 19}},
              "outputs_compared": 19, "outputs_bitwise_equal": 19,
              "construction": {"TRTLLMHAAttnBackend": {"original": {"allocated_bytes_all": [981862400, 33949184, 33949184]},
                                                       "patched": {"allocated_bytes_all": [545391104, 131072, 131072]}}},
              "latency_gpu_bound": {"median_ms": {"original": 0.1679, "patched": 0.1714}, "ratio": 1.0191}}
    # A verify.json of another patch is not this one's: the report says it was not run on a GPU.
    (out / "verify.json").write_text(json.dumps({**verify, "patch_sha256": "0" * 64}))
    report_module.write(out, rep)
    md = (out / "report.md").read_text()
    assert "Not run on a GPU" in md and "19 of 19" not in md
    (out / "verify.json").write_text(json.dumps({**verify, "patch_sha256": digest}))
    report_module.write(out, rep)
    md = (out / "report.md").read_text()
    why = md[md.index("## Why"):md.index("## Risk")]
    assert "`TRTLLMHAAttnBackend` 416.3 MiB at the first construction, 32.25 MiB at each later one" in why
    tested = md[md.index("## How tested"):]
    assert "| outputs bitwise equal to the original's | | 19 of 19 |" in tested and "Not run on a GPU" not in tested
    assert "SM90 only" in tested and f"(`{digest[:12]}`)" in tested and "FlashInfer 0.6.1" in tested
    assert "within noise, 1.019x the original's" in tested and "unchanged" not in tested
    assert len(md.splitlines()) <= REPORT_LINES


def test_second_run_changes_nothing(patched):
    # The pull request carries no marker of the tool: the check after it judges by the MRO,
    # each class against the parent it had.
    _, tree, out_dir = patched
    assert "decouple:" not in (out_dir / "patch.diff").read_text()
    for cls, parent in (("TRTLLMHAAttnBackend", "FlashInferAttnBackend"),
                        ("TRTLLMHAAttnMultiStepDraftBackend", "FlashInferMultiStepDraftBackend")):
        code, out, err = run_cli(tree, "--class", cls, "--parent", parent, "--no-markers", "--check", "--diff")
        assert code == 0, err
        assert out == ""
        assert f"{cls}: already decoupled from {parent} (no class of its MRO is {parent})" in err


def test_the_proven_patch_has_nothing_dead_and_no_marker(tmp_path):
    # Under --keep proven: prefill_backend is gone (DC154), num_wrappers a local whose two asserts
    # are one (DC617), and nothing of the tool's is left in the code.
    code, _, err = run_cli("--sglang", "--keep", "proven", "--output", tmp_path)
    assert code == 0, err
    added = "\n".join(l[1:] for l in (tmp_path / "patch.diff").read_text().splitlines() if l.startswith("+"))
    assert "decouple:" not in added and "prefill_backend" not in added and "self.num_wrappers" not in added
    assert ("        if kv_indptr_buf is not None or kv_last_page_len_buf is not None:\n"
            '            assert num_wrappers == 1, "kv_indptr_buf or kv_last_page_len_buf is given"\n') in added + "\n"
    assert added.count("assert num_wrappers") == 1


def test_report_says_what_was_inlined(patched):
    _, _, out = patched
    report = json.loads((out / "report.json").read_text())
    target = next(c for c in report["classes"] if c["name"] == "TRTLLMHAAttnBackend")
    assert any("_kv_write_scales" in i for i in target["inlined"])
    assert any("extend_dummy_seqs_capped_by_req_pool" in i for i in target["inlined"])
    draft = next(c for c in report["classes"] if c["name"] == "TRTLLMHAAttnMultiStepDraftBackend")
    assert any("append" in i for i in draft["inlined"])


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None,
    reason="importing SGLang on the CPU needs requirements/sglang-cpu.txt (the README's test command installs it)",
)


def construct(sglang_root: Path, tmp: Path) -> dict:
    tmp.mkdir(parents=True, exist_ok=True)
    out = tmp / "facts.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "tests/sglang_cpu/construct_backends.py"), "--sglang-root", str(sglang_root), "--json", str(out)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def wheels(patched, tmp_path_factory):
    """Full unpacks of the wheel (package data included), original and with the patched file."""
    from codemod.discover import release_archive

    _, tree, _ = patched
    archive = release_archive()
    roots = {}
    for side in ("original", "patched"):
        d = tmp_path_factory.mktemp(side)
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(d)
        roots[side] = d
    (roots["patched"] / TARGET).write_text((tree / TARGET).read_text())
    return roots


@needs_torch
def test_construction_on_cpu_builds_no_flashinfer_objects(wheels, tmp_path):
    original = construct(wheels["original"], tmp_path / "o")
    patched = construct(wheels["patched"], tmp_path / "p")
    for cls in ("TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend"):
        assert sum(original[cls]["constructed"][k] for k in FLASHINFER_OBJECTS) > 0
        assert {k: patched[cls]["constructed"][k] for k in FLASHINFER_OBJECTS} == dict.fromkeys(FLASHINFER_OBJECTS, 0)
    # The parent's call of the class's _resolve_swa_kv_pool is not repeated (DC612): once per construction.
    assert original["TRTLLMHAAttnBackend"]["constructed"]["TRTLLMHAAttnBackend._resolve_swa_kv_pool"] == 2
    assert patched["TRTLLMHAAttnBackend"]["constructed"]["TRTLLMHAAttnBackend._resolve_swa_kv_pool"] == 1
    mro = patched["TRTLLMHAAttnBackend"]["mro"]
    assert "sglang.srt.layers.attention.base_attn_backend.AttentionBackend" in mro
    assert not any("FlashInfer" in m for m in mro)
    assert patched["TRTLLMHAAttnMultiStepDraftBackend"]["mro"][1:] == ["builtins.object"]
    # Everything the TRTLLM code and the rest of SGLang read is still there.
    for attr in ("token_to_kv_pool", "req_to_token_pool", "kv_index_translator", "kv_cache_quant_method", "use_sliding_window_kv_pool"):
        assert attr in patched["TRTLLMHAAttnBackend"]["instance_attributes"]
    for attr in ("attn_backends", "speculative_num_steps", "kv_index_translator"):
        assert attr in patched["TRTLLMHAAttnMultiStepDraftBackend"]["instance_attributes"]
    assert not {"decode_wrappers", "prefill_wrapper_ragged", "indices_updater_decode"} & set(
        patched["TRTLLMHAAttnBackend"]["instance_attributes"])
