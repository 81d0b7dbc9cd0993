"""The worker's latency phases: the kit's small cases eagerly, and a decode batch timed as CUDA-graph replays.

The kit's cases are a few tokens: timing them eagerly measures the host (metadata, Python,
launches), and two runs of the same sources differ by up to 1.5x. The GPU-bound case is a
decode batch of ``GPU_BOUND_BATCH`` requests of ``GPU_BOUND_CONTEXT`` tokens, driven through
the kit's own CUDA-graph decode runner; once its replay metadata is set, the forward is
captured in a ``torch.cuda.CUDAGraph`` and its replays timed with CUDA events, in
``GPU_BOUND_ROUNDS`` rounds of ``GPU_BOUND_INNER`` replays, after warm-up. Kernel time then
dominates; ``decouple verify`` runs the sides alternately (original, patched, original,
patched) and reports a ratio only when the two original runs agree within 5%.
"""

from __future__ import annotations

import dataclasses
import gc
import statistics
import time

from .kit import LATENCY_CASES, WARMUP

GPU_BOUND_BATCH, GPU_BOUND_CONTEXT = 32, 16384
GPU_BOUND_ROUNDS, GPU_BOUND_INNER = 15, 20


class LatencyPhases:
    def time_calls(self, fn):
        torch = self.torch
        for _ in range(WARMUP):
            fn()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(self.args.repeats)]
        torch.cuda.synchronize()
        for start, end in events:
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        all_ms = [s.elapsed_time(e) for s, e in events]
        return {"median_ms": statistics.median(all_ms), "all_ms": all_ms}

    def run_latency(self, cases):
        da = self.da
        by_name = {c.name: c for c in cases}
        picks = [by_name.get(n) or next((c for c in cases if c.forward_mode.is_decode() == ("decode" in n)), None) for n in LATENCY_CASES]
        for case in dict.fromkeys(c for c in picks if c is not None):
            try:
                self.seed()
                fx = da.build_dense_attention_fixture(self.tc, case, **self.kw)
                res = self.time_calls(lambda: da.run_dense_fixture_eager(fx))
                self.result["latency"][case.name] = dict(res, what="run_dense_fixture_eager: init_forward_metadata + module forward")
                print(f"[{self.side}] latency {case.name}: {res['median_ms']:.3f} ms (median of {self.args.repeats})", flush=True)
            except Exception as e:  # noqa: BLE001
                self.error(f"latency/{case.name}", e)
            fx = None
            gc.collect()

    def run_gpu_bound(self, cases):
        from sglang.test.kits.attention_unittest.runner_modes import cuda_graph_decode_runner as cgr

        torch = self.torch
        base = next(c for c in cases if c.forward_mode.is_decode())
        case = dataclasses.replace(base, name=f"decode_bs{GPU_BOUND_BATCH}_ctx{GPU_BOUND_CONTEXT}",
                                   prefix_lens=(GPU_BOUND_CONTEXT - 1,) * GPU_BOUND_BATCH)
        orig = cgr.run_dense_forward
        timed: dict = {}
        calls: list = []

        def timing_forward(fixture, batch, inputs):
            out = orig(fixture, batch, inputs)
            calls.append(1)
            if len(calls) == 2:  # the replay forward: its metadata buffers are those a graph replays
                timed.update(self._time_graph(lambda: orig(fixture, batch, inputs)))
            return out

        cgr.run_dense_forward = timing_forward
        t0 = time.time()
        try:
            self.seed()
            cgr.run_dense_cuda_graph_decode_case(self.tc, case, **self.kw, max_context_len=GPU_BOUND_CONTEXT + 16,
                                                 cuda_graph_capture_batch_size=GPU_BOUND_BATCH)
            torch.cuda.synchronize()
            if not timed:
                raise RuntimeError("the replay forward never ran")
            self.result["latency_gpu_bound"] = dict(timed, case=case.name, batch=GPU_BOUND_BATCH, context=GPU_BOUND_CONTEXT,
                                                    what="CUDA-graph replays of the decode forward (XQA), after replay metadata")
            print(f"[{self.side}] gpu-bound {case.name}: {timed['median_ms']:.4f} ms per replay "
                  f"(rounds {min(timed['rounds_ms']):.4f}-{max(timed['rounds_ms']):.4f}; {time.time() - t0:.1f}s)", flush=True)
        except Exception as e:  # noqa: BLE001
            self.error("latency/gpu_bound", e)
        finally:
            cgr.run_dense_forward = orig
            gc.collect()

    def _time_graph(self, forward) -> dict:
        torch = self.torch
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                forward()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            forward()
        for _ in range(WARMUP * GPU_BOUND_INNER):
            graph.replay()
        rounds = []
        for _ in range(GPU_BOUND_ROUNDS):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(GPU_BOUND_INNER):
                graph.replay()
            end.record()
            end.synchronize()
            rounds.append(start.elapsed_time(end) / GPU_BOUND_INNER)
        return {"median_ms": statistics.median(rounds), "rounds_ms": rounds}
