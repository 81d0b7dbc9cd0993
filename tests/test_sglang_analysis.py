"""The analysis of both TRTLLM classes on SGLang 0.5.23 from PyPI, checked against facts read by hand.

The facts (see docs/sglang-facts.md): TRTLLMHAAttnBackend reads the parent's token/req pools,
KV translator and quant method, its SWA flag and `_kv_write_scales`; outside code reads the
`extend_dummy_seqs_capped_by_req_pool` flag. Nothing reads the FlashInfer wrappers, index
updaters or index buffers through a TRTLLM instance.
"""

import json
from pathlib import Path

import pytest

from conftest import run_cli

pytestmark = pytest.mark.sglang


@pytest.fixture(scope="module")
def sglang_report(tmp_path_factory):
    from codemod.discover import fetch_release

    root = fetch_release()
    out = tmp_path_factory.mktemp("sglang-report")
    code, _, err = run_cli("--sglang", "--output", out, "--analyse-only")
    assert code == 0, err
    return root, json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


def entry(report, name):
    [c] = [c for c in report["classes"] if c["name"] == name]
    return c


TARGET_KEPT = {
    "token_to_kv_pool", "req_to_token_pool", "kv_index_translator", "kv_cache_quant_method",
    "use_sliding_window_kv_pool", "_kv_write_scales", "extend_dummy_seqs_capped_by_req_pool",
}
# kv_indptr (and with it qo_indptr) stays: aiter_backend.py reads it on self.forward_metadata,
# which hybrid backends' stores elsewhere fill with values the typing cannot follow.
TARGET_DROPPED = {
    "prefill_wrapper_ragged", "prefill_wrappers_paged", "prefill_wrappers_verify", "decode_wrappers",
    "full_cg_prefill_wrappers", "indices_updater_prefill", "indices_updater_decode",
    "kv_last_page_len", "full_cg_prefill_workspace_buffer",
    "decode_use_tensor_cores", "dispatch_reason", "use_paged", "dllm_config",
    "_create_decode_wrappers", "_create_prefill_wrappers", "forward_metadata",
}


def test_target_backend_keeps_what_it_reads(sglang_report):
    _, report, _ = sglang_report
    c = entry(report, "TRTLLMHAAttnBackend")
    assert c["decision"] == "decouple"
    assert c["parent"] == "sglang.srt.layers.attention.flashinfer_backend:FlashInferAttnBackend"
    assert c["new_base"] == "sglang.srt.layers.attention.base_attn_backend:AttentionBackend"
    kept = {k["member"] for k in c["kept"]}
    assert TARGET_KEPT <= kept
    assert {d["member"] for d in c["dropped"]} >= TARGET_DROPPED
    assert not kept & TARGET_DROPPED


def test_target_backend_keeps_the_parents_validations(sglang_report):
    # FlashInfer's three assertions run for TRTLLM too; num_wrappers stays, as the two read it.
    # The index updaters are handed the backend but keep it to themselves: not kept (DC111).
    _, report, _ = sglang_report
    c = entry(report, "TRTLLMHAAttnBackend")
    assert [s["rule"] for s in c["kept_for_effect"]] == ["DC110"] * 3
    assert "num_wrappers" in {k["member"] for k in c["kept"]}
    effects = " ".join(s["code"] for s in c["dropped_side_effects"])
    assert "FlashInferIndicesUpdaterDecode(model_runner, self)" in effects


def test_target_backend_lists_dropped_side_effects(sglang_report):
    _, report, _ = sglang_report
    c = entry(report, "TRTLLMHAAttnBackend")
    effects = [f"{s['code']} {s['why']}" for s in c["dropped_side_effects"]]
    assert any("SGLANG_FLASHINFER_WORKSPACE_SIZE.set" in e for e in effects)
    assert any("BatchDecodeWithPagedKVCacheWrapper" in e for e in effects)
    assert any("FlashInferIndicesUpdaterDecode" in e for e in effects)
    assert any("get_buffer" in e for e in effects)


def test_every_kept_member_has_evidence_a_reviewer_can_open(sglang_report):
    root, report, _ = sglang_report
    for c in report["classes"]:
        for k in c["kept"]:
            assert k["evidence"], k
            for ev in k["evidence"]:
                line = (Path(root) / ev["file"]).read_text().splitlines()[ev["line"] - 1]
                # The cited line mentions the member, or is the kept statement that needs it.
                assert k["member"] in line or "kept statement" in ev["use"] or "defined by" in ev["use"], (k["member"], ev, line)


