"""``--emit-tests`` for the TRTLLM MHA backends: a CUDA test for SGLang's own suite, built on its attention kit.

The generic test of ``codemod.regression`` reads the patched source; a maintainer of SGLang
wants one that runs: constructing ``TRTLLMHAAttnBackend`` (target and draft extend) and
``TRTLLMHAAttnMultiStepDraftBackend`` builds no FlashInfer wrapper and never asks for the
``flashinfer_workspace`` buffer, the draft's per-step backends are TRTLLM MHA backends that
carry the runner's KV index translator, and the kit's eager, CUDA-graph decode and
speculative-draft cases still pass. On the original sources the construction tests fail,
on the patched they pass; ``decouple verify`` runs the file on both sides.

The text is ours (a template, black-formatted, pyflakes-clean; tests/units/test_sglang_kit_test.py
checks both); it calls only the kit's public runners. It lands where SGLang keeps the kit's
dense tests, ``test/registered/attention/unittest/dense/``, registered for CUDA CI.
"""

from __future__ import annotations

from pathlib import Path

# The module the two classes live in, and where SGLang's checkout keeps the kit's dense tests.
MODULE = "sglang/srt/layers/attention/trtllm_mha_backend.py"
KIT = "sglang/test/kits/attention_unittest"
CLASSES = ("TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend")
TEST_PATH = "test/registered/attention/unittest/dense/test_trtllm_mha_decoupled.py"

# The tests that pin the decoupling (they fail on the original sources) and those that
# run the kit (they pass on both sides).
CONSTRUCTION_TESTS = (
    "test_target_and_draft_extend_build_no_flashinfer_wrapper",
    "test_target_and_draft_extend_never_ask_for_flashinfer_workspace",
    "test_draft_decode_builds_no_flashinfer_wrapper_nor_workspace",
    "test_draft_step_backends_are_trtllm_mha_with_the_runners_translator",
)
KIT_TESTS = ("test_eager_cases", "test_cuda_graph_decode_cases", "test_speculative_draft_cases")

