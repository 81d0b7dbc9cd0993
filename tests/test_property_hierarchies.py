"""Property-based differential tests: random parent/child/base hierarchies, original vs patched.

Hypothesis draws a base, a parent whose ``__init__`` has attributes, locals, guards and a loop,
inherited methods, class attributes (some equal to the base's), a child that calls
``super().__init__`` with literal or forwarded arguments and overwrites some attributes, and an
outside module that reads attributes on child instances. The tool runs on it; where it emits a
patch, a probe imports the original and the patched package in fresh interpreters and both must
print the same. Where the tool declines or refuses, there must be no patch.

300 examples by default; ``--slow`` runs 2,000.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from conftest import write_files

from codemod.cli import main as decouple_main

ATTRS = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]


@st.composite
def hierarchies(draw):
    n_attrs = draw(st.integers(2, len(ATTRS)))
    attrs = ATTRS[:n_attrs]
    # Work no child reads, so that the parent's __init__ always has something worth skipping (DC505).
    lines = ["        super().__init__()", "        scale = a * 2 + b", "        self.scratch = [0] * 64"]
    defined = []
    for i, name in enumerate(attrs):
        kind = draw(st.sampled_from(["param", "local", "prev", "guard", "loop"]))
        if kind == "prev" and defined:
            src = f"(self.{draw(st.sampled_from(defined))}, {i})"
        elif kind == "local":
            src = f"scale - {i}"
        elif kind == "guard":
            lines.append(f"        if a > {i}:")
            lines.append(f"            self.{name} = a * {i + 1}")
            lines.append("        else:")
            lines.append(f"            self.{name} = -{i}")
            defined.append(name)
            continue
        elif kind == "loop":
            lines.append(f"        self.{name} = []")
            lines.append("        for k in range(b):")
            lines.append(f"            self.{name}.append(k * scale)")
            defined.append(name)
            continue
        else:
            src = "a" if i % 2 else "b"
        lines.append(f"        self.{name} = {src}")
        defined.append(name)
    methods = []
    for j in range(draw(st.integers(0, 3))):
        reads = draw(st.lists(st.sampled_from(defined), min_size=1, max_size=3, unique=True))
        methods.append(f"    def m{j}(self):\n        return [{', '.join(f'self.{r}' for r in reads)}]\n")
    flag_same = draw(st.booleans())
    parent = (
        "from .base import Base\n\n\nclass Parent(Base):\n"
        f"    flag = {'False' if flag_same else 'True'}\n    extra = 'parent'\n\n"
        "    def __init__(self, a, b=2):\n" + "\n".join(lines) + "\n\n" + "\n".join(methods)
    )
    base = "class Base:\n    flag = False\n\n    def describe(self):\n        return 'base'\n"
    # The child.
    b_arg = draw(st.sampled_from(["", ", 3", ", b=1", ", b=a % 3 + 1"]))
    own = draw(st.lists(st.sampled_from(defined), max_size=2, unique=True))
    child_init = ["    def __init__(self, a):", f"        super().__init__(a{b_arg})"]
    for name in own:
        child_init.append(f"        self.{name} = 'own-{name}'")
    child_methods = []
    for j in range(draw(st.integers(1, 3))):
        reads = draw(st.lists(st.sampled_from(defined), min_size=1, max_size=2, unique=True))
        calls = [f"self.m{k}()" for k in range(len(methods)) if draw(st.booleans())]
        child_methods.append(f"    def c{j}(self):\n        return [{', '.join([f'self.{r}' for r in reads] + calls)}]\n")
    child = "from .parent import Parent\n\n\nclass Child(Parent):\n" + "\n".join(child_init) + "\n\n" + "\n".join(child_methods)
    outside = draw(st.lists(st.sampled_from(defined + ["flag"]), max_size=2, unique=True))
    user = "from .child import Child\n\n\ndef peek(c: Child):\n    return [" + ", ".join(
        [f"c.{o}" for o in outside] + ["getattr(c, 'flag', None)"]) + "]\n"
    probe_calls = [f"c.c{j}()" for j in range(len(child_methods))] + ["peek(c)", "c.describe()"]
    probe = textwrap.dedent(f"""
        from pkg.child import Child
        from pkg.user import peek
        out = []
        for a in (0, 1, 3):
            try:
                c = Child(a)
            except Exception as exc:
                out.append(type(exc).__name__)
                continue
            row = []
            for call in {probe_calls!r}:
                try:
                    row.append(repr(eval(call)))
                except Exception as exc:
                    row.append(type(exc).__name__)
            out.append(row)
        print(out)
    """)
    return {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/parent.py": parent, "pkg/child.py": child, "pkg/user.py": user}, probe


def run_probe(root: Path, probe: str) -> str:
    proc = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def examples(request):
    return 2000 if request.config.getoption("--slow") else 300


@pytest.fixture
def n_examples(request):
    return examples(request)


def test_random_hierarchies_behave_the_same(tmp_path_factory, n_examples):
    outcomes = {"decouple": 0, "decline": 0, "unsafe": 0}

    @settings(max_examples=n_examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(hierarchies())
    def check(case):
        files, probe = case
        root = tmp_path_factory.mktemp("h")
        orig, out = root / "orig", root / "out"
        write_files(orig, files)
        code = decouple_main([str(orig), "--class", "Child", "--output", str(out)])
        report = json.loads((out / "report.json").read_text())
        decision = report["classes"][0]["decision"]
        outcomes[decision] += 1
        if decision != "decouple":
            assert code in (0, 3)
            assert not (out / "patch.diff").exists()
            return
        assert code == 0
        patched = root / "patched"
        write_files(patched, files)
        for f in (out / "files").rglob("*.py"):
            (patched / f.relative_to(out / "files")).write_text(f.read_text())
        assert "class Child(Base)" in (patched / "pkg/child.py").read_text()
        assert run_probe(orig, probe) == run_probe(patched, probe)

    check()
    assert outcomes["decouple"] > n_examples // 3, outcomes
