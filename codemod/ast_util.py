"""Small helpers over the standard ``ast`` that every stage shares.

One walker (``walk``), one block walker (``child_blocks``), and the name and call helpers
the analysis and the rewrite both need, so that both read a statement the same way.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

Pos = tuple[int, int]

_NODE_FIELDS: dict[type, tuple[str, ...]] = {}
_PARSER_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # only \r\n, \r and \n end a line


def walk(node: ast.AST, parents: dict | None = None) -> list[ast.AST]:
    """Every node under ``node``, in ``ast.walk``'s order, as a list, less the context and
    operator singletons (``Load``, ``Add``, ...) that nothing here looks at.

    A run visits millions of nodes, and ``ast.walk``'s two layers of generators cost more
    than the work done per node; ``parents``, when given, is filled with child id -> parent.
    The fields the grammar gives a name, a string or a number (``_SCALAR_FIELDS``) are not
    looked at: ``Name``, ``Constant`` and ``Attribute``, most of a module's nodes, then cost
    no attribute lookup, or one.
    """
    out = [node]
    append = out.append
    AST = ast.AST
    fields_of = _NODE_FIELDS
    # The list grows while it is iterated: each node's children go on its end.
    for n in out:
        fields = fields_of.get(n.__class__)
        if fields is None:
            fields = _fields(n.__class__)
        for name in fields:
            v = getattr(n, name, None)
            if v.__class__ is list:
                for c in v:
                    if isinstance(c, AST):
                        append(c)
                        if parents is not None:
                            parents[id(c)] = n
            elif isinstance(v, AST):
                append(v)
                if parents is not None:
                    parents[id(v)] = n
    return out


# Fields that hold an identifier, a string, a number or a list of identifiers in every Python
# version's grammar (a field not named here is looked at, so a new one is never missed: 3.12's
# ``TypeAlias.name`` is an expression, and is walked).
_SCALAR_FIELDS = {
    "FunctionDef": ("name", "type_comment"), "AsyncFunctionDef": ("name", "type_comment"), "ClassDef": ("name",),
    "Assign": ("type_comment",), "For": ("type_comment",), "AsyncFor": ("type_comment",), "With": ("type_comment",),
    "AsyncWith": ("type_comment",), "AnnAssign": ("simple",), "ImportFrom": ("module", "level"), "Global": ("names",),
    "Nonlocal": ("names",), "Attribute": ("attr",), "Name": ("id",), "Constant": ("value", "kind"),
    "FormattedValue": ("conversion",), "comprehension": ("is_async",), "ExceptHandler": ("name",),
    "arg": ("arg", "type_comment"), "keyword": ("arg",), "alias": ("name", "asname"), "MatchSingleton": ("value",),
    "MatchStar": ("name",), "MatchAs": ("name",), "MatchClass": ("kwd_attrs",), "MatchMapping": ("rest",),
    "TypeIgnore": ("lineno", "tag"), "TypeVar": ("name",), "ParamSpec": ("name",), "TypeVarTuple": ("name",),
}


def statements(tree: ast.AST) -> list[ast.AST]:
    """Every statement under ``tree`` (with the ``except`` handlers and ``match`` cases that hold
    some), in ``walk``'s order: the nodes of ``walk(tree)`` that are these, found without
    visiting a single expression (a module's expressions are most of its nodes).

    Why the order is ``walk``'s: ``walk`` takes nodes first in, first out, each node's children
    in the order of its fields. Statements sit only in statement blocks (``body``, ``orelse``,
    ``finalbody``, a handler's or a case's ``body``), never under an expression, so every
    ancestor of a statement is one of the nodes kept here; taking the same nodes first in,
    first out, through the same fields in the same order, keeps ``walk``'s order among them."""
    out = [tree]
    extend = out.extend
    for n in out:
        fields = _BLOCK_FIELDS.get(n.__class__)
        if fields is None:
            fields = _BLOCK_FIELDS[n.__class__] = tuple(
                f for f in n.__class__._fields if f in ("body", "orelse", "finalbody", "handlers", "cases"))
        for name in fields:
            v = getattr(n, name, None)
            if v.__class__ is list:  # a lambda's or an expression's ``body`` is one node: no block
                extend(v)
    return out


_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    skip = _SCALAR_FIELDS.get(cls.__name__, ())
    fields = _NODE_FIELDS[cls] = tuple(f for f in cls._fields if f not in ("ctx", "op") and f not in skip)
    return fields


BLOCK_STATEMENTS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)


def child_blocks(stmt: ast.AST) -> list[list[ast.stmt]]:
    """The statement blocks directly inside a compound statement, in a fixed order:
    body, else, finally, then each handler's body (and each ``match`` case's)."""
    out = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if block and isinstance(block, list):
            out.append(block)
    for h in getattr(stmt, "handlers", []) or []:
        out.append(h.body)
    for c in getattr(stmt, "cases", []) or []:
        out.append(c.body)
    return out


def is_block_statement(s: ast.AST) -> bool:
    """if/try/with at module level: the statements whose blocks still define module names."""
    return isinstance(s, (ast.If, ast.Try, ast.With)) or type(s).__name__ == "TryStar"


def pos(node: ast.AST) -> Pos:
    return (node.lineno, node.col_offset)  # type: ignore[attr-defined]


def snake_case(name: str) -> str:
    """FlashInferAttnBackend -> flash_infer_attn_backend (for names derived from a class)."""
    return re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", name).lower()


