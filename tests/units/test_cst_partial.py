"""``cst_partial.parse_classes``: every statement inside the classes parsed equals the whole
parse's, on the standard library and on generated modules; where the argument of the module's
docstring does not hold, the module is parsed whole; what is outside raises ``NotParsed``."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemod.ast_util import statements
from codemod.cst_partial import NotParsed, PartialLocated, parse_classes
from codemod.cst_util import Located


def same_inside(text: str, names: list[str] | None = None) -> int:
    """Asserts that the statements inside the top-level classes ``names`` (default: every one)
    are the whole parse's; returns how many statements were compared."""
    tree = ast.parse(text)
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef) and (names is None or s.name in names)]
    whole, part = Located.parse(text, tree), parse_classes(text, tree, classes)
    assert (part.module.default_indent, part.module.default_newline) == (whole.module.default_indent, whole.module.default_newline)
    n = 0
    for c in classes:
        for s in statements(c)[1:]:
            if isinstance(s, (ast.ExceptHandler, getattr(ast, "match_case", ()))):
                continue
            theirs = whole.stmt(s)
            if theirs is None:  # not offered by the whole parse either (a ``match``): asked, it starts again whole
                if isinstance(part, PartialLocated):
                    with pytest.raises(NotParsed):
                        part.stmt(s)
                else:
                    assert part.stmt(s) is None
                continue
            mine = part.stmt(s)
            assert mine.deep_equals(theirs), (c.name, s.lineno)
            if id(mine) in part.lines:
                assert part.lines[id(mine)].deep_equals(whole.lines[id(theirs)])
            n += 1
    return n


# Modules of the standard library with many classes, each with something of its own: decorators,
# nested classes, comments after the last method, long module-level code between classes.
STDLIB = ["argparse", "logging/__init__", "logging/handlers", "asyncio/events", "asyncio/base_events",
          "email/message", "email/_header_value_parser", "http/client", "http/server", "unittest/case",
          "unittest/mock", "json/decoder", "collections/__init__", "dataclasses", "enum", "pathlib",
          "typing", "configparser", "tarfile", "zipfile", "optparse", "calendar", "selectors", "fractions"]


@pytest.mark.parametrize("name", STDLIB)
def test_standard_library_classes(name):
    path = Path(sysconfig.get_paths()["stdlib"]) / f"{name}.py"
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    classes = [s.name for s in tree.body if isinstance(s, ast.ClassDef)]
    assert classes
    compared = same_inside(text)  # all of them at once
    for c in classes[:3] + classes[-2:]:  # and one at a time: the first parsed decides what is kept before it
        compared += same_inside(text, [c])
    assert compared > 0


GAP = st.sampled_from(["\n", "# a comment\n", "    # indented\n", "        # deeper\n", "\f\n", "  \n"])
PARENT = """class P{k}(Base):
    '''doc'''
    x{k} = 1

    @property
    def a(self):
        return self.x{k}  # trailing
        # after the return

    def b(self, y):
        if y:
            return y
        # footer of the if
        match y:
            case 1:
                pass  # one
    # footer of the class
"""
OTHER = st.sampled_from([
    "import os\n", "X = [\n    1,\n]\n", "def f():\n    pass\n    # f's footer\n", "def g():\n\tpass\n",
    "@decorator\ndef h():\n  return '''a\nb'''\n", "class Q:\n  pass\n", "if X:\n    Y = 1\nelse:\n    Y = 2\n",
    "try:\n    import a\nexcept ImportError:\n    a = None\n", "class R: pass\n",
])


@st.composite
def modules(draw):
    parts, k = [], 0
    for _ in range(draw(st.integers(1, 8))):
        for _ in range(draw(st.integers(0, 2))):
            parts.append(draw(GAP))
        if draw(st.booleans()):
            parts.append(PARENT.format(k=k))
            k += 1
        else:
            parts.append(draw(OTHER))
    text = "".join(parts) + ("class Last(P):\n    pass\n" if k == 0 else "")
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text


@settings(max_examples=150, deadline=None)
@given(modules(), st.data())
def test_generated_modules(text, data):
    tree = ast.parse(text)
    names = [s.name for s in tree.body if isinstance(s, ast.ClassDef)]
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    same_inside(text, chosen)
    # Parsed in part unless the first class is the one-line ``class R: pass`` (no indented block).
    first = min((s for s in tree.body if getattr(s, "name", None) in chosen), key=lambda s: s.lineno)
    assert isinstance(parse_classes(text, tree, [s for s in tree.body if getattr(s, "name", None) in chosen]),
                      PartialLocated) == (first.name != "R")