TEMPLATE = '''"""TRTLLM MHA attention backends without FlashInfer's objects.

Written by decouple {version} with the patch that reparents TRTLLMHAAttnBackend onto
AttentionBackend and TRTLLMHAAttnMultiStepDraftBackend onto object. Constructing them
must build no FlashInfer wrapper and never ask for the "flashinfer_workspace" buffer
(each wrapper holds GPU and pinned host workspaces; the named buffer is allocated once
per process); the draft's per-step backends must be TRTLLM MHA backends carrying the
runner's KV index translator. The attention kit's eager, CUDA-graph decode and
speculative-draft cases check that the outputs stay as they were.
"""

import contextlib
import unittest
from unittest import mock

import torch

from sglang.srt.model_executor.forward_batch_info import ForwardMode
from sglang.test.ci.ci_register import register_cuda_ci
from sglang.test.kits.attention_unittest.attention_methods.dense_attention import (
    DenseAttentionCase,
    build_dense_attention_fixture,
    make_dense_cases,
    run_dense_attention_case,
)
from sglang.test.kits.attention_unittest.runner_modes.cuda_graph_decode_runner import (
    run_dense_cuda_graph_decode_case,
)
from sglang.test.kits.attention_unittest.runner_modes.speculative_draft_runner import (
    run_dense_eagle_draft_cuda_graph_runner_case,
    run_dense_frozen_kv_mtp_cuda_graph_runner_case,
)
from sglang.test.test_utils import CustomTestCase

register_cuda_ci(est_time=60, stage="base-b", runner_config="1-gpu-large")

BACKEND = "trtllm_mha"
FLASHINFER_WRAPPERS = (
    "BatchPrefillWithPagedKVCacheWrapper",
    "BatchPrefillWithRaggedKVCacheWrapper",
    "BatchDecodeWithPagedKVCacheWrapper",
)
TOPK, STEPS, DRAFT_TOKENS = 1, 3, 3


def _counting_init(init, name, built):
    def counted(self, *args, **kwargs):
        built.append(name)
        return init(self, *args, **kwargs)

    return counted


@contextlib.contextmanager
def _watched():
    """Records each FlashInfer wrapper built and each named buffer asked for."""
    import flashinfer

    from sglang.srt.runtime_context import get_context

    seen = {{"wrappers": [], "buffers": []}}
    context_type = type(get_context())
    get_buffer = context_type.get_buffer

    def recording_get_buffer(self, name, factory):
        seen["buffers"].append(name)
        return get_buffer(self, name, factory)

    with contextlib.ExitStack() as stack:
        for name in FLASHINFER_WRAPPERS:
            cls = getattr(flashinfer, name)
            counted = _counting_init(cls.__init__, name, seen["wrappers"])
            stack.enter_context(mock.patch.object(cls, "__init__", counted))
        stack.enter_context(
            mock.patch.object(context_type, "get_buffer", recording_get_buffer)
        )
        yield seen


@unittest.skipIf(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0),
    "CUDA with SM90 or newer is required",
)
class TestTRTLLMHAWithoutFlashInfer(CustomTestCase):
    HEAD_DIM = 64
    HIDDEN_SIZE = 256
    CASES = make_dense_cases(BACKEND)

    def _case(self, name):
        return DenseAttentionCase(
            name=name,
            backend=BACKEND,
            forward_mode=ForwardMode.DECODE,
            num_heads=4,
            num_kv_heads=4,
            page_size=16,
            prefix_lens=(4, 7),
        )

    def _runner(self):
        fixture = build_dense_attention_fixture(
            self,
            self._case("construction"),
            head_dim=self.HEAD_DIM,
            hidden_size=self.HIDDEN_SIZE,
        )
        return fixture.runner

    def _build_target_and_draft_extend(self):
        from sglang.srt.layers.attention.trtllm_mha_backend import TRTLLMHAAttnBackend

        runner = self._runner()
        with _watched() as seen:
            TRTLLMHAAttnBackend(runner)
            TRTLLMHAAttnBackend(runner, skip_prefill=False)
        return seen

    def _build_draft_decode(self):
        from sglang.srt.layers.attention.trtllm_mha_backend import (
            TRTLLMHAAttnMultiStepDraftBackend,
        )

        runner = self._runner()
        with _watched() as seen:
            draft = TRTLLMHAAttnMultiStepDraftBackend(runner, TOPK, STEPS)
        return runner, draft, seen

    def test_target_and_draft_extend_build_no_flashinfer_wrapper(self):
        self.assertEqual(self._build_target_and_draft_extend()["wrappers"], [])

    def test_target_and_draft_extend_never_ask_for_flashinfer_workspace(self):
        buffers = self._build_target_and_draft_extend()["buffers"]
        self.assertNotIn("flashinfer_workspace", buffers)

    def test_draft_decode_builds_no_flashinfer_wrapper_nor_workspace(self):
        _, _, seen = self._build_draft_decode()
        self.assertEqual(seen["wrappers"], [])
        self.assertNotIn("flashinfer_workspace", seen["buffers"])

    def test_draft_step_backends_are_trtllm_mha_with_the_runners_translator(self):
        from sglang.srt.layers.attention.trtllm_mha_backend import TRTLLMHAAttnBackend

        runner, draft, _ = self._build_draft_decode()
        self.assertEqual(len(draft.attn_backends), STEPS - 1)
        self.assertIs(draft.kv_index_translator, runner.kv_index_translator)
        for step in draft.attn_backends:
            self.assertIs(type(step), TRTLLMHAAttnBackend)
            self.assertIs(step.kv_index_translator, runner.kv_index_translator)

    def test_eager_cases(self):
        for case in self.CASES:
            with self.subTest(case=case.name):
                run_dense_attention_case(
                    self, case, head_dim=self.HEAD_DIM, hidden_size=self.HIDDEN_SIZE
                )

    def test_cuda_graph_decode_cases(self):
        for case in self.CASES:
            if not case.forward_mode.is_decode():
                continue
            with self.subTest(case=case.name):
                run_dense_cuda_graph_decode_case(
                    self, case, head_dim=self.HEAD_DIM, hidden_size=self.HIDDEN_SIZE
                )

    def test_speculative_draft_cases(self):
        with self.subTest(runner="eagle_draft"):
            run_dense_eagle_draft_cuda_graph_runner_case(
                self,
                self._case("runner_eagle_draft_decode_trtllm_mha_cuda_graph_chain"),
                topk=TOPK,
                speculative_num_steps=STEPS,
                speculative_num_draft_tokens=DRAFT_TOKENS,
                head_dim=self.HEAD_DIM,
                hidden_size=self.HIDDEN_SIZE,
            )
        with self.subTest(runner="frozen_kv_mtp"):
            case = self._case("runner_frozen_kv_mtp_decode_trtllm_mha_cuda_graph")
            run_dense_frozen_kv_mtp_cuda_graph_runner_case(
                self, case, head_dim=self.HEAD_DIM, hidden_size=self.HIDDEN_SIZE
            )


if __name__ == "__main__":
    unittest.main()
'''


def applies(root: Path, module_rel: str, class_names) -> bool:
    """The SGLang kit test replaces the generic one for the module of the two TRTLLM classes,
    in a tree that ships the kit."""
    return module_rel.endswith(MODULE) and set(CLASSES) <= set(class_names) and (root / module_rel[: -len(MODULE)] / KIT).is_dir()


def render(version: str) -> tuple[str, str]:
    """(path of the test under ROOT, its text)."""
    return TEST_PATH, TEMPLATE.format(version=version)