def dotted_name(expr: ast.AST) -> str | None:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def decorator_name(expr: ast.AST) -> str:
    if isinstance(expr, ast.Call):
        expr = expr.func
    return dotted_name(expr) or ast.unparse(expr)


def first_param(fn: ast.FunctionDef) -> str | None:
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def is_static(fn: ast.FunctionDef) -> bool:
    return any(decorator_name(d) == "staticmethod" for d in fn.decorator_list)


def setters(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The ``@name.setter`` functions of a class body, by property name: an assignment to
    ``self.name`` runs them."""
    return {s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(isinstance(d, ast.Attribute) and d.attr == "setter" for d in s.decorator_list)}


def is_super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def is_literal(expr: ast.AST | None) -> bool:
    """Whether ``expr`` is a literal ``ast.literal_eval`` accepts (its value the same wherever it is written)."""
    try:
        ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def is_docstring(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def span(node: ast.AST | None) -> int:
    """Lines a node covers (0 for none)."""
    if node is None:
        return 0
    return (getattr(node, "end_lineno", node.lineno) or node.lineno) - node.lineno + 1  # type: ignore[attr-defined]


def rebound(fn: ast.FunctionDef, name: str) -> bool:
    """Whether ``fn`` assigns ``name`` anywhere."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(fn))


@dataclass
class Binding:
    """How a call binds a function's parameters (the first one, self, excluded)."""

    bound: dict[str, ast.AST]  # parameter -> the argument expression the call passes
    defaults: dict[str, ast.AST]  # parameter -> its default expression
    opaque: bool  # the call passes *args or **kwargs: its parameters cannot be told apart


def bind_arguments(fn: ast.FunctionDef, call: ast.Call, method: bool = True) -> Binding:
    """Bind ``call`` to ``fn``'s parameters; ``P.__init__(self, ...)`` passes self explicitly.
    ``method``: ``fn``'s first parameter is the instance, which the call does not pass."""
    args = fn.args
    positional = args.posonlyargs + args.args
    params = [p.arg for p in positional][1 if method else 0:]
    f = call.func
    explicit_self = isinstance(f, ast.Attribute) and f.attr == "__init__" and not is_super_call(f.value)
    given = call.args[1:] if explicit_self else call.args
    bound: dict[str, ast.AST] = dict(zip(params, given))
    bound.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    defaults: dict[str, ast.AST] = dict(zip([p.arg for p in positional][len(positional) - len(args.defaults):], args.defaults))
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    opaque = any(isinstance(g, ast.Starred) for g in given) or any(k.arg is None for k in call.keywords)
    return Binding(bound, defaults, opaque)


def resolve_relative(modname: str, is_package: bool, target: str | None, level: int) -> str:
    """The absolute module of ``from <level dots><target> import ...`` inside ``modname``."""
    if level == 0:
        return target or ""
    parts = modname.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base


def binding_count(scope: ast.AST, name: str, imports: bool = True) -> int:
    """How many times ``scope`` binds ``name``: each binding is a separate object, so what one
    binding's reads prove says nothing of another's (two ``except ... as e``, say). Without
    ``imports``, an import does not count (it binds what ``ModuleInfo.qualify`` names anyway)."""
    n = 0
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        n += sum(1 for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x] if p.arg == name)
    for node in walk(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            n += 1
        elif isinstance(node, ast.ExceptHandler) and node.name == name:
            n += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and imports:
            n += sum(1 for x in node.names if (x.asname or x.name).split(".")[0] == name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not scope and node.name == name:
            n += 1
        elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None) == name:
            n += 1
    return n


def names_bound(target: ast.AST) -> set[str]:
    """The names an assignment target binds (``a``, ``a, *b``; not ``a.x`` or ``a[i]``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(names_bound(e) for e in target.elts))
    if isinstance(target, ast.Starred):
        return names_bound(target.value)
    return set()


def source_segment(text: str, node: ast.AST) -> str:
    """The source of ``node`` in ``text``, as ``ast.get_source_segment`` gives it: that one
    splits the text into lines with a loop over its characters at every call (30 ms for a
    module of 2,000 lines; one regex takes 2 ms)."""
    lines = _PARSER_LINE.findall(text)
    first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()  # type: ignore[attr-defined]
    head = lines[first].encode()[node.col_offset:].decode()  # type: ignore[attr-defined]
    tail = lines[last].encode()[:node.end_col_offset].decode()  # type: ignore[attr-defined]
    return "".join([head, *lines[first + 1:last], tail])


def naming_line(fn: ast.AST, attr: str) -> int:
    """The first line under ``fn`` that names ``attr`` (an attribute, or a string such as
    ``getattr(self, "attr")``'s), else its first statement's: evidence points at code that
    uses the member, not at the ``def`` line."""
    found = [n.lineno for n in walk(fn) if n is not fn and hasattr(n, "lineno") and (
        (isinstance(n, ast.Attribute) and n.attr == attr) or (isinstance(n, ast.Constant) and n.value == attr))]
    if found:
        return min(found)
    body = getattr(fn, "body", None)
    return body[0].lineno if body else fn.lineno


def private(name: str) -> bool:
    """Whether Python mangles ``name`` inside a class body (``__x``, not ``__x__``)."""
    return name.startswith("__") and not name.endswith("__")


def mangled(owner: str, name: str) -> str:
    """``name`` as Python stores it when written in class ``owner``'s body (``__x`` as ``_Owner__x``)."""
    return f"_{owner.lstrip('_')}{name}" if private(name) and owner.strip("_") else name
