#!/usr/bin/env python3
"""``decouple --hook`` on SGLang model classes, executed on the CPU: original against patched.

    python benchmarks/hook_models.py [--json OUT.json] [--markdown]

For each class of ``CASES`` (built then replaced, DC408; hook possible), the script

* unpacks the pinned SGLang wheel twice (package data included: a tree of only the ``.py``
  files does not import), and on the second copy runs ``decouple ROOT --class C --hook
  --write`` for every class in turn (each hook lands in its parent's file, and two of the
  classes share their files, so the patches are applied one after the other to one copy);
* in one fresh process per side (stand-ins for ``triton`` and ``torchvision`` from
  ``tests/sglang_cpu/stubs``, a one-rank ``gloo`` group, SGLang's parallel context with
  attention TP 1), builds each class with a tiny config, and records: ``state_dict()``'s
  names, shapes and dtypes; every ``nn.Module`` constructed (by class, counted in
  ``nn.Module.__init__``); every tensor storage allocated during the construction, with the
  peak of the bytes alive (a ``TorchDispatchMode`` sees each allocation, a finalizer on the
  storage each free) and the Python heap's peak (``tracemalloc``);
* the original side fills its weights deterministically and saves them; the patched side
  loads that file (``load_state_dict(strict=True)``); both run ``forward`` on the same fixed
  input, and the outputs are compared bitwise.

Exit 0 when every class has the same tree, bitwise-equal outputs and no more constructions
than the original; 1 otherwise, or with one line on stderr when a step fails.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STUBS = REPO / "tests" / "sglang_cpu" / "stubs"

# Built then replaced on SGLang 0.5.23, hook possible (decouple scan --sglang --replaced).
# Order matters for the patch: each --hook run sees the previous one's hooks.
CASES = ("MiniCPMV_VisionEncoderLayer", "MiniCPMV_VisionEncoder", "GlmOcrVisionModel")
# The parents the hook edits, built on both sides with their child's tiny config and input: each
# must build, hold and compute exactly what it did (the hook keeps every other subclass as it was).
PARENT_OF = {"Idefics2EncoderLayer": "MiniCPMV_VisionEncoderLayer", "Idefics2Encoder": "MiniCPMV_VisionEncoder",
             "Glm4vVisionModel": "GlmOcrVisionModel"}


class Failure(Exception):
    """A step that failed, in one line."""


# --------------------------------------------------------------------------
# The driver (no torch, no SGLang imported here)
# --------------------------------------------------------------------------


def unpack(archive: Path, dest: Path) -> Path:
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(dest)
    return dest


def make_roots(work: Path, classes=CASES, extra: tuple[str, ...] = ()) -> dict:
    """The original unpack, and a copy with ``--hook --write`` (and ``extra``) run for each class;
    the hook's stderr per class."""
    from codemod.discover import release_archive

    archive = release_archive()
    orig = unpack(archive, work / "original")
    patched = work / "patched"
    shutil.copytree(orig, patched)
    said = {}
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for cls in classes:
        proc = subprocess.run([sys.executable, "-m", "codemod", str(patched), "--class", cls, "--hook", "--write", *extra],
                              check=False, capture_output=True, text=True, env=env)
        if proc.returncode != 0 or "wrote" not in proc.stdout:
            raise Failure(f"decouple --class {cls} --hook --write {' '.join(extra)}: exit {proc.returncode}: "
                          f"{(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
        said[cls] = proc.stderr.splitlines()
    changed = sorted(str(p.relative_to(patched)) for p in patched.rglob("*.py")
                     if p.read_bytes() != (orig / p.relative_to(patched)).read_bytes())
    return {"original": orig, "patched": patched, "hook_stderr": said, "changed_files": changed}


def run_side(root: Path, side: str, work: Path, classes=CASES) -> dict:
    out = work / f"{side}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--sglang-root", str(root), "--side", side,
           "--weights", str(work / "weights"), "--json", str(out), "--classes", ",".join(classes)]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = [line for line in proc.stderr.splitlines() if line.strip()][-3:]
        raise Failure(f"{side} side failed: {' | '.join(tail)}")
    return json.loads(out.read_text())


