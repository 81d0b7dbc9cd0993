"""The subclasses of a class anywhere in the tree, for ``Index.subclasses``: found once per class.

The rules and the receiver typing ask for the same hierarchies again and again (on sqlglot,
every one of ``Expression``'s thousand subclasses is asked for by several rules). Each class's
direct subclasses are found once per index; a file's class statements are read once
(``word_search.BaseNames``), not once per class asked for; and a later ask charges the modules
the search asked for to the budget of whatever asks (``Index.meter``), as the search would have.
"""

from __future__ import annotations

import re

from .word_search import BaseNames, spelt_whole


class SubclassSearch:
    """Direct subclasses by class, for one ``Index`` (the per-run state lives here)."""

    def __init__(self, index):
        self.index = index
        # id of a class -> (the class, the modules its search asked for, its direct subclasses)
        self._found: dict[int, tuple[object, list[str], list]] = {}
        self._bases_named: dict[str, BaseNames | None] = {}  # file -> what its class statements name

    def forget(self) -> None:
        """Drop every answer (an index that lets modules go, and with them their classes)."""
        self._found.clear()

    def direct(self, parent) -> list:
        got = self._found.get(id(parent))
        meter = self.index.meter
        if got is not None and got[0] is parent:
            if meter is not None:
                for rel in got[1]:
                    meter(rel)
            return list(got[2])
        asked: list[str] = []
        found = self._search(parent, asked)
        self._found[id(parent)] = (parent, asked, found)
        return list(found)

    def _search(self, parent, asked: list[str]) -> list:
        """Only files are parsed whose text names the class inside a class statement's bases
        (``class S(..., mod.Parent, ...):``, up to the colon) or imports it under another name."""
        index, tree, name = self.index, self.index.tree, parent.name
        if spelt_whole(name):
            files = [rel for rel in tree.files_with_words((name,)) if (facts := self._base_names(rel)) and facts.named(name)]
        else:
            in_bases = re.compile(rf"class\s+\w+\s*\([^:]*?\b{re.escape(name)}\b")
            renamed = re.compile(rf"{re.escape(name)}\s+as\s+\w+")
            files = tree.grep(lambda text: bool(in_bases.search(text) or renamed.search(text)), words=(name,))
        out = []
        for rel in files:
            asked.append(rel)
            mod = index.module(rel)
            if mod is None:
                if rel in index.syntax_errors:
                    raise index.parse_error(rel)  # its class statement names the parent
                continue
            for cls in mod.classes.values():
                if cls is not parent and any(index._same_class(b, parent) for b in cls.bases):
                    out.append(cls)
        return sorted(out, key=lambda c: (c.file, c.line))

    def _base_names(self, rel: str) -> BaseNames | None:
        # Read once: the run's record of what it read (``Tree.reads``) has the file from then on.
        if rel not in self._bases_named:
            text = self.index.tree.searchable(rel)
            self._bases_named[rel] = None if text is None else BaseNames(text)
        return self._bases_named[rel]

    def deep(self, cls) -> list:
        # A class is one object of its module for the life of the index: identity is equality
        # here, and costs no comparison of fields (a list's ``in`` cost 3M of them on sqlglot).
        out, seen, todo = [], set(), [cls]
        while todo:
            for sub in self.direct(todo.pop()):
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out.append(sub)
                    todo.append(sub)
        return out
