"""``word_search`` gives the answers of the regexes it stands in for: ``WordPattern`` those of
``\\bname...``, ``case_lines`` those of ``^[ \\t]+case\\b[^\\n]*``, ``read_or_quoted`` those of
``[.'"](a|b|...)\\b``, ``Tree.files_naming`` those of a grep for ``\\bname\\b`` (on files written to
be hard: non-ASCII neighbours, undecodable bytes, declared encodings)."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemod.discover import Tree
from codemod.word_index import words_in
from codemod.word_search import WordPattern, case_lines, read_or_quoted


_CASE_LINE = re.compile(r"^[ \t]+case\b[^\n]*", re.M)  # what ``case_lines`` stands in for


@pytest.mark.parametrize("text", [
    pytest.param("match x:\n    case C(a=1):\n        pass\n", id="a-case-line"),
    pytest.param("case C(a=1)", id="no-indentation-no-line"),
    pytest.param("  casex = 1\n  case_ = 2\n  caseé = 3\n", id="case-inside-a-longer-word"),
    pytest.param("  case→ x\n\tcase", id="non-word-character-after-and-the-end"),
    pytest.param("# lowercase\n  x = 'testcase'\n  y.case\n", id="case-not-first-on-its-line"),
    pytest.param("\r  case a\r\n  case b\r\n \t case c", id="cr-is-not-a-line-start"),
    pytest.param("  casecase\n  case case\n", id="twice-on-a-line"),
])
def test_case_lines_are_the_regex_lines(text):
    assert case_lines(text) == _CASE_LINE.findall(text)


@given(st.lists(st.sampled_from(["case", " ", "\t", "\n", "\r", "x", "_", "é", "→", "(", "=", "c"]), max_size=40).map("".join))
def test_case_lines_match_the_regex_on_any_text(text):
    assert case_lines(text) == _CASE_LINE.findall(text)


_PIECES = ["name", "nam", "e", "x", "_", " ", ".", "(", "\n", "é", "→", "’", "9", "\ufffd"]


@pytest.mark.parametrize("rest", [r"\b", r"\s*\("])
@pytest.mark.parametrize("name", ["name", "e", "_", "é", "nam_e9"])
@given(text=st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_word_pattern_matches_the_regex(name, rest, text):
    expected = [m.span() for m in re.finditer(rf"\b{re.escape(name)}{rest}", text)]
    assert [m.span() for m in WordPattern(name, rest).finditer(text)] == expected
    assert (WordPattern(name, rest).search(text) is None) == (not expected)


@pytest.mark.parametrize("name", ["a.b", "→x", "x→", "·"])
def test_word_pattern_keeps_the_regex_for_other_names(name):
    text = f" {name} x{name} {name}y ({name})"
    assert [m.span() for m in WordPattern(name).finditer(text)] == [m.span() for m in re.finditer(rf"\b{re.escape(name)}\b", text)]


_FILES = {
    "plain.py": "x = obj.name\n",
    "longer.py": "x = obj.names + rename\n",
    "arrow.py": "# obj.name→ other\n",
    "quote.py": "# the obj.name’s value\n",
    "accent.py": "# nameé\n",
    "declared.py": "# -*- coding: latin-1 -*-\n# café name\n",
    "bom.py": "\ufeffname = 1\n",
    "digits.py": "name2 = 2name\n",
    "größe.py": "größe = 1\n",
}


@pytest.mark.parametrize("name", ["name", "größe", "name2", "rename", "x"])
def test_files_naming_is_the_grep_for_the_whole_word(tmp_path, name):
    for rel, text in _FILES.items():
        encoding = "latin-1" if "latin-1" in text else "utf-8"
        (tmp_path / rel).write_bytes(text.encode(encoding))
    (tmp_path / "undecodable.py").write_bytes(b"# caf\xe9 name\xe9 name\n")
    tree = Tree.open(tmp_path)
    expected = tree.grep(re.compile(rf"\b{re.escape(name)}\b"), words=(name,))
    assert tree.files_naming(name) == expected
    assert name != "name" or {"plain.py", "declared.py", "bom.py", "undecodable.py"} <= set(expected)


_CLASS_PIECES = ["class", " ", "\n", "\u00a0", "(", ")", ":", ",", "A", "B", "xA", "as", "s", "é", "#", "="]


@pytest.mark.parametrize("name", ["A", "B", "xA", "s", "é"])
@given(text=st.lists(st.sampled_from(_CLASS_PIECES), max_size=30).map("".join))
def test_base_names_answer_the_two_regexes(name, text):
    from codemod.word_search import BaseNames

    e = re.escape(name)
    expected = bool(re.search(rf"class\s+\w+\s*\([^:]*?\b{e}\b", text) or re.search(rf"{e}\s+as\s+\w+", text))
    assert BaseNames(text).named(name) == expected


@pytest.mark.parametrize(("text", "name", "named"), [
    pytest.param("class C(mod.A, B):\n    pass\n", "A", True, id="a-dotted-base"),
    pytest.param("class C(B):  # not A: a comment after the colon\n", "A", False, id="after-the-colon"),
    pytest.param("class C(\n    A,\n):\n", "A", True, id="bases-over-lines"),
    pytest.param("class C(AB): pass\n", "A", False, id="a-longer-word"),
    pytest.param("from m import XA as Other\n", "A", True, id="a-word-ending-in-the-name-renamed"),
    pytest.param("import x as as_\nA as  as y", "A", True, id="as-twice"),
])
def test_base_names_near_misses(text, name, named):
    from codemod.word_search import BaseNames

    assert BaseNames(text).named(name) is named


_READ_PIECES = ["name", "nam", "e", "x", "_", " ", ".", "'", '"', "(", "\n", "é", "→", "·", "9", "a-"]
_READ_NAMES = ["name", "e", "_", "é", "nam_e9", "x", "a-"]


@given(text=st.lists(st.sampled_from(_READ_PIECES), max_size=30).map("".join),
       names=st.lists(st.sampled_from(_READ_NAMES), unique=True, max_size=5))
def test_read_or_quoted_is_the_regex(text, names):
    expected = {n for n in names if re.search(r"[.'\"]" + re.escape(n) + r"\b", text)}
    assert read_or_quoted(text, names) == expected
    whole = [n for n in names if n != "a-"]
    if whole:  # DC108's alternation, one findall over every name spelt whole: the same names
        assert set(re.findall(r"(?:\.|['\"])(" + "|".join(map(re.escape, whole)) + r")\b", text)) == read_or_quoted(text, whole)


@given(text=st.lists(st.sampled_from(_READ_PIECES[:10] + ["a", "-", "$", "\t"]), max_size=30).map("".join))
def test_read_or_quoted_in_ascii_needs_only_the_words_of_the_index(text):
    """DC108 looks, in an ASCII text, only for the names the word index lists for its file."""
    words = {w.decode() for w in words_in(text.encode())}
    names = ["name", "e", "_", "nam_e9", "x", "a"]
    assert read_or_quoted(text, [n for n in names if n in words]) == read_or_quoted(text, names)


@pytest.mark.parametrize(("text", "found"), [
    pytest.param("x = obj.name\n", {"name"}, id="an-attribute"),
    pytest.param("getattr(obj, 'name')\n", {"name"}, id="a-quoted-name"),
    pytest.param("obj.names + obj.rename + name\n", set(), id="near-misses-longer-words-and-no-dot"),
    pytest.param("obj.name\u2192 = 1\n", {"name"}, id="a-non-word-character-after"),
    pytest.param("obj.nameé\n", set(), id="a-non-ascii-word-character-after"),
    pytest.param("obj.e.e_e.name", {"e", "name"}, id="at-the-end-and-overlapping"),
])
def test_read_or_quoted_near_misses(text, found):
    assert read_or_quoted(text, ["name", "e"]) == found
