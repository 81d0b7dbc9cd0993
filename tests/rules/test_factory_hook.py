"""DC616 factory-hook (``decouple --class C --hook``), executed: the original and the patched
fixture each build every subclass of the parent; the other subclasses build exactly what they
built before, C and its subclass end with the same objects and build fewer; refusals and the
second run change nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from conftest import run_cli
from ruletools import write
from test_built_then_replaced import draft_files

# A subclass of the parent that does not replace anything, and one elsewhere that does.
OTHERS = """
from .draft import MultiStepDraft


class PlainDraft(MultiStepDraft):
    pass


class TunedDraft(MultiStepDraft):
    def __init__(self, runner, steps):
        super().__init__(runner, steps)
        self.tuned = True
"""

# What each class ends with, and how many objects of each class its construction built.
PROBE = """
import collections, json
import pkg.backends as b
from pkg.draft import MultiStepDraft
from pkg.child import LightDraft, LighterDraft
from pkg.others import PlainDraft, TunedDraft

built = collections.Counter()
for name in ("Workspace", "HeavyBackend", "LightBackend", "SizedBackend"):
    cls = getattr(b, name)
    def counting(self, *a, _orig=cls.__init__, _cls=cls, **k):
        if type(self) is _cls:
            built[_cls.__name__] += 1
        _orig(self, *a, **k)
    cls.__init__ = counting

class Runner:
    context_len = 4096

out = {}
for cls in (MultiStepDraft, PlainDraft, TunedDraft, LightDraft, LighterDraft):
    built.clear()
    d = cls(Runner(), 4)
    out[cls.__name__] = {
        "backends": [(type(x).__name__, getattr(x, "kind", None), x.max_len, x.buf is d.indptr[i])
                     for i, x in enumerate(d.backends)],
        "max_len": d.max_len, "alias": d.backend_list is d.backends, "built": dict(built),
        "attrs": sorted(k for k in vars(d) if not k.startswith("_")),
    }
print(json.dumps(out, sort_keys=True))
"""


def probe(root) -> dict:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(PROBE)], cwd=root, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def files(**changes):
    out = draft_files(**changes)
    out["others.py"] = OTHERS
    return out


def test_hook_keeps_every_other_subclass_and_builds_less(tmp_path):
    before = probe(write(tmp_path / "before", files()))
    root = write(tmp_path / "after", files())
    env = {"DECOUPLE_CACHE_DIR": str(tmp_path / "cache")}
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", env=env)
    assert code == 0, err
    assert "+    def _build_backend(self, i, runner):" in diff and "DC616" in err
    assert (root / "pkg" / "draft.py").read_text() == (tmp_path / "before" / "pkg" / "draft.py").read_text()  # no --write
    code, _, err = run_cli(root, "--class", "LightDraft", "--hook", "--write", env=env)
    assert code == 0, err
    after = probe(root)
    # The parent and its other subclasses: the same objects, built the same number of times.
    for name in ("MultiStepDraft", "PlainDraft", "TunedDraft"):
        assert after[name] == before[name], name
    assert before["MultiStepDraft"]["built"] == {"HeavyBackend": 3, "Workspace": 3}
    # The class and its subclass: the same objects at the end, none of the parent's built.
    for name, kind in (("LightDraft", "fast"), ("LighterDraft", "lighter")):
        b, a = before[name], after[name]
        assert a["backends"] == b["backends"] == [["LightBackend", kind, 4096, True]] * 3
        assert (a["max_len"], a["alias"]) == (b["max_len"], b["alias"]) == (4096, True)
        assert a["attrs"] == b["attrs"]
    assert before["LightDraft"]["built"] == {"HeavyBackend": 3, "LightBackend": 3, "Workspace": 6}
    assert after["LightDraft"]["built"] == {"LightBackend": 3, "Workspace": 3}
    assert before["LighterDraft"]["built"] == {"HeavyBackend": 3, "LightBackend": 6, "Workspace": 9}
    assert after["LighterDraft"]["built"] == {"LightBackend": 3, "Workspace": 3}
    # Idempotent: the second run has nothing to hook, and --check says so.
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", env=env)
    assert code == 0 and diff == "" and "replaces nothing" in err
    code, _, _ = run_cli(root, "--class", "LightDraft", "--hook", "--check", env=env)
    assert code == 0


def test_check_says_there_is_a_hook_to_add(tmp_path):
    root = write(tmp_path / "t", files())
    code, out, err = run_cli(root, "--class", "LightDraft", "--hook", "--check", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 1 and "1 hook to add" in out, err


def test_near_miss_another_subclass_defines_the_hook_name(tmp_path):
    """A subclass of the parent elsewhere has a method of the hook's name: the parent's
    __init__ would call it. Nothing is changed."""
    tree = files()
    tree["others.py"] += "\n\nclass OddDraft(MultiStepDraft):\n    def _build_backend(self, i):\n        return None\n"
    root = write(tmp_path / "t", tree)
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 0 and diff == ""
    assert "OddDraft defines or names _build_backend already" in err and "DC616" in err


def test_near_miss_a_read_that_may_differ_is_left(tmp_path):
    tree = files(child=("LightBackend(runner, buf=self.indptr[i], kind=kind)", "SizedBackend(runner, buf=self.indptr[i])"))
    tree["child.py"] = tree["child.py"].replace("import LightBackend", "import LightBackend, SizedBackend")
    root = write(tmp_path / "t", tree)
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 0 and diff == ""
    assert "left: self.backends[i]" in err and "not shown to give the same value" in err


# Shaped like a vision encoder layer whose subclass rebuilds its attention with other settings.
LAYERS = """
BUILT = []


