"""What the GPU worker's phases share: the kit's names and sizes, and counting the objects a construction builds.

Standard library only (like the rest of ``codemod.gpu``).
"""

from __future__ import annotations

import functools
import unittest

FLASHINFER_CLASSES = ("BatchPrefillWithPagedKVCacheWrapper", "BatchPrefillWithRaggedKVCacheWrapper", "BatchDecodeWithPagedKVCacheWrapper",
                      "FlashInferIndicesUpdaterDecode", "FlashInferIndicesUpdaterPrefill", "FlashInferAttnBackend")
OTHER_CLASSES = (("flashinfer_backend", "FlashInferMultiStepDraftBackend"), ("trtllm_mha_backend", "TRTLLMHAAttnBackend"),
                 ("trtllm_mha_backend", "TRTLLMHAAttnMultiStepDraftBackend"))
BACKEND = "trtllm_mha"
LATENCY_CASES = ("mha_decode_page_boundary", "mha_extend_ragged_page_boundary")
TOPK, STEPS, DRAFT_TOKENS, CAPTURE_BS, VOCAB = 1, 3, 3, 4, 64  # the upstream trtllm_mha EAGLE chain case
WARMUP, CONSTRUCTIONS = 5, 3


class _KitTestCase(unittest.TestCase):
    """The kit only needs skipTest()/assert*() from its `testcase` argument."""

    def runTest(self):  # pragma: no cover
        pass


def _short(e, n=300):
    s = f"{type(e).__name__}: {e}".replace("\n", " | ")
    return s if len(s) <= n else s[: n - 3] + "..."


def _mro(cls):
    return [f"{c.__module__}.{c.__qualname__}" for c in cls.__mro__]


class ObjectCounter:
    """Counts __init__ runs of chosen classes by wrapping ``cls.__init__`` in place."""

    def __init__(self):
        self.exact, self.runs, self.by_type, self.wrapped, self.absent = {}, {}, {}, [], []

    def wrap(self, cls, label):
        orig, counter = cls.__init__, self

        @functools.wraps(orig)
        def __init__(obj, *args, **kwargs):
            counter.runs[label] = counter.runs.get(label, 0) + 1
            if type(obj) is cls:
                counter.exact[label] = counter.exact.get(label, 0) + 1
            key = (label, type(obj).__qualname__)
            counter.by_type[key] = counter.by_type.get(key, 0) + 1
            return orig(obj, *args, **kwargs)

        cls.__init__ = __init__
        self.wrapped.append(label)

    def snapshot(self):
        return dict(self.exact), dict(self.runs), dict(self.by_type)

    def delta(self, snap, labels):
        """({label: __init__ runs since snap}, {label: {exact, init_runs, by_type}})."""
        ex, ru, bt = snap
        flat = {lb: self.runs.get(lb, 0) - ru.get(lb, 0) for lb in labels if lb in self.wrapped}
        return flat, {lb: {"exact": self.exact.get(lb, 0) - ex.get(lb, 0), "init_runs": n,
                           "by_type": {t: c - bt.get((l2, t), 0) for (l2, t), c in self.by_type.items() if l2 == lb and c != bt.get((l2, t), 0)}}
                      for lb, n in flat.items()}