def compare(original: dict, patched: dict, work: Path) -> dict:
    import torch  # only to read the saved outputs

    rows = {}
    for cls, o in original.items():
        p = patched[cls]
        out_o = torch.load(work / "weights" / f"{cls}.out.original.pt")
        out_p = torch.load(work / "weights" / f"{cls}.out.patched.pt")
        built_o, built_p = collections.Counter(o["constructed"]), collections.Counter(p["constructed"])
        rows[cls] = {
            "tree_equal": o["tree"] == p["tree"],
            "tensors": len(o["tree"]),
            "outputs_bitwise_equal": out_o.dtype == out_p.dtype and out_o.shape == out_p.shape
            and out_o.contiguous().view(torch.uint8).numpy().tobytes() == out_p.contiguous().view(torch.uint8).numpy().tobytes(),
            "output_shape": list(out_o.shape),
            "modules_built": {"original": sum(built_o.values()), "patched": sum(built_p.values())},
            "modules_avoided": dict(sorted((built_o - built_p).items())),
            "modules_added": dict(sorted((built_p - built_o).items())),
            "tensor_bytes_allocated": {"original": o["allocated_bytes"], "patched": p["allocated_bytes"]},
            "tensor_bytes_peak": {"original": o["peak_bytes"], "patched": p["peak_bytes"]},
            "tensor_bytes_final": {"original": o["final_bytes"], "patched": p["final_bytes"]},
            "python_heap_peak": {"original": o["tracemalloc_peak"], "patched": p["tracemalloc_peak"]},
        }
        r = rows[cls]
        fewer = r["modules_built"]["patched"] < r["modules_built"]["original"]
        same = built_o == built_p and r["tensor_bytes_allocated"]["original"] == r["tensor_bytes_allocated"]["patched"]
        r["passed"] = r["tree_equal"] and r["outputs_bitwise_equal"] and not r["modules_added"] \
            and (same if cls in PARENT_OF else fewer)
    return rows


