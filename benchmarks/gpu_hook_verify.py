#!/usr/bin/env python3
"""The MLA draft hook (``decouple --class TRTLLMMLAMultiStepDraftBackend --hook``) on a GPU: one side per process.

    python3 gpu_hook_verify.py side --side original|patched --json OUT.json
    python3 gpu_hook_verify.py compare ORIGINAL.json PATCHED.json --json OUT.json

``side`` (in a process whose ``sglang`` is that side's: ``SGLANG_SRC`` for the patched one)
builds ``FlashInferMLAMultiStepDraftBackend`` (the parent, which the hook must leave as it
was) and ``TRTLLMMLAMultiStepDraftBackend`` (the hooked class) ``CONSTRUCTIONS`` times each on
the kit's ``MockMLAModelRunner``, in an emptied ``get_buffer`` cache, and records per build the
GPU memory (``memory_allocated`` and peak deltas), pinned host memory, the wall time, the
per-step backends built (``__init__`` runs by class) and what the draft ends with: the type of
each ``attn_backends`` element and its tensors (name, shape, dtype, device, and whether it is the
draft's own ``kv_indptr[i]`` / ``q_indptr_decode``). Then it runs the attention kit's MLA cases
(``make_mla_cases``) for each backend the GPU can run, with a hash of each output.

``compare`` says, per class, whether both sides end with the same objects, what the patch
saves per construction, and whether the kit's outputs are bitwise equal; its last lines are a
short summary. Each step records its own failure (one line) and the run goes on.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import sys
import time
import traceback

CLASSES = (("flashinfer_mla_backend", "FlashInferMLAMultiStepDraftBackend", "flashinfer_mla"),
           ("trtllm_mla_backend", "TRTLLMMLAMultiStepDraftBackend", "trtllm_mla"))
PER_STEP = (("flashinfer_mla_backend", "FlashInferMLAAttnBackend"), ("trtllm_mla_backend", "TRTLLMMLABackend"))
KIT_NAME = {"flashinfer_mla": "flashinfer"}  # our label -> the name ATTENTION_BACKENDS registers
TOPK, STEPS, CONSTRUCTIONS = 1, 4, 3  # 3 per-step backends per draft
MiB = 1 << 20


def short(e: BaseException, n: int = 240) -> str:
    s = f"{type(e).__name__}: {e}".replace("\n", " | ")
    return s if len(s) <= n else s[: n - 3] + "..."


# --------------------------------------------------------------------------
# What a draft ends with (plain Python over any objects: tested on the CPU with stand-ins)
# --------------------------------------------------------------------------


def describe_draft(draft, is_tensor) -> dict:
    """The draft's per-step backends: type, and each tensor attribute (shape, dtype, device, bytes),
    marked ``own:kv_indptr[i]`` / ``own:q_indptr_decode`` when it is a view of the draft's own buffer."""
    own = {}
    kv = getattr(draft, "kv_indptr", None)
    if is_tensor(kv):
        for i in range(kv.shape[0]):
            own[_key(kv[i])] = f"own:kv_indptr[{i}]"
    q = getattr(draft, "q_indptr_decode", None)
    if is_tensor(q):
        own[_key(q)] = "own:q_indptr_decode"
    steps = []
    for b in getattr(draft, "attn_backends", []):
        tensors = {}
        for name, v in sorted(vars(b).items()):
            if is_tensor(v):
                tensors[name] = [list(v.shape), str(v.dtype), v.device.type, v.element_size() * v.nelement(),
                                 own.get(_key(v), "")]
        steps.append({"type": type(b).__name__, "tensors": tensors})
    return {"attn_backends": steps, "list_alias": getattr(draft, "attn_backend_list", None) is getattr(draft, "attn_backends", None),
            "max_context_len": getattr(draft, "max_context_len", None)}


def _key(t):
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()))


# --------------------------------------------------------------------------
# One side, on the GPU
# --------------------------------------------------------------------------


