"""Where the tree stores into an attribute name: every ``x.attr = v``, ``x.attr.append(v)``,
``setattr(x, "attr", v)`` and class-body declaration, found one file at a time.

A mixin of ``type_exprs.Types`` (it uses ``index`` and ``_memos`` there). ``type_attrs`` decides
which of these stores can reach the object it types.

Whether any code stores a name on an object other than its own ``self``
(``_stored_from_outside``) is told from the text alone, without a parse.

A file is parsed only when its text can hold such a store (a regex over the files that
contain the name, from the word index). A store whose value is not followed (``x.attr`` unpacked
into, ``+=``, a loop or ``with`` target) is listed with no value, so that it is never taken for
no store at all.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name


_SELF_NAMES = {"self", "cls"}
_ASSIGNED = re.compile(r"\s*(?::[^=\n]*)?(?:[-+*/%&|^@]|//|<<|>>|\*\*)?=(?!=)")  # after x.attr: = v, += v, : T = v
_UNPACKED = re.compile(r"[ \t]*,[^=\n]*=(?!=)")  # after x.attr: , y = ...
_TARGETS = re.compile(r"[ \t]*(?:[\w.\[\]*]+[ \t]*,[ \t]*)*[\w.\[\]]*$")  # before it on the line: a, b.c,
_RECEIVER = re.compile(r"(?:\w+|[)\]])$")
_NAMESPACE_WORDS = ("__dict__", "vars", "__setattr__")


class Stores:
    """The stores of an attribute name across the tree, for ``Types``."""

    def _stores(self, attr: str, within: frozenset[str] | None = None):
        """Every (module, node, value, object stored into) storing into ``<anything>.attr``
        across the tree (plain assignments, ``append``/``insert``, ``setattr`` with the literal
        name; the value None where it is not followed), one file at a time so that a caller
        that stops early parses no more; a None item when a file that may hold one cannot be
        parsed. ``within``: only files that also name one of these."""
        key = ("store files", attr)
        if key not in self._memos:
            a = re.escape(attr)
            # Patterns that start with a literal, tried one after the other, rather than one
            # alternation: the regex engine scans for a literal at C speed.
            assigned = re.compile(rf"\.{a}(?:\s*(?::[^=\n]*)?=[^=]|\s*(?:[-+*/%&|^@]|//|<<|>>|\*\*)=|\.(?:append|extend|insert)\()")
            named = re.compile(rf"setattr(?:__)?\([^,]+,\s*['\"]{a}['\"]")
            namespace = [re.compile(rf"{w}[^\n]*\b{a}\b") for w in (r"__dict__", r"vars\(")]
            self._memos[key] = self._grep_with_namespace(attr, lambda text: bool(assigned.search(text) or named.search(text)), namespace)
        grep = self._memos[key]
        near = None if within is None else set(self.index.tree.files_with_words(tuple(within)))
        for rel in grep.files:
            if (near is None or rel in near) and grep.passes(rel):
                yield from self._stores_in(rel, attr)

    def _stores_in(self, rel: str, attr: str) -> list:
        key = ("stores", rel, attr)
        if key not in self._memos:
            mod = self.index.module(rel)
            out: list = [None] if mod is None else []
            for node in mod.attributes.get(attr, ()) if mod is not None else ():
                parent = mod.parents.get(id(node))
                if isinstance(node.ctx, ast.Load):
                    parent = mod.parents.get(id(parent))  # x.attr.append(v): the call
                value = attr_assignment(parent, attr, None) if parent is not None else None
                if value is not None:
                    out.append((mod, parent, value, node.value))
                elif isinstance(node.ctx, ast.Store):
                    out.append((mod, node, None, node.value))  # unpacked into, +=, a for or with target
            named = mod is not None and "setattr" in mod.text
            namespace = mod is not None and ("__dict__" in mod.text or "vars(" in mod.text)
            through_namespace: list = []
            for node in mod.nodes if named or namespace else ():  # one walk for both kinds
                if (
                    named and isinstance(node, ast.Call) and dotted_name(node.func) in ("setattr", "object.__setattr__")
                    and len(node.args) == 3 and isinstance(node.args[1], ast.Constant) and node.args[1].value == attr
                ):
                    out.append((mod, node, node.args[2], node.args[0]))
                if namespace:
                    through_namespace += [(mod, node, value, owner) for owner, value in _namespace_stores(node, attr)]
            out += through_namespace
            self._memos[key] = out
        return self._memos[key]

    def _declared(self, attr: str):
        """Every (module, class-body annotation) of ``attr`` across the tree, one file at a time
        as ``_stores`` does; a None item when a file that may hold one cannot be parsed."""
        key = ("declared files", attr)
        if key not in self._memos:
            a = re.escape(attr)
            declared, declared_here = re.compile(rf"{a}[ \t]*:"), re.compile(rf"^[ \t]*{a}[ \t]*:", re.M)
            self._memos[key] = self.index.tree.grep(lambda text: bool(declared.search(text) and declared_here.search(text)), words=(attr,))
        for rel in self._memos[key]:
            mod = self.index.module(rel)
            if mod is None:
                yield None
                continue
            yield from ((mod, stmt) for node in mod.nodes if isinstance(node, ast.ClassDef) for stmt in node.body
                        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr)

    def _stored_from_outside(self, attr: str) -> bool:
        """Whether code may store ``.attr`` on an object other than its own ``self`` somewhere
        in the tree (``x.attr = v``, ``x.attr += v``, ``x.attr, y = ...``, ``setattr(x,
        "attr", v)``), or through the object's namespace on a line that names ``attr``
        (``object.__setattr__(x, "attr", v)``, ``x.__dict__["attr"] = v``,
        ``vars(x).update(attr=v)``): that object may be an instance of a class that does not
        define ``attr`` itself. Told from the text alone, so that ruling a receiver out parses
        nothing more: any such store whose object is not spelled ``self`` or ``cls`` counts, and
        any namespace write on a line naming ``attr``, whatever its object."""
        key = ("stored from outside", attr)
        if key not in self._memos:
            # Only the mentions an assignment follows come out of the regex engine: most
            # mentions of a common name are reads, and each one looked at here costs more
            # than the engine's scan of the whole file.
            mention = re.compile(rf"\.{re.escape(attr)}\b(?={_ASSIGNED.pattern}|{_UNPACKED.pattern})")
            named = re.compile(rf"setattr\(\s*(\w+)[^,\n]*,\s*['\"]{re.escape(attr)}['\"]")
            namespace = [re.compile(rf"{w}[^\n]*\b{re.escape(attr)}\b") for w in (r"__dict__", r"vars\(", r"__setattr__\(")]

            def outside(text: str) -> bool:
                for m in mention.finditer(text):
                    if _ASSIGNED.match(text, m.end()) or (_UNPACKED.match(text, m.end()) and _TARGETS.match(_line_before(text, m.start()))):
                        head = _RECEIVER.search(text, max(0, m.start() - 64), m.start())
                        if head is None or head.group(0) not in _SELF_NAMES:
                            return True
                return any(m.group(1) not in _SELF_NAMES for m in named.finditer(text))

            self._memos[key] = any(True for _ in self._grep_with_namespace(attr, outside, namespace))
        return self._memos[key]

    def _grep_with_namespace(self, attr: str, test, namespace: list[re.Pattern]) -> "LazyGrep":
        """The files naming ``attr`` that pass ``test`` or where one of the ``namespace``
        patterns matches, in the tree's order, each file tried only when a caller gets to it."""
        if "namespace files" not in self._memos:
            self._memos["namespace files"] = set(self.index.tree.files_with_words(_NAMESPACE_WORDS))
        return LazyGrep(self.index.tree, attr, test, namespace, self._memos["namespace files"])