def markdown(rows: dict) -> str:
    def kib(n):
        return f"{n / 1024:.1f} KiB"

    lines = [("| class | state_dict tensors | tree | outputs | modules built (orig -> patched) | not built | "
              "tensor bytes allocated | tensor peak | final |"),
             "|---|---|---|---|---|---|---|---|---|"]
    for cls, r in rows.items():
        avoided = ", ".join(f"{n} {k}" for k, n in r["modules_avoided"].items())
        a, pk, f = r["tensor_bytes_allocated"], r["tensor_bytes_peak"], r["tensor_bytes_final"]
        lines.append(f"| `{cls}` | {r['tensors']} | {'same' if r['tree_equal'] else 'DIFFERS'} | "
                     f"{'not run (construction only)' if cls in PARENT_OF else 'bitwise equal' if r['outputs_bitwise_equal'] else 'DIFFER'} | "
                     f"{r['modules_built']['original']} -> {r['modules_built']['patched']} | {avoided} | "
                     f"{kib(a['original'])} -> {kib(a['patched'])} | {kib(pk['original'])} -> {kib(pk['patched'])} | "
                     f"{kib(f['original'])} -> {kib(f['patched'])} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", action="store_true", help="print the table for BENCHMARKS.md")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    ap.add_argument("--no-parent-edit", action="store_true",
                    help="patch with --hook --no-parent-edit (DC618: each class runs its parent's __init__ inlined)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sglang-root", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--side", help=argparse.SUPPRESS)
    ap.add_argument("--weights", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--classes", default=",".join(CASES), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    sys.path.insert(0, str(REPO))
    try:
        with tempfile.TemporaryDirectory(prefix="hook-models-") as tmp:
            work = args.keep or Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            (work / "weights").mkdir(exist_ok=True)
            roots = make_roots(work, extra=("--no-parent-edit",) if args.no_parent_edit else ())
            built = (*CASES, *PARENT_OF)
            original = run_side(roots["original"], "original", work, built)
            patched = run_side(roots["patched"], "patched", work, built)
            rows = compare(original, patched, work)
    except Failure as exc:
        print(f"hook_models: FAILED: {exc}", file=sys.stderr)
        return 1
    result = {"changed_files": roots["changed_files"], "classes": rows}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print(markdown(rows) if args.markdown else json.dumps(result, indent=1))
    return 0 if all(r["passed"] for r in rows.values()) else 1


# --------------------------------------------------------------------------
# The worker: one side, one fresh process (SGLang imported from --sglang-root)
# --------------------------------------------------------------------------


def worker(args) -> int:
    sys.path[:0] = [str(STUBS), str(args.sglang_root)]
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    held = set_up_sglang()  # the overrides restore the context when collected: held to the end
    import sglang

    if not Path(sglang.__file__).resolve().is_relative_to(args.sglang_root.resolve()):
        raise SystemExit(f"sglang imported from {sglang.__file__}, not from {args.sglang_root}")
    out = {}
    for cls in args.classes.split(","):
        out[cls] = build_and_run(cls, args.side, args.weights)
    args.json.write_text(json.dumps(out))
    del held
    return 0


def set_up_sglang() -> list:
    from sglang.srt.distributed import parallel_state as ps
    from sglang.srt.layers.rotary_embedding import base as rope
    from sglang.srt.runtime_context import get_context, get_parallel

    # Without CUDA and without SGLang's CPU engine (which needs sgl_kernel), the rotary
    # embedding would take vllm's kernel: the CPU platform's flag makes it use its torch code.
    rope._is_cpu = True

    server_args = get_context().override_server_args(mm_attention_backend="sdpa", tp_size=1, pp_size=1, dp_size=1)
    server_args.install()
    parallel = get_parallel().override(attn_tp_size=1, attn_tp_rank=0, attn_dcp_rank=0)
    parallel.__enter__()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ps.init_distributed_environment(world_size=1, rank=0, local_rank=0, backend="gloo",
                                    distributed_init_method=f"tcp://127.0.0.1:{port}")
    ps.initialize_model_parallel(backend="gloo")
    return [server_args, parallel]


def tiny_case(cls: str):
    """The class, its constructor's arguments and a fixed input, for a tiny config."""
    import torch
    from transformers import PretrainedConfig

    if cls in PARENT_OF:
        from sglang.srt.models import glm4v, idefics2

        _, args, inputs = tiny_case(PARENT_OF[cls])
        return getattr(glm4v if cls.startswith("Glm4v") else idefics2, cls), args, inputs
    g = torch.Generator().manual_seed(1234)
    if cls.startswith("MiniCPMV_"):
        from sglang.srt.models import minicpmv_vit as mod

        cfg = PretrainedConfig(hidden_size=64, num_attention_heads=4, intermediate_size=128, attention_dropout=0.0,
                               layer_norm_eps=1e-6, num_hidden_layers=3, hidden_act="gelu_pytorch_tanh")
        x = torch.randn(12, 64, generator=g)
        cu = torch.tensor([0, 5, 12], dtype=torch.int32)
        return getattr(mod, cls), (cfg,), (x, cu)
    if cls == "GlmOcrVisionModel":
        from sglang.srt.models import glm_ocr as mod

        cfg = PretrainedConfig(patch_size=2, temporal_patch_size=1, in_channels=3, depth=2, hidden_size=64,
                               num_heads=4, spatial_merge_size=2, out_hidden_size=48, intermediate_size=96,
                               num_dummy_heads=0, rms_norm_eps=1e-5, attention_bias=True, image_size=8,
                               hidden_act="silu")
        grid = torch.tensor([[1, 4, 4]])
        x = torch.randn(16, 3 * 1 * 2 * 2, generator=g)
        return mod.GlmOcrVisionModel, (cfg,), (x, grid)
    raise SystemExit(f"no tiny config for {cls}")


class Allocations:
    """Tensor storages allocated while a ``TorchDispatchMode`` is on: total bytes, and the
    peak of the bytes alive (each storage's finalizer takes its bytes off when it is freed)."""

    def __init__(self):
        import weakref

        self._weakref = weakref
        self.total = self.live = self.peak = 0
        self._seen = set()

    def saw(self, t) -> None:
        s = t.untyped_storage()
        if id(s) in self._seen:
            return
        n = s.nbytes()
        self._seen.add(id(s))
        self.total += n
        self.live += n
        self.peak = max(self.peak, self.live)
        self._weakref.finalize(s, self._freed, id(s), n)

    def _freed(self, key, n) -> None:
        self._seen.discard(key)
        self.live -= n

    def mode(self):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_flatten

        allocations = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                inputs = {id(t.untyped_storage()) for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)}
                for t in tree_flatten(out)[0]:
                    if isinstance(t, torch.Tensor) and id(t.untyped_storage()) not in inputs:
                        allocations.saw(t)
                return out

        return Mode()


def build_and_run(cls_name: str, side: str, weights: Path) -> dict:
    import gc
    import tracemalloc

    import torch

    cls, ctor_args, inputs = tiny_case(cls_name)
    built = collections.Counter()
    module_init = torch.nn.Module.__init__

    def counting_init(self, *a, **k):
        built[type(self).__name__] += 1
        return module_init(self, *a, **k)

    torch.manual_seed(0)
    alloc = Allocations()
    gc.collect()
    tracemalloc.start()
    torch.nn.Module.__init__ = counting_init
    try:
        with alloc.mode():
            model = cls(*ctor_args)
        gc.collect()
    finally:
        torch.nn.Module.__init__ = module_init
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    final = alloc.live
    sd = model.state_dict()
    tree = [[name, list(t.shape), str(t.dtype)] for name, t in sd.items()]
    path = weights / f"{cls_name}.weights.pt"
    if side == "original":
        g = torch.Generator().manual_seed(7)
        filled = {name: (torch.randn(t.shape, generator=g) * 0.05).to(t.dtype) for name, t in sd.items()}
        torch.save(filled, path)
    model.load_state_dict(torch.load(path), strict=True)
    model.eval()
    if cls_name in PARENT_OF:
        # A construction comparison: the child's tiny config does not fit every parent's forward
        # (the parent's attention with its own head layout), and construction is what the hook changes.
        torch.save(torch.zeros(0), weights / f"{cls_name}.out.{side}.pt")
    else:
        with torch.no_grad():
            y = model(*inputs)
        torch.save(y.detach().clone(), weights / f"{cls_name}.out.{side}.pt")
    return {"tree": tree, "constructed": dict(built), "allocated_bytes": alloc.total, "peak_bytes": alloc.peak,
            "final_bytes": final, "tracemalloc_peak": heap_peak}


if __name__ == "__main__":
    sys.exit(main())
