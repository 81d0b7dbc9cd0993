"""DC312 class-body: refuse when the parent's class body binds a name the member model does not see, and code reads it.

## What it does
The members of a class are its ``def`` statements, its assignments and annotated assignments at
the top of its body, and what its methods store on ``self``. A class body can bind other names
too: a nested class (``class _Option(Field)``), an import, or a ``def`` or assignment under an
``if``, ``for``, ``while``, ``try``, ``with`` or ``match`` (``if sys.version_info >= (3, 8):
def label(self): ...``). For each such name of the parent (or a class up to the new base) that
the class does not define itself, the tree is searched for ``.name`` and for the name as a
string literal (``getattr(x, "name")``); any hit refuses the class, with the place that binds it.

## Why
Such a name is an attribute of every instance through the class, so kept code or other code may
read it (``self._Option(...)``, ``self.label()``). The analysis does not know it as a member, so
it would neither keep nor copy it: the reparented class would raise ``AttributeError`` there.

## Known problems
A hit anywhere in the tree refuses, though the read may be on another object: unused in the
class's code, a nested class of the same name elsewhere is enough. A name read only through a
computed attribute (``getattr(x, name)``) is not seen, as for every member (DC108's known problems).

## Fix safety
No patch is written (exit 3).
"""

from __future__ import annotations

import ast
import re

from ..ast_util import names_bound, walk
from ..model import Hazard

ID = "DC312"
NAME = "class-body"

_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()) + ((ast.Match,) if hasattr(ast, "Match") else ())


def unmodelled(cls) -> dict[str, int]:
    """Names the body of ``cls`` binds where the member model does not look: name -> line."""
    out: dict[str, int] = {}
    for stmt in cls.node.body:
        if isinstance(stmt, ast.ClassDef):
            out.setdefault(stmt.name, stmt.lineno)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                out.setdefault((alias.asname or alias.name).split(".")[0], stmt.lineno)
        elif isinstance(stmt, _COMPOUND):
            for node in walk(stmt):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.setdefault(node.name, node.lineno)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    for alias in node.names:
                        out.setdefault((alias.asname or alias.name).split(".")[0], node.lineno)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    out.setdefault(node.id, node.lineno)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            out.setdefault(stmt.target.id, stmt.lineno)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            continue
        else:
            for node in walk(stmt):
                if isinstance(node, ast.NamedExpr):
                    out.update({n: stmt.lineno for n in names_bound(node.target) if n not in out})
    return out


def check(st) -> None:
    a = st.a
    tree = st.index.tree
    own = set(a.cls.members) | set(unmodelled(a.cls))
    for c in a.chain:
        for name, line in sorted(unmodelled(c).items(), key=lambda kv: kv[1]):
            if name in own or name in a.members or name.startswith("__") and name.endswith("__"):
                continue
            rx = re.compile(rf"\.{re.escape(name)}\b|['\"]{re.escape(name)}['\"]")
            hits = tree.grep(rx, words=(name,))
            if hits:
                a.unsafe.append(Hazard(c.file, line, (
                    f"{c.name}'s class body binds {name} where its members are not read (a nested class, an import, "
                    f"or under a statement), and {hits[0]} reads .{name}: the reparented {a.cls.name} would not have it"), rule=ID))
