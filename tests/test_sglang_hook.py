"""``decouple --hook`` (DC616) on the pinned SGLang 0.5.23 release.

* The MLA draft patch: three files, each compiles; the parent's hook returns its old
  expression, byte for byte (so ``FlashInferMLAMultiStepDraftBackend`` builds what it built
  before), and every other subclass of the parent in the release is one the patch overrides;
  applied to a copy of the release, a second run changes nothing.
* Model classes, executed (needs torch and transformers, as tests/test_sglang_patch.py's CPU
  construction): ``benchmarks/hook_models.py`` builds each original and hooked, the same
  ``state_dict()`` tree, bitwise-equal outputs on the same weights, fewer modules built.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli

REPO = Path(__file__).resolve().parent.parent
PARENT_FILE = "sglang/srt/layers/attention/flashinfer_mla_backend.py"
MLA_FILES = ["sglang/srt/layers/attention/cutedsl_mla_backend.py", PARENT_FILE,
             "sglang/srt/layers/attention/trtllm_mla_backend.py"]


@pytest.fixture(scope="module")
def release():
    from codemod.discover import fetch_release

    return fetch_release(quiet=True)


@pytest.fixture(scope="module")
def mla_patch(release, tmp_path_factory):
    out = tmp_path_factory.mktemp("mla") / "out"
    code, stdout, err = run_cli("--sglang", "--class", "TRTLLMMLAMultiStepDraftBackend", "--hook", "--output", out)
    assert code == 0 and stdout == "", err
    return out, err


def _dedented(segment: str) -> str:
    """An expression's source, its continuation lines dedented together (its first line starts at the expression)."""
    first, _, rest = segment.partition("\n")
    return first + "\n" + textwrap.dedent(rest)


def _method(tree: ast.Module, cls: str, name: str) -> ast.FunctionDef:
    [c] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    [m] = [n for n in c.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return m


def test_mla_draft_patch_compiles_and_the_parent_builds_what_it_built(release, mla_patch):
    out, err = mla_patch
    assert sorted(str(p.relative_to(out / "files")) for p in (out / "files").rglob("*.py")) == MLA_FILES
    for rel in MLA_FILES:
        compile((out / "files" / rel).read_text(), rel, "exec")
    old_src, new_src = (release / PARENT_FILE).read_text(), (out / "files" / PARENT_FILE).read_text()
    old_init = _method(ast.parse(old_src), "FlashInferMLAMultiStepDraftBackend", "__init__")
    [loop] = [s for s in old_init.body if isinstance(s, ast.For)]
    [append] = loop.body
    old_expr = append.value.args[0]
    hook = _method(ast.parse(new_src), "FlashInferMLAMultiStepDraftBackend", "_build_attn_backend")
    assert [a.arg for a in hook.args.args] == ["self", loop.target.id, "model_runner"]
    [ret] = [s for s in hook.body if isinstance(s, ast.Return)]
    # Byte for byte, up to the indentation: the hook's body is the parent's old expression.
    assert _dedented(ast.get_source_segment(new_src, ret.value)) == _dedented(ast.get_source_segment(old_src, old_expr))
    assert _dedented(ast.get_source_segment(old_src, old_expr)).startswith("FlashInferMLAAttnBackend(\n")
    # The parent's loop now calls it with the loop's variable and the same parameter.
    new_init = _method(ast.parse(new_src), "FlashInferMLAMultiStepDraftBackend", "__init__")
    [new_loop] = [s for s in new_init.body if isinstance(s, ast.For)]
    assert ast.unparse(new_loop.body[0]) == "self.attn_backends.append(self._build_attn_backend(i, model_runner))"
    assert ast.dump(new_loop.iter) == ast.dump(loop.iter)
    # Every subclass of the parent in the release is one the patch gives an override.
    subclasses = {}
    for path in (release / "sglang").rglob("*.py"):
        text = path.read_text(errors="replace")
        if "MultiStepDraftBackend" in text:
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ClassDef):
                    subclasses[node.name] = [ast.unparse(b) for b in node.bases]
    below = {n for n, bases in subclasses.items() if "FlashInferMLAMultiStepDraftBackend" in bases}
    below |= {n for n, bases in subclasses.items() if set(bases) & below}
    assert below == {"TRTLLMMLAMultiStepDraftBackend", "CuteDslMLAMultiStepDraftBackend"}
    for rel, cls in ((MLA_FILES[2], "TRTLLMMLAMultiStepDraftBackend"), (MLA_FILES[0], "CuteDslMLAMultiStepDraftBackend")):
        _method(ast.parse((out / "files" / rel).read_text()), cls, "_build_attn_backend")
    assert "self._backend = backend" in (out / "files" / MLA_FILES[2]).read_text()
    assert "every other subclass builds what it built before" in err


