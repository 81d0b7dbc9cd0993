"""The text of each file ``decouple --hook`` changes: span edits at the positions of the whole
file's own parse (a sketch's columns may differ), applied from the end of the file up, then
checked as a normal run's patch is (``check.check_file``) before anything is shown or written."""

from __future__ import annotations

import ast

from ..ast_util import first_param, walk
from ..check import check_file
from ..errors import DecoupleError
from ..rules import rewrite_factory_hook as dc615
from .plan import Hook, Override, Plan


class Edits:
    """Per file: its text, and the edits to make to it."""

    def __init__(self, tree):
        self.tree = tree
        self.texts: dict[str, str] = {}
        self.parsed: dict[str, ast.Module] = {}
        self.edits: dict[str, list[tuple[int, int, str]]] = {}
        self.deleted: dict[str, set[int]] = {}  # lines, from 1

    def text(self, rel: str) -> str:
        if rel not in self.texts:
            self.texts[rel] = self.tree.text(rel)
            self.parsed[rel] = ast.parse(self.texts[rel], filename=rel)
        return self.texts[rel]

    def twin(self, rel: str, node: ast.AST, cls: ast.ClassDef | None = None) -> ast.AST:
        """The node of the whole file's parse at ``node``'s place, of its type; ``cls``: the
        (sketched) class around ``node``, whose body a sketch may have moved left."""
        self.text(rel)
        shift = 0 if cls is None else self.twin(rel, cls).col_offset - cls.col_offset
        for n in walk(self.parsed[rel]):
            if type(n) is type(node) and n.lineno == node.lineno and n.end_lineno == node.end_lineno \
                    and getattr(n, "name", None) == getattr(node, "name", None) \
                    and (cls is None or n.col_offset == node.col_offset + shift):
                return n
        raise DecoupleError(f"{rel}:{node.lineno}: the file changed while it was read")

    def offset(self, rel: str, line: int, col: int) -> int:
        lines = self.text(rel).splitlines(keepends=True)
        return sum(len(x) for x in lines[:line - 1]) + len(lines[line - 1].encode()[:col].decode(errors="ignore"))

    def line_start(self, rel: str, line: int) -> int:
        return self.offset(rel, line, 0)

    def line_end(self, rel: str, line: int) -> int:
        return self.offset(rel, line + 1, 0) if line < len(self.text(rel).splitlines()) else len(self.text(rel))

    def add(self, rel: str, start: int, end: int, new: str) -> None:
        self.edits.setdefault(rel, []).append((start, end, new))

    def delete_lines(self, rel: str, first: int, last: int) -> None:
        self.deleted.setdefault(rel, set()).update(range(first, last + 1))

    def _deletions(self, rel: str) -> None:
        """The deleted lines as edits, a run of them between two blank lines taking one of the
        two along (no two blank lines left inside a class)."""
        lines = self.text(rel).splitlines()
        gone = sorted(self.deleted.get(rel, ()))
        runs: list[list[int]] = []
        for n in gone:
            if runs and n == runs[-1][1] + 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        for first, last in runs:
            if 1 < first and last < len(lines) and not lines[first - 2].strip() and not lines[last].strip():
                last += 1
            self.add(rel, self.line_start(rel, first), self.line_end(rel, last), "")

    def results(self) -> dict[str, tuple[str, str]]:
        """rel -> (old text, new text), each new text checked as a normal run's patch is."""
        for rel in list(self.deleted):
            self._deletions(rel)
        out = {}
        for rel, edits in self.edits.items():
            text = old = self.text(rel)
            for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
                text = text[:start] + new + text[end:]
            problem = check_file(old, text, rel)  # it compiles, and adds no pyflakes finding
            if problem:  # a bug of ours: nothing is shown or written
                raise DecoupleError(f"{dc615.ID}: {problem}; nothing written")
            out[rel] = (old, text)
        return out


def rewrite(plan: Plan, tree) -> dict[str, tuple[str, str]]:
    e = Edits(tree)
    for hook in plan.hooks:
        _parent_side(e, hook)
        for o in hook.overrides:
            _override(e, hook, o)
    return e.results()


