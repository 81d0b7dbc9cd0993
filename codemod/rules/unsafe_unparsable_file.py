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
3.12's ``type X = ...`` syntax, analysed on 3.11).

## Known problems
The test is by name, anywhere in the text: a file that names a dropped member on an unrelated
object refuses the run too. Run the tool on the Python the project is written for (its
parser then reads the file), or fix the file. Files that cannot be decoded are not checked.

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
        m = rx.search(index.tree.peek(rel) or "")
        if m:
            a.unsafe.append(Hazard(rel, line, f"{rel} cannot be parsed ({msg}) and names {m.group(1)}, "
                                              "so a use there cannot be ruled out", rule=ID))
            found.add(rel)
    return found