def test_mla_draft_patch_applies_and_a_second_run_finds_nothing(release, mla_patch, tmp_path):
    out, _ = mla_patch
    copy = tmp_path / "release"
    shutil.copytree(release, copy, ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run(["git", "apply", "--check", str(out / "patch.diff")], cwd=copy, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    subprocess.run(["git", "apply", str(out / "patch.diff")], cwd=copy, check=True)
    for rel in MLA_FILES:
        assert (copy / rel).read_text() == (out / "files" / rel).read_text()
    for cls in ("TRTLLMMLAMultiStepDraftBackend", "CuteDslMLAMultiStepDraftBackend"):
        code, diff, err = run_cli(copy, "--class", cls, "--hook")
        assert code == 0 and diff == "" and "replaces nothing its parent's __init__ built" in err, err


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None,
    reason="importing SGLang on the CPU needs requirements/sglang-cpu.txt (the README's test command installs it)",
)


@needs_torch
@pytest.mark.parametrize(("flags", "changed", "glm_avoided"), [
    ((), ["glm4v.py", "glm_ocr.py", "idefics2.py", "minicpmv_vit.py"], {"Glm4vPatchMerger", "Conv2d", "Glm4vRMSNorm"}),
    # DC618: only the classes' files change; GlmOcrVisionModel's merger reads a local it computes later.
    (("--no-parent-edit",), ["glm_ocr.py", "minicpmv_vit.py"], {"Conv2d", "Glm4vRMSNorm"}),
])
def test_model_classes_build_the_same_model_with_fewer_modules(tmp_path, flags, changed, glm_avoided):
    out = tmp_path / "models.json"
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks/hook_models.py"), *flags, "--json", str(out)],
                          capture_output=True, text=True, check=False, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(out.read_text())
    assert got["changed_files"] == [f"sglang/srt/models/{name}" for name in changed]
    rows = got["classes"]
    parents = {"Idefics2EncoderLayer", "Idefics2Encoder", "Glm4vVisionModel"}
    assert set(rows) == {"MiniCPMV_VisionEncoderLayer", "MiniCPMV_VisionEncoder", "GlmOcrVisionModel"} | parents
    # The parents the hook edits build what they built: same tree, modules and bytes (construction only).
    for cls in parents:
        r = rows.pop(cls)
        assert r["passed"] and r["tree_equal"] and not r["modules_avoided"] and not r["modules_added"], cls
        assert r["tensor_bytes_allocated"]["patched"] == r["tensor_bytes_allocated"]["original"], cls
    for cls, r in rows.items():
        assert r["tree_equal"] and r["outputs_bitwise_equal"] and not r["modules_added"], cls
        assert r["tensor_bytes_final"]["patched"] == r["tensor_bytes_final"]["original"], cls
        assert r["tensor_bytes_peak"]["patched"] < r["tensor_bytes_peak"]["original"], cls
    # What each removes: the parent's attention of a layer, the parent's layers (each with
    # its attention), and the parent's merger (the hook only), downsample and post-layernorm.
    assert rows["MiniCPMV_VisionEncoderLayer"]["modules_avoided"]["VisionAttention"] == 1
    assert rows["MiniCPMV_VisionEncoder"]["modules_avoided"]["Idefics2EncoderLayer"] == 3
    avoided = set(rows["GlmOcrVisionModel"]["modules_avoided"])
    assert glm_avoided <= avoided and (not flags or avoided == glm_avoided)  # the merger's inner modules: the hook's only


def _unpack(dest: Path) -> Path:
    import zipfile

    from codemod.discover import release_archive

    with zipfile.ZipFile(release_archive()) as zf:
        zf.extractall(dest)
    return dest


def _construct_drafts(root: Path, tmp: Path) -> dict:
    out = tmp / f"{root.name}.json"
    proc = subprocess.run([sys.executable, str(REPO / "tests/sglang_cpu/construct_mla_drafts.py"), "--sglang-root", str(root),
                           "--json", str(out)], capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(out.read_text())


@needs_torch
def test_mla_drafts_constructed_on_cpu_end_with_the_same_objects(mla_patch, tmp_path):
    """The parent builds exactly what it built; both drafts end with the same per-step backends
    (types, tensors, the draft's own index buffers), and build one set of them instead of two or three."""
    out, _ = mla_patch
    original = _unpack(tmp_path / "original")
    patched = _unpack(tmp_path / "patched")
    for rel in MLA_FILES:
        (patched / rel).write_text((out / "files" / rel).read_text())
    o, p = _construct_drafts(original, tmp_path), _construct_drafts(patched, tmp_path)
    assert (o["hooked"], p["hooked"]) == (False, True)
    assert p["drafts"]["FlashInferMLAMultiStepDraftBackend"] == o["drafts"]["FlashInferMLAMultiStepDraftBackend"]
    for name, d in o["drafts"].items():
        assert p["drafts"][name]["ends_with"] == d["ends_with"], name
        steps = d["ends_with"]["attn_backends"]
        assert len(steps) == 3 and all(s["tensors"]["kv_indptr"][-1] == f"own:kv_indptr[{i}]" for i, s in enumerate(steps))
    trt, cute = (o["drafts"][n]["built"] for n in ("TRTLLMMLAMultiStepDraftBackend", "CuteDslMLAMultiStepDraftBackend"))
    assert trt == {"FlashInferMLAAttnBackend": 6, "TRTLLMMLABackend": 3}
    assert cute == {"FlashInferMLAAttnBackend": 9, "TRTLLMMLABackend": 6, "CuteDslMLABackend": 3}
    # Patched: one per-step backend per step (its __init__ chain runs each ancestor's once).
    assert p["drafts"]["TRTLLMMLAMultiStepDraftBackend"]["built"] == {"FlashInferMLAAttnBackend": 3, "TRTLLMMLABackend": 3}
    assert p["drafts"]["CuteDslMLAMultiStepDraftBackend"]["built"] == {
        "FlashInferMLAAttnBackend": 3, "TRTLLMMLABackend": 3, "CuteDslMLABackend": 3}
    for name, wrappers in (("TRTLLMMLAMultiStepDraftBackend", 6), ("CuteDslMLAMultiStepDraftBackend", 9)):
        assert o["drafts"][name]["wrappers"]["BatchMLAPagedAttentionWrapper"] == wrappers
        assert p["drafts"][name]["wrappers"]["BatchMLAPagedAttentionWrapper"] == 3


@pytest.fixture(scope="module")
def mla_inline(release, tmp_path_factory):
    out = tmp_path_factory.mktemp("mla-inline") / "out"
    code, stdout, err = run_cli("--sglang", "--class", "TRTLLMMLAMultiStepDraftBackend", "--hook", "--no-parent-edit", "--output", out)
    assert code == 0 and stdout == "", err
    return out, err


def test_mla_draft_inline_patch_edits_only_the_class_and_applies(release, mla_inline, tmp_path):
    """DC618: the parent's file is not edited; the class's __init__ runs the parent's, with the
    class's own per-step backends appended in the parent's loop; a second run finds nothing."""
    out, err = mla_inline
    trt = MLA_FILES[2]
    assert [str(p.relative_to(out / "files")) for p in (out / "files").rglob("*.py")] == [trt]
    new_src = (out / "files" / trt).read_text()
    compile(new_src, trt, "exec")
    init = _method(ast.parse(new_src), "TRTLLMMLAMultiStepDraftBackend", "__init__")
    assert not any(isinstance(n, ast.Attribute) and n.attr == "__init__" for n in ast.walk(init))
    [loop] = [s for s in init.body if isinstance(s, ast.For)]
    assert ast.unparse(loop.body[0]).startswith("self.attn_backends.append(TRTLLMMLABackend(model_runner, skip_prefill=True")
    # Every statement of the parent's __init__ but its construction is there, as the parent wrote it.
    parent = _method(ast.parse((release / PARENT_FILE).read_text()), "FlashInferMLAMultiStepDraftBackend", "__init__")
    copied = [ast.dump(s) for s in init.body]
    assert all(ast.dump(s) in copied for s in parent.body if not isinstance(s, ast.For))
    assert "DC618: chosen" in err and "since --no-parent-edit" in err and "copied: 44 lines" in err
    copy = tmp_path / "release"
    shutil.copytree(release, copy, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "apply", str(out / "patch.diff")], cwd=copy, check=True)
    assert (copy / trt).read_text() == new_src
    code, diff, err = run_cli(copy, "--class", "TRTLLMMLAMultiStepDraftBackend", "--hook", "--no-parent-edit")
    assert code == 0 and diff == "" and "replaces nothing" in err, err


@needs_torch
def test_mla_drafts_inlined_constructed_on_cpu_end_with_the_same_objects(mla_inline, tmp_path):
    """The parent and CuteDsl's draft (which still calls the TRTLLM draft's __init__) build as
    before up to the set the TRTLLM draft threw away; both drafts end with the same objects."""
    out, _ = mla_inline
    original = _unpack(tmp_path / "original")
    patched = _unpack(tmp_path / "patched")
    (patched / MLA_FILES[2]).write_text((out / "files" / MLA_FILES[2]).read_text())
    o, p = _construct_drafts(original, tmp_path), _construct_drafts(patched, tmp_path)
    assert p["drafts"]["FlashInferMLAMultiStepDraftBackend"] == o["drafts"]["FlashInferMLAMultiStepDraftBackend"]
    for name, d in o["drafts"].items():
        assert p["drafts"][name]["ends_with"] == d["ends_with"], name
    assert p["drafts"]["TRTLLMMLAMultiStepDraftBackend"]["built"] == {"FlashInferMLAAttnBackend": 3, "TRTLLMMLABackend": 3}
    assert p["drafts"]["CuteDslMLAMultiStepDraftBackend"]["built"] == {
        "FlashInferMLAAttnBackend": 6, "TRTLLMMLABackend": 6, "CuteDslMLABackend": 3}
    assert p["drafts"]["TRTLLMMLAMultiStepDraftBackend"]["wrappers"]["BatchMLAPagedAttentionWrapper"] == 3
