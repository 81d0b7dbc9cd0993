"""DC408 built-then-replaced (``decouple scan --replaced``): objects a parent's ``__init__``
builds that the class replaces before any read, their cost, and the hook verdict; with the
near misses beside them (a read that may differ, a replacement on one path only, a hook name
already taken, a class that reads the object before replacing it)."""

from __future__ import annotations

import json

from conftest import run_cli
from ruletools import write

from codemod.discover import Tree
from codemod.scan.estimate import estimate_files, plan
from codemod.scan.replaced import HOOK_POSSIBLE, REFUSED, find, rank

# Shaped like a multi-step draft backend: the parent builds one backend per step, reads the
# first one's limit, and aliases the list; a child swaps every element for its own kind.
BACKENDS = """
class Workspace:
    def __init__(self, size):
        self.data = bytearray(size)


class HeavyBackend:
    def __init__(self, runner, buf=None):
        self.max_len = runner.context_len
        self.buf = buf
        self.workspace = Workspace(1 << 20)
        self.scratch = bytearray(4 << 20)


class LightBackend(HeavyBackend):
    def __init__(self, runner, buf=None, kind="fast"):
        super().__init__(runner, buf)
        self.kind = kind


class SizedBackend(HeavyBackend):
    def __init__(self, runner, buf=None):
        super().__init__(runner, buf)
        self.max_len = 7
"""

DRAFT = """
from .backends import HeavyBackend


class MultiStepDraft:
    def __init__(self, runner, steps):
        self.steps = steps
        self.indptr = [[0] * 4 for _ in range(steps)]
        self.backends = []
        for i in range(self.steps - 1):
            self.backends.append(HeavyBackend(runner, buf=self.indptr[i]))
        self.max_len = self.backends[0].max_len
        self.backend_list = self.backends

    def run(self):
        return [b.max_len for b in self.backends]
"""

CHILD = """
from .backends import LightBackend
from .draft import MultiStepDraft


class LightDraft(MultiStepDraft):
    def __init__(self, runner, steps, kind="fast"):
        super().__init__(runner, steps)
        for i in range(self.steps - 1):
            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind=kind)


class LighterDraft(LightDraft):
    def __init__(self, runner, steps):
        super().__init__(runner, steps)
        for i in range(self.steps - 1):
            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind="lighter")
"""

# Shaped like a model whose subclass swaps the parent's layers and norm for its own.
MODEL = """
class Layer:
    def __init__(self, cfg):
        self.weight = bytearray(cfg.width)
        self.norm = Norm(cfg)


class Norm:
    def __init__(self, cfg):
        self.eps = cfg.eps


class Encoder:
    def __init__(self, cfg):
        self.cfg = cfg
        self.layers = [Layer(cfg) for _ in range(cfg.depth)]
        self.final_norm = Norm(cfg)
        self.head = Norm(cfg)
        self.width = cfg.width


class OcrEncoder(Encoder):
    def __init__(self, cfg, depth=2):
        super().__init__(cfg)
        n = depth + 1
        self.layers = [Layer(cfg) for _ in range(n)]
        if cfg.gated:
            self.final_norm = Norm(cfg)
        else:
            self.final_norm = None
        if cfg.extra:
            self.head = Norm(cfg)


class PeekingEncoder(Encoder):
    def __init__(self, cfg):
        super().__init__(cfg)
        old = len(self.layers)
        self.layers = [Layer(cfg) for _ in range(old)]
"""


def findings(tmp_path, files: dict[str, str]) -> dict[str, dict]:
    root = write(tmp_path, files)
    tree = Tree.open(root)
    the_plan = plan(tree)
    found = []
    estimate_files(tree, the_plan, the_plan.parent_files, lambda index, cls, p: found.append(find(index, cls, p)))
    return {f.cls.rpartition(":")[2]: f.as_dict() for f in rank([f for f in found if f is not None])}


def draft_files(**changes) -> dict[str, str]:
    files = {"backends.py": BACKENDS, "draft.py": DRAFT, "child.py": CHILD}
    for name, (old, new) in changes.items():
        assert old in files[f"{name}.py"]
        files[f"{name}.py"] = files[f"{name}.py"].replace(old, new)
    return files


def test_a_draft_that_replaces_every_step_backend(tmp_path):
    got = findings(tmp_path, draft_files())
    light = got["LightDraft"]
    [s] = light["statements"]
    assert (s["at"], s["attr"], s["element"], s["replaced_at"], s["hook"]) == (
        "pkg/draft.py:9", "backends", True, "pkg/child.py:8", "_build_backend")
    # One HeavyBackend per step: built twice in the estimate (a loop), with what its own __init__ does.
    [c] = s["constructions"]
    assert c["class"] == "pkg.backends:HeavyBackend" and c["repeated"]
    assert c["own_init"]["constructions"] == 1 and c["own_init"]["allocations"] == 1
    assert c["own_init"]["bytes"] == 4 << 20
    # Both reads before the replacement give the same value with LightBackend: max_len is set by
    # HeavyBackend.__init__ from runner, which LightBackend passes on; backend_list is the same list.
    assert [(r["at"], r["same_value"]) for r in s["reads"]] == [("pkg/draft.py:11", True), ("pkg/draft.py:12", True)]
    assert (light["verdict"], light["reason"], light["rule"]) == (HOOK_POSSIBLE, "", "DC408")


