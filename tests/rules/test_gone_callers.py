"""DC153 gone-callers: the second pass over classes decoupled in one run, executed original against patched.

The backend keeps a method of its parent only because the draft parent's method walks
``self.attn_backends`` and calls it; the draft, decoupled in the same run, no longer has that
method, so after both patches nothing calls it on a backend of the class.
"""

import json
import subprocess
import sys

import pytest
from conftest import run_cli, write_files

BASE = '''
class Backend:
    def __init__(self, runner):
        self.runner = runner


class FIBackend(Backend):
    def __init__(self, runner):
        super().__init__(runner)
        self.workspace = bytearray(1 << 20)
        self.wrappers = [bytearray(64) for _ in range(2)]
        self.static_kv = None

    def init_static_metadata_buffers(self, n):
        self.static_kv = bytearray(n)
        return len(self.static_kv)

    def forward(self, x):
        return len(self.wrappers) + x


class FIDraft:
    def __init__(self, runner, steps):
        self.runner = runner
        self.attn_backends = [FIBackend(runner) for _ in range(steps)]

    def prepare_static(self, n):
        return [b.init_static_metadata_buffers(n) for b in self.attn_backends]

    def forward(self, x):
        return [b.forward(x) for b in self.attn_backends]
'''
TRT = '''
from .base import FIBackend, FIDraft


class TRTBackend(FIBackend):
    def __init__(self, runner):
        super().__init__(runner)
        self.scale = 2

    def forward(self, x):
        return self.scale * x


class TRTDraft(FIDraft):
    def __init__(self, runner, steps):
        super().__init__(runner, steps)
        self.attn_backends = [TRTBackend(runner) for _ in range(steps)]

    def forward(self, x):
        return [b.forward(x) for b in self.attn_backends]
'''
USER = '''
from .base import FIDraft
from .trt import TRTDraft


def run():
    fi = FIDraft("r", 2)
    trt = TRTDraft("r", 2)
    return fi.prepare_static(4), fi.forward(1), trt.forward(3)
'''
PROBE = "from pkg.user import run\nprint(run())\n"


def _decouple(tmp_path, user):
    root = tmp_path / "proj"
    write_files(root, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/trt.py": TRT, "pkg/user.py": user})
    out = tmp_path / "out"
    code, _, err = run_cli(root, "--class", "TRTBackend", "--class", "TRTDraft", "--output", out, "--no-cache")
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    patched = tmp_path / "patched"
    write_files(patched, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/user.py": user,
                          "pkg/trt.py": (out / "files" / "pkg" / "trt.py").read_text()})

    def probe(where):
        done = subprocess.run([sys.executable, "-c", PROBE], cwd=where, capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr

    assert probe(root) == probe(patched)
    return {c["name"]: c for c in report["classes"]}, (out / "files" / "pkg" / "trt.py").read_text()


def test_a_method_only_the_draft_parents_gone_method_calls_is_not_copied(tmp_path):
    classes, patched = _decouple(tmp_path, USER)
    assert classes["TRTDraft"]["decision"] == classes["TRTBackend"]["decision"] == "decouple"
    kept = {k["member"] for k in classes["TRTBackend"]["kept"]}
    assert "init_static_metadata_buffers" not in kept and "static_kv" not in kept
    assert "def init_static_metadata_buffers" not in patched


def test_near_miss_the_draft_still_calls_it_so_the_backend_keeps_it(tmp_path):
    # the draft keeps prepare_static (it is called on a TRTDraft), so the copy in the draft
    # still walks its TRT backends and calls the method on each
    classes, patched = _decouple(tmp_path, USER.replace("trt.forward(3)", "trt.forward(3), trt.prepare_static(5)"))
    kept = {k["member"] for k in classes["TRTBackend"]["kept"]}
    assert "init_static_metadata_buffers" in kept
    assert "def init_static_metadata_buffers" in patched


def test_near_miss_decoupling_the_backend_alone_keeps_it(tmp_path):
    root = tmp_path / "proj"
    write_files(root, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/trt.py": TRT, "pkg/user.py": USER})
    out = tmp_path / "out"
    code, _, err = run_cli(root, "--class", "TRTBackend", "--output", out, "--no-cache")
    assert code == 0, err
    [c] = json.loads((out / "report.json").read_text())["classes"]
    assert "init_static_metadata_buffers" in {k["member"] for k in c["kept"]}
