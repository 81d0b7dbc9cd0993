"""DC604 read-through: read a value from what the dropped element's constructor assigns, not through the element.

## What it does
After a fused loop (DC603), a kept statement ``self.X = self.L[k].Y`` of the parent's
``__init__`` would read an element that is no longer built by the parent. When the
element's class ``K`` assigns ``self.Y = expr`` exactly once in its ``__init__``,
unconditionally, from its parameters alone (no calls, subscripts or other reads), the
statement becomes ``self.X = expr`` with the parameters replaced by the arguments the
parent passed to ``K(...)`` (names never rebound in the parent's ``__init__``, or literals).
A hazard (not changing meaning) records the substitution.

## Why
Without it, fusing the loop would leave ``self.X`` reading a list that is filled later,
or filled with other objects.

## Known problems
Only a literal index ``k``, only a single top-level assignment of ``Y`` in ``K.__init__``.

## Fix safety
Safe: the value is the same expression of the same arguments.
"""

from __future__ import annotations

import ast
import copy

from ..ast_util import bind_arguments, first_param, pos, rebound, walk
from ..model import Hazard

ID = "DC604"
NAME = "read-through"


def find(index, a, pinit: ast.FunctionDef, psn: str) -> dict:
    """{position of the statement: (new value as ast, source text)} for the fused loops of ``a``."""
    out = {}
    pmod = a.parent.module
    for f in a.fusions:
        elem = f.parent_loop.body[0].value.args[0]
        if not isinstance(elem, ast.Call):
            continue
        k = index.resolve_class(pmod.qualify(elem.func))
        kinit = k.methods.get("__init__") if k is not None else None
        if kinit is None:
            continue
        ksn = first_param(kinit)
        binding = bind_arguments(kinit, elem)
        if binding.opaque:
            continue
        bound = binding.bound
        after = False
        for stmt in pinit.body:
            if stmt is f.parent_loop:
                after = True
                continue
            if not after or not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            v = stmt.value
            if not (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Subscript)
                    and isinstance(v.value.value, ast.Attribute) and v.value.value.attr == f.attr
                    and isinstance(v.value.value.value, ast.Name) and v.value.value.value.id == psn
                    and isinstance(v.value.slice, ast.Constant)):
                continue
            expr = _constructor_value(kinit, ksn, v.attr)
            if expr is None:
                continue
            mapping = {}
            for name in {n.id for n in walk(expr) if isinstance(n, ast.Name)}:
                arg = bound.get(name)
                if not (isinstance(arg, ast.Name) and not rebound(pinit, arg.id)) and not isinstance(arg, ast.Constant):
                    mapping = None
                    break
                mapping[name] = ast.unparse(arg)
            if mapping is None:
                continue
            new = _substitute(expr, mapping)
            out[pos(stmt)] = (new, ast.unparse(new))
            a.hazards.append(Hazard(pmod.rel, stmt.lineno,
                f"self.{stmt.targets[0].attr} now reads `{ast.unparse(new)}`, the value {k.name}.__init__ gives "
                f"`{v.attr}` ({k.file}:{expr.lineno}), instead of reading it through the dropped self.{f.attr}[{v.value.slice.value}]",
                changes_meaning=False, rule=ID))
    return out


def apply(a, small, position):
    """The libcst small statement with its value read through, when the analysis found one."""
    import libcst as cst  # the rewrite's alone: the slice asks ``find`` and must not load it

    if position in a.read_through and isinstance(small, cst.Assign):
        return small.with_changes(value=cst.parse_expression(a.read_through[position][1]))
    return small


def _constructor_value(kinit: ast.FunctionDef, ksn: str, attr: str) -> ast.AST | None:
    """The expression ``__init__`` assigns to ``self.attr`` once, unconditionally, from its
    parameters alone (no calls, no other self reads); None if there is no such single assignment."""
    top = [s for s in kinit.body if isinstance(s, ast.Assign) and len(s.targets) == 1
           and isinstance(s.targets[0], ast.Attribute) and s.targets[0].attr == attr
           and isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == ksn]
    writes = [n for n in walk(kinit) if isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Store)]
    if len(top) != 1 or len(writes) != 1:
        return None
    value = top[0].value
    params = {p.arg for p in kinit.args.posonlyargs + kinit.args.args + kinit.args.kwonlyargs} - {ksn}
    for n in walk(value):
        if isinstance(n, (ast.Call, ast.Subscript, ast.Lambda, ast.NamedExpr)):
            return None
        if isinstance(n, ast.Name) and (n.id not in params or rebound(kinit, n.id)):
            return None
    return value


def _substitute(expr: ast.AST, mapping: dict[str, str]) -> ast.AST:
    class Sub(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in mapping:
                return ast.copy_location(ast.parse(mapping[node.id], mode="eval").body, node)
            return node

    return ast.fix_missing_locations(Sub().visit(copy.deepcopy(expr)))
