r"""Finding a name in source text as a whole word: the searches the prefilters run over many files.

Python's regex engine looks for a pattern's literal prefix at C speed, but a pattern that starts
with ``\b`` has none, and is tried at every position of the text: on SGLang's large files
``\bname\b`` costs about thirty times ``name\b``. Two ways round it, each giving the regex's
own answer:

* ``Tree.files_naming(name)`` (``spelt_whole``): for a name made of word characters, the files
  the word index lists for it are exactly those where ``\bname\b`` matches. The index's
  tokeniser (``word_index.words_in``) keeps ASCII letters, digits, ``_`` and every non-ASCII
  byte, and splits at everything else: a word ``name`` there is bounded by ASCII characters
  that are not word characters (or an end), which is where ``\b`` holds; an occurrence bounded
  by a non-ASCII character that is not a word character (``name→``) is no word of the index,
  and the prefilter never let such a file through anyway.
* ``WordPattern``: ``name`` followed by the rest of the pattern, found as a literal, each match
  kept only where the character before it is not a word character (``\b`` before a word
  character). The matches do not overlap differently: one that started inside another occurrence
  of the name would end where that one has a word character, so its ``\b`` would fail.
* ``read_or_quoted``: which of many names follow a dot or a quote (``[.'"](a|b|...)\b``, DC108's
  prefilter), each name looked for as a literal where the alternation was tried at every dot
  (on SGLang the alternation cost 0.3 s a run, the literals a tenth of that).
"""

from __future__ import annotations

import re
from collections.abc import Iterator


def _word(ch: str) -> bool:
    # ``\w`` of a str pattern: what ``str.isalnum`` accepts, and the underscore.
    return ch == "_" or ch.isalnum()


def spelt_whole(name: str) -> bool:
    """Whether every character of ``name`` is a word character (an identifier's usually are)."""
    return bool(name) and all(map(_word, name))


class WordPattern:
    r"""``re.compile(rf"\b{re.escape(name)}{rest}")``, for ``search`` and ``finditer``. ``rest``
    starts with what no word character matches (``\b``, ``\s*\(``), so that a match of
    ``name`` + ``rest`` that starts inside an occurrence of the name cannot hide that one."""

    def __init__(self, name: str, rest: str = r"\b"):
        self.fast = spelt_whole(name)
        self._rx = re.compile(re.escape(name) + rest if self.fast else rf"\b{re.escape(name)}{rest}")

    def finditer(self, text: str) -> Iterator[re.Match]:
        if not self.fast:
            yield from self._rx.finditer(text)
            return
        for m in self._rx.finditer(text):
            at = m.start()
            if at == 0 or not _word(text[at - 1]):
                yield m

    def search(self, text: str) -> re.Match | None:
        return next(self.finditer(text), None)


_CLASS_OPEN = re.compile(r"class\s+\w+\s*\(")
_WORD_RUN = re.compile(r"\w+")
_AS = re.compile(r"as(?=\s+\w)")


class BaseNames:
    r"""What a file's class statements name, for ``Index.subclasses``, read once per file.

    ``named(name)`` is whether ``class\s+\w+\s*\([^:]*?\bname\b`` (the name inside a class
    statement's parentheses, before the colon) or ``name\s+as\s+\w+`` (imported under another
    name) matches in the text, for a name of word characters: the words of every such stretch
    are collected in one pass, and the words right before an ``as`` (the second regex has no
    ``\b`` before the name: a word that ends with it counts)."""

    def __init__(self, text: str):
        inside: set[str] = set()
        for m in _CLASS_OPEN.finditer(text):
            end = text.find(":", m.end())
            inside.update(_WORD_RUN.findall(text, m.end(), len(text) if end < 0 else end))
        self.inside = frozenset(inside)
        before_as = []
        for m in _AS.finditer(text):
            end = m.start()
            while end > 0 and text[end - 1].isspace():  # ``\s`` of a str pattern
                end -= 1
            start = end
            while start > 0 and _word(text[start - 1]):
                start -= 1
            if start < end < m.start():
                before_as.append(text[start:end])
        self.before_as = tuple(before_as)

    def named(self, name: str) -> bool:
        return name in self.inside or any(w.endswith(name) for w in self.before_as)


_BEFORE_READ = frozenset(".'\"")


def read_or_quoted(text: str, names) -> set[str]:
    r"""The names of ``names`` for which ``[.'"]name\b`` (the name escaped) matches in ``text``:
    those that follow a dot or a quote and end at a word boundary. For names spelt whole this is
    what ``re.findall`` of the alternation ``(?:\.|['"])(a|b|...)\b`` finds (at one place only
    one of them can end at a boundary); for others the alternation may find fewer.

    A name spelt whole is looked for as a literal: an occurrence counts where the character
    before it is a dot or a quote and the one after it is no word character (or the text ends).
    An occurrence that starts inside another one is preceded by a word character, so it never
    counts, and skipping past each occurrence loses nothing."""
    found: set[str] = set()
    find, size = text.find, len(text)
    for name in names:
        if not spelt_whole(name):
            if re.search(r"[.'\"]" + re.escape(name) + r"\b", text):
                found.add(name)
            continue
        n = len(name)
        at = find(name)
        while at >= 0:
            if at and text[at - 1] in _BEFORE_READ and (at + n == size or not _word(text[at + n])):
                found.add(name)
                break
            at = find(name, at + n)
    return found


def case_lines(text: str) -> list[str]:
    r"""The lines where a ``case`` keyword follows some indentation (``case C(name=...)``): what
    the multiline regex ``^[ \t]+case\b[^\n]*`` finds, found from each ``case`` in the text
    instead of by a test at every position (DC108's prefilter runs it on hundreds of files,
    most of which say "case" only inside other words)."""
    out = []
    at = text.find("case")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        after = at + 4
        if start < at and not text[start:at].strip(" \t") and (after == len(text) or not _word(text[after])):
            end = text.find("\n", after)
            end = len(text) if end < 0 else end
            out.append(text[start:end])
            at = text.find("case", end)
        else:
            at = text.find("case", after)
    return out
