"""Every FlashInfer subclass in SGLang 0.5.23 gets a verdict with evidence; only real waste is patched."""

import json

import pytest

from conftest import run_cli

pytestmark = pytest.mark.sglang

EXPECTED = {
    "FlashInferAttnBackend": {
        "TRTLLMHAAttnBackend": ("decouple", ""),
        # LLaDA2 CFG calls super().init_forward_metadata(): FlashInfer's planning is reused at run time.
        "LLaDA2CFGFlashInferAttnBackend": ("decline", "falls back to FlashInferAttnBackend.init_forward_metadata"),
    },
    # The decisive fallback needs the wrappers and updaters FlashInfer MLA builds; the prefill
    # fallback of forward_extend (the ragged wrapper) is named beside it.
    "FlashInferMLAAttnBackend": {
        "FlashMLABackend": ("decline", "init_forward_metadata through super() at run time"),
        "TRTLLMMLABackend": ("decline", "which needs decode_wrapper"),
    },
    "FlashInferMultiStepDraftBackend": {
        "TRTLLMHAAttnMultiStepDraftBackend": ("decouple", ""),
    },
    "FlashInferMLAMultiStepDraftBackend": {
        "TRTLLMMLAMultiStepDraftBackend": ("decline", "which needs attn_backends, kv_indptr"),
    },
}


@pytest.mark.parametrize("parent", sorted(EXPECTED))
def test_parent_verdicts(parent, tmp_path):
    from codemod.discover import fetch_release

    fetch_release()
    code, _, err = run_cli("--sglang", "--parent", parent, "--output", tmp_path)
    assert code == 0, err
    report = json.loads((tmp_path / "report.json").read_text())
    got = {c["name"]: c for c in report["classes"]}
    assert set(got) == set(EXPECTED[parent])
    for name, (decision, why) in EXPECTED[parent].items():
        assert got[name]["decision"] == decision, got[name]["reason"]
        assert why in got[name]["reason"]
        if name == "TRTLLMMLABackend":
            assert "forward_extend" in got[name]["reason"]
        if decision == "decline":
            # The evidence of the reuse is a file:line a reviewer can open.
            assert any(s["reaches_parent"] for s in got[name]["super_calls"])
    patched = {c["name"] for c in report["classes"] if c["decision"] == "decouple"}
    diff = (tmp_path / "patch.diff").read_text() if (tmp_path / "patch.diff").exists() else ""
    for name, c in got.items():
        if name not in patched:
            assert f"class {name}(" not in diff, f"{name} was declined but patched"
