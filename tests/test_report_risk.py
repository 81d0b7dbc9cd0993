"""report.md's Risk and Why on a small project of our own: each global write answered (where the
name is declared, which readers can run after the class is built), the calls no longer made that
can raise, the bytes the source states for what is no longer allocated, and Dropped listing only
what instances lose."""

import json

import pytest

from conftest import run_cli, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/envs.py": '''
class EnvInt:
    def __init__(self, default):
        self.default = default
        self.value = None

    def get(self):
        return self.default if self.value is None else self.value

    def set(self, value):
        self.value = value


class Envs:
    WORKSPACE_SIZE = EnvInt(64 * 1024 * 1024)


envs = Envs()
''',
    "pkg/config.py": '''
class Config:
    @classmethod
    def from_args(cls, args):
        if args.bad:
            raise ValueError("bad args")
        return cls()
''',
    "pkg/parent.py": '''
import os

import torch

from .config import Config
from .envs import envs


class Base:
    pass


class Heavy(Base):
    def __init__(self, runner):
        self.runner = runner
        self.config = Config.from_args(runner.args)
        if runner.big:
            envs.WORKSPACE_SIZE.set(256 * 1024 * 1024)
        os.environ["HEAVY_BUILT_FLAG"] = "1"
        self.workspace = torch.empty(envs.WORKSPACE_SIZE.get(), dtype=torch.uint8)
        self.index = torch.zeros((4096,), dtype=torch.int32)
''',
    "pkg/light.py": '''
from .parent import Heavy


class Light(Heavy):
    def __init__(self, runner):
        super().__init__(runner)
        self.workspace = None

    def run(self):
        return self.runner, self.workspace
''',
    "pkg/other.py": '''
from .envs import envs


def make_buffer():
    return envs.WORKSPACE_SIZE.get()
''',
}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = write_files(tmp_path_factory.mktemp("proj"), {k: v.lstrip("\n") for k, v in FILES.items()})
    code, _, err = run_cli(root, "--class", "Light", "--output", root / "out")
    assert code == 0, err
    md = (root / "out" / "report.md").read_text()
    [c] = json.loads((root / "out" / "report.json").read_text())["classes"]
    return md, c


def test_each_global_write_ends_in_the_tools_answer(report):
    md, c = report
    risk = md[md.index("## Risk"):md.index("## How tested")]
    assert "?" not in risk
    [size] = [l for l in risk.splitlines() if "WORKSPACE_SIZE.set(" in l]
    assert "`envs.WORKSPACE_SIZE.set(256 * 1024 * 1024)` (`pkg/parent.py:18`, 256 MiB)" in size
    assert "`WORKSPACE_SIZE` is declared at `pkg/envs.py:14` (default 64 MiB)" in size
    assert "1 reader can run in the same process after `Light` is built: `pkg/other.py:5` (`make_buffer`)" in size
    [flag] = [l for l in risk.splitlines() if "HEAVY_BUILT_FLAG" in l]
    assert flag.endswith("Nothing else in the tree reads `HEAVY_BUILT_FLAG`: nothing here depends on the write.")
    runs = {r["place"]: r["runs"] for w in c["risk"]["global_writes"] for r in w.get("readers", [])}
    assert runs == {"pkg/envs.py:14": "declares", "pkg/other.py:5": "call"}


def test_calls_no_longer_made_that_can_raise_are_listed(report):
    md, c = report
    assert [(r["call"], r["raises"], r["at"]) for r in c["risk"]["raising_calls"]] == [
        ("Config.from_args(...)", "ValueError", "pkg/config.py:5")]
    assert "No longer called, and can raise ([DC407](#rules-cited)): `Config.from_args(...)` (line 16; `ValueError` at `pkg/config.py:5`)" in md


def test_the_saving_is_in_bytes_where_the_source_states_it(report):
    md, c = report
    assert [(e["line"], e["bytes"]) for e in c["risk"]["estimated_bytes"]] == [(20, 64 << 20), (21, 4096 * 4)]
    why = md[md.index("## Why"):md.index("## Risk")]
    assert "2 allocations no longer made, 64.0 MiB (estimated from the source: " in why
    assert "`parent.py:20` from the default of `WORKSPACE_SIZE` (`pkg/envs.py:14`)" in why
    assert "`parent.py:21` from literal dimensions" in why


def test_dropped_lists_only_what_instances_lose(report):
    from codemod.report_md import _evidence

    md, c = report
    assert c["risk"]["still_defined"] == {"workspace": "Light"}
    # The evidence is report.json's for a decoupled class (report.md names it once), and the
    # listing of a report without a patch says the same.
    assert "- Dropped (" not in md and md.count("`report.json`") == 1
    [line] = [l for l in _evidence(c) if l.startswith("- Dropped (")]
    gone, _, still = line.partition("Not dropped")
    assert "`index`" in gone and "`config`" in gone and "`workspace`" not in gone
    assert "`workspace`" in still


def test_the_measurement_replaces_the_estimate(report):
    from codemod.report_md import render_md

    md, c = report
    rep = {"tool": {"name": "decouple", "version": "0"}, "classes": [c], "checks": []}
    measured = render_md(rep, {"construction": {"Light": {"allocated_mib": [100.0, 36.0]}}})
    why = measured[measured.index("## Why"):measured.index("## Risk")]
    assert "estimated from the source" not in why and "64.0 MiB less GPU memory at construction" in why


def test_a_long_list_is_summed_up_and_points_to_report_json():
    from codemod.report_md import _LONG, _listing

    n = _LONG + 2
    effects = [{"file": "p.py", "line": i, "code": f"x{i}()", "why": "call with possible side effects: x()"} for i in range(n)]
    [line] = _listing("Side effects", effects, "code")
    assert line == f"- Side effects ({n}, each in report.json): call with possible side effects (lines {', '.join(map(str, range(n)))})"
    hazards = [{"file": "p.py", "line": i, "what": f"hazard {i}", "code": None} for i in range(n)]
    [line] = _listing("Hazards checked", hazards, "what")
    assert line.startswith(f"- Hazards checked ({n}, each in report.json): `p.py:0`, `p.py:1`")
    assert _listing("Hazards checked", hazards[:2], "what") == ["- Hazards checked:", "  - `p.py:0` hazard 0", "  - `p.py:1` hazard 1"]
