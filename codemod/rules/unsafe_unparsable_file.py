"""DC306 unparsable-file: refuse when a file that may use the class cannot be parsed.

## What it does
A file of the tree that the analysis asked for (it looked for uses of the parent's members,
type checks of the parent, or the class's instances there) and that the running Python's
parser rejects, marks the class unsafe when its text names the class, the parent, or a
member of the parent the patch would drop: ``unsafe``, exit 3, naming the file, the line and
the parser's message. Any other such file is a warning (stderr and ``report.md``): nothing in
it bears on what the run decided.

## Why
A use of a dropped member, or an ``isinstance`` check of the parent, in a file the analysis
could not read would be missed, and the patch would break it (a module written in Python
3.12's ``type X = ...`` syntax, analysed on 3.11). A file that cannot be decoded as Python
decodes it (UTF-8 unless a PEP 263 coding line or a BOM says otherwise: a Latin-1 comment in a
file without a coding line) is one the interpreter refuses the same way, and is treated alike;
its names are looked for in its bytes, the undecodable ones replaced.

## Known problems
The test is by name, anywhere in the text: a file that names a dropped member on an unrelated
object refuses the run too. Run the tool on the Python the project is written for (its
parser then reads the file), or fix the file.

## Fix safety
No patch is written for any class of the run (all or nothing).
"""

from __future__ import annotations

import re

from ..model import Hazard

ID = "DC306"
NAME = "unparsable-file"


def names_at_stake(a) -> set[str]:
    """The class, the parent, and the parent's members the patch would drop."""
    return {a.cls.name, a.parent.name} | {m for m in a.members if m not in a.kept}


def check(index, a) -> set[str]:
    """Mark ``a`` unsafe for each unparsable file naming what is at stake; the files that did."""
    names = names_at_stake(a)
    rx = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    found = set()
    for rel, (line, msg) in sorted(index.syntax_errors.items()):
        m = rx.search(index.tree.searchable(rel) or "")
        if m:
            a.unsafe.append(Hazard(rel, line, f"{rel} {failure(msg)} and names {m.group(1)}, "
                                              "so a use there cannot be ruled out", rule=ID))
            found.add(rel)
    return found


def failure(msg: str) -> str:
    """What went wrong with a file, from the parser's (or the decoder's) message."""
    return f"cannot be decoded ({msg[len(DECODE):]})" if msg.startswith(DECODE) else f"cannot be parsed ({msg})"


def headline(rel: str, line: int, msg: str) -> str:
    """``cannot parse FILE:LINE: why``, or ``cannot decode FILE:LINE: why``."""
    if msg.startswith(DECODE):
        return f"cannot decode {rel}:{line}: {msg[len(DECODE):]}"
    return f"cannot parse {rel}:{line}: {msg}"


DECODE = "cannot be decoded: "
