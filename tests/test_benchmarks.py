"""The benchmark scripts still run, and still measure the job they claim to.

They are timed on the real SGLang tree by hand (BENCHMARKS.md); here they run once on a small
tree shaped like SGLang's attention package, so that a change to the pipeline cannot leave them
broken or timing a failed command.
"""

import os
import re
import subprocess
import sys

import pytest
from conftest import REPO, tree_hashes, write_files

ATTN = "sglang/srt/layers/attention"

FILES = {
    f"{ATTN}/base_attn_backend.py": '''\
class AttentionBackend:
    def init_forward_metadata(self, batch):
        raise NotImplementedError
''',
    f"{ATTN}/flashinfer_backend.py": '''\
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class FlashInferAttnBackend(AttentionBackend):
    def __init__(self, runner):
        super().__init__()
        self.device = runner.device
        self.workspace = [0] * 1024
        self.wrappers = ["prefill", "decode"]

    def forward_decode(self, q):
        return self.wrappers[1], q


class FlashInferMultiStepDraftBackend:
    def __init__(self, runner, steps):
        self.steps = steps
        self.backends = [FlashInferAttnBackend(runner) for _ in range(steps)]
''',
    f"{ATTN}/trtllm_mha_backend.py": '''\
from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend, FlashInferMultiStepDraftBackend


class TRTLLMHAAttnBackend(FlashInferAttnBackend):
    def __init__(self, runner):
        super().__init__(runner)
        self.page = 16

    def init_forward_metadata(self, batch):
        return self.device, self.page


class TRTLLMHAAttnMultiStepDraftBackend(FlashInferMultiStepDraftBackend):
    def __init__(self, runner, steps):
        super().__init__(runner, steps)
        self.backends = [TRTLLMHAAttnBackend(runner) for _ in range(steps)]
''',
    "sglang/srt/runner.py": "def device_of(backend):\n    return backend.device\n",
    "sglang/srt/unrelated.py": "def add(a, b):\n    return a + b\n",
}


@pytest.fixture
def mini_sglang(tmp_path):
    packages = {f"{d}/__init__.py": "" for d in ["sglang", "sglang/srt", "sglang/srt/layers", ATTN]}
    return write_files(tmp_path / "tree", {**FILES, **packages})


def _script(name, root, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, DECOUPLE_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, str(REPO / "benchmarks" / name), str(root), "--repeats", "1"],
                          capture_output=True, text=True, env=env, timeout=300)


def _table(name, root, tmp_path) -> str:
    proc = _script(name, root, tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _rows(table: str) -> dict[str, str]:
    return {m.group(1).strip(): m.group(2).strip() for m in re.finditer(r"^\| ([^|]+) \| ([^|]+) \|", table, re.M)}


def test_phases_reports_every_stage_and_floor(mini_sglang, tmp_path):
    rows = _rows(_table("phases.py", mini_sglang, tmp_path))
    wanted = ["word index", "analysis", "rewrite and check", "total",
              "floor: analysis, rewrite and check, with every file already read, tokenised and parsed",
              "floor: a new process importing what a run imports"]
    for label in wanted:
        assert float(rows[label]) >= 0, label
    assert any(k.startswith("floor: ast.parse of the") for k in rows)


def test_bench_tree_times_every_command(mini_sglang, tmp_path):
    before = tree_hashes(mini_sglang)
    out = _table("bench_tree.py", mini_sglang, tmp_path)
    for label in ["decouple --check (cold)", "decouple --check (warm)", "decouple --check (warm, every file with a new time)",
                  "decouple --check after an edit to a file it reads", "decouple full patch run (cold)",
                  "decouple --check on the doubled tree (cold)"]:
        assert re.search(rf"^\| {re.escape(label)} \| \d+\.\d\d \|", out, re.M), label
    assert re.search(r"Doubled tree / tree \(cold --check\): \d+\.\d\dx", out)
    # The benchmark works on copies: ROOT is as it was.
    assert tree_hashes(mini_sglang) == before


@pytest.mark.parametrize("script, message", [("bench_tree.py", "exited with 2: "), ("phases.py", "phases.py: class TRTLLMHAAttnBackend not found")])
def test_scripts_stop_with_one_line_on_a_tree_without_the_classes(tmp_path, script, message):
    """The run fails, so nothing is timed: one line saying why, no traceback."""
    root = write_files(tmp_path / "tree", {"pkg/a.py": "x = 1\n"})
    proc = _script(script, root, tmp_path)
    assert proc.returncode != 0
    assert message in proc.stderr and "Traceback" not in proc.stderr


PLAIN_GAIN = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def __init__(self, name):\n        self.name = name\n        self.extra = []\n\n    def size(self):\n        return len(self.extra)\n",
    "pkg/child.py": "from pkg.base import Base\n\n\nclass Child(Base):\n    def __init__(self, name):\n        super().__init__(name)\n\n    def shout(self):\n        return self.name.upper()\n",
}


