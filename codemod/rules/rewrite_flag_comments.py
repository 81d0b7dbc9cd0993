"""DC611 stale-comments: flag the comments around the change that may now be false.

## What it does
After the rewrite, lists the comments for a reviewer to read again: every comment the patch
adds (those copied with inlined statements and members) and every comment in the class's
``__init__``, when it names a member of the parent that was dropped (and that the class does
not define or assign itself), names the parent, or
speaks of ``super()`` or of a parent. The tool's own marker comments are not listed.

## Why
A comment copied from the parent describes the parent's code: "kv_indptr is preallocated"
above a class that no longer allocates it is a lie the checks cannot see. A class's own
comment about what its ``super().__init__()`` does stops being true when that call is gone.

## Known problems
Found by words, not meaning: a comment can be flagged and still be true, and a false one
that names nothing of the parent is not found. Member names shorter than four letters are
not matched.

## Fix safety
Reported only ("Comments to review"); nothing is rewritten.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

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
    own = a.cls.members  # what the class defines or assigns itself is still there
    dropped = sorted({n for n in a.members if n not in a.kept and n not in own and len(n.strip("_")) >= 4}, key=len, reverse=True)
    words = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, dropped)) + r")\b") if dropped else None
    out = []
    for line, text in comments:
        if marker in text or (line not in changed and line not in in_init):
            continue
        why = _why(text, a.parent.name, words)
        if why:
            out.append((line, text.strip(), why))
    return out


def _why(comment: str, parent: str, words) -> str | None:
    m = words.search(comment) if words else None
    if m:
        return f"names {m.group(1)}, which the class no longer has"
    if re.search(rf"\b{re.escape(parent)}\b", comment):
        return f"names {parent}, which is no longer a base"
    if re.search(r"super\(\)|\bparent\b", comment, re.I):
        return "speaks of the parent or super(), which no longer run the parent's code"
    return None
