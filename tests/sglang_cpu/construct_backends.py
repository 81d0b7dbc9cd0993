#!/usr/bin/env python3
"""Construct SGLang's TRT-LLM MHA attention backends on a CPU-only machine.

Usage (inside the venv built from requirements/sglang-cpu.txt):

    python construct_backends.py --sglang-root DIR --json OUT.json

DIR holds an importable ``sglang/`` package: a full unpack of the
``sglang-0.5.23`` wheel (package data included), possibly with patched copies of
``srt/layers/attention/trtllm_mha_backend.py`` laid over it. The script

* puts ``stubs/`` (CPU stand-ins for ``triton`` and ``torchvision``) and DIR at
  the front of ``sys.path`` and checks that ``sglang`` comes from DIR;
* installs counting fakes for the FlashInfer wrapper classes, counting wrappers
  around the indices updaters' and the backends' ``__init__``, a ``flashinfer``
  stand-in for ``trtllm_mha_backend`` / ``trtllm_mla_backend``, a small
  ``SGLANG_FLASHINFER_WORKSPACE_SIZE``, and SM100 platform facts;
* builds ``TRTLLMHAAttnBackend`` and
  ``TRTLLMHAAttnMultiStepDraftBackend(runner, topk=1, speculative_num_steps=3)``
  with SGLang's own ``MockModelRunner``, each with fresh counters;
* writes what it saw as JSON. It assumes nothing about the class hierarchy, so
  a patched ``trtllm_mha_backend.py`` is reported as it is.

On any failure it prints one line to stderr and exits non-zero.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import json
import os
import sys
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
STUBS = HERE / "stubs"

# Small FlashInfer workspace: TRTLLMHAAttnBackend and FlashInferAttnBackend each
# allocate one of this many bytes (the default is 512 MiB).
WORKSPACE_BYTES = 1 << 20

FLASHINFER_WRAPPERS = (
    "BatchPrefillWithPagedKVCacheWrapper",
    "BatchPrefillWithRaggedKVCacheWrapper",
    "BatchDecodeWithPagedKVCacheWrapper",
)
INDICES_UPDATERS = (
    "FlashInferIndicesUpdaterDecode",
    "FlashInferIndicesUpdaterPrefill",
)
# Class attributes whose values the codemod must keep (read per class, via getattr).
CLASS_ATTRIBUTES = (
    "needs_cpu_seq_lens",
    "supports_ragged_verify_graph",
    "extend_dummy_seqs_capped_by_req_pool",
)

TOPK = 1
SPECULATIVE_NUM_STEPS = 3

COUNTS: collections.Counter = collections.Counter()
TIMINGS: dict = {}


class Failure(Exception):
    """An expected failure mode with a one-line explanation."""


# --------------------------------------------------------------------------
# Set-up before the first ``import sglang``
# --------------------------------------------------------------------------


def prepare_sys_path(sglang_root: Path) -> None:
    for entry in (str(sglang_root), str(STUBS)):
        while entry in sys.path:
            sys.path.remove(entry)
    # Final order: stubs first, then DIR, then the rest.
    sys.path.insert(0, str(sglang_root))
    sys.path.insert(0, str(STUBS))
    for name in list(sys.modules):
        if name == "sglang" or name.startswith("sglang."):
            raise Failure("sglang was imported before --sglang-root was put on sys.path")


def prepare_environment() -> None:
    os.environ["SGLANG_FLASHINFER_WORKSPACE_SIZE"] = str(WORKSPACE_BYTES)
    # No GPU and no network: keep libraries from probing either.
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


# --------------------------------------------------------------------------
# Counting fakes and wrappers
# --------------------------------------------------------------------------


def make_counting_fake(name: str) -> type:
    """A FlashInfer wrapper fake: records the construction, does nothing else."""

    def __init__(self, *args, **kwargs):
        COUNTS[name] += 1
        self.fake_args = args
        self.fake_kwargs = kwargs

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)

        def unavailable(*args, **kwargs):
            raise RuntimeError(f"fake {name}.{attr}: FlashInfer is not available on the CPU")

        return unavailable

    return type(
        name,
        (),
        {
            "__init__": __init__,
            "__getattr__": __getattr__,
            "__module__": "decouple_cpu_fakes",
            "__qualname__": name,
        },
    )


def count_init(cls: type, label: str, *, exact_label: str | None = None) -> None:
    """Wrap ``cls.__init__`` in place so each run is counted under ``label``.

    In place, so every reference to the class (module globals, ``from ... import``
    copies, subclasses' ``super().__init__``) goes through the counter and the
    class hierarchy is left untouched. With ``exact_label``, runs whose object is
    exactly ``cls`` (not a subclass) are also counted under that name.
    """
    original = cls.__dict__.get("__init__")
    if original is None or getattr(original, "_decouple_counted", False):
        return

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        COUNTS[label] += 1
        if exact_label is not None and type(self) is cls:
            COUNTS[exact_label] += 1
        return original(self, *args, **kwargs)

    __init__._decouple_counted = True
    cls.__init__ = __init__


def count_static(cls: type, name: str, label: str) -> None:
    """Count the calls of a static method of ``cls`` under ``label``, in place."""
    original = cls.__dict__.get(name)
    if not isinstance(original, staticmethod):
        return
    fn = original.__func__

    @functools.wraps(fn)
    def counted(*args, **kwargs):
        COUNTS[label] += 1
        return fn(*args, **kwargs)

    setattr(cls, name, staticmethod(counted))


def make_flashinfer_stand_in() -> SimpleNamespace:
    """What ``trtllm_mha_backend`` / ``trtllm_mla_backend`` read from ``flashinfer``."""

    def get_device_sm_count(device) -> int:
        COUNTS["flashinfer.utils.get_device_sm_count"] += 1
        return 148

    def get_trtllm_gen_multi_ctas_kv_counter_bytes(batch_size, num_q_heads, sm_count) -> int:
        # Small and deterministic; the real value depends on the GPU.
        return 256

    def kernel(name):
        def run(*args, **kwargs):
            raise RuntimeError(f"flashinfer stand-in: {name} cannot run on the CPU")

        return run

    return SimpleNamespace(
        __name__="flashinfer",
        utils=SimpleNamespace(
            get_device_sm_count=get_device_sm_count,
            get_trtllm_gen_multi_ctas_kv_counter_bytes=get_trtllm_gen_multi_ctas_kv_counter_bytes,
        ),
        decode=SimpleNamespace(
            trtllm_batch_decode_with_kv_cache=kernel("decode.trtllm_batch_decode_with_kv_cache"),
            xqa_batch_decode_with_kv_cache=kernel("decode.xqa_batch_decode_with_kv_cache"),
        ),
        prefill=SimpleNamespace(
            trtllm_batch_context_with_kv_cache=kernel("prefill.trtllm_batch_context_with_kv_cache"),
            trtllm_fmha_v2_prefill=kernel("prefill.trtllm_fmha_v2_prefill"),
        ),
    )


# --------------------------------------------------------------------------
# Import and patch
# --------------------------------------------------------------------------


def import_sglang(sglang_root: Path):
    import importlib

    t0 = time.perf_counter()
    sglang = importlib.import_module("sglang")
    sglang_file = Path(sglang.__file__).resolve()
    root = sglang_root.resolve()
    if root not in sglang_file.parents:
        raise Failure(f"sglang imported from {sglang_file}, not from under {root}")

    fb = importlib.import_module("sglang.srt.layers.attention.flashinfer_backend")
    # Fakes go in before trtllm_*_backend is imported, so a module that copies
    # these names at import time copies the fakes.
    for name in FLASHINFER_WRAPPERS:
        setattr(fb, name, make_counting_fake(name))
    for name in INDICES_UPDATERS:
        count_init(getattr(fb, name), name)
    count_init(
        fb.FlashInferAttnBackend,
        "FlashInferAttnBackend.__init__ (incl. via subclasses)",
        exact_label="FlashInferAttnBackend",
    )
    if hasattr(fb, "FlashInferMultiStepDraftBackend"):
        count_init(fb.FlashInferMultiStepDraftBackend, "FlashInferMultiStepDraftBackend.__init__")

    flashinfer = make_flashinfer_stand_in()
    mla = importlib.import_module("sglang.srt.layers.attention.trtllm_mla_backend")
    mha = importlib.import_module("sglang.srt.layers.attention.trtllm_mha_backend")
    mla.flashinfer = flashinfer
    mha.flashinfer = flashinfer
    # A patched trtllm_mha_backend may hold its own references to the wrappers.
    for name in FLASHINFER_WRAPPERS:
        if hasattr(mha, name):
            setattr(mha, name, getattr(fb, name))

    count_init(mha.TRTLLMHAAttnBackend, "TRTLLMHAAttnBackend.__init__")
    count_static(mha.TRTLLMHAAttnBackend, "_resolve_swa_kv_pool", "TRTLLMHAAttnBackend._resolve_swa_kv_pool")
    count_init(mha.TRTLLMHAAttnMultiStepDraftBackend, "TRTLLMHAAttnMultiStepDraftBackend.__init__")

    da = importlib.import_module(
        "sglang.test.kits.attention_unittest.attention_methods.dense_attention"
    )
    import sglang.srt.runtime_context as rc

    return SimpleNamespace(
        sglang_file=str(sglang_file),
        fb=fb,
        mha=mha,
        da=da,
        rc=rc,
        import_seconds=round(time.perf_counter() - t0, 2),
    )


# --------------------------------------------------------------------------
# Construction
# --------------------------------------------------------------------------


def make_runner(mods):
    """A MockModelRunner for one trtllm_mha decode case on the CPU."""
    from sglang.srt.model_executor.forward_batch_info import ForwardMode

    da = mods.da
    case = da.DenseAttentionCase(
        name="decouple_cpu_construct",
        backend="trtllm_mha",
        forward_mode=ForwardMode.DECODE,
        num_heads=4,
        num_kv_heads=2,
        page_size=16,
        prefix_lens=(8, 8),
    )
    model_config = da.TinyModelConfig(
        num_heads=case.num_heads,
        num_kv_heads=case.num_kv_heads,
        head_dim=da.DEFAULT_HEAD_DIM,
        hidden_size=da.DEFAULT_HIDDEN_SIZE,
        context_len=da.DEFAULT_MAX_CONTEXT_LEN,
    )
    return da.MockModelRunner(
        case=case,
        model_config=model_config,
        dtype=da.DEFAULT_DTYPE,
        device="cpu",
        max_context_len=da.DEFAULT_MAX_CONTEXT_LEN,
        head_dim=da.DEFAULT_HEAD_DIM,
    )


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def class_attributes(cls: type) -> tuple[dict, dict]:
    """Class-level data attributes visible on ``cls`` (values, defining classes).

    Always includes CLASS_ATTRIBUTES (``"<absent>"`` when missing), plus every
    other public non-callable attribute defined in the MRO (object excluded).
    """
    values, owners = {}, {}
    for name in CLASS_ATTRIBUTES:
        values[name] = "<absent>"
        owners[name] = None
    for klass in cls.__mro__[:-1]:
        for name, raw in vars(klass).items():
            if name.startswith("__") or name == "_abc_impl" or owners.get(name):
                continue
            if isinstance(raw, (staticmethod, classmethod, property)) or callable(raw):
                continue
            values[name] = _jsonable(getattr(cls, name))
            owners[name] = qualified(klass)
    return values, owners


def describe(obj, cls: type, counts: dict) -> dict:
    values, owners = class_attributes(cls)
    info = {
        "mro": [qualified(k) for k in cls.__mro__],
        "constructed": counts,
        "instance_attributes": sorted(vars(obj)),
        "class_attributes_checked": values,
        "class_attribute_owners": owners,
    }
    inner = getattr(obj, "attn_backends", None)
    if isinstance(inner, list):
        info["attn_backends_types"] = [qualified(type(b)) for b in inner]
        if inner:
            info["attn_backends_0_instance_attributes"] = sorted(vars(inner[0]))
    return info


COUNTED = (
    *FLASHINFER_WRAPPERS,
    *INDICES_UPDATERS,
    "FlashInferAttnBackend",  # objects whose class is exactly FlashInferAttnBackend
    "FlashInferAttnBackend.__init__ (incl. via subclasses)",
    "FlashInferMultiStepDraftBackend.__init__",
    "TRTLLMHAAttnBackend.__init__",
    "TRTLLMHAAttnMultiStepDraftBackend.__init__",
    "TRTLLMHAAttnBackend._resolve_swa_kv_pool",
    "flashinfer.utils.get_device_sm_count",
)


def fresh_counts() -> dict:
    """Snapshot of the counters: every known label (0 if unseen), then any other."""
    out = {name: COUNTS.get(name, 0) for name in COUNTED}
    for name, n in sorted(COUNTS.items()):
        out.setdefault(name, n)
    return out


@contextlib.contextmanager
def runner_scope(mods):
    runner = make_runner(mods)
    try:
        yield runner
    finally:
        runner._server_args_override.restore()


def construct_target(mods) -> dict:
    mha, rc = mods.mha, mods.rc
    with runner_scope(mods) as runner:
        with rc.override_platform(is_sm90=False, is_sm120=False, is_sm100=True):
            COUNTS.clear()
            t0 = time.perf_counter()
            backend = mha.TRTLLMHAAttnBackend(runner)
            seconds = time.perf_counter() - t0
            counts = fresh_counts()
    TIMINGS["construct_TRTLLMHAAttnBackend"] = round(seconds, 3)
    return describe(backend, type(backend), counts)


def construct_draft(mods) -> dict:
    mha, rc = mods.mha, mods.rc
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    with runner_scope(mods) as runner:
        # The draft backend runs in the draft worker of an EAGLE setup; the
        # per-step TRTLLMHAAttnBackend reads topk / draft-token counts from the
        # published spec config. Construction succeeds without these too (the
        # per-step backends then see topk=0 and 0 draft tokens), so they only
        # make the per-step backends match what a real EAGLE run gives them.
        runner.is_draft_worker = True
        runner.spec_algorithm = SpeculativeAlgorithm.EAGLE
        spec_fields = {
            "speculative_algorithm": SpeculativeAlgorithm.EAGLE,
            "speculative_eagle_topk": TOPK,
            "speculative_num_steps": SPECULATIVE_NUM_STEPS,
            "speculative_num_draft_tokens": SPECULATIVE_NUM_STEPS + 1,
        }
        spec = rc.get_spec()
        spec_fields = {k: v for k, v in spec_fields.items() if k in spec}
        with (
            spec.override(**spec_fields),
            rc.override_platform(is_sm90=False, is_sm120=False, is_sm100=True),
        ):
            COUNTS.clear()
            t0 = time.perf_counter()
            backend = mha.TRTLLMHAAttnMultiStepDraftBackend(
                runner, topk=TOPK, speculative_num_steps=SPECULATIVE_NUM_STEPS
            )
            seconds = time.perf_counter() - t0
            counts = fresh_counts()
    TIMINGS["construct_TRTLLMHAAttnMultiStepDraftBackend"] = round(seconds, 3)
    info = describe(backend, type(backend), counts)
    info["spec_config_used"] = {k: str(v) for k, v in spec_fields.items()}
    info["runner_overrides"] = {"is_draft_worker": True, "spec_algorithm": "EAGLE"}
    return info


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sglang-root", required=True, type=Path)
    parser.add_argument("--json", required=True, type=Path, dest="json_out")
    parser.add_argument(
        "--traceback", action="store_true", help="print the full traceback on failure"
    )
    args = parser.parse_args(argv)

    try:
        root = args.sglang_root
        if not (root / "sglang" / "__init__.py").is_file():
            raise Failure(f"{root} has no sglang/__init__.py")
        t0 = time.perf_counter()
        prepare_environment()
        prepare_sys_path(root)
        mods = import_sglang(root)
        result = {
            "sglang_file": mods.sglang_file,
            "sglang_version": getattr(sys.modules["sglang"], "__version__", None),
            "settings": {
                "SGLANG_FLASHINFER_WORKSPACE_SIZE": WORKSPACE_BYTES,
                "platform": {"is_sm90": False, "is_sm120": False, "is_sm100": True},
                "device": "cpu",
            },
            "TRTLLMHAAttnBackend": construct_target(mods),
            "TRTLLMHAAttnMultiStepDraftBackend": construct_draft(mods),
        }
        TIMINGS["import_sglang"] = mods.import_seconds
        TIMINGS["total"] = round(time.perf_counter() - t0, 2)
        result["timings_seconds"] = TIMINGS
        args.json_out.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")
    except Exception as exc:  # noqa: BLE001 - one line, by contract
        if args.traceback:
            traceback.print_exc()
        where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        loc = f" [{Path(where.filename).name}:{where.lineno}]" if where else ""
        msg = " ".join(str(exc).split()) or "(no message)"
        print(f"construct_backends: FAILED: {type(exc).__name__}: {msg}{loc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
