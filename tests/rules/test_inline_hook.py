"""DC618 inline-hook (``decouple --class C --hook --no-parent-edit``), executed: the original and
the patched fixture each build every subclass of the parent; the parent's file is not touched,
its other subclasses build exactly what they built before, C and its subclasses end with the
same objects and no longer build what C threw away; refusals change nothing; without the flag
the factory hook (DC616) is what runs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from conftest import run_cli
from ruletools import write
from test_factory_hook import files, probe


def _env(tmp_path):
    return {"DECOUPLE_CACHE_DIR": str(tmp_path / "cache")}


def test_draft_runs_the_parents_init_inlined_and_builds_less(tmp_path):
    before = probe(write(tmp_path / "before", files()))
    root = write(tmp_path / "after", files())
    parent_text = (root / "pkg" / "draft.py").read_text()
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", "--write", env=_env(tmp_path))
    assert code == 0, err
    assert "wrote 1 file" in diff
    assert "DC618: chosen" in err and "since --no-parent-edit" in err and "copied: 7 lines of MultiStepDraft.__init__" in err
    assert (root / "pkg" / "draft.py").read_text() == parent_text  # the parent's file is not edited
    child = (root / "pkg" / "child.py").read_text()
    assert child.count("super().__init__(runner, steps)") == 1  # LighterDraft's: it still calls LightDraft's
    assert "self.backends.append(LightBackend(runner, buf=self.indptr[i], kind=kind))" in child
    after = probe(root)
    for name in ("MultiStepDraft", "PlainDraft", "TunedDraft"):
        assert after[name] == before[name], name
    # The class and its subclass (which still calls its __init__): the same objects at the end.
    for name, kind in (("LightDraft", "fast"), ("LighterDraft", "lighter")):
        b, a = before[name], after[name]
        assert a["backends"] == b["backends"] == [["LightBackend", kind, 4096, True]] * 3
        assert (a["max_len"], a["alias"], a["attrs"]) == (b["max_len"], b["alias"], b["attrs"])
    assert before["LightDraft"]["built"] == {"HeavyBackend": 3, "LightBackend": 3, "Workspace": 6}
    assert after["LightDraft"]["built"] == {"LightBackend": 3, "Workspace": 3}
    # The grandchild no longer builds the parent's set; it still builds LightDraft's and its own.
    assert before["LighterDraft"]["built"] == {"HeavyBackend": 3, "LightBackend": 6, "Workspace": 9}
    assert after["LighterDraft"]["built"] == {"LightBackend": 6, "Workspace": 6}
    # Idempotent: the second run finds nothing replaced.
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and diff == "" and "replaces nothing" in err and "DC618" in err


def test_without_the_flag_the_hook_is_unchanged(tmp_path):
    """P's file lies in ROOT and may be edited: the factory method on P, as before, and the
    report says which was chosen; with the flag only the class's file changes."""
    root = write(tmp_path / "t", files())
    code, hooked, err = run_cli(root, "--class", "LightDraft", "--hook", env=_env(tmp_path))
    assert code == 0 and "+++ b/pkg/draft.py" in hooked and "+    def _build_backend(self, i, runner):" in hooked
    assert "DC616: chosen: a factory method on MultiStepDraft" in err and "DC618: chosen" not in err
    code, inlined, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and "+++ b/pkg/draft.py" not in inlined and "+++ b/pkg/child.py" in inlined and "_build_" not in inlined
    code, out, _ = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", "--check", env=_env(tmp_path))
    assert code == 1 and "1 construction to put in place of MultiStepDraft's (DC618)" in out


def test_output_folder_holds_the_report(tmp_path):
    root = write(tmp_path / "t", files())
    out = tmp_path / "out"
    code, _, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", "--output", out, env=_env(tmp_path))
    assert code == 0, err
    assert sorted(str(p.relative_to(out / "files")) for p in (out / "files").rglob("*.py")) == ["pkg/child.py"]
    report = (out / "report.md").read_text()
    assert "DC618: chosen" in report and "copied: 7 lines" in report and "no longer builds HeavyBackend" in report


def test_near_miss_a_read_that_may_differ_is_refused(tmp_path):
    """The parent reads the first backend's limit after building it, and the child's backend sets
    another: with the child's object there, the parent would store another value."""
    tree = files(child=("LightBackend(runner, buf=self.indptr[i], kind=kind)", "SizedBackend(runner, buf=self.indptr[i])"))
    tree["child.py"] = tree["child.py"].replace("import LightBackend", "import LightBackend, SizedBackend")
    root = write(tmp_path / "t", tree)
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and diff == ""
    assert "refused: DC618: MultiStepDraft reads self.backends at pkg/draft.py:11" in err
    assert "not shown to give the same value" in err and "nothing is changed" in err