def test_parses_less_and_offers_only_the_classes_insides():
    text = "import os\n\n\nclass P:\n    def m(self):\n        return os.sep\n\n\ndef big():\n    return [\n        1,\n    ]\n\n\nZ = 1\n"
    tree = ast.parse(text)
    part = parse_classes(text, tree, [tree.body[1]])
    assert isinstance(part, PartialLocated)
    assert part.stmt(tree.body[1].body[0]).name.value == "m"
    assert "big" not in part.module.code and part.module.code.count("\n") == text.count("\n")
    for outside in (tree.body[0], tree.body[1], tree.body[2], tree.body[3]):  # the class statement itself too
        with pytest.raises(NotParsed):
            part.stmt(outside)


@pytest.mark.parametrize("text, chosen", [
    pytest.param("X = 1; Y = 2\nclass P:\n    a = 1\nclass C(P): pass\n", "P", id="a-shared-line-before-the-class"),
])
def test_near_miss_still_partial(text, chosen):
    tree = ast.parse(text)
    assert isinstance(parse_classes(text, tree, [s for s in tree.body if getattr(s, "name", "") == chosen]), PartialLocated)
    same_inside(text, [chosen])


@pytest.mark.parametrize("text, chosen", [
    pytest.param("class P: a = 1\ndef f():\n    pass\n", "P", id="first-class-without-an-indented-block"),
    pytest.param("class P:\n    a = 1\nX = 1; Y = 2\n", "P", id="two-statements-on-a-line"),
    pytest.param("def f():\n    class P:\n        a = 1\n", "P", id="nested-class"),
])
def test_parsed_whole(text, chosen):
    tree = ast.parse(text)
    nested = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == chosen]
    got = parse_classes(text, tree, nested)
    assert type(got) is Located


PARENT_MODULE = '''import os

LIMIT = 8


def helper():
    return LIMIT


class Base:
    pass


class P(Base):
    def __init__(self):
        self.sep = os.sep
        self.unused = [0] * 1024

    def joined(self, a, b):
        # joins with the parent's separator
        return a + self.sep + b


class Other(P):
    def joined(self, a, b):
        return b
'''
CHILD_MODULE = '''from .parent import P


class C(P):
    def __init__(self):
        super().__init__()
        self.n = 1

    def both(self):
        return self.joined("a", "b")
'''


def _tree(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "parent.py").write_text(PARENT_MODULE)
    (pkg / "child.py").write_text(CHILD_MODULE)
    return tmp_path


def test_rewrite_parses_the_parent_in_part_and_starts_again_whole_when_asked_outside(tmp_path, monkeypatch):
    from codemod import api, rewrite

    root = _tree(tmp_path)
    runs = []
    real = rewrite._rewrite_module

    def recording(*args, whole):
        runs.append(whole)
        return real(*args, whole=whole)

    monkeypatch.setattr(rewrite, "_rewrite_module", recording)
    plain = api.decouple(root, "C", cache=False).patch.texts["pkg/child.py"]
    assert runs == [False]  # parsed in part, and nothing was asked outside P
    assert "os.sep" in plain and "self.joined" in plain

    # A parse of the wrong class: the rewrite asks for P's statements, is told NotParsed, starts again whole.
    monkeypatch.setattr(rewrite, "_parse_parent", lambda info, analyses: parse_classes(
        info.text, info.tree, [s for s in info.tree.body if getattr(s, "name", "") == "Other"]))
    runs.clear()
    assert api.decouple(root, "C", cache=False).patch.texts["pkg/child.py"] == plain
    assert runs == [False, True]


def test_starting_again_keeps_the_class_module_the_caller_gave(tmp_path, monkeypatch):
    """DC618's caller hands in the class's module parsed, and holds nodes of it: the second,
    whole attempt must use that parse's nodes, not a new parse's, and none of what the first
    attempt added to its maps."""
    import ast as ast_

    from codemod import rewrite
    from codemod.discover import Tree
    from codemod.index import Index
    from codemod.pipeline import analyse_all

    root = _tree(tmp_path)
    index = Index(Tree.open(root))
    (a,) = analyse_all(index, ("C",), None, None, progress=False)
    child = Located.parse(a.cls.module.text, a.cls.module.tree)
    seen = []
    real = rewrite._rewrite_module

    def recording(index_, analyses, markers, presented, parsed, keep_parent, whole):
        here = (parsed or {}).get(a.cls.module.rel)
        seen.append((whole, here))
        if not whole:
            here.pos_of[-1] = (0, 0)  # what a first attempt may add (DC313's statements)
        return real(index_, analyses, markers, presented, parsed, keep_parent, whole=whole)

    monkeypatch.setattr(rewrite, "_rewrite_module", recording)
    monkeypatch.setattr(rewrite, "_parse_parent", lambda info, analyses: parse_classes(
        info.text, info.tree, [s for s in info.tree.body if isinstance(s, ast_.ClassDef) and s.name == "Other"]))
    patch = rewrite.rewrite_module(index, [a], parsed={a.cls.module.rel: child})
    assert [w for w, _ in seen] == [False, True] and seen[0][1] is child
    again = seen[1][1]
    assert again.module is child.module and again.compound == child.compound and again.simple == child.simple
    assert -1 not in again.pos_of
    assert "os.sep" in patch.after