def _parent_side(e: Edits, hook: Hook) -> None:
    rel = hook.owner.file
    init = _init(e, hook.owner)
    value = e.twin(rel, hook.built.value, hook.owner.node)
    psn = first_param(init)
    call = f"{psn}.{hook.name}({', '.join(hook.params)})"
    e.add(rel, e.offset(rel, value.lineno, value.col_offset), e.offset(rel, value.end_lineno, value.end_col_offset), call)
    comment = "# A subclass that builds its own object overrides this: this one is then never built."
    _method(e, rel, init, hook.name, [psn, *hook.params], _source(e, rel, value, {}, init), comment)


def _override(e: Edits, hook: Hook, o: Override) -> None:
    rel = o.cls.file
    init = _init(e, o.cls)
    csn = first_param(init)
    remove = e.twin(rel, o.remove, o.cls.node)
    lines = e.text(rel).splitlines()
    indent = _indent(lines[remove.lineno - 1])
    first = remove.lineno
    while first > 1 and lines[first - 2].strip().startswith("#") and _indent(lines[first - 2]) == indent:
        first -= 1  # the comment that explains the replacement goes with it
    if remove is init.body[-1]:
        while first > 1 and not lines[first - 2].strip():
            first -= 1  # and the blank lines before it, when it ended the __init__
    e.delete_lines(rel, first, remove.end_lineno)
    for d in o.remove_also:
        dead = e.twin(rel, d, o.cls.node)
        e.delete_lines(rel, dead.lineno, dead.end_lineno)
    if o.store_first:
        sup = e.twin(rel, o.super_stmt, o.cls.node)
        pad = _indent(lines[sup.lineno - 1])
        stores = "".join(f"{pad}{csn}._{n.lstrip('_')} = {n}\n" for n in o.store_first)
        e.add(rel, e.line_start(rel, sup.lineno), e.line_start(rel, sup.lineno),
              f"{pad}# Stored before the parent's __init__, which calls {hook.name}.\n" + stores)
    value = e.twin(rel, o.value, o.cls.node)
    prelude = [f"{d.targets[0].id} = {_source(e, rel, e.twin(rel, d.value, o.cls.node), o.names, init)}" for d in o.prelude]
    _method(e, rel, init, hook.name, [csn, *hook.params], _source(e, rel, value, o.names, init), "", prelude)


def _init(e: Edits, cls) -> ast.FunctionDef:
    node = e.twin(cls.file, cls.node)
    return next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")


def _method(e: Edits, rel: str, init: ast.FunctionDef, name: str, params: list[str], body: str, comment: str,
            prelude: list[str] = ()) -> None:
    """``def name(params): return body`` after ``init``, at its indentation, ``prelude`` first."""
    pad = _indent(e.text(rel).splitlines()[init.lineno - 1])
    text = (f"\n{pad}def {name}({', '.join(params)}):\n" + (f"{pad}    {comment}\n" if comment else "")
            + "".join(f"{pad}    {line}\n" for line in prelude) + f"{pad}    return {body}\n")
    at = e.line_end(rel, init.end_lineno)
    e.add(rel, at, at, text)


def _source(e: Edits, rel: str, value: ast.expr, names: dict[str, str], init: ast.FunctionDef) -> str:
    """The source of ``value`` with the names of ``names`` replaced, its continuation lines
    moved to sit under a ``return`` in a method beside ``init`` as they sat under the line it
    started on."""
    start = e.offset(rel, value.lineno, value.col_offset)
    text = e.text(rel)[start:e.offset(rel, value.end_lineno, value.end_col_offset)]
    bound = {n.id for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    spots = sorted(((e.offset(rel, n.lineno, n.col_offset) - start, len(n.id), names[n.id]) for n in walk(value)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names and n.id not in bound),
                   reverse=True)
    for at, length, new in spots:
        text = text[:at] + new + text[at + length:]
    shift = len(_indent(e.text(rel).splitlines()[value.lineno - 1])) - (init.col_offset + 4)
    out = text.splitlines(keepends=True)
    for k in range(1, len(out)):
        line = out[k]
        lead = len(line) - len(line.lstrip(" "))
        out[k] = line[min(shift, lead):] if shift > 0 else " " * -shift + line
    return "".join(out)


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]
