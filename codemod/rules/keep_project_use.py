"""DC115 project-use: keep a parent member that the project's code outside ROOT reads.

## What it does
When ROOT is the source folder of a larger project (``project/src`` of a src layout, or a
package whose folder holds ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``:
``codemod/outside.py``), the project's other Python files (its tests, examples, documentation
snippets) are searched for uses of the members DC108 found no use of in the tree, as DC108
searches the tree: ``.X``, an accessor with the literal name ``"X"`` or a name among literals
only, ``attrgetter("X")``, a format string's ``{0.X}``, a class pattern. Only the files whose
text names one of those members (the word index, then a regex) are parsed. A use keeps the
member, with its ``file:line`` relative to the project's folder; report.md says how many files
outside ROOT were searched and in which folders. Those files are evidence only: never edited,
never candidates, and not in the index the analysis types receivers with.

## Why
A src layout keeps the tests beside ``src/``, and ROOT is ``src/``: a public attribute that only
the tests read (cachetools' ``cache_lock`` on a wrapper a test built with ``cached(...)``)
is a use all the same, and dropping it breaks the project's own suite.

## Known problems
The receivers there are not typed: any use keeps the member (as a use of unknown strength, so
``--keep proven`` makes it an assumption to review), except one on ``self`` or ``cls`` in a
method of a class of that file whose bases are all outside ROOT (a ``TestCase``: its instances
are never the class). Code outside the project's folder, and files its git ignores, are not
read. A file there that does not parse or decode is passed over: it is not the program.
A project whose ROOT lies deeper than its source folder (a fixture folder in a repository) is
not taken as that repository's program, and a ROOT that is itself the project reads nothing
outside. ``--no-outside-uses`` (``outside-uses = false``) turns the search off.

## Fix safety
Keeping is always safe.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name, first_param, is_static
from ..index import enclosing_def
from ..model import Evidence, Scanned
from ..reflection import computed_name
from ..word_search import case_lines
from .keep_outside_use import USE_NODES, attr_use, literal_uses

ID = "DC115"
NAME = "project-use"


def run(st, out: Scanned) -> bool:
    """Search the project outside ROOT; True when a use kept something (a closure is due)."""
    outside = st.index.tree.outside
    a = st.a
    if outside is None or not a.members:
        return False
    satisfied = st.satisfied()
    local = set(a.init_local_candidates) - a.read_outside  # DC617's: a read outside __init__ keeps the store
    cands = sorted({n for n in a.members if n not in a.kept and not satisfied(n) and not n.startswith("__")} | local)
    if not cands:
        return False
    alts = "|".join(re.escape(c) for c in cands)
    rx, rx_keyword = re.compile(r"(?:\.|['\"])(" + alts + r")\b"), re.compile(r"\b(" + alts + r")\s*=")

    def names_one(text: str) -> bool:  # DC108's prefilter: a read, a quoted name, a class pattern's keyword
        return bool(rx.search(text)) or any(rx_keyword.search(line) for line in case_lines(text))

    names = set(cands)
    kept = False
    for rel in outside.grep(names_one, words=tuple(cands)):
        mod = outside.index.module(rel)
        for node in mod.nodes if mod is not None else ():
            if node.__class__ not in USE_NODES:
                continue  # a name, an operator, a statement: nothing attr_use answers for
            hit = attr_use(node, names)
            hits = [hit] if hit is not None else (
                literal_uses(mod, node, names) if node.__class__ is ast.Call and computed_name(node) is not None else ())
            for name, recv, how, line in hits:
                if name not in names or (recv is not node and _on_foreign_self(outside, mod, node, recv)):
                    continue
                if name in local:
                    out.read_outside.append(name)
                    a.read_outside.add(name)
                    names.discard(name)
                    continue
                if how == "write" and a.members[name][0].kind != "property":
                    continue  # a write elsewhere needs only a setter
                where = "" if recv is node else f" on {ast.unparse(recv)[:60]}"
                ev = Evidence(rel, line, f"{how} of .{name}{where} (outside ROOT, in the project at "
                              f"{outside.root.name}/: possibly an instance of {a.cls.name}; not typed there)", ID, "unknown")
                names.discard(name)
                if st.knowledge.assumes(a.cls.name, name):
                    st.assume(name, ev)
                    out.assumptions.append((name, ev))
                    continue
                st.need(name, ev)
                out.needs.append((name, ev))
                kept = True
            if not names:
                return kept
    return kept


def _on_foreign_self(outside, mod, node: ast.AST, recv: ast.AST) -> bool:
    """Whether ``recv`` is the ``self`` or ``cls`` of a method of a class whose bases all lie
    outside ROOT (followed through the file's own classes): an instance that is never the class."""
    fn, _ = enclosing_def(mod, node)
    if fn is None or is_static(fn):
        return False
    root = recv
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    if not (isinstance(root, ast.Name) and root.id == first_param(fn)):
        return False
    owner = mod.parents.get(id(fn))
    return isinstance(owner, ast.ClassDef) and _foreign(outside, mod, owner, set())


def _foreign(outside, mod, cls: ast.ClassDef, seen: set[str]) -> bool:
    if cls.keywords or cls.name in seen:
        return False  # a metaclass or a cycle: not sure
    seen.add(cls.name)
    local = {c.name: c for c in mod.tree.body if isinstance(c, ast.ClassDef)}
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in local:
            if not _foreign(outside, mod, local[base.id], seen):
                return False
            continue
        if isinstance(base, ast.Subscript):
            base = base.value  # Generic[T], Base[int]: the class subscripted
        head = dotted_name(base)
        if head is None or (mod.star_modules and head.split(".")[0] not in mod.imports):
            return False  # computed, or perhaps bound by a star import: not sure
        if outside.inner_tree.holds(mod.qualify(base)):
            return False
    return True
