"""Rare shapes of a file's text, recorded by the word index as it reads each file.

Some searches of the whole tree test the text of every file that holds a common word for a
shape that few of them have: an accessor given a name in pieces (``getattr(x, f"{p}_out")``:
34 of SGLang's 4,719 files, among the 1,437 that say ``getattr`` or another accessor), a
``.register`` call. Each such test read and decoded those files again, in both processes of a
run (DC108's search for names in pieces: 0.06 s in each). The word index already holds every file's bytes, once, in its
parallel pass: there each shape below is looked for in the bytes, and a file that has it gets
a marker word (``\\x00`` and a name: no word of any text, since the tokeniser splits at
``\\x00``). A search then asks the index for the marker's files, and runs its own test on those
alone.

What each marker proves: a file *without* it fails the search's own test, so leaving the file
out changes no answer. Each byte test is a superset of the text test it stands for:

* The bytes are the text the search reads, encoded in UTF-8 (``words_in`` decodes a file with
  a BOM or a coding line first; a file that does not decode is tested on its bytes, and the
  search reads it with the bad bytes replaced by U+FFFD). So every ASCII character sits where
  it sits in the text, and every non-ASCII one is bytes of 0x80 and above.
* Where a text test asks a character to be a word character (``str.isalnum``, ``\\w``), the
  byte test asks less or nothing; where it allows whitespace (``\\s`` of a str pattern, which
  also takes U+001C to U+001F and non-ASCII spaces), the byte test allows those bytes too.

Known limits: a marker only narrows; the search's own test decides. A test not listed here
reads every file that holds its words, as before: the shapes here are those whose byte test
costs the index less than the reads it saves (an accessor passed as a value, DC301's, and a
``case`` line, DC108's, did not). The markers are part of the index's
snapshot (``word_index.SNAPSHOT_VERSION``) and of the run cache's word check (a changed file
that gains a shape is a file that gains a word the run looked for).
"""

from __future__ import annotations

import re

# Marker words, as the callers look them up (``Tree.files_with_words``).
PIECED_NAME = "\x00pieced accessor name"  # keep_outside_use._pieces_of
REGISTER_CALL = "\x00.register"  # keep_structural_tests._registrations

WORDS = {name: name.encode() for name in (PIECED_NAME, REGISTER_CALL)}
_ACCESSORS = frozenset({b"getattr", b"hasattr", b"setattr", b"delattr"})  # reflection.ACCESSORS
_HEADS = (b"get", b"has", b"set", b"del")
# keep_outside_use._ARGS in bytes: after ``attr(``, a first argument, a comma, the rest of the
# line up to ``)``. The text's ``\s*`` after the comma may take non-ASCII spaces that stay here
# at the start of the group: the group here ends as the text's does and holds all of it.
_ARGS = re.compile(rb"\s*[^,()]+,\s*([^)\n]*)")


def facts(data: bytes, words: set[bytes]) -> list[bytes]:
    """The marker words of the shapes ``data`` may hold; ``words``: its words (``words_in``).

    A marker is looked for only where its search can use it: a name in pieces in a file with an
    accessor's word, ``.register`` in one with the word ``register`` (each search takes only
    those files)."""
    out = []
    if not _ACCESSORS.isdisjoint(words) and _pieced(data):
        out.append(WORDS[PIECED_NAME])
    if b"register" in words and b".register" in data:  # the text test itself: ".register" in text
        out.append(WORDS[REGISTER_CALL])
    return out


def _pieced(data: bytes) -> bool:
    """``get|has|set|del`` + ``attr(`` whose name argument holds ``+``, ``f'`` or ``f"``: the
    text test also asks that no word character come before the head, that the argument start
    with ``f'`` or ``f"`` (after its spaces) or hold a ``+``, and that a piece be quoted."""
    at = data.find(b"attr(")
    while at >= 0:
        if at >= 3 and data[at - 3:at] in _HEADS:
            m = _ARGS.match(data, at + 5)
            if m is not None:
                arg = m.group(1)
                if b"+" in arg or b"f'" in arg or b'f"' in arg:
                    return True
        at = data.find(b"attr(", at + 5)
    return False
