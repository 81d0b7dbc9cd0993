"""The CUDA test ``--emit-tests`` writes for SGLang's TRTLLM MHA backends, without a GPU.

The SGLang it imports is a stand-in written here (the few names the test uses), in two
versions shaped like the two sides: an "original" whose backends build a FlashInfer wrapper
and ask for the ``flashinfer_workspace`` buffer, and a "patched" one that does neither. The
test runs through ``codemod.gpu.run_test`` as ``decouple verify`` runs it.
"""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemod.gpu import sglang_test
from codemod.gpu.record import emitted_outcome

REPO = Path(__file__).resolve().parents[2]
KIT = "sglang/test/kits/attention_unittest"

MODULES = {
    "sglang/srt/model_executor/forward_batch_info.py": '''
        class ForwardMode:
            def __init__(self, decode):
                self.decode = decode

            def is_decode(self):
                return self.decode

        ForwardMode.DECODE = ForwardMode(True)
        ForwardMode.EXTEND = ForwardMode(False)
    ''',
    "sglang/test/ci/ci_register.py": '''
        def register_cuda_ci(**kwargs):
            return None
    ''',
    "sglang/test/test_utils.py": '''
        import unittest

        class CustomTestCase(unittest.TestCase):
            pass
    ''',
    "sglang/srt/runtime_context.py": '''
        class Context:
            def __init__(self):
                self.buffers = {}

            def get_buffer(self, name, factory):
                if name not in self.buffers:
                    self.buffers[name] = factory()
                return self.buffers[name]

        _CONTEXT = Context()

        def get_context():
            return _CONTEXT

        def get_buffer(name, factory):
            return _CONTEXT.get_buffer(name, factory)
    ''',
    f"{KIT}/attention_methods/dense_attention.py": '''
        import dataclasses
        from sglang.srt.model_executor.forward_batch_info import ForwardMode

        CALLS = []

        @dataclasses.dataclass
        class DenseAttentionCase:
            name: str
            backend: str
            forward_mode: ForwardMode
            num_heads: int = 4
            num_kv_heads: int = 4
            page_size: int = 16
            prefix_lens: tuple = ()

        class Runner:
            kv_index_translator = object()

        class Fixture:
            runner = Runner()

        def build_dense_attention_fixture(testcase, case, **kwargs):
            return Fixture()

        def make_dense_cases(backend):
            return (DenseAttentionCase("decode", backend, ForwardMode.DECODE),
                    DenseAttentionCase("extend", backend, ForwardMode.EXTEND))

        def run_dense_attention_case(testcase, case, **kwargs):
            CALLS.append(("eager", case.name))
    ''',
    f"{KIT}/runner_modes/cuda_graph_decode_runner.py": '''
        def run_dense_cuda_graph_decode_case(testcase, case, **kwargs):
            testcase.assertTrue(case.forward_mode.is_decode())
    ''',
    f"{KIT}/runner_modes/speculative_draft_runner.py": '''
        def run_dense_eagle_draft_cuda_graph_runner_case(testcase, case, **kwargs):
            testcase.assertEqual(kwargs["speculative_num_steps"], 3)

        def run_dense_frozen_kv_mtp_cuda_graph_runner_case(testcase, case, **kwargs):
            pass
    ''',
    "flashinfer/__init__.py": '''
        class _Wrapper:
            def __init__(self, *args, **kwargs):
                self.args = args

        class BatchPrefillWithPagedKVCacheWrapper(_Wrapper):
            pass

        class BatchPrefillWithRaggedKVCacheWrapper(_Wrapper):
            pass

        class BatchDecodeWithPagedKVCacheWrapper(_Wrapper):
            pass
    ''',
}

BACKENDS = '''
    import flashinfer
    from sglang.srt.runtime_context import get_buffer


    class TRTLLMHAAttnBackend:
        def __init__(self, runner, skip_prefill=False, **kwargs):
            if ORIGINAL:
                get_buffer("flashinfer_workspace", lambda: bytearray(8))
                self.decode_wrapper = flashinfer.BatchDecodeWithPagedKVCacheWrapper()
            self.workspace = get_buffer("trtllm_workspace", lambda: bytearray(8))
            self.kv_index_translator = runner.kv_index_translator


    class TRTLLMHAAttnMultiStepDraftBackend:
        def __init__(self, runner, topk, steps):
            self.kv_index_translator = runner.kv_index_translator
            self.attn_backends = [TRTLLMHAAttnBackend(runner, skip_prefill=True) for _ in range(steps - 1)]
'''

FAKE_TORCH = '''
    class cuda:
        @staticmethod
        def is_available():
            return True

        @staticmethod
        def get_device_capability():
            return (9, 0)
'''


