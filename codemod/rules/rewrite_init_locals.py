"""DC617 init-local: an attribute the inlined ``__init__`` stores and only that ``__init__`` reads becomes a local; asserts that become the same merge.

## What it does
A member of the parent kept only because kept statements of its ``__init__`` read it (DC105),
that no code elsewhere reads on an object that may be the class (the DC108 search is run for it
too), and that the class's ``__init__`` stores with plain ``self.X = ...`` before every read
on every path, becomes a local of that ``__init__``: ``self.num_wrappers = 2`` becomes
``num_wrappers = 2`` and each ``self.num_wrappers`` read ``num_wrappers``. Then two statements
in a row ``if A: assert T`` and ``if B: assert T`` (the same test, no message), where ``A``
and ``B`` compare parameters with ``None`` by ``is`` and ``T`` compares such a local, whose
every store is a literal, with a literal, become one ``if A or B: assert T, "..."``, whose
message names what was given.

## Why
SGLang's FlashInfer backend stores ``num_wrappers`` only for its wrappers and index buffers;
once those are gone the decoupled ``__init__`` reads it in two asserts and nowhere else, and an
attribute every instance carries for no reader is dead weight a reviewer asks to remove.

## Known problems
Not done (the attribute stays) when: any other code of the class (its own methods, the parent's
methods copied into it: a helper the ``__init__`` calls that stores it again) names the attribute
(``.X``, or ``"X"`` as a string); when it is read in a nested function, lambda or class of the ``__init__``, stored in any other form (augmented, annotated, in a tuple, in a
loop, a ``with`` or a ``try``), read where a store may not have run, or the name is used in the
``__init__`` for anything else; when the class or its new base defines the name, or a class of
its hierarchy has ``__setattr__``, ``__getattribute__`` or stores by computed name, or a subclass
the index cannot see. A read by computed name elsewhere (``getattr(x, name)`` with ``name`` from
data) is DC301's, as for any member. The merged assert's message is new text: an
``AssertionError`` it raises says which arguments were given.

## Fix safety
The local holds what the attribute held at each read (every read follows a store on every path,
and nothing else reads or writes the attribute). The merged assert fails exactly when one of
the two did: its conditions and test have no side effects and read names that are bound.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from ..ast_util import walk

ID = "DC617"
NAME = "init-local"

_HOOKS = {"__setattr__", "__getattribute__", "__delattr__", "__slots__"}


def eligible(ctx) -> set[str]:
    """The members that may become locals of the class's ``__init__`` (before its code is read)."""
    a = ctx.a
    if not a.may_have_known or ctx.index is None:
        return set()
    names = set()
    for n in sorted(a.init_local_candidates - a.read_outside):
        evs = a.kept.get(n, [])
        member = a.members.get(n, (None,))[0]
        # Stored by another method of the parent too (a helper the __init__ calls may store it
        # again between its store and its read there): the attribute stays.
        elsewhere = member is not None and any(m != "__init__" for m, _ in member.assigned_in)
        if evs and all(e.rule == "DC105" for e in evs) and n not in a.cls.members and not elsewhere:
            names.add(n)
    # Named by the class's other code, its own or a method copied into it (read there, or by a
    # string): the attribute stays.
    def not_init(node) -> bool:
        return not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__init__")

    copied = [m.node for m in (a.members.get(k, (None,))[0] for k in a.kept)
              if m is not None and isinstance(m.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not_init(m.node)]
    own = [s for s in a.cls.node.body if not_init(s)]
    names -= {x.attr if isinstance(x, ast.Attribute) else x.value for node in (*copied, *own) for x in walk(node)
              if isinstance(x, ast.Attribute) or (isinstance(x, ast.Constant) and isinstance(x.value, str))}
    if not names:
        return names
    hierarchy = [a.cls, *ctx.index.subclasses_deep(a.cls)]
    base = ctx.index.resolve_class(a.base) if a.base != "builtins.object" else None
    if a.base != "builtins.object" and base is None:
        return set()
    if base is not None:
        hierarchy += [base, *(ctx.index.resolve_class(q) for q in ctx.index.ancestors(base))]
    for c in hierarchy:
        if c is None:
            continue
        if _HOOKS & set(c.members) or (c is not a.cls and names & set(c.members)):
            return set()
    return names


def apply(ctx, body: list) -> list:
    names = eligible(ctx)
    if not names:
        return body
    out = []
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            stmt = _localize(stmt, names, ctx)
        out.append(stmt)
    return out


def _localize(fn: cst.FunctionDef, names: set[str], ctx) -> cst.FunctionDef:
    params = fn.params
    selfname = (params.posonly_params or params.params)[0].name.value if (params.posonly_params or params.params) else None
    if selfname is None:
        return fn
    # A name never stored as ``self.n = ...`` in the text cannot pass _definitely_stored: left
    # out before anything is parsed.
    text = cst.Module([]).code_for_node(fn)
    stored = {n for n in names if re.search(rf"\b{re.escape(selfname)}\.{re.escape(n)}\s*(?::[^=\n]*)?=(?!=)", text)}
    if not stored:
        return fn
    # The questions are asked of the standard ast of the same text: a libcst visit of a long
    # __init__ costs tens of milliseconds each, and the analysis needs several.
    try:
        tree = ast.parse(text).body[0]  # libcst renders the node from column 0
    except SyntaxError:
        return fn
    used = _names(tree)
    done = [n for n in sorted(stored) if n not in used and _definitely_stored(tree.body, n, selfname)]
    if not done:
        return fn
    fn = fn.visit(_ToLocal(set(done), selfname, _untouched(fn, tree, set(done), selfname)))
    ctx.plan.locals = sorted(set(ctx.plan.locals) | set(done))
    ctx.a.made_local |= set(done)  # DC703 then checks that nothing left in the class reads them
    ctx.plan.inlined += [f"`self.{n}` became a local of `__init__`, its only reader (DC617)" for n in done]
    literal_locals = {n for n in done if _literal_stores(tree, n, selfname)}
    param_names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    rebound = param_names & _stored_names(tree)
    return fn.with_changes(body=_merge_asserts(fn.body, literal_locals, param_names - rebound))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _names(tree: ast.AST) -> set[str]:
    """Every name the function spells as a variable, a parameter, a keyword argument, a
    definition, an import or a capture (not the name after a dot)."""
    out: set[str] = set()
    for node in walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add(node.asname or node.name.split(".", 1)[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.add(node.rest)
    return out


def _is_self_attr(node, name: str, selfname: str) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, ast.Name)
            and node.value.id == selfname)


def _uses(node: ast.AST, name: str, selfname: str) -> tuple[int, bool]:
    """How many ``self.name`` there are in a node, and whether one sits in a nested scope (the
    node itself counts when it is one)."""
    count, nested = 0, False
    todo = [(node, False)]
    while todo:
        n, inner = todo.pop()
        inner = inner or isinstance(n, _SCOPES)
        if _is_self_attr(n, name, selfname):
            count += 1
            nested |= inner
        todo.extend((c, inner) for c in ast.iter_child_nodes(n))
    return count, nested


def _store(stmt, name: str, selfname: str) -> ast.Assign | None:
    """``self.name = value`` as a statement of its own, else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_self_attr(stmt.targets[0], name, selfname):
        return stmt
    return None


def _definitely_stored(stmts, name: str, selfname: str) -> bool:
    """Whether every ``self.name`` in ``stmts`` is a plain store or a read after a store on every
    path, no read is in a nested scope, and at least one store and one read are there."""
    state = {"stores": 0, "reads": 0}
    ok = _walk_block(stmts, name, selfname, False, state)
    return ok is not None and state["stores"] > 0 and state["reads"] > 0


def _walk_block(stmts, name, selfname, assigned: bool, state) -> bool | None:
    """The block's effect: whether the attribute is stored after it on every path (None: refused)."""
    for stmt in stmts:
        assign = _store(stmt, name, selfname)
        if assign is not None:
            count, nested = _uses(assign.value, name, selfname)
            if (count and not assigned) or nested:
                return None
            state["reads"] += count
            state["stores"] += 1
            assigned = True
            continue
        if isinstance(stmt, ast.If):
            count, nested = _uses(stmt.test, name, selfname)
            if count and (not assigned or nested):
                return None
            state["reads"] += count
            body = _walk_block(stmt.body, name, selfname, assigned, state)
            if body is None:
                return None
            other = _walk_block(stmt.orelse, name, selfname, assigned, state) if stmt.orelse else assigned
            if other is None:
                return None
            assigned = body and other
            continue
        count, nested = _uses(stmt, name, selfname)
        if not count:
            continue
        if not assigned or nested or _stores_inside(stmt, name, selfname):
            return None
        state["reads"] += count
    return assigned


def _targets(node: ast.AST) -> list[ast.AST]:
    """Every store target in a node: assignments of each kind, ``for``, ``with ... as``, ``:=``, ``del``."""
    out: list[ast.AST] = []
    for n in walk(node):
        if isinstance(n, ast.Assign):
            out += n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
            out.append(n.target)
        elif isinstance(n, ast.Delete):
            out += n.targets
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            out.append(n.optional_vars)
    return out


def _stores_inside(stmt, name, selfname) -> bool:
    return any(_uses(t, name, selfname)[0] for t in _targets(stmt))


def _untouched(fn: cst.FunctionDef, tree: ast.FunctionDef, names: set[str], selfname: str) -> set[int]:
    """The ids of the statements of ``fn``'s body that spell no ``self.name`` of ``names``, read
    off ``tree`` (the ``ast`` of ``fn``'s code): ``_ToLocal`` need not enter them (a long
    ``__init__`` costs tens of milliseconds a visit). None are when the two bodies do not pair."""
    if not isinstance(fn.body, cst.IndentedBlock):
        return set()
    out, stmts = set(), iter(tree.body)
    for node in fn.body.body:
        mine = [next(stmts, None) for _ in (node.body if isinstance(node, cst.SimpleStatementLine) else (node,))]
        if None in mine:
            return set()
        if not any(_uses(s, name, selfname)[0] for s in mine for name in names):
            out.add(id(node))
    return out if next(stmts, None) is None else set()


class _ToLocal(cst.CSTTransformer):
    def __init__(self, names: set[str], selfname: str, untouched: set[int] = frozenset()):
        self.names, self.selfname, self.untouched = names, selfname, untouched

    def on_visit(self, node):
        return id(node) not in self.untouched

    def leave_Attribute(self, original, updated):
        if (isinstance(updated.value, cst.Name) and updated.value.value == self.selfname
                and updated.attr.value in self.names):
            return cst.Name(updated.attr.value)
        return updated


def _literal_stores(tree: ast.AST, name: str, selfname: str) -> bool:
    """Whether every store of ``self.name`` (the local to be) is a literal number, string, bool
    or None."""
    stores = [n.value for n in walk(tree) if isinstance(n, ast.Assign)
              and any(_is_self_attr(t, name, selfname) for t in n.targets)]
    return bool(stores) and all(isinstance(v, ast.Constant) and v.value is not Ellipsis
                                and not isinstance(v.value, (float, complex)) for v in stores)


def _all_names(node):
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for e in node.elts for n in _all_names(e)]
    if isinstance(node, ast.Starred):
        return _all_names(node.value)
    return []


