"""On a CUDA GPU: decouple the installed SGLang, then run its own attention kit on both sides.

Skips cleanly without CUDA (CI has none). On the lent H200, through the bundle:
    source .gpu-bundle/activate.sh && python3 -m pytest tests/gpu -m gpu -s
(``DECOUPLE_GPU_ARGS="--keep proven"`` verifies the patch made with those options.)
"""

import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from conftest import run_cli

pytestmark = pytest.mark.gpu


def _cuda() -> str | None:
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed"
    from codemod.gpu.verify import cuda_available

    if not cuda_available():
        return "no CUDA device"
    if importlib.util.find_spec("sglang") is None:
        return "SGLang is not installed (on the GPU machine: source .gpu-bundle/activate.sh)"
    return None


SKIP = _cuda()


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    if SKIP:
        pytest.skip(f"GPU verification needs CUDA: {SKIP}")
    from codemod.gpu.verify import installed_sglang

    out = Path(os.environ.get("DECOUPLE_GPU_OUT") or tmp_path_factory.mktemp("gpu-out"))
    root = tmp_path_factory.mktemp("sglang-root")
    shutil.copytree(installed_sglang(), root / "sglang", ignore=lambda d, names: [n for n in names if not (n.endswith(".py") or (Path(d) / n).is_dir()) or n == "__pycache__"])
    # DECOUPLE_GPU_ARGS: more options for the run that makes the patch ("--keep proven")
    extra = shlex.split(os.environ.get("DECOUPLE_GPU_ARGS", ""))
    code, _, err = run_cli(root, "--class", "TRTLLMHAAttnBackend", "--class", "TRTLLMHAAttnMultiStepDraftBackend", "--emit-tests",
                           "--output", out, *extra)
    assert code == 0, err
    code, _, err = run_cli("verify", "--output", out, "--repeats", os.environ.get("DECOUPLE_GPU_REPEATS", "20"),
                           "--sides", os.environ.get("DECOUPLE_GPU_SIDES", "4"), "--timeout", os.environ.get("DECOUPLE_GPU_SIDE_TIMEOUT", "900"))
    sys.stderr.write(err[-3000:])
    assert (out / "verify.json").exists(), err[-2000:]
    return json.loads((out / "verify.json").read_text()), code


def test_every_case_passes_on_both_sides(verified):
    data, _ = verified
    t = data["tally"]
    assert t["original"]["failed"] == 0 and t["patched"]["failed"] == 0, data["cases"]
    assert t["original"]["passed"] == t["patched"]["passed"] > 0
    assert all(c["original"] == c["patched"] for c in data["cases"])


def test_outputs_are_bitwise_equal_or_within_the_originals_own_spread(verified):
    data, _ = verified
    assert data["outputs_compared"] > 0
    for c in data["cases"]:
        if "bitwise_equal" in c:
            assert c["bitwise_equal"] or c.get("within_spread"), c


def test_draft_backend_is_covered(verified):
    data, _ = verified
    assert "TRTLLMHAAttnMultiStepDraftBackend" in data["construction"]
    assert any(c["mode"] == "draft" and c["patched"] == "passed" for c in data["cases"]), data["cases"]


def test_patched_backends_build_no_flashinfer_objects_and_allocate_less(verified):
    data, code = verified
    for cls, c in data["construction"].items():
        assert c["flashinfer_objects_patched"] == 0, (cls, c)
    assert data["construction"]["TRTLLMHAAttnBackend"]["saved_mib"] > 0
    assert code == 0


def test_verify_json_names_the_patch_and_the_memory_per_construction_and_per_process(verified):
    data, _ = verified
    out = Path(os.environ.get("DECOUPLE_GPU_OUT") or Path(data["patch"]).parent)
    assert data["patch_sha256"] == hashlib.sha256((out / "patch.diff").read_bytes()).hexdigest()
    assert data["flashinfer_version"] and data["torch_version"] and data["gpu"]
    m = data["memory"]
    assert m["first"]["gpu_mib"] > 0 and m["later"], m
    assert m["per_process"].get("gpu_mib", 0) > 0 and len(m["per_process"]["parts"]) == 3, m["per_process"]
    assert m["pinned_method"] and m["first"]["pinned_mib"] is not None, m


def test_the_emitted_sglang_test_fails_on_the_original_and_passes_on_the_patched(verified):
    data, _ = verified
    e = data["emitted_test"]
    assert e["source"] == "--emit-tests", e
    assert e["as_expected"], e
