"""In-process helpers for the rule tests: a small package written to a temporary folder, analysed or patched.

``files`` maps a path under the package ``pkg`` to its source (dedented). The class under test is
``pkg.child:Child`` unless said otherwise; its parent is its first base.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from codemod.discover import Tree
from codemod.index import Index
from codemod.model import ClassAnalysis, Knowledge, Verdict
from codemod.pipeline import analyse_all, build_patches
from codemod.verdict import Limits, decide

# A class that passes ``n`` to ``Parent.__init__`` and reads ``self.n``: what most rule cases need.
CHILD_READING_N = """
from .base import Parent


class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

    def total(self):
        return self.n
"""

# A parent method no class needs, so that what a rule copies stays a small share of the parent (DC504).
UNUSED = '''

    def report(self):
        lines = []
        for k in sorted(vars(self)):
            lines.append(k)
        lines.append("end")
        return "\\n".join(lines)
'''


def write(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "pkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def analyse(root: Path, files: dict[str, str], cls: str = "pkg.child:Child", parent: str | None = None,
            base: str | None = None, all_uses: bool = False, proven: bool = False) -> tuple[ClassAnalysis, Verdict]:
    write(root, files)
    [a] = analyse_all(Index(Tree.open(root)), (cls,), parent, base, all_uses=all_uses, knowledge=Knowledge(proven))
    return a, decide(a)


def patch(root: Path, files: dict[str, str], cls: str = "pkg.child:Child", stress: bool = False,
          proven: bool = False) -> tuple[str | None, Verdict]:
    """(the patched text of the class's module, or None when nothing was patched; the final verdict).

    ``stress``: decide as the campaigns' stress mode does (--max-copied-share 1 --plain-gain --any-gain);
    ``proven``: analyse as --keep proven does."""
    write(root, files)
    index = Index(Tree.open(root))
    [a] = analyse_all(index, (cls,), None, None, knowledge=Knowledge(proven))
    limits = Limits(1.0, True, True) if stress else Limits()
    v = decide(a, None, limits)
    if v.decision != "decouple":
        return None, v
    patches, refusals = build_patches(index, [a])
    v = decide(a, refusals.get(id(a)), limits)
    mine = [p.after for p in patches if p.rel == a.cls.file]
    return (mine[0] if mine else None), v


def kept_by(a: ClassAnalysis, rule: str) -> set[str]:
    """The members with at least one piece of evidence from ``rule``."""
    return {name for name, evs in a.kept.items() if any(e.rule == rule for e in evs)}


def hazards_of(a: ClassAnalysis, rule: str) -> list[str]:
    return [h.what for h in a.hazards + a.unsafe if h.rule == rule]


def effects_of(a: ClassAnalysis, rule: str) -> list[str]:
    return [s.code for s in a.side_effects if s.rule == rule]


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def run_both(root: Path, files: dict[str, str], script: str, stress: bool = False,
             proven: bool = False) -> tuple[str, str, str | None]:
    """(what ``script`` prints on the original package, on the patched one, the patched module).

    Each runs in a fresh interpreter; an exception's type and message are part of the output.
    ``stress``: patch as the campaigns' stress mode does (see ``patch``)."""
    import subprocess
    import sys

    wrapped = "import traceback\ntry:\n" + textwrap.indent(dedent(script), "    ") + (
        "\nexcept Exception as exc:\n    print('raised', type(exc).__name__, exc)\n")

    def run(where: Path) -> str:
        done = subprocess.run([sys.executable, "-c", wrapped], cwd=where, capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr

    before = run(write(root / "before", files))
    after, _ = patch(root / "after", files, stress=stress, proven=proven)
    if after is not None:
        (root / "after" / "pkg" / "child.py").write_text(after)
    return before, run(root / "after"), after


def refused_as_it_was(root: Path, files: dict[str, str], script: str, rule: str) -> list[str]:
    """The ``rule`` hazards of a class the analysis refuses (unsafe), after running ``script`` on
    the original package and on what patching left: nothing patched, the same output."""
    a, v = analyse(root / "a", files)
    assert v.decision == "unsafe", v
    before, after, patched = run_both(root / "b", files, script)
    assert patched is None and before == after
    return hazards_of(a, rule)