def _stored_names(node) -> set[str]:
    return {n.id for t in _targets(node) for n in _all_names(t)}


def _guard(stmt) -> tuple[cst.BaseExpression, cst.Assert] | None:
    """(A, the assert) of ``if A: assert T`` with nothing else, no else and no comment inside."""
    if not (isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock)
            and len(stmt.body.body) == 1):
        return None
    line = stmt.body.body[0]
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assert)
            and line.body[0].msg is None and not any(ll.comment for ll in line.leading_lines)):
        return None
    if line.trailing_whitespace.comment is not None:
        return None
    return stmt.test, line.body[0]


def _none_test(expr, params: set[str]) -> str | None:
    """The parameter of ``p is not None`` (no side effect, always bound), else None."""
    if (isinstance(expr, cst.Comparison) and isinstance(expr.left, cst.Name) and expr.left.value in params
            and len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, cst.IsNot)
            and isinstance(expr.comparisons[0].comparator, cst.Name) and expr.comparisons[0].comparator.value == "None"):
        return expr.left.value
    return None


def _pure_test(expr, literal_locals: set[str]) -> bool:
    """``x == K`` (or ``!=``, ``<``, ...) of a local whose every store is a literal, with a literal."""
    if not (isinstance(expr, cst.Comparison) and isinstance(expr.left, cst.Name) and expr.left.value in literal_locals
            and len(expr.comparisons) == 1):
        return False
    right = expr.comparisons[0].comparator
    return isinstance(right, (cst.Integer, cst.SimpleString)) or (isinstance(right, cst.Name) and right.value == "None")


def _merge_asserts(block: cst.IndentedBlock, literal_locals: set[str], params: set[str]) -> cst.IndentedBlock:
    code = cst.Module(body=[]).code_for_node
    stmts = list(block.body)
    out = []
    i = 0
    while i < len(stmts):
        first = _guard(stmts[i])
        second = _guard(stmts[i + 1]) if i + 1 < len(stmts) else None
        if (first and second and not any(ll.comment for ll in stmts[i + 1].leading_lines)
                and code(first[1].test) == code(second[1].test) and _pure_test(first[1].test, literal_locals)):
            p, q = _none_test(first[0], params), _none_test(second[0], params)
            if p and q and p != q:
                test = cst.BooleanOperation(first[0], cst.Or(), second[0])
                message = cst.SimpleString(f'"{p} or {q} is given"')
                merged = first[1].with_changes(msg=message, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                line = stmts[i].body.body[0].with_changes(body=[merged])
                out.append(stmts[i].with_changes(test=test, body=stmts[i].body.with_changes(body=[line])))
                i += 2
                continue
        out.append(stmts[i])
        i += 1
    return block.with_changes(body=out)