def test_a_grandchild_pays_for_both_sets(tmp_path):
    got = findings(tmp_path, draft_files())
    lighter = got["LighterDraft"]
    assert [(s["at"], s.get("by")) for s in lighter["statements"]] == [
        ("pkg/child.py:8", None), ("pkg/draft.py:9", "pkg.child:LightDraft")]
    assert lighter["score"] > got["LightDraft"]["score"]
    assert lighter["verdict"] == HOOK_POSSIBLE


def test_near_miss_a_read_that_may_differ_refuses(tmp_path):
    """SizedBackend sets max_len itself: the parent's read of the first backend's max_len would
    give 7 with the child's objects, not the runner's context length."""
    files = draft_files(child=("LightBackend(runner, buf=self.indptr[i], kind=kind)", "SizedBackend(runner, buf=self.indptr[i])"))
    files["child.py"] = files["child.py"].replace("from .backends import LightBackend", "from .backends import LightBackend, SizedBackend")
    got = findings(tmp_path, files)
    light = got["LightDraft"]
    [s] = light["statements"]
    assert [(r["at"], r["same_value"]) for r in s["reads"]] == [("pkg/draft.py:11", False), ("pkg/draft.py:12", True)]
    assert light["verdict"] == REFUSED and "pkg/draft.py:11" in light["reason"] and "same value" in light["reason"]


def test_near_miss_a_read_in_a_method_the_parent_calls(tmp_path):
    files = draft_files(draft=("        self.backend_list = self.backends\n",
                               "        self.backend_list = self.backends\n        self.limits = self.run()\n"))
    s = findings(tmp_path, files)["LightDraft"]["statements"][0]
    assert ("pkg/draft.py:15", "run", False) in [(r["at"], r["in"], r["same_value"]) for r in s["reads"]]


def test_near_miss_a_hook_name_that_clashes(tmp_path):
    files = draft_files(draft=("    def run(self):", "    def _build_backend(self, i):\n        return i\n\n    def run(self):"))
    light = findings(tmp_path, files)["LightDraft"]
    assert light["verdict"] == REFUSED and "_build_backend is taken" in light["reason"]


def test_near_miss_a_construction_reading_what_the_child_sets_later(tmp_path):
    old = ("        super().__init__(runner, steps)\n        for i in range(self.steps - 1):\n"
           "            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind=kind)")
    new = ("        super().__init__(runner, steps)\n        self.kind = make(kind)\n"
           "        for i in range(self.steps - 1):\n"
           "            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind=self.kind)")
    files = draft_files(child=(old, new))
    files["child.py"] = "from .util import make\n" + files["child.py"]
    files["util.py"] = "def make(k):\n    return k\n"
    light = findings(tmp_path, files)["LightDraft"]
    assert light["verdict"] == REFUSED and "self.kind, which it sets only after super().__init__()" in light["reason"]


def test_a_model_replacing_its_layers_on_every_path(tmp_path):
    got = findings(tmp_path, {"model.py": MODEL})
    ocr = got["OcrEncoder"]
    # layers (built in a comprehension), final_norm (replaced in both branches); head is replaced
    # on one path only: not thrown away on the other, not listed.
    assert [(s["attr"], s["at"]) for s in ocr["statements"]] == [("layers", "pkg/model.py:15"), ("final_norm", "pkg/model.py:16")]
    layers = ocr["statements"][0]
    assert [(c["class"], c.get("repeated", False)) for c in layers["constructions"]] == [("pkg.model:Layer", True)]
    # n is computed from a parameter alone: it can be had before super().__init__().
    assert ocr["verdict"] == HOOK_POSSIBLE and layers["reads"] == []
    # A class that reads the parent's layers before replacing them throws nothing away.
    assert "PeekingEncoder" not in got


def test_scan_replaced_on_the_command_line(tmp_path):
    root = write(tmp_path / "tree", draft_files())
    env = {"DECOUPLE_CACHE_DIR": str(tmp_path / "cache")}
    code, out, err = run_cli("scan", root, "--replaced", "--format", "json", env=env)
    assert code == 0, err
    rows = json.loads(out)
    assert [r["class"] for r in rows] == ["LighterDraft", "LightDraft"]
    assert all(r["kind"] == "built then replaced" for r in rows)
    assert "2 classes throw away objects" in err
    code, text, err = run_cli("scan", root, "--replaced", "--top", "1", env=env)
    assert code == 0, err
    assert "LighterDraft" in text and "pkg/draft.py:11 (same value)" in text and "1 more class below the cut" in text
    code, md, err = run_cli("scan", root, "--replaced", "--format", "markdown", env=env)
    assert code == 0 and md.startswith("| # | score | class |")
    code, _, err = run_cli("scan", root, "--replaced", "--check", env=env)
    assert code == 2 and "--replaced" in err


def test_near_miss_a_read_in_a_method_an_ancestor_defines(tmp_path):
    """The parent's __init__ ends by calling a method its own base defines, which reads the
    layers: the object is read before the class replaces it."""
    model = MODEL.replace("class Encoder:", "class Base:\n    def post_init(self):\n        self.count = len(self.layers)\n\n\nclass Encoder(Base):")
    model = model.replace("        self.width = cfg.width\n", "        self.width = cfg.width\n        self.post_init()\n")
    ocr = findings(tmp_path, {"model.py": model})["OcrEncoder"]
    layers = next(s for s in ocr["statements"] if s["attr"] == "layers")
    assert [(r["at"], r["in"]) for r in layers["reads"]] == [("pkg/model.py:13", "post_init")]
    assert layers["verdict"] == REFUSED and "in post_init" in layers["reason"]
