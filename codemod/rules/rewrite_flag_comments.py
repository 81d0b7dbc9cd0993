"""DC611 stale-comments: remove the comments that are now false, flag the class's own others.

## What it does
A comment is stale when it names a member of the parent that was dropped (and that the class
does not define or assign itself), names the parent, or speaks of ``super()`` or of a parent.
A copied comment is also stale when it names a member the class keeps only for uses elsewhere
that could not be ruled out, which the class's code never reads: it gives the parent's reason.
A stale comment the patch copies (with the inlined statements of the parent's ``__init__``
and the copied members) is removed from the patched code; a run of whole-line comments is one
comment, removed whole, so that no sentence is left cut. The report counts them; report.json
lists each with its text and its line in the parent's file. A comment of the class's own
``__init__`` that names the parent or speaks of ``super()`` or a parent is removed the same way
once the patch replaces its ``super().__init__()`` (what it said of that call no longer holds;
report.json marks it "the class's own", with its line in the class's file). The class's other own
comments (in its ``__init__``, or beside the change) are the user's words: a stale one stays,
listed under "Comments to review". So are tool directives (``# type:``, ``# noqa``, ``# pragma``,
``# fmt:``...) the patch copies, which mean something to a tool. The tool's own marker comments are neither.

## Why
A comment copied from the parent describes the parent's code: "kv_indptr is preallocated"
above a class that no longer allocates it is a lie the checks cannot see, and the patch is
the tool's text, not the user's. A class's own comment about what its ``super().__init__()``
does stops being true when that call is gone; a pull request that leaves it reads as careless,
and what it described is now the inlined code itself. Its other comments are its author's to judge.

## Known problems
Found by words, not meaning: a comment can be found stale and still be true (it is then
removed if copied), and a false one that names nothing of the parent is not found. Member
names shorter than four letters are not matched. A whole-line comment that continues a
removed end-of-line comment on the next lines stays. A removed comment of the class's own is not
replaced by another: any part of it that was still true (why the code reads a setting first) goes
with it, and report.json keeps its text.

## Fix safety
Safe: comments carry no behaviour, and they are removed from the libcst tree, which keeps the
code valid.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, fields

import libcst as cst

from ..cst_util import code_of
from .verdict_already_decoupled import MARKER

ID = "DC611"
NAME = "stale-comments"


def find(a, after: str, changed: set[int], marker: str) -> list[tuple[int, str, str]]:
    """(line in the patched file, comment, why) for the class ``a.cls`` in ``after``."""
    try:
        tree = ast.parse(after)
    except SyntaxError:
        return []
    cls = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == a.cls.name), None)
    if cls is None:
        return []
    # Only the class's own lines are tokenized: a module can be long, the class is what changed.
    lines = after.splitlines(keepends=True)[cls.lineno - 1:cls.end_lineno]
    try:
        comments = [(t.start[0] + cls.lineno - 1, t.string)
                    for t in tokenize.generate_tokens(io.StringIO("".join(lines)).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    in_init = range(init.lineno, init.end_lineno + 1) if init else range(0)
    stale = Stale(a)
    out = []
    for line, text in comments:
        if marker in text or (line not in changed and line not in in_init):
            continue
        why = stale.why(text)
        if why:
            out.append((line, text.strip(), why))
    return out


class Stale:
    """What makes a comment stale for one class: the dropped members' names, the parent's, super().

    ``own_code``: only what the class's own ``__init__`` says of the parent and ``super()``, once
    the patch has replaced its ``super().__init__()``: a member's name there is the user's to judge."""

    def __init__(self, a, own_code: bool = False):
        own = a.cls.members  # what the class defines or assigns itself is still there
        dropped = set() if own_code else {n for n in a.members if n not in a.kept and n not in own and len(n.strip("_")) >= 4}
        # Kept only on uses elsewhere that could not be ruled out: the class's code never reads
        # them, so a copied comment that gives them as a reason gives the parent's reason.
        unread = set() if own_code else {n for n, evs in a.kept.items() if n not in own and len(n.strip("_")) >= 4
                                         and evs and all(e.strength == "unknown" for e in evs)}
        words = sorted(dropped | unread, key=len, reverse=True)
        self.words = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, words)) + r")\b") if words else None
        self.unread = unread
        self.parent = a.parent.name

    def why(self, comment: str) -> str | None:
        m = self.words.search(comment) if self.words else None
        if m:
            if m.group(1) in self.unread:
                return f"names {m.group(1)}, which the class's code never reads (kept only for uses elsewhere not ruled out)"
            return f"names {m.group(1)}, which the class no longer has"
        if re.search(rf"\b{re.escape(self.parent)}\b", comment):
            return f"names {self.parent}, which is no longer a base"
        if re.search(r"super\(\)|\bparent\b", comment, re.I):
            return "speaks of the parent or super(), which no longer run the parent's code"
        return None


def strip_own(ctx, body: list) -> list:
    """The class's ``__init__`` without its comments that speak of ``super()`` or the parent, once
    its ``super().__init__()`` is replaced by the parent's code: they said what that call did."""
    a = ctx.a
    if a.super_init_stmt is None:
        return body
    init = a.cls.methods.get("__init__")
    out = []
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__" and init is not None:
            t = _Strip(Stale(a, own_code=True))
            stmt = t.apply(stmt)
            lines = a.cls.module.lines
            for texts, why in t.found:
                at = next((n for n in range(init.lineno, init.end_lineno + 1)
                           if [l.strip() for l in lines[n - 1:n - 1 + len(texts)]] == texts), None)
                ctx.plan.removed_comments.append(Removed("\n".join(texts), a.cls.file, at, why + " (the class's own)"))
        out.append(stmt)
    return out


