"""benchmarks/gpu_hook_verify.py's CPU-testable parts, with stand-ins for the draft backends:
what a draft ends with, the comparison of the sides, its verdict and summary, and the
shell script's syntax. (The GPU side runs on the H200: benchmarks/gpu_hook_verify.sh.)"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "gpu_hook_verify.py"
spec = importlib.util.spec_from_file_location("gpu_hook_verify", SCRIPT)
ghv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ghv)
torch = pytest.importorskip("torch")


class FlashInferMLAAttnBackend:
    def __init__(self, kv, q, extra=0):
        self.kv_indptr = kv
        self.q_indptr_decode = q
        self.max_context_len = 64
        self.workspace = torch.zeros(16 + extra, dtype=torch.int8)


class TRTLLMMLABackend(FlashInferMLAAttnBackend):
    pass


class Draft:
    def __init__(self, step_cls, steps=4, **kw):
        self.kv_indptr = torch.zeros(steps, 5, dtype=torch.int32)
        self.q_indptr_decode = torch.arange(5, dtype=torch.int32)
        self.attn_backends = [step_cls(self.kv_indptr[i], self.q_indptr_decode, **kw) for i in range(steps - 1)]
        self.attn_backend_list = self.attn_backends
        self.max_context_len = self.attn_backends[0].max_context_len


def test_describe_names_each_step_type_and_its_own_buffers():
    d = ghv.describe_draft(Draft(TRTLLMMLABackend), torch.is_tensor)
    assert d["list_alias"] and d["max_context_len"] == 64
    assert [s["type"] for s in d["attn_backends"]] == ["TRTLLMMLABackend"] * 3
    s1 = d["attn_backends"][1]["tensors"]
    assert s1["kv_indptr"] == [[5], "torch.int32", "cpu", 20, "own:kv_indptr[1]"]
    assert s1["q_indptr_decode"][-1] == "own:q_indptr_decode" and s1["workspace"][-1] == ""
    # A per-step backend with a buffer of its own instead of the draft's view: told apart.
    other = Draft(TRTLLMMLABackend)
    other.attn_backends[1].kv_indptr = other.kv_indptr[1].clone()
    assert ghv.describe_draft(other, torch.is_tensor) != d


def side(hooked, trtllm_extra=0, digest="ab", kit_status="passed"):
    def builds(cls, built, alloc, **kw):
        return [{"seconds": 0.01 * (k + 1), "allocated_bytes": alloc * (3 if k == 0 else 1), "peak_bytes": alloc,
                 "pinned_bytes": 0, "built": built, "ends_with": ghv.describe_draft(Draft(cls, **kw), torch.is_tensor)}
                for k in range(3)]
    fi = {"FlashInferMLAAttnBackend (as FlashInferMLAAttnBackend)": 3}
    tr = {"TRTLLMMLABackend (as TRTLLMMLABackend)": 3, "FlashInferMLAAttnBackend (as TRTLLMMLABackend)": 3}
    if not hooked:
        tr["FlashInferMLAAttnBackend (as FlashInferMLAAttnBackend)"] = 3
    return {"hooked": hooked, "errors": [],
            "construction": {"FlashInferMLAMultiStepDraftBackend": {"builds": builds(FlashInferMLAAttnBackend, fi, 100)},
                             "TRTLLMMLAMultiStepDraftBackend": {"builds": builds(TRTLLMMLABackend, tr, 300 if not hooked else 120,
                                                                                 extra=trtllm_extra)}},
            "kit": {"flashinfer_mla": {"mla_decode": {"status": kit_status, "sha256": digest}},
                    "trtllm_mla": {"not_run": "SM90: needs SM100"}}}


def test_compare_passes_when_the_objects_match_and_says_what_is_saved():
    cmp = ghv.compare(side(False), side(True))
    assert ghv.verdict(cmp)
    t = cmp["classes"]["TRTLLMMLAMultiStepDraftBackend"]
    assert t["same_objects"] and t["ends_with"] == ["TRTLLMMLABackend"]
    assert t["allocated_bytes"]["saved_first"] == 540 and t["allocated_bytes"]["saved_later"] == 180
    assert cmp["classes"]["FlashInferMLAMultiStepDraftBackend"]["allocated_bytes"]["saved_later"] == 0
    text = ghv.summary(cmp)
    assert "kit trtllm_mla: not run: SM90: needs SM100" in text and "outputs bitwise equal 1 of 1" in text


@pytest.mark.parametrize("patched, why", [
    (side(True, trtllm_extra=1), "a per-step buffer of another size"),
    (side(True, digest="cd"), "a kit output that differs"),
    (side(True, kit_status="failed"), "a kit case that fails on one side"),
    (side(False), "a patched side without the hook"),
])
def test_compare_fails_on(patched, why):
    assert not ghv.verdict(ghv.compare(side(False), patched)), why


def test_compare_fails_when_the_parent_builds_otherwise():
    patched = side(True)
    builds = patched["construction"]["FlashInferMLAMultiStepDraftBackend"]["builds"]
    builds[-1]["built"] = {}
    assert not ghv.verdict(ghv.compare(side(False), patched))


def test_compare_cli_with_a_missing_side_prints_a_summary_and_fails(tmp_path):
    (tmp_path / "o.json").write_text(json.dumps(side(False)))
    proc = subprocess.run([sys.executable, str(SCRIPT), "compare", str(tmp_path / "o.json"), str(tmp_path / "p.json"),
                           "--json", str(tmp_path / "c.json")], capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1] == "gpu_hook_verify: FAILED"
    assert "NOT COMPARED" in proc.stdout and "no result" in proc.stdout
    assert json.loads((tmp_path / "c.json").read_text())["passed"] is False
    (tmp_path / "p.json").write_text(json.dumps(copy.deepcopy(side(True))))
    proc = subprocess.run([sys.executable, str(SCRIPT), "compare", str(tmp_path / "o.json"), str(tmp_path / "p.json")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "gpu_hook_verify: PASSED"


def test_the_shell_script_parses():
    subprocess.run(["bash", "-n", str(REPO / "benchmarks" / "gpu_hook_verify.sh")], check=True)
