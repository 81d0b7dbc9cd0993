"""The worker's memory phases on a stand-in torch (no GPU): first and later constructions, one EAGLE process.

The stand-in's allocator counts what live stand-in tensors hold (a tensor frees its bytes
when collected), so the phases read what they would read from ``torch.cuda``: a backend
whose first construction also fills the process's buffer cache, and whose every
construction holds its own GPU and pinned buffers.
"""

import types

import pytest

from codemod.gpu.kit import ObjectCounter
from codemod.gpu.memory import MemoryPhases, pinned_reading

MiB = 1 << 20


class Allocator:
    def __init__(self):
        self.gpu = self.pinned = self.peak = 0


class Tensor:
    def __init__(self, alloc, nbytes, kind):
        self.alloc, self.n, self.kind = alloc, nbytes, kind
        if kind == "cuda":
            alloc.gpu += nbytes
            alloc.peak = max(alloc.peak, alloc.gpu)
        elif kind == "pinned":
            alloc.pinned += nbytes
        self.is_cuda = kind == "cuda"

    def is_pinned(self):
        return self.kind == "pinned"

    def untyped_storage(self):
        return types.SimpleNamespace(data_ptr=lambda: id(self), nbytes=lambda: self.n)

    def __del__(self):
        if self.kind == "cuda":
            self.alloc.gpu -= self.n
        elif self.kind == "pinned":
            self.alloc.pinned -= self.n


def fake_torch(alloc, host_stats=True):
    cuda = types.SimpleNamespace(
        memory_allocated=lambda: alloc.gpu, max_memory_allocated=lambda: alloc.peak, memory_reserved=lambda: alloc.gpu,
        reset_peak_memory_stats=lambda: setattr(alloc, "peak", alloc.gpu), synchronize=lambda: None, empty_cache=lambda: None)
    if host_stats:
        cuda.host_memory_stats = lambda: {"active_bytes.current": alloc.pinned, "allocated_bytes.current": 1 << 40}
    return types.SimpleNamespace(cuda=cuda, is_tensor=lambda x: isinstance(x, Tensor), nn=types.SimpleNamespace(Module=type("Module", (), {})),
                                 __version__="0.0")


def fake_backends(alloc, buffers):
    """``sglang``-named classes shaped like the original TRTLLM backends: a 384 MiB workspace cached by name,
    plus, per instance, 8 MiB of GPU and 8 MiB of pinned memory for each of two wrappers."""
    class Wrapper:
        def __init__(self):
            self.gpu, self.host = Tensor(alloc, 8 * MiB, "cuda"), Tensor(alloc, 8 * MiB, "pinned")

    class TRTLLMHAAttnBackend:
        def __init__(self, runner, skip_prefill=True, **kwargs):
            if "flashinfer_workspace" not in buffers:
                buffers["flashinfer_workspace"] = Tensor(alloc, 384 * MiB, "cuda")
            self.workspace = buffers["flashinfer_workspace"]
            self.wrappers = [Wrapper() for _ in range(2)]

    class TRTLLMHAAttnMultiStepDraftBackend:
        def __init__(self, runner, topk, steps):
            self.attn_backends = [TRTLLMHAAttnBackend(runner) for _ in range(steps - 1)]

    Wrapper.__module__ = "flashinfer.decode"
    for cls in (TRTLLMHAAttnBackend, TRTLLMHAAttnMultiStepDraftBackend):
        cls.__module__ = "sglang.srt.layers.attention.trtllm_mha_backend"
    return types.SimpleNamespace(TRTLLMHAAttnBackend=TRTLLMHAAttnBackend, TRTLLMHAAttnMultiStepDraftBackend=TRTLLMHAAttnMultiStepDraftBackend)


class Phases(MemoryPhases):
    def __init__(self, host_stats=True):
        self.alloc, self.buffers = Allocator(), {}
        self.torch, self.side, self.counter = fake_torch(self.alloc, host_stats), "original", ObjectCounter()
        self.tmb = fake_backends(self.alloc, self.buffers)
        self.result, self.errors = {"construction": {}}, []

    def buffer_cache(self):
        return self.buffers

    def make_runner(self, case, draft=False):
        return object(), ("configured" if draft else None)

    def draft_case(self, name):
        return types.SimpleNamespace(name=name)

    def error(self, where, e):
        self.errors.append((where, e))


def test_the_first_construction_pays_for_the_cached_workspace_and_each_later_one_for_its_wrappers():
    w = Phases()
    w.measure("TRTLLMHAAttnBackend", types.SimpleNamespace(name="c"), lambda runner: w.tmb.TRTLLMHAAttnBackend(runner))
    assert not w.errors, w.errors
    builds = w.result["construction"]["TRTLLMHAAttnBackend"]["builds"]
    assert [b["gpu_bytes"] // MiB for b in builds] == [400, 16, 16]
    assert [b["pinned_bytes"] // MiB for b in builds] == [16, 16, 16]
    assert builds[0]["buffers_created"] == {"flashinfer_workspace": 0} and builds[1]["buffers_created"] == {}
    # What the object reaches counts the shared workspace on every build: a check, not the per-instance cost.
    assert builds[2]["reachable"] == {"cuda": 400 * MiB, "pinned": 16 * MiB, "cpu": 0}
    assert w.buffers == {} and w.alloc.gpu == 0  # the cache is as it was, nothing kept alive
    assert w.result["pinned_method"] == "torch.cuda.host_memory_stats()['active_bytes.current']"


def test_one_eagle_process_holds_the_workspace_once():
    w = Phases()
    w.run_per_process()
    rec = w.result["per_process"]
    assert not w.errors and "error" not in rec, (w.errors, rec)
    assert [(p["role"], p["gpu_bytes"] // MiB, p["pinned_bytes"] // MiB) for p in rec["parts"]] == [
        ("target", 400, 16), ("draft_extend", 16, 16), ("draft_decode", 32, 32)]
    assert rec["gpu_bytes"] == sum(p["gpu_bytes"] for p in rec["parts"]) == 448 * MiB
    assert rec["pinned_bytes"] == 64 * MiB and rec["spec_setup"] == "configured"
    assert w.alloc.gpu == 0


def test_without_host_allocator_statistics_pinned_memory_is_not_measured():
    w = Phases(host_stats=False)
    w.measure("TRTLLMHAAttnBackend", types.SimpleNamespace(name="c"), lambda runner: w.tmb.TRTLLMHAAttnBackend(runner))
    builds = w.result["construction"]["TRTLLMHAAttnBackend"]["builds"]
    assert all(b["pinned_bytes"] is None for b in builds)
    assert "no torch.cuda.host_memory_stats" in w.result["pinned_method"]
    assert builds[0]["reachable"]["pinned"] == 16 * MiB  # the other reading still sees them


@pytest.mark.parametrize("stats, key", [({"allocated_bytes.current": 5}, "allocated_bytes.current"),
                                        ({"active_bytes.current": 3, "allocated_bytes.current": 5}, "active_bytes.current")])
def test_the_older_statistics_layout_is_read_too(stats, key):
    torch = types.SimpleNamespace(cuda=types.SimpleNamespace(host_memory_stats=lambda: stats), __version__="0")
    assert pinned_reading(torch) == (stats[key], f"torch.cuda.host_memory_stats()['{key}']")
