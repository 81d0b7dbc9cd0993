"""``text_facts``: a file whose text passes a search's own test, among the files that search
takes, has the search's marker word in the word index (a marker only narrows what the test then
reads), on texts written to be hard: non-ASCII spaces and letters, arguments over several
lines, declared encodings, bytes that do not decode."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemod import text_facts
from codemod.discover import Tree
from codemod.rules.keep_outside_use import _pieces_of
from codemod.word_index import words_in

# Each search's own test on a decoded text, and the words of the files it takes (one of them).
TESTS = {
    text_facts.PIECED_NAME: lambda text: _pieces_of(text, ["x_out", "name", "a_b", "ab"]),
    text_facts.REGISTER_CALL: lambda text: ".register" in text,
}
TAKES = {text_facts.PIECED_NAME: {b"getattr", b"hasattr", b"setattr", b"delattr"}, text_facts.REGISTER_CALL: {b"register"}}


def marked(text: str, encoding: str = "utf-8") -> set[str]:
    words = words_in(text.encode(encoding, "replace"))
    return {m for m in TESTS if m.encode() in words}


def taken(text: str) -> set[str]:
    """The markers whose search takes this text (it holds one of their words)."""
    words = words_in(text.encode("utf-8", "replace"))
    return {m for m, need in TAKES.items() if not need.isdisjoint(words)}


@pytest.mark.parametrize("marker, text", [
    pytest.param(text_facts.PIECED_NAME, 'v = getattr(obj, f"{p}_out")\n', id="pieced-f-string"),
    pytest.param(text_facts.PIECED_NAME, "v = hasattr(obj,\u3000'a' + '_b')\n", id="pieced-plus-after-a-wide-space"),
    pytest.param(text_facts.PIECED_NAME, "v = getattr(\n    obj,\n    f'{p}_out')\n", id="pieced-over-lines"),
    pytest.param(text_facts.REGISTER_CALL, "@Base.register\nclass C: pass\n", id="register"),
])
def test_a_text_with_the_shape_has_the_marker(marker, text):
    assert TESTS[marker](text) and marker in taken(text)
    assert marker in marked(text)


@pytest.mark.parametrize("text", [
    pytest.param('v = getattr(obj, "x_out")\n', id="a-plain-literal"),
    pytest.param("v = getattr(obj, name)\n", id="a-variable"),
    pytest.param("f = getattribute, x\n", id="a-longer-word"),
    pytest.param("registry_register = 1\nx = 'register'\n", id="register-not-after-a-dot"),
    pytest.param("v = (getattr)(obj, f'{p}_out')\n", id="pieces-after-a-parenthesis"),
])
def test_no_change_a_text_without_any_shape_has_no_marker(text):
    assert not any(test(text) for test in TESTS.values())
    assert marked(text) == set()


def test_a_declared_encoding_is_read_as_the_text(tmp_path):
    text = "# -*- coding: latin-1 -*-\n# caf\u00e9\nv = getattr(obj, f'{p}_out')\n"
    assert marked(text, "latin-1") == {text_facts.PIECED_NAME}


def test_the_tree_finds_the_marked_files(tmp_path):
    (tmp_path / "a.py").write_text("v = getattr(obj, f'{p}_out')\n")
    (tmp_path / "b.py").write_text("v = getattr(obj, 'x_out')\n")
    (tmp_path / "c.py").write_bytes(b"v = getattr(obj, f'{p}_\xff')\n")  # not UTF-8: read with the byte replaced
    tree = Tree.open(tmp_path)
    assert tree.files_with_words((text_facts.PIECED_NAME,)) == ["a.py", "c.py"]


_PIECES = ["getattr(", "hasattr", "setattr(", "xget", "attr", "attr(", "get", "(", ")", ",", " ", "\t", "\n", "\u3000", "\x1c",
           "\u00a0", "f'", 'f"', "'", '"', "+", "{p}", "_out", "x", "é", "→", ".register", "register", "case", "\ufffd"]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_every_text_that_passes_a_test_has_its_marker(text):
    got = marked(text)
    assert got <= taken(text)  # a marker only ever goes to a file with its search's words
    for marker in taken(text):
        if TESTS[marker](text):
            assert marker in got, marker