def test_draft_backend(sglang_report):
    _, report, md = sglang_report
    c = entry(report, "TRTLLMHAAttnMultiStepDraftBackend")
    assert c["decision"] == "decouple"
    assert c["new_base"] == "object"
    kept = {k["member"] for k in c["kept"]}
    assert {"attn_backends", "speculative_num_steps", "kv_index_translator"} <= kept
    dropped = {d["member"] for d in c["dropped"]}
    assert {"generate_draft_decode_kv_indices", "common_template", "pool_len", "cuda_graph_kv_indices", "draft_window_size"} <= dropped
    # report.md is one screen: each class has its own item under Risk; the evidence is report.json's.
    assert "- `TRTLLMHAAttnMultiStepDraftBackend`:" in md.split("## Risk")[1] and "`report.json` has the rest" in md


@pytest.fixture(scope="module")
def sglang_proven(tmp_path_factory):
    out = tmp_path_factory.mktemp("sglang-proven")
    code, _, err = run_cli("--sglang", "--output", out, "--analyse-only", "--keep", "proven")
    assert code == 0, err
    return json.loads((out / "report.json").read_text())


# Under --keep proven: members read only on objects of unknown type are assumptions; every kept
# member has a use shown on an instance (its own code, kept parent code, a typed receiver).
PROVEN = {
    "TRTLLMHAAttnBackend": (
        {"_swa_kv_pool", "kv_cache_quant_method", "kv_index_translator", "num_wrappers",
         "req_to_token_pool", "token_to_kv_pool", "use_sliding_window_kv_pool",
         "extend_dummy_seqs_capped_by_req_pool", "_kv_write_scales"},
        # prefill_backend: DC154 proves its getattr readers; the hasattr in forward_mha.py:60 (an
        # `and` whose decisive test, _select_backend, is not next to it) stays an assumption.
        {"enable_mis", "is_multimodal", "kv_indptr", "prefill_backend", "qo_indptr"}),
    "TRTLLMHAAttnMultiStepDraftBackend": (
        {"attn_backends", "kv_index_translator", "kv_indptr", "kv_last_page_len", "speculative_num_steps", "topk"},
        {"max_context_len", "page_size", "req_to_token_pool"}),
}


@pytest.mark.parametrize("name", sorted(PROVEN))
def test_proven_keeps_shown_uses_and_lists_the_rest_as_assumptions(sglang_proven, name):
    c = entry(sglang_proven, name)
    kept, assumed = PROVEN[name]
    assert {k["member"] for k in c["kept"]} == kept
    assert {a["member"] for a in c["assumptions"]} == assumed
    assert all(k["evidence"][0]["strength"] in ("own", "shown") for k in c["kept"])


def test_proven_drops_prefill_backend_on_the_proof_of_both_readers(sglang_proven):
    # Both readers do getattr(backend, "prefill_backend", backend) and test the result's
    # fa_impl_ver against 4 (gemma4_mm also isinstance TritonAttnBackend): "fa2" and the backend
    # answer alike (DC154).
    c = entry(sglang_proven, "TRTLLMHAAttnBackend")
    [d] = c["dropped_on_proof"]
    assert d["member"] == "prefill_backend" and "prefill_backend" in {x["member"] for x in c["dropped"]}
    reads = {(r["file"], r["line"]): r["use"] for r in d["reads"]}
    assert set(reads) == {("sglang/srt/models/gemma4_mm.py", 342),
                          ("sglang/srt/model_executor/runner/prefill_cuda_graph_runner.py", 332)}
    gemma = reads[("sglang/srt/models/gemma4_mm.py", 342)]
    assert ("with it the value is 'fa2', without it `attn_backend` itself; either way "
            "`getattr(prefill_backend, 'fa_impl_ver', None) == 4` is False, "
            "`not isinstance(prefill_backend, TritonAttnBackend)` is True "
            "(no instance of TRTLLMHAAttnBackend has fa_impl_ver); its reads at lines 377, 455, 458 run on neither side") in gemma
    assert all(r["rule"] == "DC154" for r in d["reads"])


def test_the_default_keeps_prefill_backend(sglang_report):
    c = entry(sglang_report[1], "TRTLLMHAAttnBackend")
    assert "prefill_backend" in {k["member"] for k in c["kept"]} and "dropped_on_proof" not in c


def test_proven_keeps_the_translator_the_binder_reads_on_the_draft(sglang_proven):
    # KVIndexTranslator.bind_and_verify_backends reads .kv_index_translator on every backend of a
    # list that holds the draft (made by a factory picked from a table): a real reader
    c = entry(sglang_proven, "TRTLLMHAAttnMultiStepDraftBackend")
    ev = next(k for k in c["kept"] if k["member"] == "kv_index_translator")["evidence"][0]
    assert (ev["file"], ev["line"], ev["strength"]) == ("sglang/srt/mem_cache/kv_index_translator.py", 669, "shown")