class LazyGrep:
    """A grep of the files that name a word, one file at a time as a caller asks.

    Most callers stop early: the first store whose value is not followed ends a typing, and the
    first store on another object answers ``_stored_from_outside``. A common name is in more
    than a thousand files of SGLang (``config``), whose texts cost more to search than
    everything the caller does before it stops. Each file's answer is kept, so a later caller
    that goes further gets the same files in the same order as one grep of them all.

    ``namespace``: patterns tried only on the files among ``namespace_files`` (those whose words
    include ``__dict__``, ``vars`` or ``__setattr__``, which every text they match contains)."""

    def __init__(self, tree, attr: str, test, namespace: list[re.Pattern], namespace_files: set[str]):
        self.tree, self.test, self.namespace, self.namespace_files = tree, test, namespace, namespace_files
        self.files = tree.files_with_words((attr,))
        self._passed: dict[str, bool] = {}

    def passes(self, rel: str) -> bool:
        got = self._passed.get(rel)
        if got is None:
            text = self.tree.searchable(rel)
            got = self._passed[rel] = text is not None and bool(
                self.test(text) or (rel in self.namespace_files and any(n.search(text) for n in self.namespace)))
        return got

    def __iter__(self):
        return (rel for rel in self.files if self.passes(rel))


def _namespace_stores(node: ast.AST, attr: str) -> list[tuple[ast.AST, ast.AST | None]]:
    """(object, value) for each store of ``attr`` that ``node`` makes through an object's
    namespace: ``x.__dict__["attr"] = v``, ``vars(x)["attr"] = v`` (value None for ``+=``),
    ``x.__dict__.update(attr=v)`` or ``.update({"attr": v})``, ``.setdefault("attr", v)``."""
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value if isinstance(node, ast.Assign) else None
        return [(owner, value) for t in targets if isinstance(t, ast.Subscript) and _is_literal(t.slice, attr)
                and (owner := _namespace_of(t.value)) is not None]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (owner := _namespace_of(node.func.value)) is not None:
        if node.func.attr == "setdefault" and node.args and _is_literal(node.args[0], attr):
            return [(owner, node.args[1] if len(node.args) > 1 else None)]
        if node.func.attr == "update":
            found = [(owner, kw.value) for kw in node.keywords if kw.arg == attr]
            for arg in node.args:
                if isinstance(arg, ast.Dict):
                    found += [(owner, v) for k, v in zip(arg.keys, arg.values) if k is not None and _is_literal(k, attr)]
            return found
    return []


def _namespace_of(expr: ast.AST) -> ast.AST | None:
    """``x`` for ``x.__dict__`` or ``vars(x)``."""
    if isinstance(expr, ast.Attribute) and expr.attr == "__dict__":
        return expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "vars" and len(expr.args) == 1:
        return expr.args[0]
    return None


def _is_literal(node: ast.AST, text: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == text


def attr_assignment(node: ast.AST, attr: str, selfname: str | None):
    """The value assigned to ``X.attr`` by this node (X = selfname when given), else None."""

    def match(t):
        return isinstance(t, ast.Attribute) and t.attr == attr and (
            selfname is None or (isinstance(t.value, ast.Name) and t.value.id == selfname)
        )

    if isinstance(node, ast.Assign) and any(match(t) for t in node.targets):
        return node.value
    if isinstance(node, ast.AnnAssign) and match(node.target):
        return node.value if node.value is not None else node.annotation
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "insert")
        and match(node.func.value) and node.args
    ):
        return node.args[-1]
    return None


def _line_before(text: str, end: int) -> str:
    return text[text.rfind("\n", 0, end) + 1:end]
