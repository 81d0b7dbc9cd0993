"""The worker's memory phases: what each construction allocates, GPU and pinned host memory apart.

A part of ``worker.Worker`` (mixed in). SGLang caches named buffers per process
(``get_buffer``: the first caller pays, the later ones share), so a backend's cost has two
parts: what the first construction in a process allocates (its own objects plus the
cached workspaces) and what each later one adds. Each phase empties that cache first
(and restores it after), builds the class ``CONSTRUCTIONS`` times and records every build.

How each figure is read, per construction (the object kept alive until it is read):
- GPU: ``torch.cuda.memory_allocated()``, ``max_memory_allocated()`` and ``memory_reserved()``
  deltas (caching allocator; reserved moves only when the allocator grows its pool).
- pinned host memory: ``torch.cuda.host_memory_stats()`` (torch >= 2.5), key
  ``active_bytes.current`` where it exists (torch >= 2.9: blocks handed out), else
  ``allocated_bytes.current`` (the older layout, where that key means the same). The pinned
  allocator rounds each block up to a power of two, so this is what the process holds, not
  the bytes asked for. Process RSS (psutil) cannot tell pinned pages from others, so it is
  not used.
- ``reachable``: the bytes of the distinct tensor storages reachable from the object's
  attributes (through SGLang and FlashInfer objects), by device (cuda, pinned, cpu): a check
  that needs no allocator statistics. It also counts what the object shares (the buffer
  cache, the runner's KV pools), so only its pinned figure compares with the deltas.
"""

from __future__ import annotations

import gc
import statistics
import time

from .kit import (
    CAPTURE_BS,
    CONSTRUCTIONS,
    FLASHINFER_CLASSES,
    OTHER_CLASSES,
    STEPS,
    TOPK,
    _mro,
    _short,
)

MiB = 1 << 20


def pinned_reading(torch) -> tuple[int | None, str]:
    """(bytes of pinned host memory handed out now, the statistic read), or (None, why not)."""
    stats_fn = getattr(torch.cuda, "host_memory_stats", None)
    if stats_fn is None:
        return None, f"torch {torch.__version__} has no torch.cuda.host_memory_stats"
    try:
        stats = stats_fn()
    except Exception as e:  # noqa: BLE001
        return None, f"host_memory_stats failed: {_short(e, 120)}"
    for key in ("active_bytes.current", "allocated_bytes.current"):
        if key in stats:
            return int(stats[key]), f"torch.cuda.host_memory_stats()['{key}']"
    return None, "host_memory_stats has neither active_bytes.current nor allocated_bytes.current"


def reachable_bytes(torch, obj, limit=20000) -> dict:
    """Bytes of the distinct storages reachable from ``obj`` through attributes, lists, tuples and dicts."""
    seen, storages, todo, steps = set(), {}, [obj], 0
    while todo and steps < limit:
        x = todo.pop()
        steps += 1
        if id(x) in seen or x is None or isinstance(x, (str, bytes, int, float, bool, type)):
            continue
        seen.add(id(x))
        if torch.is_tensor(x):
            try:
                st = x.untyped_storage()
                kind = "cuda" if x.is_cuda else ("pinned" if x.is_pinned() else "cpu")
                storages[(kind, st.data_ptr())] = st.nbytes()
            except Exception:  # noqa: BLE001 - a tensor without storage (meta, fake) holds nothing
                pass
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, (list, tuple, set)):
            todo.extend(x)
        elif hasattr(x, "__dict__") and not isinstance(x, torch.nn.Module) and type(x).__module__.split(".")[0] in ("sglang", "flashinfer"):
            todo.extend(vars(x).values())
    out = {"cuda": 0, "pinned": 0, "cpu": 0}
    for (kind, _), n in storages.items():
        out[kind] += n
    return out


