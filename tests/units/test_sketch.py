"""The scan's sketches (``scan.sketch``): what a light sketch keeps of a class, that its
``__init__`` is the one the whole body gives, and which modules a full index lets go of."""

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemod.discover import Tree
from codemod.scan import sketch
from codemod.scan.sketch import SketchIndex, _sketch


def _inits(text: str, wanted: dict, light: bool) -> dict[str, int | None]:
    """Each class's ``__init__`` as the sketch's parse gives it (the line of its ``def``)."""
    tree = ast.parse(_sketch(text, wanted, {}, light))
    out = {}
    for c in tree.body:
        if isinstance(c, ast.ClassDef):
            inits = [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"]
            out[c.name] = inits[-1].lineno if inits else None  # a body's last def is the class's
    return out


OVERLOADED = '''\
from typing import overload


class P(Base):
    x = 1

    @overload
    def __init__(self, a: int) -> None: ...

    @overload
    def __init__(self, a: str) -> None: ...

    def __init__(self, a):
        super().__init__()
        self.a = a

    def other(self):
        return self.a


class Q(P):
    def run(self):
        return 1
'''


@pytest.mark.parametrize("text, wanted", [
    pytest.param(OVERLOADED, {"P": True, "Q": True}, id="overloaded-init-of-a-parent"),
    pytest.param(OVERLOADED, {"P": True, "Q": False}, id="a-class-without-init"),
    pytest.param("class A(B):\n    async def __init__(self):\n        pass\n", {"A": True}, id="async-init"),
    pytest.param("if X:\n    class A(B):\n        def __init__(self):\n            super().__init__()\n", {"A": True},
                 id="under-a-module-block"),
])
def test_a_light_sketch_gives_each_class_the_init_of_the_whole_body(text, wanted):
    assert _inits(text, wanted, light=True) == _inits(text, wanted, light=False)


def test_a_light_sketch_keeps_no_other_member():
    light = _sketch(OVERLOADED, {"P": True, "Q": True}, {}, light=True)
    assert "def other" not in light and "x = 1" not in light and "def run" not in light
    assert "self.a = a" in light
    assert len(light.splitlines()) == len(OVERLOADED.splitlines())  # line numbers hold
    tree = ast.parse(light)
    assert [c.name for c in tree.body if isinstance(c, ast.ClassDef)] == ["P", "Q"]


def test_a_subclass_only_class_keeps_its_first_init_as_before():
    """A class wanted for its header only keeps the first ``__init__`` it defines, light or not."""
    assert _inits(OVERLOADED, {"P": False}, light=True) == _inits(OVERLOADED, {"P": False}, light=False)


def test_a_full_index_lets_go_of_the_modules_needed_latest(tmp_path, monkeypatch):
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(f"class C{i}(Base):\n    def __init__(self):\n        super().__init__()\n")
    monkeypatch.setattr(sketch, "_HELD", {False: 3, True: 3})
    monkeypatch.setattr(sketch, "_LET_GO", 1)
    index = SketchIndex(Tree(tmp_path), {f"C{i}": True for i in range(6)}, {f"C{i}": {f"m{i}.py"} for i in range(6)})
    # Step 0 asks for m0, m1, m2; m0 is wanted again at step 1, m1 at step 3, m2 never.
    index.foresee([{"m0.py", "m1.py", "m2.py"}, {"m0.py", "m3.py"}, {"m4.py"}, {"m1.py"}])
    for rel in ("m0.py", "m1.py", "m2.py"):
        index.module(rel)
    index.step = 1
    index.module("m3.py")  # four held: m2, needed never, goes
    assert set(index._modules) == {"m0.py", "m1.py", "m3.py"}
    index.step = 2
    index.module("m4.py")  # of m0 (never again), m1 (step 3), m3 (never again), the least recent of the two unneeded goes
    assert set(index._modules) == {"m1.py", "m3.py", "m4.py"}


def test_light_modules_have_a_budget_of_their_own(tmp_path, monkeypatch):
    """Light sketches asked for in numbers (a parent's many subclass files) do not push the
    modules held whole out, nor the other way round."""
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(f"class C{i}(Base):\n    def __init__(self):\n        super().__init__()\n")
    monkeypatch.setattr(sketch, "_HELD", {False: 2, True: 3})
    monkeypatch.setattr(sketch, "_LET_GO", 1)
    index = SketchIndex(Tree(tmp_path), {f"C{i}": True for i in range(6)}, {f"C{i}": {f"m{i}.py"} for i in range(6)})
    index.module("m0.py")
    index.module("m1.py")
    for i in range(2, 6):
        index.light(f"m{i}.py")
    assert set(index._modules) == {"m0.py", "m1.py"}
    assert len(index._light) == 3
    index.module("m2.py")  # a third held whole: one of those held whole goes, no light one
    assert len(index._modules) == 2 and len(index._light) == 3


def test_a_light_module_is_the_sketch_itself_where_that_is_held(tmp_path):
    (tmp_path / "m.py").write_text("class C(Base):\n    def __init__(self):\n        super().__init__()\n\n    def f(self):\n        pass\n")
    index = SketchIndex(Tree(tmp_path), {"C": True}, {"C": {"m.py"}})
    light = index.light("m.py")
    assert set(light.classes["C"].methods) == {"__init__"}
    full = index.module("m.py")
    assert set(full.classes["C"].methods) == {"__init__", "f"}
    assert index.light("m.py") is full


CLASS_TEXTS = [
    pytest.param("class A(B):\n    pass\n", id="top-level"),
    pytest.param("if X:\n\tclass T ( a , b ) :\n\t\tpass\n", id="indented-by-a-tab"),
    pytest.param("class A(B,\n        C): pass\nclass D: pass\n", id="bases-over-lines"),
    pytest.param("s = 'class X(y):'\nclass Y:\n    pass\n", id="in-a-string-mid-line"),
    pytest.param("# a subclass Foo(see\nclass Real(Base):\n    pass\n", id="word-inside-a-word-spans-a-real-one"),
    pytest.param("x = 1 # class Q(R):\nclass S(T): pass  # class U(V):\n", id="after-code-on-its-line"),
    pytest.param("class\tW :\n    class Inner(W): pass\n", id="nested"),
    pytest.param("metaclass = 1\nclass_ = 2\nclassy X:\n", id="near-misses"),
    pytest.param("x = 1\r\nclass Win(Base):\r\n    pass\r\n", id="crlf"),
    pytest.param("x = 1\rclass Mac(Base):\r", id="cr-only-lines"),
]


@pytest.mark.parametrize("text", CLASS_TEXTS)
def test_class_matches_finds_what_the_line_start_pattern_finds(text):
    got = [(m.groups(), m.end(), text.rfind("\n", 0, m.start())) for m in sketch.class_matches(text)]
    want = [(m.groups(), m.end(), text.rfind("\n", 0, m.start())) for m in sketch.CLASS.finditer(text)]
    assert got == want


@given(st.lists(st.sampled_from(["class", "class ", " ", "\t", "\n", "\r", "A", "B1", "(", ")", ":", ",", "#", "'", "sub", "="]),
                max_size=40))
@settings(max_examples=400, deadline=None)
def test_class_matches_on_any_mix_of_the_pieces_of_a_class_statement(pieces):
    text = "".join(pieces)
    assert [(m.groups(), m.end()) for m in sketch.class_matches(text)] == [(m.groups(), m.end()) for m in sketch.CLASS.finditer(text)]


@given(st.lists(st.sampled_from(["import", "import ", "from", "from ", " ", "\t", "\n", "\r", "\x0c", "\u2028", ".", "a", "b.c",
                                 " import ", "#", "("]), max_size=40))
@settings(max_examples=400, deadline=None)
def test_imports_and_odd_line_ends_as_the_regexes_find_them(pieces):
    text = "".join(pieces)
    assert list(sketch._imports_at(text)) == [m.start() for m in sketch._IMPORT.finditer(text)]
    assert sketch._odd_ends(text) == (sketch._ODD_ENDS.search(text) is not None)


@given(st.lists(st.sampled_from(["def", "def ", "async ", "async", " ", "\t", "\n", "\r", "f", "_g1", "(", ":", "#", "x = 1",
                                 "    def h(self):\n"]), max_size=40))
@settings(max_examples=400, deadline=None)
def test_def_names_finds_what_the_line_start_pattern_finds(pieces):
    text = "".join(pieces)
    assert sketch.def_names(text) == sketch.DEF.findall(text)


@given(st.lists(st.sampled_from(["a", "bc", " ", "\t", "\n", "\n\n", "é", "class X:"]), max_size=40))
@settings(max_examples=400, deadline=None)
def test_line_starts_summed_from_the_lines_are_those_of_the_split_text(pieces):
    text = "".join(pieces)  # no "\r" and no odd line end: where _sketch sums the lines
    assert sketch._line_starts(text, text.splitlines(keepends=True)) == sketch._line_starts(text)