# Comments that tell a tool something: removing one would change what the tool does.
_DIRECTIVE = re.compile(r"#\s*(type:|noqa\b|pragma\b|fmt:|pylint:|mypy:|pyright:|isort:|ruff:|nosec\b)", re.I)


@dataclass
class Removed:
    """A copied comment the patch leaves out: its text, where the parent's file has it, why."""

    comment: str
    file: str
    line: int | None
    why: str


class Copied:
    """Removes the stale comments from the nodes a class's rewrite copies out of the parent's module.

    ``lines``: the parent's module; each removed comment is looked for there, in order, to say
    where it came from (the copied node may be renamed or filtered, so its own positions are not
    the parent's)."""

    def __init__(self, a, rel: str, lines: list[str]):
        self.stale = Stale(a)
        self.rel = rel
        self.lines = lines
        self.removed: list[Removed] = []

    def strip_all(self, nodes: list, first: int, last: int) -> list:
        """Each of ``nodes``, all copied from lines ``first``..``last`` of the parent's file."""
        return [self.strip(node, first, last) for node in nodes]

    def strip(self, node, first: int, last: int):
        """``node`` (copied from lines ``first``..``last`` of the parent's file) without its stale comments."""
        t = _Strip(self.stale)
        node = t.apply(node)
        for texts, why in t.found:
            self.removed.append(Removed("\n".join(texts), self.rel, self._locate(texts, first, last), why))
        return node

    def _locate(self, texts: list[str], first: int, last: int) -> int | None:
        """The first line of ``first``..``last`` not yet reported that holds ``texts`` (a comment's lines)."""
        taken = {r.line for r in self.removed if r.file == self.rel}
        for n in range(max(first, 1), min(last, len(self.lines)) + 1):
            here = self.lines[n - 1:n - 1 + len(texts)]
            if n not in taken and len(here) == len(texts) and (
                    all(line.strip() == text for line, text in zip(here, texts)) or (len(texts) == 1 and here[0].rstrip().endswith(texts[0]))):
                return n
        return None


class _Strip(cst.CSTTransformer):
    """Leaves out every stale comment: a run of whole-line comments as one, an end-of-line one
    with the spaces before it."""

    def __init__(self, stale: Stale):
        self.stale = stale
        self.found: list[tuple[list[str], str]] = []  # (the comment's lines, why), in order
        self._root = None  # the node ``apply`` visits

    def apply(self, node):
        """``node`` without its stale comments; ``node`` itself when none of them is stale.

        A visit enters every node of a long ``__init__`` and costs several times the node's code
        generation. Every comment of a node is the rest of a line of its code from one of its
        ``#``, so when no such rest is stale (``_why``), no comment is, and a visit would change
        nothing: such a node is left as it is, and such a statement inside it is not entered."""
        if not self._may_hold_stale(node):
            return node
        self._root = node
        return node.visit(self)

    def on_visit(self, node):
        # A statement not entered still has its own leading lines looked at by on_leave.
        return node is self._root or not isinstance(node, cst.BaseStatement) or self._may_hold_stale(node)

    def _may_hold_stale(self, node) -> bool:
        # Split at \r and \n alone, as a comment ends (``str.splitlines`` also splits at \f).
        pieces = [p for p in re.split(r"[\r\n]", code_of(node)) if "#" in p]
        return any(self._why(p[i:]) for p in pieces for i in range(len(p)) if p[i] == "#")

    def on_leave(self, original, updated):
        changes = {}
        if isinstance(updated, cst.TrailingWhitespace) and updated.comment is not None:
            why = self._why(updated.comment.value)
            if why:
                self.found.append(([updated.comment.value], why))
                changes = {"comment": None, "whitespace": cst.SimpleWhitespace("")}
        for f in fields(updated):
            value = getattr(updated, f.name)
            if isinstance(value, (list, tuple)) and value and all(isinstance(x, cst.EmptyLine) for x in value):
                lines = self._lines(list(value))
                if len(lines) != len(value):
                    changes[f.name] = lines
        return updated.with_changes(**changes) if changes else updated

    def _lines(self, lines: list) -> list:
        """``lines`` without the runs of comment lines of which one line is stale."""
        out, i = [], 0
        while i < len(lines):
            if lines[i].comment is None:
                out.append(lines[i])
                i += 1
                continue
            j = i
            while j < len(lines) and lines[j].comment is not None:
                j += 1
            run = [l.comment.value for l in lines[i:j]]
            why = next((w for w in map(self._why, run) if w), None)
            if why is None or any(_DIRECTIVE.match(c) for c in run):
                out.extend(lines[i:j])
            else:
                self.found.append((run, why))
                if out and out[-1].comment is None and j < len(lines) and lines[j].comment is None:
                    j += 1  # the run stood between two blank lines: one of them is enough
            i = j
        return out

    def _why(self, comment: str) -> str | None:
        return None if _DIRECTIVE.match(comment) or MARKER in comment else self.stale.why(comment)