class Side:
    def __init__(self, args):
        import torch

        self.torch, self.args, self.out = torch, args, {"side": args.side, "errors": []}
        from sglang.srt.layers.attention import (
            flashinfer_mla_backend,
            trtllm_mla_backend,
        )
        from sglang.test.kits.attention_unittest.attention_methods import (
            mla_attention as ma,
        )

        self.ma, self.mods = ma, {"flashinfer_mla_backend": flashinfer_mla_backend, "trtllm_mla_backend": trtllm_mla_backend}
        import sglang

        self.out["sglang_file"] = sglang.__file__
        self.out["hooked"] = hasattr(flashinfer_mla_backend.FlashInferMLAMultiStepDraftBackend, "_build_attn_backend")
        self.out["device"] = {"name": torch.cuda.get_device_name(), "capability": list(torch.cuda.get_device_capability()),
                              "torch": torch.__version__}
        self.built = {}
        for mod, name in PER_STEP:
            self._count(getattr(self.mods[mod], name), name)

    def _count(self, cls, label):
        orig, built = cls.__init__, self.built

        def __init__(obj, *a, **k):
            key = f"{label} (as {type(obj).__name__})"
            built[key] = built.get(key, 0) + 1
            return orig(obj, *a, **k)

        cls.__init__ = __init__

    def runner(self, backend, kv_lora_rank, rope):
        ma = self.ma
        case = ma.MLAAttentionCase(name="draft_construction", backend=backend, forward_mode=ma.ForwardMode.DECODE,
                                   num_heads=16, page_size=64 if backend == "trtllm_mla" else 1, prefix_lens=(7,))
        mc = ma.TinyMLAModelConfig(num_heads=case.num_heads, kv_lora_rank=kv_lora_rank, qk_rope_head_dim=rope,
                                   hidden_size=ma.DEFAULT_HIDDEN_SIZE, context_len=ma.DEFAULT_MAX_CONTEXT_LEN)
        r = ma.MockMLAModelRunner(case=case, model_config=mc, dtype=ma.DEFAULT_DTYPE, device="cuda",
                                  max_context_len=ma.DEFAULT_MAX_CONTEXT_LEN, kv_lora_rank=kv_lora_rank, qk_rope_head_dim=rope,
                                  disable_cuda_graph=True, disable_piecewise_cuda_graph=True, runner_batch_size=None,
                                  fp8_kv_cache=False)
        r.is_draft_worker = True
        return r

    def pinned(self):
        fn = getattr(self.torch.cuda, "host_memory_stats", None)
        try:
            stats = fn() if fn else {}
        except Exception:  # noqa: BLE001 - no reading is recorded as None
            return None
        for key in ("active_bytes.current", "allocated_bytes.current"):
            if key in stats:
                return int(stats[key])
        return None

    def constructions(self):
        from sglang.srt import runtime_context as rc

        torch = self.torch
        kvr, rope = self.args.dims
        for mod, name, backend in CLASSES:
            rec = {"builds": []}
            self.out.setdefault("construction", {})[name] = rec
            try:
                runner = self.runner(backend, kvr, rope)
                cls = getattr(self.mods[mod], name)
                cache = rc._CONTEXT.resources.buffers
                saved = dict(cache)
                cache.clear()  # the first build pays the shared workspaces, as the first in a process does
                for _ in range(CONSTRUCTIONS):
                    gc.collect()
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    self.built.clear()  # the counters' own dict (the wrapped __init__s hold it)
                    a0, p0, h0 = torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated(), self.pinned()
                    t0 = time.perf_counter()
                    draft = cls(runner, TOPK, STEPS)
                    torch.cuda.synchronize()
                    dt = time.perf_counter() - t0
                    h1 = self.pinned()
                    rec["builds"].append({
                        "seconds": dt, "allocated_bytes": torch.cuda.memory_allocated() - a0,
                        "peak_bytes": torch.cuda.max_memory_allocated() - p0,
                        "pinned_bytes": None if h0 is None or h1 is None else h1 - h0,
                        "built": dict(self.built), "ends_with": describe_draft(draft, torch.is_tensor)})
                    del draft
                cache.clear()
                cache.update(saved)
            except BaseException as e:  # noqa: BLE001 - recorded, and the run goes on
                rec["error"] = short(e)
                self.out["errors"].append(f"construct {name}: {short(e)}")
                traceback.print_exc()

    def kit(self):
        import unittest

        ma, torch = self.ma, self.torch
        kvr, rope = self.args.dims
        tc = unittest.TestCase()
        sm = torch.cuda.get_device_capability()[0]
        for backend in ("flashinfer_mla", "trtllm_mla"):
            rec = self.out.setdefault("kit", {}).setdefault(backend, {})
            if backend == "trtllm_mla" and sm != 10:
                rec["not_run"] = (f"SM{sm}0: TRTLLM MLA runs FlashInfer's trtllm-gen kernels, built for SM100 only (and "
                                  "their cubins are fetched at run time, which this offline machine cannot)")
                continue
            # the registry serves FlashInfer's MLA backend under "flashinfer" (the runner's use_mla_backend picks it)
            for case in ma.make_mla_cases(KIT_NAME.get(backend, backend)):
                t0, digest = time.time(), None
                try:
                    fx = ma.build_mla_attention_fixture(tc, case, kv_lora_rank=kvr, qk_rope_head_dim=rope)
                    actual = ma.run_mla_fixture_eager(fx)
                    expected = ma.expected_mla_fixture_output(fx)
                    torch.cuda.synchronize()
                    digest = hashlib.sha256(actual.detach().contiguous().view(torch.uint8).cpu().numpy().tobytes()).hexdigest()
                    torch.testing.assert_close(actual, expected, atol=ma.MLA_ATOL, rtol=ma.MLA_RTOL)
                    rec[case.name] = {"status": "passed", "sha256": digest, "seconds": round(time.time() - t0, 2)}
                except unittest.SkipTest as e:
                    rec[case.name] = {"status": "skipped", "why": short(e)}
                except BaseException as e:  # noqa: BLE001
                    rec[case.name] = {"status": "failed", "why": short(e), "sha256": digest}


