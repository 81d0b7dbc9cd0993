"""libcst helpers the rewrite rules share: statement positions paired with the ``ast``, comments, renaming.

The analysis works on ``ast`` positions; the rewrite edits libcst trees so that everything
not rewritten keeps its comments and layout byte for byte. ``Located`` pairs the two trees
block by block, which gives the same positions as libcst's ``PositionProvider`` without its
pass over every token (that pass cost more than the parse itself).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, fields

import libcst as cst

from .ast_util import Pos, pos
from .errors import UnsafeError


def code_of(node) -> str:
    return cst.Module([]).code_for_node(node)


class ModuleCode:
    """``Module.code`` for successive versions of one module, each top-level statement's code
    generated once: the import fixes change a few lines of a module whose code libcst would
    otherwise generate in full after each of them (a third of their time on SGLang).

    A top-level statement's code does not depend on the statements around it (the codegen
    state carries only the indentation, empty at the top, and the module's default indent and
    newline), so the module's code is the concatenation of theirs; a module without a trailing
    newline, or with another default indent or newline than the first one seen, is generated
    whole. libcst nodes are immutable, and a statement a transformer did not enter keeps its
    identity, which is the key here (``statement`` holds each node, so its id is not reused).
    """

    def __init__(self):
        self._memo: dict[int, tuple[cst.CSTNode, str]] = {}
        self._config: tuple[str, str] | None = None

    def __call__(self, module: cst.Module) -> str:
        config = (module.default_indent, module.default_newline)
        self._config = self._config or config
        if not module.has_trailing_newline or config != self._config:
            return module.code
        parts = [self.statement(node, module) for node in (*module.header, *module.body, *module.footer)]
        return "".join(parts) or module.default_newline

    def statement(self, node: cst.CSTNode, module: cst.Module) -> str:
        """The code of one top-level statement (or header or footer line) of ``module``."""
        got = self._memo.get(id(node))
        if got is None or got[0] is not node:
            got = self._memo[id(node)] = (node, module.code_for_node(node))
        return got[1]


@dataclass
class Located:
    """A parsed module with every statement's position, for matching ``ast`` positions."""

    module: cst.Module
    simple: dict[Pos, cst.BaseSmallStatement]
    compound: dict[int, cst.BaseCompoundStatement]
    lines: dict[int, cst.SimpleStatementLine]  # small statement -> its line
    # The reverse maps, by node identity: where a statement of this module starts.
    pos_of: dict[int, Pos] = field(default_factory=dict)
    line_of: dict[int, int] = field(default_factory=dict)

    def copy(self) -> "Located":
        """The same nodes, with maps of their own: a rewrite may add to a module's maps (DC313
        places the statements it builds for a dataclass's generated ``__init__``), and a second
        rewrite of the module must not find the first one's additions there."""
        return Located(self.module, dict(self.simple), dict(self.compound), dict(self.lines), dict(self.pos_of),
                       dict(self.line_of))

    @classmethod
    def parse(cls, text: str, tree: ast.Module) -> "Located":
        """Parse ``text`` with libcst and position its statements by pairing them with ``tree``.

        ``tree`` is the ``ast`` of the same text (the analysis already has it). Pairing the two
        trees statement by statement gives the same positions as libcst's ``PositionProvider``
        without its pass over every token, which cost more than the parse itself.
        """
        module = cst.parse_module(text)
        located = cls(module, {}, {}, {})
        located._pair(tree.body, module.body)
        located.line_of = {id(node): line for line, node in located.compound.items()}
        return located

    def _pair(self, stmts: list[ast.stmt], nodes) -> None:
        """Record positions for the libcst statements ``nodes`` that correspond to ``stmts``."""
        it = iter(stmts)
        for node in nodes:
            if isinstance(node, cst.SimpleStatementLine):
                for small in node.body:
                    self._simple(next(it), small)
                    self.lines[id(small)] = node
            elif isinstance(node, cst.BaseSmallStatement):  # a suite on the header's line
                self._simple(next(it), node)
            else:
                self._compound(next(it), node)
        if next(it, None) is not None:
            raise UnsafeError("libcst and ast disagree on the statements of a block")

    def _simple(self, a: ast.stmt, node: cst.BaseSmallStatement) -> None:
        self.simple[pos(a)] = node
        self.pos_of[id(node)] = pos(a)

    def _compound(self, a: ast.stmt, node: cst.BaseCompoundStatement) -> None:
        self.compound.setdefault(a.lineno, node)  # a decorated def is at its "def" line in both
        if isinstance(node, cst.If):
            self._pair(a.body, node.body.body)
            if isinstance(node.orelse, cst.If):  # elif
                self._compound(a.orelse[0], node.orelse)
            elif node.orelse is not None:
                self._pair(a.orelse, node.orelse.body.body)
            return
        if isinstance(node, cst.Match):
            for ac, c in zip(a.cases, node.cases, strict=True):
                self._pair(ac.body, c.body.body)
            return
        self._pair(a.body, node.body.body)
        if isinstance(node, cst.Try) or type(node).__name__ == "TryStar":
            for ah, h in zip(a.handlers, node.handlers, strict=True):
                self._pair(ah.body, h.body.body)
            if node.finalbody is not None:
                self._pair(a.finalbody, node.finalbody.body.body)
        orelse = getattr(node, "orelse", None)
        if orelse is not None:
            self._pair(a.orelse, orelse.body.body)

    def stmt(self, node: ast.stmt):
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or type(node).__name__ == "TryStar":
            return self.compound.get(node.lineno)
        return self.simple.get(pos(node))


def unchanged(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
    """``original`` when ``updated`` (what a visit rebuilt of it) holds the very same children,
    else ``updated``: libcst rebuilds every node it enters, so a transformer that returns this
    from ``on_leave`` keeps the identity of each statement it did not change (``ModuleCode``
    then reuses its code). The two are equal either way: nodes are immutable values."""
    if updated is original or not isinstance(updated, type(original)):
        return updated
    for f in fields(original):
        old, new = getattr(original, f.name), getattr(updated, f.name)
        if old is new:
            continue
        if not (isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)) and len(old) == len(new)
                and all(x is y for x, y in zip(old, new))):
            return updated
    return original


def comment_line(text: str) -> cst.EmptyLine:
    return cst.EmptyLine(comment=cst.Comment(f"# {text}"))


BLANK = cst.EmptyLine(indent=False)


class _Renamer(cst.CSTTransformer):
    """Rename or substitute free names; attribute names and keyword names are not names."""

    def __init__(self, mapping: dict[str, cst.BaseExpression]):
        self.mapping = mapping

    def leave_Name(self, original, updated):
        if original.value in self.mapping:
            return self.mapping[original.value]
        return updated

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def leave_Param(self, original, updated):
        return updated.with_changes(name=original.name)


def rename(node: cst.CSTNode, mapping: dict[str, cst.BaseExpression]):
    return node.visit(_Renamer(mapping)) if mapping else node