def stand_in(root: Path, original: bool, fake_torch: bool) -> Path:
    for rel, text in MODULES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for folder in [p for p in root.rglob("*") if p.is_dir()] + [root / "sglang"]:
        (folder / "__init__.py").touch()
    backend = root / "sglang/srt/layers/attention/trtllm_mha_backend.py"
    backend.parent.mkdir(parents=True, exist_ok=True)
    backend.write_text(f"ORIGINAL = {original}\n" + textwrap.dedent(BACKENDS))
    for p in [p for p in backend.parents if p != root and root in p.parents]:
        (p / "__init__.py").touch()
    if fake_torch:
        (root / "torch.py").write_text(textwrap.dedent(FAKE_TORCH))
    return root


def run_emitted(tmp_path: Path, side: str, original: bool, fake_torch: bool = True) -> dict:
    test = tmp_path / "test_trtllm_mha_decoupled.py"
    test.write_text(sglang_test.render("0.0")[1])
    root = stand_in(tmp_path / side, original, fake_torch)
    out = tmp_path / f"{side}.json"
    env = {"PYTHONPATH": f"{root}:{REPO}", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "codemod.gpu.run_test", str(test), "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


def test_the_emitted_file_is_formatted_and_pyflakes_clean(tmp_path):
    rel, text = sglang_test.render("0.0")
    assert rel == "test/registered/attention/unittest/dense/test_trtllm_mha_decoupled.py"
    compile(text, rel, "exec")
    path = tmp_path / "t.py"
    path.write_text(text)
    flakes = subprocess.run([sys.executable, "-m", "pyflakes", str(path)], capture_output=True, text=True)
    assert flakes.returncode == 0, flakes.stdout
    black = pytest.importorskip("black")
    assert black.format_str(text, mode=black.Mode()) == text
    # Imports sorted as SGLang's isort settings sort them (sglang first-party), line length 88.
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if Path(ruff).exists():
        lint = subprocess.run([ruff, "check", "--no-cache", "--select", "I,E,W,F", "--line-length", "88",
                               "--config", 'lint.isort.known-first-party=["sglang"]', str(path)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout
    assert "register_cuda_ci(" in text and "decouple 0.0" in text


def test_it_skips_without_cuda(tmp_path):
    pytest.importorskip("torch")
    run = run_emitted(tmp_path, "patched", original=False, fake_torch=False)  # the real torch, built for the CPU
    statuses = {t["status"] for t in run["tests"].values()}
    assert statuses == {"skipped"}, run["tests"]
    assert set(run["tests"]) == {*sglang_test.CONSTRUCTION_TESTS, *sglang_test.KIT_TESTS}


def test_the_construction_tests_fail_on_the_original_and_pass_on_the_patched(tmp_path):
    original = run_emitted(tmp_path, "original", original=True)
    patched = run_emitted(tmp_path, "patched", original=False)
    assert all(t["status"] == "passed" for t in patched["tests"].values()), patched["tests"]
    failed = {n for n, t in original["tests"].items() if t["status"] == "failed"}
    assert failed == {"test_target_and_draft_extend_build_no_flashinfer_wrapper",
                      "test_target_and_draft_extend_never_ask_for_flashinfer_workspace",
                      "test_draft_decode_builds_no_flashinfer_wrapper_nor_workspace"}
    # The kit's cases pass on both sides; the draft's step backends are TRTLLM ones on both.
    assert original["tests"]["test_draft_step_backends_are_trtllm_mha_with_the_runners_translator"]["status"] == "passed"
    outcome = emitted_outcome(None, "test", original, patched, sglang_test.CONSTRUCTION_TESTS, sglang_test.KIT_TESTS)
    assert outcome["as_expected"] and len(outcome["fails_on_original"]) == 3
    # A near miss: the same test passing on both sides pins nothing, and is not as expected.
    assert not emitted_outcome(None, "test", patched, patched, sglang_test.CONSTRUCTION_TESTS, sglang_test.KIT_TESTS)["as_expected"]


def test_the_kit_test_replaces_the_generic_one_only_for_the_two_classes_in_a_tree_with_the_kit(tmp_path):
    (tmp_path / KIT).mkdir(parents=True)
    both = list(sglang_test.CLASSES)
    assert sglang_test.applies(tmp_path, sglang_test.MODULE, both)
    assert not sglang_test.applies(tmp_path, sglang_test.MODULE, both[:1])
    assert not sglang_test.applies(tmp_path, "sglang/srt/layers/attention/other.py", both)
    assert not sglang_test.applies(tmp_path / "elsewhere", sglang_test.MODULE, both)