def run_side(args) -> int:
    t0 = time.time()
    try:
        side = Side(args)
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        with open(args.json, "w") as f:
            json.dump({"side": args.side, "errors": [f"import: {short(e)}"]}, f)
        return 1
    def save():
        side.out["seconds"] = round(time.time() - t0, 1)
        with open(args.json, "w") as f:
            json.dump(side.out, f, indent=1)

    side.constructions()
    save()  # a side stopped by its timeout during the kit keeps its constructions
    if not args.no_kit:
        side.kit()
        save()
    return 0


# --------------------------------------------------------------------------
# Compare the sides (plain Python: tested on the CPU)
# --------------------------------------------------------------------------


def compare(o: dict, p: dict) -> dict:
    out = {"hooked": {"original": o.get("hooked"), "patched": p.get("hooked")}, "classes": {}, "kit": {},
           "errors": {"original": o.get("errors", []), "patched": p.get("errors", [])}}
    for _, name, _ in CLASSES:
        a, b = (o.get("construction") or {}).get(name, {}), (p.get("construction") or {}).get(name, {})
        if not a.get("builds") or not b.get("builds"):
            out["classes"][name] = {"error": a.get("error") or b.get("error") or "not built"}
            continue
        ends = [x["ends_with"] for x in a["builds"]], [x["ends_with"] for x in b["builds"]]
        row = {"same_objects": ends[0] == ends[1], "ends_with": sorted({s["type"] for e in ends[0] for s in e["attn_backends"]}),
               "built": {"original": a["builds"][-1]["built"], "patched": b["builds"][-1]["built"]}}
        for key in ("allocated_bytes", "peak_bytes", "pinned_bytes"):
            first = (a["builds"][0][key], b["builds"][0][key])
            later = (a["builds"][-1][key], b["builds"][-1][key])
            row[key] = {"first": first, "later": later,
                        "saved_first": None if None in first else first[0] - first[1],
                        "saved_later": None if None in later else later[0] - later[1]}
        ta = statistics.median(x["seconds"] for x in a["builds"][1:] or a["builds"])
        tb = statistics.median(x["seconds"] for x in b["builds"][1:] or b["builds"])
        row["seconds_later_median"] = (ta, tb)
        row["time_ratio"] = round(tb / ta, 3) if ta else None
        out["classes"][name] = row
    for backend in ("flashinfer_mla", "trtllm_mla"):
        a, b = (o.get("kit") or {}).get(backend, {}), (p.get("kit") or {}).get(backend, {})
        if "not_run" in a or "not_run" in b:
            out["kit"][backend] = {"not_run": a.get("not_run") or b.get("not_run")}
            continue
        cases = sorted(set(a) | set(b))
        tally = {side: {} for side in ("original", "patched")}
        for side, rec in (("original", a), ("patched", b)):
            for c in cases:
                st = rec.get(c, {}).get("status", "missing")
                tally[side][st] = tally[side].get(st, 0) + 1
        equal = sum(1 for c in cases if a.get(c, {}).get("sha256") and a[c]["sha256"] == b.get(c, {}).get("sha256"))
        out["kit"][backend] = {"cases": len(cases), "tally": tally, "outputs_bitwise_equal": equal,
                               "failed": {c: (a.get(c, {}).get("why"), b.get(c, {}).get("why")) for c in cases
                                          if "failed" in (a.get(c, {}).get("status"), b.get(c, {}).get("status"))}}
    return out


