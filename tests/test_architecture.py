"""The layout's promises: no import cycle, small modules and classes, every rule documented, rules.md fresh."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "codemod"
SECTIONS = ("## What it does", "## Why", "## Known problems", "## Fix safety")


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every codemod module ``path`` imports, at any depth (function-level imports included)."""
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("codemod")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("codemod"):
                continue
            # "from . import x" and "from .rules import x" import submodules when x is one.
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if (PACKAGE.parent / (sub.replace(".", "/") + ".py")).exists() else target)
    return out - {me}


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (module -> modules it imports), or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = "done"
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_cycle():
    cycle = find_cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_can_fail():
    """Not vacuous: the graph holds the stages' edges, and a cycle through lazy imports is found."""
    graph = _graph()
    assert graph["codemod.pipeline"] >= {"codemod.analyse", "codemod.rewrite", "codemod.emit"}
    assert graph["codemod.cli"] >= {"codemod.session", "codemod.pipeline"}
    assert graph["codemod.session"] >= {"codemod.cache", "codemod.pipeline"}
    assert graph["codemod.api"] >= {"codemod.session", "codemod.emit"}
    assert graph["codemod.commands.decouple_class"] >= {"codemod.commands.shared_analysis"}
    assert graph["codemod.commands.shared_analysis"] >= {"codemod.api"}
    assert "codemod.rules.unsafe_dynamic_access" in graph["codemod.state"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for m in graph.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def test_the_command_line_is_built_on_the_api_not_the_other_way():
    """The Python API and the LibCST command never reach the command line's module; only the
    console entry (``launch``, which ``__main__`` runs) imports it."""
    graph = _graph()
    for start in ("codemod", "codemod.api", "codemod.session", "codemod.commands.decouple_class"):
        assert "codemod.cli" not in _reachable(graph, start), start
    assert {m for m, deps in graph.items() if "codemod.cli" in deps} == {"codemod.launch"}
    assert "codemod.api" in _reachable(graph, "codemod")  # the reachability is not vacuous


def test_the_analysis_loads_no_libcst():
    """Only the rewrite needs libcst, and a run imports it once its analyses are in: loaded with
    the analysis, its 0.15 s came out of the first process's share of the word index, and the
    scan's worker carried it. A rule with an analysis half and a rewrite half imports libcst in
    its rewrite functions (and under ``TYPE_CHECKING`` for their annotations)."""
    code = ("import sys; import codemod.cli, codemod.session, codemod.pipeline, codemod.analyse, codemod.verdict, "
            "codemod.scan_worker, codemod.index; print(sorted(m for m in sys.modules if m.split('.')[0] == 'libcst'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import sys; import codemod.rewrite; print('libcst' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip() == "True"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(REPO)))
def test_modules_and_classes_stay_small(path):
    text = path.read_text()
    assert len(text.splitlines()) <= 500, f"{path.name} has {len(text.splitlines())} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            assert node.end_lineno - node.lineno + 1 <= 300, f"class {node.name} has {node.end_lineno - node.lineno + 1} lines"


def _rule_modules():
    sys.path.insert(0, str(REPO))
    from codemod.rules import modules

    return modules()


@pytest.mark.parametrize("rule", _rule_modules(), ids=lambda m: m.ID)
def test_every_rule_documents_itself(rule):
    doc = rule.__doc__ or ""
    assert doc.startswith(f"{rule.ID} {rule.NAME}: "), doc.splitlines()[:1]
    at = [doc.find(s) for s in SECTIONS]
    assert all(i > 0 for i in at) and at == sorted(at), f"{rule.ID}: sections missing or out of order"
    for start, end in zip(at, at[1:] + [len(doc)]):
        assert len(doc[start:end].split("\n", 1)[1].strip()) > 10, f"{rule.ID}: an empty section"


def test_rule_ids_are_unique_and_follow_the_scheme():
    rules = _rule_modules()
    ids = [m.ID for m in rules]
    assert len(ids) == len(set(ids))
    assert len({m.NAME for m in rules}) == len(rules)
    prefix = {"keep_": "DC1", "drop_": "DC15", "hazard_": "DC2", "unsafe_": "DC3", "effect_": "DC4", "verdict_": "DC5", "rewrite_": "DC6", "post_": "DC7"}
    for m in rules:
        short = m.__name__.rsplit(".", 1)[-1]
        [family] = [v for k, v in prefix.items() if short.startswith(k)]
        assert m.ID.startswith(family), (m.ID, short)


def test_rules_md_is_fresh():
    proc = subprocess.run([sys.executable, str(REPO / "docs" / "generate_rules.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_safety_md_points_into_rules_md():
    text = (REPO / "docs" / "safety.md").read_text()
    assert "rules.md" in text
