"""``decouple scan`` on SGLang 0.5.23: the TRTLLM backends at the top, recommended; the
classes whose full analysis declines them, not."""

import json

import pytest

from conftest import run_cli

pytestmark = pytest.mark.sglang

RECOMMENDED = {"TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend"}
# Their full analysis declines them (tests/test_sglang_parents.py says why).
NOT_RECOMMENDED = {"TRTLLMMLABackend", "FlashMLABackend", "TRTLLMMLAMultiStepDraftBackend", "LLaDA2CFGFlashInferAttnBackend"}


def test_scan_ranks_and_judges_sglang(tmp_path):
    from codemod.discover import fetch_release

    root = fetch_release()
    code, out, err = run_cli("scan", root, "--format", "json", "--top", "10", env={"DECOUPLE_CACHE_DIR": str(tmp_path)})
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 10
    assert RECOMMENDED <= {r["class"] for r in rows[:5]}
    decoupled = {r["class"] for r in rows if r["verdict"] == "decouple"}
    assert RECOMMENDED <= decoupled and not decoupled & NOT_RECOMMENDED
    # Any other class recommended in the top 10 is explained in docs/scan.md.
    from conftest import REPO

    doc = (REPO / "docs" / "scan.md").read_text()
    assert all(f"`{name}`" in doc for name in decoupled - RECOMMENDED)


def test_scan_lists_what_sglang_builds_then_replaces(tmp_path):
    """``--replaced`` (DC408): both MLA draft backends at the top, each with a possible hook,
    and the model classes that throw away a parent's modules, each with what it cost."""
    from codemod.discover import fetch_release

    root = fetch_release()
    code, out, err = run_cli("scan", root, "--replaced", "--top", "0", "--format", "json",
                             env={"DECOUPLE_CACHE_DIR": str(tmp_path)})
    assert code == 0, err
    rows = {r["class"]: r for r in json.loads(out)}
    for name in ("TRTLLMMLAMultiStepDraftBackend", "CuteDslMLAMultiStepDraftBackend"):
        assert rows[name]["verdict"] == "hook possible", rows[name]["reason"]
        reads = {r["at"].rsplit("/", 1)[-1]: r["same_value"] for s in rows[name]["statements"] for r in s["reads"]}
        assert reads == {"flashinfer_mla_backend.py:1231": True, "flashinfer_mla_backend.py:1232": True}
    # The CuteDsl draft throws away two sets: the TRTLLM one and the FlashInfer-MLA one its parent replaces.
    assert len(rows["CuteDslMLAMultiStepDraftBackend"]["statements"]) == 2
    models = [r for r in rows.values() if "/models/" in r["file"]]
    assert len(models) >= 10
    assert {"GlmOcrVisionModel", "MistralForCausalLMEagle", "LongLive2Transformer3DModel", "GigaChat35DecoderLayer"} <= set(rows)
    assert all(s["constructions"] or s["allocations"] for r in models for s in r["statements"])
    # The parent's reads that may differ refuse the hook, with the line.
    assert rows["MistralForCausalLMEagle"]["verdict"] == "refused" and "llama_eagle.py:133" in rows["MistralForCausalLMEagle"]["reason"]