def add_prefix(name, prefix):
    return f"{prefix}.{name}" if prefix else name


class Attention:
    def __init__(self, dim, proj, prefix="", flatten=False):
        BUILT.append(type(self).__name__)
        self.dim, self.proj, self.prefix, self.flatten = dim, proj, prefix, flatten
        self.weight = bytearray(dim * proj)


class MLP:
    def __init__(self, dim):
        BUILT.append(type(self).__name__)
        self.dim = dim


class EncoderLayer:
    def __init__(self, config, prefix=""):
        self.embed_dim = config.hidden
        self.self_attn = Attention(config.hidden, config.inter, prefix=add_prefix("self_attn", prefix))
        self.mlp = MLP(config.hidden)


class PackedEncoderLayer(EncoderLayer):
    def __init__(self, config, prefix=""):
        super().__init__(config, prefix=prefix)
        dim = config.hidden
        self.self_attn = Attention(dim, dim, prefix=add_prefix("self_attn", prefix), flatten=True)


class PlainEncoderLayer(EncoderLayer):
    pass
"""

LAYER_PROBE = """
import json
import pkg.layers as m

class Config:
    hidden, inter = 4, 8

out = {}
for cls in (m.EncoderLayer, m.PackedEncoderLayer, m.PlainEncoderLayer):
    m.BUILT.clear()
    x = cls(Config(), prefix="model.layers.0")
    out[cls.__name__] = {"built": list(m.BUILT), "attn": vars(x.self_attn) | {"weight": len(x.self_attn.weight)},
                         "attrs": sorted(vars(x))}
