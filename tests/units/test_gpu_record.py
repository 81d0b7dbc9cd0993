"""verify.json from recorded measurements (no GPU): the fields report.md reads and the memory table."""

import hashlib
import json

import pytest

from codemod.gpu.record import assemble, memory_table, summary
from codemod.gpu.verify import render

MiB = 1 << 20


def build(gpu, pinned, reserved=0):
    return {"gpu_bytes": int(gpu * MiB), "pinned_bytes": None if pinned is None else int(pinned * MiB),
            "reserved_bytes": int(reserved * MiB), "peak_bytes": int(gpu * MiB)}


def side(first, later, per_process_parts, pinned_method="torch.cuda.host_memory_stats()['active_bytes.current']"):
    parts = [dict(role=r, **{"class": c}, **build(g, p)) for r, c, g, p in per_process_parts]
    total = {k: None if any(p[k] is None for p in parts) else sum(p[k] for p in parts)
             for k in ("gpu_bytes", "pinned_bytes", "reserved_bytes", "peak_bytes")}
    return {"device": "NVIDIA H200", "torch": "2.11.0+cu130", "flashinfer": "0.7.2.post1", "sglang": "0.5.23",
            "pinned_method": pinned_method, "cases": [],
            "construction": {"TRTLLMHAAttnBackend": {"builds": [build(*first)] + [build(*b) for b in later]}},
            "per_process": {"config": "EAGLE topk 1, 3 steps", "parts": parts, **total}}


# Shaped like the H200's numbers: the first construction pays for the cached 384 MiB workspace,
# each later one for its wrappers (8 MiB GPU + 8 MiB pinned each).
ORIGINAL = side((936.4, 32.0), [(552.25, 32.0), (552.25, 32.0)],
                [("target", "TRTLLMHAAttnBackend", 936.4, 32.0), ("draft_extend", "TRTLLMHAAttnBackend", 552.25, 32.0),
                 ("draft_decode", "TRTLLMHAAttnMultiStepDraftBackend", 1000.0, 64.0)])
PATCHED = side((520.1, 0.0), [(520.0, 0.0), (520.0, 0.0)],
               [("target", "TRTLLMHAAttnBackend", 520.1, 0.0), ("draft_extend", "TRTLLMHAAttnBackend", 520.0, 0.0),
                ("draft_decode", "TRTLLMHAAttnMultiStepDraftBackend", 520.3, 0.0)])
SUMMARY = {"cases": [], "tally": {"original": {"passed": 19}, "patched": {"passed": 19}}, "outputs_compared": 19,
           "outputs_bitwise_equal": 19, "construction": {},
           "latency": {"mha_decode_page_boundary": {"original_ms": 1.0, "patched_ms": 0.98, "ratio": 0.98, "noise_ratio": 1.02}},
           "latency_gpu_bound": {}, "checks": {"same_status": True, "outputs_equal": True}, "ok": True}


def test_first_later_and_per_process_are_apart_and_add_up():
    m = memory_table({"original": ORIGINAL, "patched": PATCHED})
    assert m["first"]["gpu_mib"] == pytest.approx(416.3) and m["first"]["pinned_mib"] == pytest.approx(32.0)
    assert [f["gpu_mib"] for f in m["later"]] == [pytest.approx(32.25)] * 2
    assert [f["construction"] for f in m["later"]] == [2, 3]
    pp = m["per_process"]
    assert pp["gpu_mib"] == pytest.approx(sum(p["gpu_mib"] for p in pp["parts"]))
    assert pp["pinned_mib"] == pytest.approx(128.0)
    assert [p["role"] for p in pp["parts"]] == ["target", "draft_extend", "draft_decode"]
    assert pp["original"]["gpu_mib"] == pytest.approx(2488.65) and pp["patched"]["pinned_mib"] == 0.0


def test_a_figure_not_measured_is_none_not_zero():
    o = side((936.4, None), [], [("target", "TRTLLMHAAttnBackend", 936.4, None)], pinned_method=None)
    m = memory_table({"original": o, "patched": PATCHED})
    assert m["first"]["pinned_mib"] is None and m["first"]["gpu_mib"] == pytest.approx(416.3)
    assert m["per_process"]["pinned_mib"] is None
    text = render({**SUMMARY, "memory": m}, {})
    assert "not measured" in text and "nowhere (not measured)" in text


def test_verify_json_names_the_patch_the_versions_and_the_gpu(tmp_path):
    patch = tmp_path / "patch.diff"
    patch.write_bytes(b"--- a/x\n+++ b/x\n")
    emitted = {"as_expected": True, "file": "t.py", "source": "--emit-tests", "fails_on_original": ["a"],
               "original": {"tests": {"a": "failed"}}, "patched": {"tests": {"a": "passed"}}}
    data = json.loads(json.dumps(assemble({"original": ORIGINAL, "patched": PATCHED}, SUMMARY, patch, emitted, [])))
    assert data["patch_sha256"] == hashlib.sha256(patch.read_bytes()).hexdigest()
    assert (data["flashinfer_version"], data["torch_version"], data["gpu"]) == ("0.7.2.post1", "2.11.0+cu130", "NVIDIA H200")
    assert set(data["memory"]) >= {"first", "later", "per_process"}
    assert data["latency_summary"]["mha_decode_page_boundary"]["ratio"] == 0.98
    assert data["ok"] and data["checks"]["emitted_test"]
    # The emitted test not behaving as expected makes the run not verified.
    worse = assemble({"original": ORIGINAL, "patched": PATCHED}, SUMMARY, patch, {**emitted, "as_expected": False}, [])
    assert not worse["ok"] and "emitted_test" in render(worse, {}).rsplit("not verified", 1)[1]
    assert assemble({}, SUMMARY, tmp_path / "none.diff", None, [])["patch_sha256"] is None


def test_the_table_shows_each_construction_and_the_process():
    text = render({**SUMMARY, "memory": memory_table({"original": ORIGINAL, "patched": PATCHED})}, {})
    assert "| `TRTLLMHAAttnBackend`, first in the process | 936.40 -> 520.10 (-416.30) | 32.00 -> 0.00 (-32.00) |" in text
    assert "| `TRTLLMHAAttnBackend`, construction 3 | 552.25 -> 520.00 (-32.25) |" in text
    assert "**per process, EAGLE topk 1, 3 steps** |" in text and "(-128.00) |" in text


def test_the_printed_summary_is_short_and_says_what_failed(tmp_path):
    data = assemble({"original": ORIGINAL, "patched": PATCHED}, SUMMARY, tmp_path / "patch.diff", None, [])
    text = summary(data)
    assert len(text.splitlines()) <= 6 and text.startswith("verify: verified")
    assert "per EAGLE process 928.25 MiB GPU + 128.00 MiB pinned" in text
    bad = summary({**data, "ok": False, "checks": {"outputs_equal": False}})
    assert bad.startswith("verify: NOT verified") and bad.endswith("failed checks: outputs_equal")
