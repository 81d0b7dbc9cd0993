#!/usr/bin/env python3
"""Construct SGLang's MLA multi-step draft backends on a CPU-only machine.

    python construct_mla_drafts.py --sglang-root DIR --json OUT.json

As ``construct_backends.py`` (whose set-up it reuses: stand-ins for ``triton`` and
``torchvision``, a ``flashinfer`` stand-in, counting fakes for the FlashInfer wrappers), with
the kit's ``MockMLAModelRunner`` on ``cpu``: builds ``FlashInferMLAMultiStepDraftBackend``,
``TRTLLMMLAMultiStepDraftBackend`` and ``CuteDslMLAMultiStepDraftBackend`` (topk 1, 4 steps:
3 per-step backends each) and writes, per class, how many per-step backends of each class
its construction ran ``__init__`` for, and what it ends with (``gpu_hook_verify.describe_draft``:
each per-step backend's type and tensors, which of them are the draft's own buffers).
``TRTLLMMLABackend``'s kernel prebuild (``_jit_fixup_module``) is a no-op here: it JIT-builds a
CUDA kernel. On failure one line on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import importlib.util
import json
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import construct_backends as cb

spec = importlib.util.spec_from_file_location("gpu_hook_verify", HERE.parent.parent / "benchmarks" / "gpu_hook_verify.py")
ghv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ghv)

DRAFTS = (("flashinfer_mla_backend", "FlashInferMLAMultiStepDraftBackend"),
          ("trtllm_mla_backend", "TRTLLMMLAMultiStepDraftBackend"),
          ("cutedsl_mla_backend", "CuteDslMLAMultiStepDraftBackend"))
PER_STEP = (("flashinfer_mla_backend", "FlashInferMLAAttnBackend"), ("trtllm_mla_backend", "TRTLLMMLABackend"),
            ("cutedsl_mla_backend", "CuteDslMLABackend"))
MLA_WRAPPERS = ("BatchPrefillWithRaggedKVCacheWrapper", "BatchMLAPagedAttentionWrapper")


def construct(root: Path) -> dict:
    import torch

    mods = {}
    mods["flashinfer_mla_backend"] = fm = importlib.import_module("sglang.srt.layers.attention.flashinfer_mla_backend")
    for name in MLA_WRAPPERS:
        setattr(fm, name, cb.make_counting_fake(name))
    mods["trtllm_mla_backend"] = tm = importlib.import_module("sglang.srt.layers.attention.trtllm_mla_backend")
    tm.flashinfer = cb.make_flashinfer_stand_in()
    tm._jit_fixup_module = lambda dtype: None
    mods["cutedsl_mla_backend"] = importlib.import_module("sglang.srt.layers.attention.cutedsl_mla_backend")
    built = collections.Counter()
    for mod, name in PER_STEP:
        cls = getattr(mods[mod], name)
        orig = cls.__dict__["__init__"]

        def __init__(obj, *a, _orig=orig, _name=name, **k):
            built[_name] += 1
            return _orig(obj, *a, **k)

        cls.__init__ = __init__
    ma = importlib.import_module("sglang.test.kits.attention_unittest.attention_methods.mla_attention")
    import sglang.srt.runtime_context as rc

    out = {"hooked": hasattr(fm.FlashInferMLAMultiStepDraftBackend, "_build_attn_backend"), "drafts": {}}
    for mod, name in DRAFTS:
        case = ma.MLAAttentionCase(name="cpu_draft", backend="trtllm_mla", forward_mode=ma.ForwardMode.DECODE,
                                   num_heads=16, page_size=64, prefix_lens=(7,))
        mc = ma.TinyMLAModelConfig(num_heads=16, kv_lora_rank=512, qk_rope_head_dim=64, hidden_size=64, context_len=64)
        runner = ma.MockMLAModelRunner(case=case, model_config=mc, dtype=torch.float16, device="cpu", max_context_len=64,
                                       kv_lora_rank=512, qk_rope_head_dim=64, disable_cuda_graph=True,
                                       disable_piecewise_cuda_graph=True, runner_batch_size=None, fp8_kv_cache=False)
        runner.is_draft_worker = True
        try:
            with rc.override_platform(is_sm90=False, is_sm120=False, is_sm100=True):
                built.clear()
                cb.COUNTS.clear()
                draft = getattr(mods[mod], name)(runner, 1, 4)
            out["drafts"][name] = {"built": dict(built), "wrappers": dict(cb.COUNTS),
                                   "ends_with": ghv.describe_draft(draft, torch.is_tensor)}
        finally:
            runner._server_args_override.restore()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang-root", type=Path, required=True)
    ap.add_argument("--json", type=Path, required=True)
    ap.add_argument("--traceback", action="store_true")
    args = ap.parse_args(argv)
    try:
        cb.prepare_sys_path(args.sglang_root)
        cb.prepare_environment()
        out = construct(args.sglang_root)
    except Exception as e:  # noqa: BLE001 - one line, as construct_backends.py
        if args.traceback:
            traceback.print_exc()
        print(f"construct_mla_drafts: FAILED: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