def test_near_miss_a_construction_reading_what_the_class_sets_later_is_refused(tmp_path):
    """The hook stores the parameter before super().__init__(); a copy of the parent's __init__
    would build the child's object before the child sets what it reads."""
    old = "        for i in range(self.steps - 1):\n            self.backends[i] = LightBackend(runner, buf=self.indptr[i], kind=kind)"
    new = "        self.kind = kind\n" + old.replace("kind=kind", "kind=self.kind")
    tree = files(child=(old, new))
    root = write(tmp_path / "t", tree)
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and diff == "", err
    assert "self.kind, which LightDraft sets only after super().__init__()" in err


@pytest.mark.parametrize(("old", "new", "said"), [
    ("        self.steps = steps\n", "        self.steps = steps\n        if steps == 0:\n            return\n", "returns early (line 8)"),
    ("    def __init__(self, runner, steps):\n", "    @staticmethod\n    def __init__(self, runner, steps):\n", "is decorated"),
    ("        self.steps = steps\n", "        global LIMIT\n        self.steps = steps\n", "declares global LIMIT"),
])
def test_near_miss_a_parent_init_that_cannot_run_inside_the_class(tmp_path, old, new, said):
    root = write(tmp_path / "t", files(draft=(old, new)))
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and diff == "", err
    assert f"refused: DC618: MultiStepDraft.__init__ {said}" in err


def test_no_parent_edit_without_hook_is_a_usage_error(tmp_path):
    root = write(tmp_path / "t", files())
    code, out, err = run_cli(root, "--class", "LightDraft", "--no-parent-edit", env=_env(tmp_path))
    assert code == 2 and "--no-parent-edit applies to --hook only" in err and "Traceback" not in err and out == ""


# Shaped like a vision model whose OCR subclass swaps the parent's block list and merger: the
# parent calls its own base's __init__, keeps a name-mangled attribute and draws random numbers
# for every weight it builds.
MODEL = """
import random

BUILT = []


class Module:
    def __init__(self):
        self.training = True


class Linear(Module):
    def __init__(self, n, m):
        super().__init__()
        BUILT.append(type(self).__name__)
        self.shape = (n, m)
        self.weight = [random.random() for _ in range(n * m)]


class Block(Module):
    def __init__(self, dim, prefix=""):
        super().__init__()
        BUILT.append("Block")
        self.prefix = prefix
        self.attn = Linear(dim, dim)


class VisionModel(Module):
    def __init__(self, config, prefix=""):
        super().__init__()
        self.dim = config.hidden
        self.__depth = config.depth
        self.blocks = [Block(config.hidden, prefix=f"{prefix}.blocks.{i}") for i in range(config.depth)]
        self.merger = Linear(config.hidden, config.out)
        self.norm = Linear(config.hidden, 1)

    def depth(self):
        return self.__depth


class PlainVisionModel(VisionModel):
    pass
"""

OCR = """
from .model import Block, Linear, VisionModel


class OcrVisionModel(VisionModel):
    def __init__(self, config, prefix=""):
        super().__init__(config, prefix=prefix)
        self.blocks = [Block(config.hidden, prefix=f"{prefix}.ocr.{i}") for i in range(config.depth)]
        self.merger = Linear(config.hidden, 2 * config.out)


class TinyOcrModel(OcrVisionModel):
    def __init__(self, config):
        super().__init__(config, prefix="tiny")
        self.extra = Linear(1, 1)
"""

MODEL_PROBE = """
import collections, json, random
import pkg.model as m
from pkg.ocr import OcrVisionModel, TinyOcrModel

class Config:
    hidden, depth, out = 3, 2, 4

def describe(x):
    if isinstance(x, list):
        return [describe(v) for v in x]
    if isinstance(x, m.Module):
        return {"type": type(x).__name__, **{k: describe(v) for k, v in sorted(vars(x).items()) if k != "weight"},
                **({"weights": len(x.weight)} if hasattr(x, "weight") else {})}
    return x

out = {}
for cls in (m.VisionModel, m.PlainVisionModel, OcrVisionModel, TinyOcrModel):
    m.BUILT.clear()
    random.seed(0)
    x = cls(Config()) if cls is TinyOcrModel else cls(Config(), prefix="v")
    out[cls.__name__] = {"tree": describe(x), "built": dict(collections.Counter(m.BUILT)), "depth": x.depth(),
                         "draws": random.random()}
print(json.dumps(out, sort_keys=True))
"""