@pytest.mark.parametrize("stress, decision", [pytest.param(False, "decline", id="default"), pytest.param(True, "decouple", id="stress")])
def test_real_world_stress_patches_a_class_declined_for_too_little_gain(tmp_path, monkeypatch, stress, decision):
    """--stress passes --max-copied-share 1 --any-gain to every run: a parent whose __init__
    only assigns (DC505 by default) is then decoupled, and the library's tests get a patch."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import real_world
    finally:
        sys.path.pop(0)
    root = write_files(tmp_path / "lib", PLAIN_GAIN)
    monkeypatch.setattr(real_world, "DECOUPLE", [sys.executable, "-m", "codemod"])
    monkeypatch.setattr(real_world, "EXTRA", list(real_world.STRESS) if stress else [])
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    rec = real_world.run_decouple({"qualname": "pkg.child:Child"}, root, tmp_path / "out", timeout=120)
    assert rec["decision"] == decision, rec["stderr"]
    assert (rec["patch"] is not None) == stress
    assert stress or rec["rule"] == "DC505"


def test_real_world_gate_runs_decouple_test_with_the_suite(tmp_path, monkeypatch):
    """--gate: the same candidate through decouple --test, the library's suite as CMD; a test
    that sees the parent by a computed name refuses the patch and is named."""
    from types import SimpleNamespace

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import real_world
    finally:
        sys.path.pop(0)
    kind = ("import pkg.base as base\nfrom pkg.child import Child\n\n\ndef test_shout():\n    assert Child('a').shout() == 'A'\n\n\n"
            "def test_kind():\n    assert isinstance(Child('a'), getattr(base, 'Ba' + 'se'))\n")
    root = write_files(tmp_path / "lib", {**PLAIN_GAIN, "pytest.ini": "[pytest]\n", "tests/test_child.py": kind})
    monkeypatch.setattr(real_world, "DECOUPLE", [sys.executable, "-m", "codemod"])
    monkeypatch.setattr(real_world, "EXTRA", list(real_world.STRESS))
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    args = SimpleNamespace(maxfail=10, test_timeout=120, jobs_timeout=120)
    rec = real_world.run_gate({"qualname": "pkg.child:Child"}, root, tmp_path / "out", {"pytest": ["tests"]},
                              {"py": sys.executable}, tmp_path, args)
    assert rec["refused"] and rec["rc"] == 3, rec["stderr"]
    assert [b["test"] for b in rec["broken"]] == ["tests.test_child::test_kind"]
    assert rec["before"]["passed"] == 2 and rec["after"]["passed"] == 1


def test_real_world_skip_judged_and_merge_of_shards(tmp_path):
    """--skip-judged reads the qualnames of earlier results; --merge joins the shards'
    <lib>.json in enumeration order and keeps every shard's baseline."""
    import json

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import real_world
    finally:
        sys.path.pop(0)

    def rec(q, line):
        return {"qualname": q, "file": "m.py", "line": line, "rc": 0, "decision": "decouple", "has_patch": True,
                "patch_applied": True, "input_unchanged": True}

    for k, cands in ((1, [rec("m:B", 20)]), (2, [rec("m:A", 10), rec("m:C", 30)])):
        d = tmp_path / f"shard-{k}"
        d.mkdir()
        (d / "lib.json").write_text(json.dumps({"library": "lib", "version": "1", "shard": f"{k}/2", "wall_s": 10 * k,
                                                "baseline": {"passed_both": 5}, "candidates": cands}))
    assert real_world.judged_qualnames("lib", [str(tmp_path)]) == {"m:A", "m:B", "m:C"}
    assert real_world.judged_qualnames("other", [str(tmp_path)]) == set()
    merged = real_world.merge_shards("lib", [str(tmp_path / "shard-1"), str(tmp_path / "shard-2")])
    assert [r["qualname"] for r in merged["candidates"]] == ["m:A", "m:B", "m:C"]
    assert merged["shards"] == ["1/2", "2/2"] and merged["wall_s"] == 20 and len(merged["shard_baselines"]) == 2
    assert real_world.counts(merged)["patches"] == 3
