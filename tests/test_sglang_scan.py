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