def _model(root) -> dict:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(MODEL_PROBE)], cwd=root, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_model_class_replacing_a_module_list(tmp_path):
    tree = {"model.py": MODEL, "ocr.py": OCR}
    before = _model(write(tmp_path / "before", tree))
    root = write(tmp_path / "after", tree)
    code, out, err = run_cli(root, "--class", "OcrVisionModel", "--hook", "--no-parent-edit", "--write", env=_env(tmp_path))
    assert code == 0 and "wrote 1 file" in out, err
    assert (root / "pkg" / "model.py").read_text() == (tmp_path / "before" / "pkg" / "model.py").read_text()
    ocr = (root / "pkg" / "ocr.py").read_text()
    # The parent's own super().__init__() starts after the parent still; its private name is spelt as it mangled it.
    assert "super(VisionModel, self).__init__()" in ocr and "self._VisionModel__depth = config.depth" in ocr
    assert 'self.merger = Linear(config.hidden, 2 * config.out)' in ocr and "Linear(config.hidden, config.out)" not in ocr
    assert "DC618: pkg/model.py:32" in err and "DC618: pkg/model.py:33" in err
    after = _model(root)
    for name in ("VisionModel", "PlainVisionModel"):
        assert after[name] == before[name], name
    for name in ("OcrVisionModel", "TinyOcrModel"):
        b, a = before[name], after[name]
        assert a["tree"] == b["tree"] and a["depth"] == b["depth"] == 2, name
        # What was built and dropped no longer draws random numbers: the stream differs after.
        assert a["draws"] != b["draws"]
    assert before["OcrVisionModel"]["built"] == {"Block": 4, "Linear": 7}
    assert after["OcrVisionModel"]["built"] == {"Block": 2, "Linear": 4}
    assert after["TinyOcrModel"]["built"] == {"Block": 2, "Linear": 5}


def test_near_miss_a_replacement_on_one_path_only_is_refused(tmp_path):
    """The class replaces the merger only when the config says so: on the other path the
    parent's merger is the one used, so it must still be built."""
    ocr = OCR.replace("        self.blocks = [Block(config.hidden, prefix=f\"{prefix}.ocr.{i}\") for i in range(config.depth)]\n", "")
    ocr = ocr.replace("        self.merger = Linear(config.hidden, 2 * config.out)\n",
                      "        if config.out > 8:\n            self.merger = Linear(config.hidden, 2 * config.out)\n")
    root = write(tmp_path / "t", {"model.py": MODEL, "ocr.py": ocr})
    code, diff, err = run_cli(root, "--class", "OcrVisionModel", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and diff == "", err
    assert "refused: DC618: its __init__ replaces nothing its parent's __init__ built, on every path" in err


def test_near_miss_a_method_the_parent_calls_after_that_a_subclass_overrides(tmp_path):
    """The parent calls self.setup() after its loop; its own setup reads nothing, but the
    grandchild's reads the backends: with the copy it would see LightDraft's, not the parent's."""
    tree = files(draft=("        self.backend_list = self.backends\n",
                        "        self.backend_list = self.backends\n        self.setup()\n\n    def setup(self):\n        pass\n"),
                 child=('kind="lighter")\n', 'kind="lighter")\n\n    def setup(self):\n        self.first = type(self.backends[0])\n'))
    root = write(tmp_path / "t", tree)
    code, diff, err = run_cli(root, "--class", "LightDraft", "--hook", "--no-parent-edit", env=_env(tmp_path))
    assert code == 0 and diff == "", err
    assert "refused: DC618: MultiStepDraft.__init__ calls setup, which a subclass overrides (line 13)" in err


def test_super_in_the_class_construction_keeps_meaning_the_class(tmp_path):
    """The parent's super() becomes super(VisionModel, self); the class's own super() in the
    construction it swaps in stays as it is (it starts after the class, as it did)."""
    model = MODEL.replace("    def depth(self):", "    @staticmethod\n    def width(n):\n        return 2 * n\n\n    def depth(self):")
    ocr = OCR.replace("Linear(config.hidden, 2 * config.out)", "Linear(config.hidden, super().width(config.out))")
    tree = {"model.py": model, "ocr.py": ocr}
    before = _model(write(tmp_path / "before", tree))
    root = write(tmp_path / "after", tree)
    code, _, err = run_cli(root, "--class", "OcrVisionModel", "--hook", "--no-parent-edit", "--write", env=_env(tmp_path))
    assert code == 0, err
    text = (root / "pkg" / "ocr.py").read_text()
    assert "super(VisionModel, self).__init__()" in text and "self.merger = Linear(config.hidden, super().width(config.out))" in text
    after = _model(root)
    assert after["OcrVisionModel"]["tree"] == before["OcrVisionModel"]["tree"]
    assert after["VisionModel"] == before["VisionModel"]
