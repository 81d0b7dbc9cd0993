"""Sketches of the files of a tree: the class index of ``decouple scan``'s first pass.

A sketch is a file's module-level imports and the module-level class statements of interest
(decorators and bodies), every other line blank, so that line numbers hold. Parsing and
walking it costs a fraction of the whole file, and it holds all that a base's resolution
(``Index.resolve_class``), a parent's members and an ``__init__`` need. A file whose sketch does
not parse (a body cut short by a string that starts a line further left) is parsed whole.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from functools import cached_property
from itertools import accumulate, islice

from ..ast_util import resolve_relative
from ..discover import Tree
from ..index import ClassInfo, Index, ModuleInfo

# A class statement, and the text of its bases up to the parenthesis before the colon
# (``class_matches`` finds its matches faster).
CLASS = re.compile(r"^[ \t]*class[ \t]+(\w+)[ \t]*(?:\(([^:]*?)\))?[ \t]*:", re.M)
_CLASS_WORD = re.compile(CLASS.pattern.removeprefix("^[ \\t]*"))
# A ``def`` in a class's text (``SketchIndex.class_text``): its methods, and any indented deeper
# (``def_names`` finds its names faster).
DEF = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
# Modules an index holds at once, by kind (light or not), and how many of a kind go when it
# holds too many. Measured on the 4x tree of ``benchmarks/scan_scale.py``, one worker's share
# (the heavier): one budget of 512 for both kinds, 10,055 parses and 669 MB peak, most parses
# light sketches asked for again (a parent with a thousand subclass files fills it alone); 128
# whole and 768 light, 6,302 parses and 744 MB; 128 and 1,024, 6,136 and 789 MB; 512 and 512,
# 6,378 and 928 MB (a sketch held whole costs about 0.7 MB, a light one about 0.15 MB).
_HELD = {False: 128, True: 768}
_LET_GO = 64
_NEVER = float("inf")


class SketchIndex(Index):
    """The class index over sketches of the files: each file's module-level imports and its
    module-level class statements (decorators and bodies), every other line blank, so that
    line numbers hold. A tenth of the parse and walk of whole files, and all a base's
    resolution, a class's members and its ``__init__`` need. A file whose sketch does not parse
    (a body cut short by a string that starts a line further left) is parsed whole."""

    def __init__(self, tree: Tree, wanted: dict[str, bool], defined: dict[str, set[str]]):
        super().__init__(tree)
        self.defined = defined  # class name -> the files whose text defines it
        self.wanted = wanted  # the classes worth sketching (whole, or header and __init__); the others are left out
        self.spans: dict[str, dict[str, tuple[int, int]]] = {}  # file -> class -> its lines in the file
        # The modules held, by kind (light or not), least recently asked for first: file -> the step that asked.
        self._recent: dict[bool, dict[str, int]] = {False: {}, True: {}}
        self._sketches: dict[tuple[str, bool], str] = {}
        self._light: dict[str, ModuleInfo] = {}  # file -> its light sketch (``light``), while held
        self.weights: dict[str, int] = {}  # class -> estimate.construction_weight
        self.costs: dict[str, dict] = {}  # class -> what its own __init__ does, the parts of that weight
        self.parent_facts: dict[tuple, object] = {}  # a parent's chain -> estimate._Facts
        self.paid: dict[tuple, object] = {}  # a parent's chain, what a subclass needs and binds -> estimate._paid
        self._whole: dict[str, ModuleInfo | None] = {}
        self._uses: dict[str, list[int]] = {}  # file -> the steps of the pass expected to ask for it
        self.step = 0  # the step of the pass now under way
        self._lookup = self.module  # how ``module_by_name`` reads a file (``resolve_light``)

    def foresee(self, steps: list[set[str]]) -> None:
        """The files each step of the pass is expected to ask for (a parent's file, its
        subclasses' files), so that a full index lets go of the modules asked for latest: an
        index that let go of the least recently used parsed a file of the 4x tree of
        ``benchmarks/scan_scale.py`` twice as often. Files asked for and not foreseen (an
        ancestor's, resolving a base) go first, least recently used first."""
        for k, rels in enumerate(steps):
            for rel in rels:
                self._uses.setdefault(rel, []).append(k)

    def module(self, rel: str):
        mod = super().module(rel)
        if isinstance(mod, SketchModule) and not mod.classes_names:
            # Imports only (a package's re-exports): small, and asked again for every base
            # resolved through it; held for the pass rather than parsed again each time.
            return mod
        self._held(rel, False)
        return mod

    def light(self, rel: str):
        """The module of a file read for its subclasses' sake: each class of interest with its
        header and ``__init__`` only (a class's other members are its parent's side, which
        ``module`` has), two fifths of the sketch's parse where its classes are parents too. The
        sketch itself where it is held, or where the light one does not parse."""
        if rel in self._modules:
            return self.module(rel)
        mod = self._light.get(rel)
        if mod is None:
            mod = self._sketched(rel, True)
            if mod is None:
                return self.module(rel)
            self._light[rel] = mod
        self._held(rel, True)
        return mod

    def resolve_light(self, qualname: str) -> ClassInfo | None:
        """``resolve_class`` through light sketches: a class as its header and ``__init__``,
        where that is all a caller reads of it (whether an ancestor defines ``__init__``, and
        its first base). Its file's sketch where that is held, or where the light one does not parse."""
        self._lookup = self.light
        try:
            return self.resolve_class(qualname)
        finally:
            self._lookup = self.module

    def module_by_name(self, name: str):
        rel = self.tree.modules.get(name)
        return self._lookup(rel) if rel else None

    def _held(self, rel: str, light: bool) -> None:
        recent = self._recent[light]
        recent.pop(rel, None)
        recent[rel] = self.step
        if len(recent) > _HELD[light]:
            self._let_go(light)

    def _let_go(self, light: bool) -> None:
        """Drop the ``_LET_GO`` modules of a kind expected latest, those asked for in this step
        last (their classes are likely in use; a class in use keeps a module that works, parsed
        again if asked for). The sort is stable: ties go least recently used first."""
        recent, step, nxt = self._recent[light], self.step, {}
        for rel, asked in recent.items():
            nxt[rel] = (asked == step, -self._next_use(rel))
        for rel in sorted(recent, key=nxt.__getitem__)[:_LET_GO]:
            self._drop(rel, light)

    def _next_use(self, rel: str) -> float:
        uses = self._uses.get(rel, ())
        i = bisect_left(uses, self.step)  # a use foreseen for this step and not yet made is the soonest
        return uses[i] if i < len(uses) else _NEVER

    def want(self, name: str, besides: str) -> bool:
        """Sketch the class ``name`` too (a class the parent builds), from the next time its
        files are asked for; False when it is no class of the tree, or already sketched.
        ``besides``: a file whose module is in use, and stays as it is."""
        if name in self.wanted or name not in self.defined:
            return False
        self.wanted[name] = True
        for rel in self.defined[name] - {besides}:
            self._sketches.pop((rel, False), None)
            self._sketches.pop((rel, True), None)
            self.exports.forget(rel)
            self.drop(rel)
        return True

    def whole(self, rel: str) -> ModuleInfo | None:
        """A module parsed whole, as a normal run parses it (a setting's declaration, for a size)."""
        if rel not in self._whole:
            self._whole[rel] = Index._parse(self, rel)
        return self._whole[rel]

    def drop(self, rel: str) -> None:
        """Forget a module, its light sketch too. Its classes are let go, which breaks the one
        cycle a module makes (it holds its classes, each holds it): freed at once, with no
        collector, while a class still in use keeps a module that works."""
        self._drop(rel, False)
        self._drop(rel, True)

    def _drop(self, rel: str, light: bool) -> None:
        self._recent[light].pop(rel, None)
        mod = (self._light if light else self._modules).pop(rel, None)
        if mod is not None:
            mod.__dict__.pop("classes", None)
            if not light:
                self.subclass_search.forget()  # answers that may hold the classes let go

    def class_text(self, cls: ClassInfo) -> str:
        """The whole source of a sketched class, as the file has it."""
        first, end = self.spans.get(cls.file, {}).get(cls.name, (cls.node.lineno - 1, cls.node.end_lineno))
        return "".join(cls.module.lines_kept[first:end])

    def _parse(self, rel: str):
        # ``peek``, not ``text``: the tree would keep the text of every file sketched for the rest
        # of the process (the scan's workers go on to the full analyses); the module keeps it while held.
        return self._sketched(rel, False) or super()._parse(rel)

    def _sketched(self, rel: str, light: bool) -> "SketchModule | None":
        """The module of ``rel``'s sketch (``light``: every class's header and ``__init__``
        only), None where there is no text or the sketch does not parse."""
        text = self.tree.peek(rel)
        key = (rel, light)
        if key not in self._sketches and text is not None:
            self._sketches[key] = _sketch(text, self.wanted, self.spans.setdefault(rel, {}), light)
        sketched = self._sketches.get(key)
        if sketched is None:
            return None
        try:
            tree = ast.parse(sketched, filename=rel)
        except (SyntaxError, ValueError):
            return None
        return SketchModule(self.tree.module_name(rel), rel, tree, text, self.tree.is_package(rel))


class Sizes:
    """``dropped_work.allocation_bytes``'s view of the tree: the parent's file as sketched (its
    ``__init__`` is there whole), any other (where a setting is declared) parsed whole."""

    def __init__(self, index: SketchIndex, own: str):
        self.index, self.own, self.tree = index, own, index.tree

    def module(self, rel: str) -> ModuleInfo | None:
        return self.index.module(rel) if rel == self.own else self.index.whole(rel)


class SketchModule(ModuleInfo):
    """A sketch holds its imports and classes at its top level: no walk of the module finds them."""

    @cached_property
    def imports(self) -> dict[str, str]:
        return _top_level_imports(self)

    @cached_property
    def classes(self) -> dict[str, ClassInfo]:
        # A sketch's classes are all at its top level (those under a module-level block are
        # dedented there); and a loop, unlike ModuleInfo's recursive closure, leaves no cycle
        # behind for a run without the collector to keep.
        out: dict[str, ClassInfo] = {}
        for s in self.tree.body:
            if isinstance(s, ast.ClassDef):
                bases = [self.qualify(b.value if isinstance(b, ast.Subscript) else b) for b in s.bases]
                out.setdefault(s.name, ClassInfo(s.name, self, s, bases))
        return out

    @cached_property
    def classes_names(self) -> set[str]:
        return {n.name for n in self.tree.body if isinstance(n, ast.ClassDef)}


def _top_level_imports(mod: ModuleInfo) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in mod.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.setdefault(alias.asname or alias.name.split(".")[0], alias.name if alias.asname else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative(mod.name, mod.is_package, node.module, node.level)
            for alias in node.names:
                if alias.name != "*":
                    out.setdefault(alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name)
    return out


# What ``str.splitlines`` ends a line at besides "\n" and "\r".
_ODD_ENDS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_ODD_ASCII = "\x0b\x0c\x1c\x1d\x1e"
# A module-level import statement, at its line's start; ``_imports_at`` finds its matches faster.
_IMPORT = re.compile(r"^(?:from[ \t]+\.*[\w.]*[ \t]+import\b|import[ \t]+\w)", re.M)


def _odd_ends(text: str) -> bool:
    """Whether ``str.splitlines`` ends a line of ``text`` at something else than a newline or
    a carriage return. An ASCII text (a flag ``isascii`` reads) can only hold the five ASCII
    ones, each looked for at the speed of ``memchr``: a sixth of the regex's time."""
    if text.isascii():
        return any(c in text for c in _ODD_ASCII)
    return _ODD_ENDS.search(text) is not None


class _AtLineStarts:
    """``finditer`` of a ``^`` pattern (``re.M``) whose matches hold no newline, faster: the
    regex engine tries a ``^`` pattern at every line, and finds a newline followed by the rest
    at C speed (a quarter to half the time). The matches after newlines are ``finditer``'s past
    the first line, whose own is ``match``'s."""

    def __init__(self, pattern: re.Pattern):
        self.pattern = pattern
        self.after_newline = re.compile("\n" + pattern.pattern.removeprefix("^"))

    def matches(self, text: str):
        """(offset, match) for each match, in order; a match after a newline starts with it."""
        first = self.pattern.match(text)
        if first:
            yield 0, first
        for m in self.after_newline.finditer(text):
            yield m.start() + 1, m


_IMPORTS = _AtLineStarts(_IMPORT)
_DEFS = _AtLineStarts(DEF)


def _imports_at(text: str):
    """The offsets where ``_IMPORT`` matches."""
    return (at for at, _ in _IMPORTS.matches(text))


def def_names(text: str) -> list[str]:
    """``DEF.findall(text)``."""
    return [m.group(1) for _, m in _DEFS.matches(text)]


_BLOCK_OPENER = re.compile(r"(?:if|elif|else|try|except|finally|with)\b")


def class_matches(text: str):
    """``CLASS.finditer(text)``, each match starting at ``class`` rather than at its line's start.

    ``CLASS`` starts with ``^[ \\t]*``, so the regex engine tries it at every line of a file; this
    looks for the word ``class`` at C speed and keeps the matches with only blanks before them
    on their line (a fifth of the time on the 4x tree of ``benchmarks/scan_scale.py``). The
    search goes on one character past a match it rejects (``finditer`` never matched there),
    and from the end of one it keeps, as ``finditer`` does."""
    search = _CLASS_WORD.search
    pos = 0
    while (m := search(text, pos)) is not None:
        start = m.start()
        if text[text.rfind("\n", 0, start) + 1:start].strip(" \t"):
            pos = start + 1
            continue
        yield m
        pos = m.end()


def _sketch(text: str, wanted: dict[str, bool], spans: dict, light: bool = False) -> str:
    """``wanted``: class name -> whether its whole body is needed (a parent's: its members and
    methods), or only its header and ``__init__`` (a subclass's: the rest is read as text).
    ``light``: every class its header and ``__init__`` only; a class wanted whole keeps every
    ``__init__`` its body defines, so that the last one is its ``__init__``, as in the whole body.
    ``spans`` gets each sketched class's lines, (first, end) from 0, end excluded."""
    lines = text.splitlines(keepends=True)
    odd = _odd_ends(text)
    if not odd:  # each line ends in "\n" or "\r", but maybe the last
        out = ["\n"] * len(lines)
        if lines and not lines[-1].endswith(("\n", "\r")):
            out[-1] = ""
    else:
        out = ["\n" if line.endswith(("\n", "\r")) else "" for line in lines]
    starts = _line_starts(text, None if odd or "\r" in text else lines)
    for at in _imports_at(text):
        i = _line_of(starts, at)
        depth = 0
        while i < len(lines):
            out[i] = lines[i]
            depth += lines[i].count("(") - lines[i].count(")")
            if depth <= 0 and not lines[i].rstrip().endswith("\\"):
                break
            i += 1
    end = -1
    for m in class_matches(text):
        i = _line_of(starts, m.start())
        if i <= end or m.group(1) not in wanted:
            continue  # nested in a class already kept, or of no interest
        indent = len(lines[i]) - len(lines[i].lstrip())
        if indent and not _under_module_block(lines, i, indent):
            continue  # in a function: not a class of the module
        first = i
        while first > 0 and lines[first - 1].strip().startswith("@"):
            first -= 1
        end = _block_end(lines, i + 1, indent)
        spans[m.group(1)] = (first, end)
        head_end = _line_of(starts, m.end() - 1)
        whole = wanted[m.group(1)]
        if whole and not light and indent == 0:  # a whole class at the top level, most of the text
            out[first:end] = [line if line.strip() else was for line, was in zip(lines[first:end], out[first:end])]
        else:
            keep = range(first, end) if whole and not light else \
                [*range(first, head_end + 1), *_init_lines(lines, head_end + 1, end, every=whole)]
            for k in keep:
                line = lines[k]
                if line.strip():  # a blank line stays as it is: one line
                    out[k] = line[indent:] if indent and line[:indent].isspace() else line
        if (light or not whole) and all(not out[k].strip() for k in range(head_end + 1, end)):
            out[head_end] = out[head_end][:m.end() - starts[head_end] - indent] + " ...\n"
        end -= 1
    return "".join(out)


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The first line from ``start`` that is code at ``indent`` or less (the block's end); a
    line that closes brackets (a signature over several lines) is not one."""
    end = start
    for end in range(start, len(lines)):
        line = lines[end]
        if line[indent:indent + 1] in (" ", "\t") or not line.strip():
            continue  # deeper, or blank
        stripped = line.lstrip()
        if not stripped.startswith(("#", ")", "]", "}")) and len(line) - len(stripped) <= indent:
            return end
    return len(lines)


def _init_lines(lines: list[str], start: int, end: int, every: bool = False) -> list[int]:
    """The lines of the first ``__init__`` defined in a class body (with its decorators), if
    any; ``every``: of each one it defines."""
    body = next((len(lines[k]) - len(lines[k].lstrip()) for k in range(start, end)
                 if lines[k].strip() and not lines[k].strip().startswith("#")), None)
    out: list[int] = []
    k = start
    while k < end:
        stripped = lines[k].strip()
        if stripped.startswith(("def __init__(", "async def __init__(")) and len(lines[k]) - len(lines[k].lstrip()) == body:
            first = k
            while first > start and lines[first - 1].strip().startswith("@"):
                first -= 1
            k = _block_end(lines, k + 1, body)
            out.extend(range(first, k))
            if not every:
                break
        else:
            k += 1
    return out


def _line_starts(text: str, lines: list[str] | None = None) -> list[int]:
    """The offset each line starts at, lines ended by "\n" only. ``lines``: the text's
    ``splitlines(keepends=True)`` where each ends in "\n" but maybe the last (no "\r", no odd
    end), summed rather than the text split again."""
    if lines is None:
        return list(accumulate((len(part) + 1 for part in text.split("\n")[:-1]), initial=0))
    ended = len(lines) if not lines or lines[-1].endswith("\n") else len(lines) - 1
    return list(accumulate(map(len, islice(lines, ended)), initial=0))


def _line_of(starts: list[int], offset: int) -> int:
    return bisect_right(starts, offset) - 1


def _under_module_block(lines: list[str], i: int, indent: int) -> bool:
    """Whether the statement at line ``i`` sits in an ``if``/``try``/``with`` at module level."""
    for k in range(i - 1, -1, -1):
        line = lines[k]
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "@")):
            continue
        own = len(line) - len(line.lstrip())
        if own < indent:
            return own == 0 and bool(_BLOCK_OPENER.match(stripped))
    return False


def class_statements(tree: Tree, sizes: dict[str, int] | None = None) -> tuple[dict[str, set[str]], dict[str, dict[str, set[str]]]]:
    """The text pass: (class name -> files defining it, file -> its classes -> the base names they name).
    ``sizes``, when given, gets the characters of each file that holds a class statement."""
    defined: dict[str, set[str]] = {}
    bases_in: dict[str, dict[str, set[str]]] = {}
    for rel in tree.files:
        text = tree.read(rel)
        if text is None or "class" not in text:
            continue
        if sizes is not None:
            sizes[rel] = len(text)
        for m in class_matches(text):
            defined.setdefault(m.group(1), set()).add(rel)
            names = bases_in.setdefault(rel, {}).setdefault(m.group(1), set())
            for b in (m.group(2) or "").split(","):
                name = re.split(r"[\[(=]", b)[0].strip().rsplit(".", 1)[-1]
                if name and "=" not in b:
                    names.add(name)
    return defined, bases_in