def summary(cmp: dict) -> str:
    def mib(n):
        return "n/a" if n is None else f"{n / MiB:.2f} MiB"

    lines = [f"hook in the patched side: {cmp['hooked']['patched']} (original: {cmp['hooked']['original']})"]
    for name, r in cmp["classes"].items():
        if "error" in r:
            lines.append(f"{name}: NOT COMPARED: {r['error']}")
            continue
        al, pk, pin = r["allocated_bytes"], r["peak_bytes"], r["pinned_bytes"]
        lines.append(f"{name}: same objects at the end: {r['same_objects']} ({', '.join(r['ends_with'])}); "
                     f"built per construction {r['built']['original']} -> {r['built']['patched']}")
        lines.append(f"  GPU allocated: first {mib(al['first'][0])} -> {mib(al['first'][1])}, later {mib(al['later'][0])} -> "
                     f"{mib(al['later'][1])}; peak later {mib(pk['later'][0])} -> {mib(pk['later'][1])}; pinned later "
                     f"{mib(pin['later'][0])} -> {mib(pin['later'][1])}; time (later builds) x{r['time_ratio']}")
    for backend, k in cmp["kit"].items():
        if "not_run" in k:
            lines.append(f"kit {backend}: not run: {k['not_run']}")
        else:
            lines.append(f"kit {backend}: original {k['tally']['original']}, patched {k['tally']['patched']}; "
                         f"outputs bitwise equal {k['outputs_bitwise_equal']} of {k['cases']}")
    for side, errs in cmp["errors"].items():
        lines += [f"{side} error: {e}" for e in errs[:3]]
    return "\n".join(lines)


def verdict(cmp: dict) -> bool:
    """Passed: the patched side is hooked, each class ends with the same objects, the parent builds what it built,
    and every kit case that ran passed on both sides with bitwise-equal outputs."""
    ok = cmp["hooked"] == {"original": False, "patched": True}
    for name, r in cmp["classes"].items():
        ok = ok and "error" not in r and r["same_objects"]
        if ok and name == "FlashInferMLAMultiStepDraftBackend":
            ok = r["built"]["original"] == r["built"]["patched"]
    for k in cmp["kit"].values():
        if "not_run" not in k:
            ok = ok and k["tally"]["original"].get("passed", 0) == k["tally"]["patched"].get("passed", 0) == k["cases"] \
                and k["outputs_bitwise_equal"] == k["cases"]
    return bool(ok)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("side")
    s.add_argument("--side", required=True, choices=("original", "patched"))
    s.add_argument("--json", required=True)
    s.add_argument("--no-kit", action="store_true")
    s.add_argument("--dims", default=os.environ.get("HOOK_MLA_DIMS", "512x64"),
                   help="kv_lora_rank x qk_rope_head_dim (FlashInfer's MLA kernels are built for DeepSeek's 512x64)")
    c = sub.add_parser("compare")
    c.add_argument("original")
    c.add_argument("patched")
    c.add_argument("--json")
    args = ap.parse_args(argv)
    if args.cmd == "side":
        args.dims = tuple(int(x) for x in args.dims.split("x"))
        return run_side(args)
    sides = []
    for path in (args.original, args.patched):
        try:
            with open(path) as f:
                sides.append(json.load(f))
        except (OSError, ValueError) as e:
            sides.append({"errors": [f"no result: {short(e)}"]})
    cmp = compare(*sides)
    cmp["passed"] = verdict(cmp)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(cmp, f, indent=1)
    print(summary(cmp))
    print(f"gpu_hook_verify: {'PASSED' if cmp['passed'] else 'FAILED'}")
    return 0 if cmp["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