print(json.dumps(out, sort_keys=True))
"""


def test_hook_on_a_model_layer(tmp_path):
    def run(root):
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(LAYER_PROBE)], cwd=root, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    before = run(write(tmp_path / "before", {"layers.py": LAYERS}))
    root = write(tmp_path / "after", {"layers.py": LAYERS})
    code, _, err = run_cli(root, "--class", "PackedEncoderLayer", "--hook", "--write", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 0, err
    text = (root / "pkg" / "layers.py").read_text()
    assert "self.self_attn = self._build_self_attn(config, prefix)" in text
    # The local the construction reads is computed again in the override, from the hook's parameters.
    assert "    def _build_self_attn(self, config, prefix):\n        dim = config.hidden\n        return Attention(dim, dim" in text
    after = run(root)
    for name in ("EncoderLayer", "PlainEncoderLayer"):
        assert after[name] == before[name]
    b, a = before["PackedEncoderLayer"], after["PackedEncoderLayer"]
    assert a["attn"] == b["attn"] and a["attrs"] == b["attrs"]
    assert b["built"] == ["Attention", "MLP", "Attention"] and a["built"] == ["Attention", "MLP"]


def test_hook_usage_errors_are_one_line(tmp_path):
    root = write(tmp_path / "t", files())
    env = {"DECOUPLE_CACHE_DIR": str(tmp_path / "c")}
    for extra, said in ((["--base", "X"], "--base does not apply to --hook"),
                        (["--write", "--check"], "--write cannot be combined with --check")):
        code, out, err = run_cli(root, "--class", "LightDraft", "--hook", *extra, env=env)
        assert code == 2 and said in err and "Traceback" not in err and out == ""
    code, _, err = run_cli(root, "--hook", env=env)
    assert code == 2 and "--hook takes one --class" in err


def test_near_miss_a_grandchild_whose_parent_reads_the_object_after_is_left(tmp_path):
    """LightDraft reads the first backend after its loop: with an override of its own,
    LighterDraft's object would be there then instead of LightDraft's. LighterDraft keeps its
    loop (it replaces what LightDraft's override built, as before); LightDraft is hooked."""
    after_loop = ("            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind=kind)\n",
                  "            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind=kind)\n"
                  "        self.first_kind = self.backends[0].kind\n")
    before = probe(write(tmp_path / "before", files(child=after_loop)))
    root = write(tmp_path / "after", files(child=after_loop))
    code, _, err = run_cli(root, "--class", "LightDraft", "--hook", "--write", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 0, err
    assert "LighterDraft's self.backends" in err and "LightDraft.__init__ reads self.backends" in err
    after = probe(root)
    for name in ("MultiStepDraft", "PlainDraft", "TunedDraft"):
        assert after[name] == before[name]
    for name in ("LightDraft", "LighterDraft"):
        assert {k: v for k, v in after[name].items() if k != "built"} == {k: v for k, v in before[name].items() if k != "built"}
    assert after["LighterDraft"]["built"] == {"LightBackend": 6, "Workspace": 6}  # was 3 HeavyBackend more


def _git_repo(tree):
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"]):
        subprocess.run(["git", *cmd], cwd=tree, check=True)
    return tree


def test_write_refuses_a_file_it_would_change_with_uncommitted_edits(tmp_path):
    """As a normal --write: the parent's file (where the hook goes) has a local edit, so nothing
    is written; a local edit to a file the hook does not touch (others.py) is the near miss."""
    root = _git_repo(write(tmp_path / "t", files()))
    env = {"DECOUPLE_CACHE_DIR": str(tmp_path / "c")}
    (root / "pkg" / "others.py").write_text((root / "pkg" / "others.py").read_text() + "# local edit\n")
    draft = root / "pkg" / "draft.py"
    draft.write_text(draft.read_text() + "# local edit\n")
    before = {p.name: p.read_text() for p in (root / "pkg").glob("*.py")}
    code, _, err = run_cli(root, "--class", "LightDraft", "--hook", "--write", env=env)
    assert code == 2 and "uncommitted changes in pkg/draft.py" in err and "others.py" not in err, err
    assert {p.name: p.read_text() for p in (root / "pkg").glob("*.py")} == before
    code, out, err = run_cli(root, "--class", "LightDraft", "--hook", "--write", "--force", env=env)
    assert code == 0 and "wrote 2 files" in out, err
    assert "def _build_backend(self, i, runner):" in draft.read_text() and "# local edit" in draft.read_text()


def test_write_with_only_unrelated_edits_writes(tmp_path):
    root = _git_repo(write(tmp_path / "t", files()))
    (root / "pkg" / "others.py").write_text((root / "pkg" / "others.py").read_text() + "# local edit\n")
    code, out, err = run_cli(root, "--class", "LightDraft", "--hook", "--write", env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 0 and "wrote 2 files" in out, err


def test_output_folder_holds_the_patch_and_the_patched_files(tmp_path):
    root = write(tmp_path / "t", files())
    before = {p.name: p.read_text() for p in (root / "pkg").glob("*.py")}
    out = tmp_path / "out"
    code, stdout, err = run_cli(root, "--class", "LightDraft", "--hook", "--output", out, env={"DECOUPLE_CACHE_DIR": str(tmp_path / "c")})
    assert code == 0 and stdout == "", err
    assert {p.name: p.read_text() for p in (root / "pkg").glob("*.py")} == before  # ROOT untouched
    assert sorted(str(p.relative_to(out / "files")) for p in (out / "files").rglob("*.py")) == ["pkg/child.py", "pkg/draft.py"]
    # The patch, applied to a copy of ROOT, gives the files of the folder.
    copy = write(tmp_path / "copy", files())
    subprocess.run(["git", "apply", str(out / "patch.diff")], cwd=copy, check=True)
    for rel in ("pkg/child.py", "pkg/draft.py"):
        assert (copy / rel).read_text() == (out / "files" / rel).read_text()
