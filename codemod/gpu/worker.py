"""Run SGLang's own attention test kit (``trtllm_mha``) for ONE side, original or patched sources, on a CUDA GPU.

    source .gpu-bundle/activate.sh
    PYTHONPATH=<dir holding the side's sglang/>:. python -m codemod.gpu.worker --side original|patched|original_again|patched_again \
        --out DIR [--head-dim 64] [--hidden-size 256] [--repeats 20] [--cases-filter SUBSTR]

Standalone: stdlib + torch + sglang, imported inside main(); imports nothing of ``codemod`` outside ``codemod.gpu``. SGLang is whatever
sys.path finds first (``sglang.__file__`` asserted and recorded, plus the sha256 of the two backend modules).
1. Before anything is built, ``__init__`` is wrapped in place on the FlashInfer classes (the 3 Batch*Wrapper,
   FlashInferIndicesUpdater{Decode,Prefill}, FlashInferAttnBackend): "flashinfer_objects" = their __init__ runs,
   subclasses included; the detail adds "exact" (objects of exactly that type) and the runs by concrete type.
   FlashInferMultiStepDraftBackend and the two TRTLLM backends are counted under "other_objects".
2. ``ATTENTION_BACKENDS["trtllm_mha"](runner)`` and ``TRTLLMHAAttnMultiStepDraftBackend(runner, 1, 3)`` (runner set up
   by the kit's ``_configure_runner_for_eagle_draft``) are built 3 times each, with get_buffer's named-buffer cache
   emptied before (restored after) so the FIRST build pays for its workspaces; each build's GPU (allocated, peak,
   reserved) and pinned host memory are recorded apart (``memory.py`` says how each is read). Then one EAGLE process's
   set (target, draft extend, draft decode), all alive at once: "per_process".
3. Each case of ``make_dense_cases("trtllm_mha")`` eagerly vs the kit reference (DENSE_ATOL/RTOL), then the kit's
   CUDA-graph decode runner on the decode cases (replay output kept).
4. Latency (``latency.py``): ``run_dense_fixture_eager`` (metadata + forward) for one decode and one extend case
   (CUDA events, 5 warm-ups, then --repeats runs), and a GPU-bound decode batch timed as CUDA-graph replays.
5. Draft, "manual": a topk=1, 3-step EAGLE draft decode batch like the kit's (prefix_lens (4, 7), page 16),
   ``init_forward_metadata`` on the draft backend, then one forward (RadixAttention -> forward_decode) per per-step
   backend, step i writing KV at prefix+i and reading prefix+i+1 keys; checked against the kit's dense reference and
   saved as draft/manual/<case>/step<i>. "runner": the kit's EAGLE draft CUDA-graph runner and Frozen-KV MTP runner on
   the upstream trtllm_mha test's cases (graph replay vs eager draft_forward); their tensors are saved.
DIR/result_<side>.json and DIR/outputs_<side>.pt ({key: cpu tensor, exact dtype}) are rewritten after every phase.
Fixtures are seeded, so a key holds the same inputs on both sides. SkipTest and the bundle's StubCalledError count as
"skipped". One line per case, then ``N passed, M failed, K skipped``; exit 0 unless nothing could run (then exit 2).
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import json
import re
import sys
import time
import traceback
import unittest
from pathlib import Path

from .draft import DraftPhases
from .latency import LatencyPhases
from .memory import MemoryPhases
from .kit import BACKEND, FLASHINFER_CLASSES, OTHER_CLASSES, STEPS, TOPK, ObjectCounter, _KitTestCase, _short


class Worker(DraftPhases, LatencyPhases, MemoryPhases):
    def __init__(self, args, out: Path):
        self.args, self.out, self.side = args, out, args.side
        self.outputs, self.seen_errors, self.counter, self.tc = {}, set(), ObjectCounter(), _KitTestCase()
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}
        self.sdr = self.sdr_error = self.torch = None
        self.result = {"side": self.side, "sglang_file": None, "torch": None, "device": None, "flashinfer": None, "args": vars(args), "modules": {},
                       "wrapped_classes": [], "absent_classes": [], "construction": {}, "cases": [], "latency": {}, "errors": []}

    def flush(self):
        (self.out / f"result_{self.side}.json").write_text(json.dumps(self.result, indent=1, default=str))
        if self.outputs and self.torch is not None:
            self.torch.save(self.outputs, self.out / f"outputs_{self.side}.pt")

    def seed(self, s=0):
        self.torch.manual_seed(s)
        self.torch.cuda.manual_seed_all(s)

    def selected(self, name):
        return not self.args.cases_filter or self.args.cases_filter in name

    def error(self, where, e):
        """Keeps (and prints) the traceback of each distinct error once."""
        key = f"{where}: {_short(e, 160)}"
        if key not in self.seen_errors:
            self.seen_errors.add(key)
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-8:]).rstrip()[-2500:]
            self.result["errors"].append({"where": where, "error": _short(e), "traceback": tb})
            print(tb, flush=True)

    def record(self, mode, name, status, detail, t0, output_key=None, **extra):
        self.counts[status] += 1
        secs = time.time() - t0
        self.result["cases"].append({"name": name, "mode": mode, "status": status, "detail": detail, "seconds": round(secs, 3),
                                     "output_key": output_key, **extra})
        print(f"[{self.side}] {status.upper()[:4]:4s} {mode}/{name}  {detail}  ({secs:.1f}s)", flush=True)

    def record_exc(self, mode, name, e, t0, output_key=None, **extra):
        if isinstance(e, KeyboardInterrupt):
            raise e
        if isinstance(e, unittest.SkipTest):
            return self.record(mode, name, "skipped", f"reason: {e}", t0, output_key, **extra)
        x, depth = e, 0
        while x is not None and type(x).__name__ != "StubCalledError" and depth < 8:
            x, depth = x.__cause__ or x.__context__, depth + 1
        if x is not None:  # the bundle stubs sgl_kernel: an environment limit, not a result
            return self.record(mode, name, "skipped", f"bundle stub called: {_short(x)}", t0, output_key, **extra)
        self.record(mode, name, "failed", _short(e), t0, output_key, **extra)
        self.error(f"{mode}/{name}", e)

    def save(self, key, tensor):
        self.outputs[key] = tensor.detach().to("cpu").clone()
        return key

    def setup(self):
        import torch
        self.torch, self.result["torch"] = torch, torch.__version__
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA is not available")
        self.result["device"] = torch.cuda.get_device_name(0)
        import sglang
        assert getattr(sglang, "__file__", None), "sglang was imported as a namespace package (no __file__)"
        self.result["sglang_file"] = str(Path(sglang.__file__).resolve())
        from sglang.srt.layers.attention import flashinfer_backend as fib
        from sglang.srt.layers.attention import trtllm_mha_backend as tmb
        for mod in (fib, tmb):
            p = Path(mod.__file__)
            self.result["modules"][mod.__name__] = {"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        try:
            import flashinfer
        except Exception:  # noqa: BLE001
            flashinfer = None
        self.result["flashinfer"] = getattr(flashinfer, "__version__", None)
        try:
            import importlib.metadata
            self.result["sglang"] = importlib.metadata.version("sglang")
        except Exception:  # noqa: BLE001 - a source tree without metadata
            self.result["sglang"] = None
        mods = {"flashinfer_backend": fib, "trtllm_mha_backend": tmb}
        todo = [(n, getattr(fib, n, None) or getattr(flashinfer, n, None)) for n in FLASHINFER_CLASSES]
        for name, cls in todo + [(n, getattr(mods[m], n, None)) for m, n in OTHER_CLASSES]:
            self.counter.wrap(cls, name) if isinstance(cls, type) else self.counter.absent.append(name)
        self.result["wrapped_classes"], self.result["absent_classes"] = self.counter.wrapped, self.counter.absent
        from sglang.test.kits.attention_unittest.attention_methods import dense_attention as da
        self.tmb, self.da, self.kw = tmb, da, dict(head_dim=self.args.head_dim, hidden_size=self.args.hidden_size)
        try:
            from sglang.test.kits.attention_unittest.runner_modes import speculative_draft_runner as sdr
            self.sdr = sdr
        except Exception as e:  # noqa: BLE001 - the draft-runner cases are then skipped with this reason
            self.sdr_error = _short(e)
            self.error("import speculative_draft_runner", e)

    def run_eager(self, cases):
        da, torch = self.da, self.torch
        for case in cases:
            t0, key, extra, snap = time.time(), None, {}, self.counter.snapshot()
            try:
                self.seed()
                fx = da.build_dense_attention_fixture(self.tc, case, **self.kw)
                actual = da.run_dense_fixture_eager(fx)
                expected = da.expected_dense_fixture_output(fx)
                torch.cuda.synchronize()
                key = self.save(case.name, actual)
                extra["flashinfer_objects"] = self.counter.delta(snap, FLASHINFER_CLASSES)[0]
                torch.testing.assert_close(actual, expected, atol=da.DENSE_ATOL, rtol=da.DENSE_RTOL)
                err = (actual.float() - expected.float()).abs().max().item()
                self.record("eager", case.name, "passed", f"max_abs_err={err:.2e}", t0, key, **extra)
            except BaseException as e:  # noqa: BLE001 - record and continue
                self.record_exc("eager", case.name, e, t0, key, **extra)
            fx = actual = expected = None
            gc.collect()

    def run_cuda_graph(self, cases):
        from sglang.test.kits.attention_unittest.runner_modes import cuda_graph_decode_runner as cgr
        orig = cgr.run_dense_forward  # run_dense_cuda_graph_decode_case reads this global when it builds its adapter
        for case in [c for c in cases if c.forward_mode.is_decode()]:
            t0, calls = time.time(), []

            def recording_forward(fixture, batch, inputs, _calls=calls):
                _calls.append(orig(fixture, batch, inputs))  # call 1: capture warm-up; call 2: replay
                return _calls[-1]

            cgr.run_dense_forward = recording_forward
            try:
                self.seed()
                cgr.run_dense_cuda_graph_decode_case(self.tc, case, **self.kw)
                self.torch.cuda.synchronize()
                key = self.save(f"cuda_graph_decode/{case.name}", calls[-1]) if len(calls) >= 2 else None
                self.record("cuda_graph_decode", case.name, "passed", "replay matches reference and eager", t0, key)
            except BaseException as e:  # noqa: BLE001
                key = self.save(f"cuda_graph_decode/{case.name}", calls[-1]) if len(calls) >= 2 else None
                self.record_exc("cuda_graph_decode", case.name, e, t0, key)
            finally:
                cgr.run_dense_forward = orig
            calls.clear()
            gc.collect()

    def run(self):
        da, part = self.da, functools.partial
        all_cases = list(da.make_dense_cases(BACKEND))
        cases = [c for c in all_cases if self.selected(c.name)]
        draft_build = lambda runner: self.tmb.TRTLLMHAAttnMultiStepDraftBackend(runner, TOPK, STEPS)  # noqa: E731
        for phase in (part(self.measure, "TRTLLMHAAttnBackend", all_cases[0], lambda runner: da.ATTENTION_BACKENDS[BACKEND](runner)),
                      part(self.run_eager, cases), part(self.run_cuda_graph, cases), part(self.run_latency, cases),
                      part(self.run_gpu_bound, all_cases),
                      part(self.measure, "TRTLLMHAAttnMultiStepDraftBackend", self.draft_case("draft_construction"), draft_build, draft=True),
                      self.run_per_process,  # after the phases that must not see the EAGLE server args it publishes
                      self.run_draft_manual, self.run_draft_runners):  # manual before the runners: a failed capture can taint CUDA
            try:
                phase()
            except Exception as e:  # noqa: BLE001
                self.error(getattr(phase, "func", phase).__name__, e)
            self.flush()


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="python -m codemod.gpu.worker", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--side", required=True, help="original | patched | original_again | patched_again (names the output files)")
    ap.add_argument("--out", required=True, help="directory for result_<side>.json and outputs_<side>.pt")
    ap.add_argument("--head-dim", type=int, default=64, help="64 or 128 on the SM90 bundle (default 64)")
    ap.add_argument("--hidden-size", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=20, help="timed runs per latency case, after 5 warm-ups")
    ap.add_argument("--cases-filter", default=None, metavar="SUBSTR", help="only cases whose name contains SUBSTR (constructions always run)")
    args = ap.parse_args(argv)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", args.side):
        ap.error(f"--side must be a plain name, got {args.side!r}")
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    w, t0 = Worker(args, out), time.time()
    try:
        w.setup()
    except BaseException as e:  # noqa: BLE001 - nothing can run: a result file, one line, exit 2
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])[-2500:]
        w.result["errors"].append({"where": "setup", "error": _short(e), "traceback": tb})
        (out / f"result_{args.side}.json").write_text(json.dumps(w.result, indent=1, default=str))
        print(f"0 passed, 0 failed, 0 skipped (nothing ran: {_short(e, 200)})", flush=True)
        return 2
    print(f"[{w.side}] sglang {w.result['sglang_file']} | torch {w.result['torch']} | {w.result['device']} | setup {time.time() - t0:.1f}s"
          f" | wrapped {len(w.counter.wrapped)} classes" + (f", absent: {', '.join(w.counter.absent)}" if w.counter.absent else ""), flush=True)
    w.run()
    c = w.counts
    w.result["summary"] = dict(c, seconds=round(time.time() - t0, 1))
    w.flush()
    print(f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped", flush=True)
    ran = c["passed"] + c["failed"] > 0 or any("allocated_bytes" in v for v in w.result["construction"].values())
    return 0 if ran else 2


if __name__ == "__main__":
    sys.exit(main())