class MemoryPhases:
    def readings(self):
        torch = self.torch
        torch.cuda.synchronize()
        pinned, self.result["pinned_method"] = pinned_reading(torch)
        return {"gpu": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved(), "pinned": pinned}

    def delta(self, before, obj):
        after = self.readings()
        torch = self.torch
        out = {"gpu_bytes": after["gpu"] - before["gpu"], "peak_bytes": torch.cuda.max_memory_allocated() - before["gpu"],
               "reserved_bytes": after["reserved"] - before["reserved"],
               "pinned_bytes": None if after["pinned"] is None or before["pinned"] is None else after["pinned"] - before["pinned"]}
        out["reachable"] = reachable_bytes(torch, obj)
        return out

    def settle(self):
        gc.collect()
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()

    def buffer_cache(self):
        from sglang.srt import runtime_context as rc
        return rc._CONTEXT.resources.buffers  # get_buffer's name -> buffer cache

    def make_runner(self, case, draft=False):
        da = self.da
        mc = da.TinyModelConfig(num_heads=case.num_heads, num_kv_heads=case.num_kv_heads, head_dim=self.args.head_dim,
                                hidden_size=self.args.hidden_size, context_len=da.DEFAULT_MAX_CONTEXT_LEN,
                                sliding_window_size=case.sliding_window_size)
        runner = da.MockModelRunner(case=case, model_config=mc, dtype=da.DEFAULT_DTYPE, device="cuda",
                                    max_context_len=da.DEFAULT_MAX_CONTEXT_LEN, head_dim=self.args.head_dim,
                                    **(dict(disable_cuda_graph=False, runner_batch_size=CAPTURE_BS) if draft else {}))
        note = self.configure_draft(runner, case) if draft else None
        return runner, note

    def measure(self, label, case, build, draft=False):
        """``build(runner)`` CONSTRUCTIONS times in an emptied buffer cache; the first and each later build."""
        t0 = time.time()
        rec = {"case": case.name, "buffer_cache_isolated": True}
        try:
            runner, note = self.make_runner(case, draft)
            if draft:
                rec["spec_setup"] = note
            buffers = self.buffer_cache()
        except Exception as e:  # noqa: BLE001
            self.error(f"construction/{label}", e)
            self.result["construction"][label] = dict(rec, error=_short(e))
            return
        saved, builds, secs = dict(buffers), [], []
        buffers.clear()
        try:
            for k in range(CONSTRUCTIONS):
                self.settle()
                keys, snap = set(buffers), self.counter.snapshot()
                self.torch.cuda.reset_peak_memory_stats()
                before = self.readings()
                t1 = time.perf_counter()
                obj = build(runner)
                self.torch.cuda.synchronize()
                secs.append(time.perf_counter() - t1)
                builds.append(self.delta(before, obj))
                builds[-1]["buffers_created"] = {n: int(getattr(buffers[n], "nbytes", 0) or 0) for n in set(buffers) - keys}
                if k == 0:
                    flat, detail = self.counter.delta(snap, FLASHINFER_CLASSES)
                    children = list(getattr(obj, "attn_backends", None) or [])
                    rec.update(flashinfer_objects=flat, flashinfer_objects_detail=detail, class_mro=_mro(type(obj)),
                               other_objects=self.counter.delta(snap, [n for _, n in OTHER_CLASSES])[1],
                               buffers_created=builds[0]["buffers_created"],
                               **(dict(children=[type(c).__name__ for c in children], child_class_mro=_mro(type(children[0])))
                                  if children else {}))
                del obj
        except Exception as e:  # noqa: BLE001
            self.error(f"construction/{label}", e)
            rec["error"] = _short(e)
        finally:
            buffers.clear()
            buffers.update(saved)
            self.settle()
        if builds:
            allocs = [b["gpu_bytes"] for b in builds]
            rec.update(builds=builds, allocated_bytes=allocs[0], peak_bytes=builds[0]["peak_bytes"], allocated_bytes_all=allocs,
                       peak_bytes_all=[b["peak_bytes"] for b in builds], later_differ=any(a != allocs[0] for a in allocs[1:]),
                       seconds_median=statistics.median(secs), seconds_all=secs)
            later = ", ".join(f"{b['gpu_bytes'] / MiB:.2f}" for b in builds[1:])
            pinned = builds[0]["pinned_bytes"]
            print(f"[{self.side}] construction {label}: first {allocs[0] / MiB:.2f} MiB GPU"
                  f" + {'?' if pinned is None else f'{pinned / MiB:.2f}'} MiB pinned, later {later} MiB GPU, "
                  f"{sum(rec['flashinfer_objects'].values())} FlashInfer objects ({time.time() - t0:.1f}s)", flush=True)
        self.result["construction"][label] = rec

    def run_per_process(self):
        """One process as SGLang runs EAGLE (topk 1, 3 steps) with trtllm_mha: the target's backend, then on the
        draft runner the draft-extend backend (TRTLLMHAAttnBackend, skip_prefill=False) and the multi-step draft
        backend; all kept alive, in an emptied buffer cache, so the total is what the process holds for them."""
        tmb, t0, parts, alive = self.tmb, time.time(), [], []
        rec = {"config": f"EAGLE topk {TOPK}, {STEPS} steps, trtllm_mha: target, draft extend, draft decode", "parts": parts}
        try:
            target, _ = self.make_runner(self.draft_case("per_process_target"))
            draft_runner, rec["spec_setup"] = self.make_runner(self.draft_case("per_process_draft"), draft=True)
            buffers = self.buffer_cache()
        except Exception as e:  # noqa: BLE001
            self.error("per_process", e)
            self.result["per_process"] = dict(rec, error=_short(e))
            return
        saved = dict(buffers)
        buffers.clear()
        steps = (("target", "TRTLLMHAAttnBackend", lambda: tmb.TRTLLMHAAttnBackend(target)),
                 ("draft_extend", "TRTLLMHAAttnBackend", lambda: tmb.TRTLLMHAAttnBackend(draft_runner, skip_prefill=False)),
                 ("draft_decode", "TRTLLMHAAttnMultiStepDraftBackend", lambda: tmb.TRTLLMHAAttnMultiStepDraftBackend(draft_runner, TOPK, STEPS)))
        try:
            self.settle()
            self.torch.cuda.reset_peak_memory_stats()
            start = self.readings()
            for role, cls, build in steps:
                keys, before = set(buffers), self.readings()
                alive.append(build())
                part = dict(role=role, **{"class": cls}, **self.delta(before, alive[-1]))
                part["buffers_created"] = sorted(set(buffers) - keys)
                parts.append(part)
            rec.update(self.delta(start, alive))
        except Exception as e:  # noqa: BLE001
            self.error("per_process", e)
            rec["error"] = _short(e)
        finally:
            alive.clear()
            buffers.clear()
            buffers.update(saved)
            self.settle()
        if "gpu_bytes" in rec:
            print(f"[{self.side}] per process ({rec['config']}): {rec['gpu_bytes'] / MiB:.2f} MiB GPU, "
                  f"{(rec['pinned_bytes'] or 0) / MiB:.2f} MiB pinned ({time.time() - t0:.1f}s)", flush=True)
        self.result["per_process"] = rec
