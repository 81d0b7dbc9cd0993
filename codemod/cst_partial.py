"""libcst's parse of a parent's module, less what the rewrite never reads of it.

The rewrite copies statements out of the parent's classes (members, ``__init__``, annotations)
and reads nothing else of the parent's module, which it never changes. ``parse_classes`` hands
libcst a text in which every other top-level statement after the first of those classes is a
``pass`` on its first line and blank lines on its others: libcst builds the nodes of the classes,
not of the rest (on SGLang's ``flashinfer_backend.py`` the parse reads 57% of the module, and a
cold run's serial path is 0.06 s shorter). libcst has no parse of part of a module.

Why each statement inside those classes comes out equal (``deep_equals``) to the whole parse's:

* libcst parses a class's body from its own text, the module's default indent and newline, and
  the lines after it up to the next statement at column 0 (the footers of the blocks that end
  there take trailing comments);
* the text up to the end of the first class parsed is kept as it is, so libcst finds the same
  default newline (the first line ending) and the same default indent (the first indented
  block, there or before it); a first class whose body shares its header's line, and so has no
  indented block, makes the module parsed whole;
* every line keeps its line ending, a statement left out keeps its first line's place (``pass``
  at column 0), and the lines between statements (blank lines, comments) stay: after each class
  parsed come the same lines, then a statement at column 0 on the same line or the end of the
  text, as in the whole text;
* two top-level statements on one line from the first class parsed on (``a = 1; class Q: ...``)
  make the module parsed whole.

What is offered is only what the argument covers: the statements inside the classes. The class
statements themselves are not (their leading lines may take comments that a statement before
them owned in the whole text), nor any statement outside them: ``stmt`` raises ``NotParsed``
for those, and the rewrite then parses the module whole (``rewrite.rewrite_module``).
Known limits: a module whose classes parsed are nested (not at its top level) is parsed whole.
Tested against the whole parse (``tests/units/test_cst_partial.py``): every top-level class of 24
modules of the standard library, alone and all together, and modules generated from statements,
comments at every depth, ``\r\n`` endings and a missing final newline. Checked once more on
every module of SGLang 0.5.23 with a top-level class (2,947 modules, 751,016 statements: all
their classes, the first alone, the last alone) and on 458 modules of five installed libraries
(``benchmarks/partial_parse_check.py``): equal everywhere. A ``match`` statement is offered by
neither parse (``Located.stmt``); asked for one, the rewrite starts again and gets the same none.
"""

from __future__ import annotations

import ast

import libcst as cst

from .ast_util import _PARSER_LINE
from .cst_util import Located


class NotParsed(Exception):
    """A statement that ``PartialLocated`` does not hold: the module must be parsed whole."""


class PartialLocated(Located):
    """The statements inside some classes of a module (``parse_classes``)."""

    def stmt(self, node: ast.stmt):
        got = super().stmt(node)
        if got is None:
            raise NotParsed(f"line {getattr(node, 'lineno', '?')} is outside the classes parsed")
        return got


def _first_line(s: ast.stmt) -> int:
    return min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))])


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _own_block(cls: ast.ClassDef, lines: list[str]) -> bool:
    """Whether the class's body starts a line of its own (an indented block, not ``: x = 1``)."""
    first = cls.body[0]
    return not lines[_first_line(first) - 1][:first.col_offset].strip()


def parse_classes(text: str, tree: ast.Module, classes: list[ast.ClassDef]) -> Located:
    """The module ``text`` (whose ``ast`` is ``tree``) parsed by libcst for the statements inside
    ``classes`` (top-level classes of it), or parsed whole where the argument above does not hold."""
    body = tree.body
    at = {id(s): i for i, s in enumerate(body)}
    wanted = {id(c) for c in classes}
    lines = _PARSER_LINE.findall(text)
    if not wanted or not all(i in at for i in wanted) or "".join(lines) != text:
        return Located.parse(text, tree)
    spans = [(_first_line(s), s.end_lineno) for s in body]
    first = min(at[i] for i in wanted)  # what comes before it stays as it is
    if any(nxt[0] <= prev[1] for prev, nxt in zip(spans[first:], spans[first + 1:])):
        return Located.parse(text, tree)  # two statements share a line
    if not _own_block(body[first], lines):
        return Located.parse(text, tree)
    out = list(lines)
    for i in range(first + 1, len(body)):
        if id(body[i]) in wanted:
            continue
        lo, hi = spans[i]
        out[lo - 1] = "pass" + _ending(lines[lo - 1])
        for k in range(lo, hi):
            out[k] = _ending(lines[k])
    try:
        module = cst.parse_module("".join(out))
        located = PartialLocated(module, {}, {}, {})
        it = iter(body)
        for node in module.body:
            # A line of small statements is one libcst node for as many ``ast`` statements.
            for s in [next(it) for _ in node.body] if isinstance(node, cst.SimpleStatementLine) else [next(it)]:
                if id(s) in wanted:
                    if not (isinstance(node, cst.ClassDef) and node.name.value == s.name):
                        raise ValueError("statements do not pair")
                    located._compound(s, node)
        if next(it, None) is not None:
            raise ValueError("statements do not pair")
    except Exception:  # noqa: BLE001 - whatever did not pair, the whole parse says it as before
        return Located.parse(text, tree)
    for c in classes:
        located.compound.pop(c.lineno, None)
    located.line_of = {id(node): line for line, node in located.compound.items()}
    return located
