"""DC113 keep-registered-defs: keep every definition of the parent's body that a kept member's decorator registers.

## What it does
A ``def`` in the parent's class body whose decorator is rooted at another member of that body
(``@fmt.register``, ``@fmt.register(int)``, ``@value.setter`` under another name) changes that
member as the class body runs: it registers an implementation on a ``singledispatchmethod``,
builds a new property from it, and so on. Whatever its own name (often a throw-away ``_``, bound
again by each such definition), it is a member in its own right:

- when the member it decorates is kept, the definition is kept too, so that the copy runs every
  registration, in the parent's order (the copy writes all the definitions of a name, each with
  its decorators, after the member they decorate);
- when such a definition is kept, the member its decorator is rooted at is kept too (the copied
  decorator is evaluated in the class's body);
- each definition of a kept name is followed for what it reads (DC103 follows one).

Refused (unsafe) when a kept name is bound by an assignment and then decorated by itself
(``v = property()``, then ``@v.getter def v``: the copy writes the definitions, not the
assignment), and when the copy would register on the class's own object or rebind the class's own
name: the decorator is rooted at a member the class defines itself (in the original, the
parent's definitions registered on the parent's object, which the class's own never saw), or the
class itself defines the definition's name.

## Why
Copying ``fmt`` alone gives a dispatcher without its implementations: ``c.fmt(1)`` falls back to
the generic case, and every check on the patched file passes. Copying only the last ``_`` would
register one of them.

## Known problems
A decorator rooted at a module-level object (``@REGISTRY.register`` in the class body) is not a
member: the definition is kept only on its own evidence, and its copy registers again.

## Fix safety
Keeping is safe; the copy runs the same registrations, in the same order, on the class's copy.
"""

from __future__ import annotations

import ast

from ..model import Evidence, Hazard

ID = "DC113"
NAME = "keep-registered-defs"


def follow(st, name: str) -> None:
    """For the kept member ``name`` of the parent's chain: keep what registers on it, and what its
    own definitions' decorators are rooted at."""
    a = st.a
    m, owner = a.members[name]
    if m.kind == "instance_attribute":
        return
    body_members = {n for n, x in owner.members.items() if x.kind != "instance_attribute"}
    if m.kind in ("method", "property"):
        _assigned_then_decorated(st, owner, name)
    for fn in owner.node.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        roots = {r for r in map(_root, fn.decorator_list) if r in body_members and r != fn.name}
        if fn.name == name:
            for r in sorted(roots):
                if _refused(st, owner, fn, r, own_name=False):
                    continue
                st.need(r, Evidence(owner.file, fn.lineno, f"{owner.name}.{name} (kept) is decorated by {r}", ID))
        elif name in roots and not _refused(st, owner, fn, name):
            st.need(fn.name, Evidence(owner.file, fn.lineno, f"{owner.name}.{fn.name} registers on {name} (kept) as the class body runs", ID))


def _assigned_then_decorated(st, owner, name: str) -> None:
    """Refuse ``v = property()`` followed by ``@v.getter def v``: the copy writes a method's
    definitions, not the assignment its decorator builds on."""
    assigned = False
    for s, stored in owner.body_stores:  # walked once per class, not once per member kept
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and name in stored:
            assigned = True
        elif assigned and isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name and name in map(_root, s.decorator_list):
            why = (f"{owner.name}.{name} is assigned in the class body and then decorated by {name} "
                   f"(@{ast.unparse(s.decorator_list[0])}): a copy of its definitions alone would lose the assignment")
            h = Hazard(owner.file, s.lineno, why, rule=ID)
            if h not in st.a.unsafe:
                st.a.unsafe.append(h)
            return


def _refused(st, owner, fn: ast.FunctionDef, root: str, own_name: bool = True) -> bool:
    """Record why copying ``fn`` would act on the class's own objects; True when it would.
    ``own_name``: whether the class defining ``fn``'s name counts (not for a name kept already)."""
    a = st.a
    if root in st.child_defines:
        why = f"{owner.name}.{fn.name} is decorated by {root}, which {a.cls.name} defines itself: a copy would register on {a.cls.name}'s"
    elif own_name and fn.name in st.child_defines:
        why = f"{owner.name}.{fn.name} registers on {root}; a copy would rebind {a.cls.name}'s own {fn.name}"
    else:
        return False
    h = Hazard(owner.file, fn.lineno, why, rule=ID)
    if h not in a.unsafe:
        a.unsafe.append(h)
    return True


def _root(decorator: ast.expr) -> str | None:
    """The name a decorator expression is rooted at: ``fmt`` for ``fmt.register(int)``."""
    cur = decorator
    while isinstance(cur, (ast.Attribute, ast.Call, ast.Subscript)):
        cur = cur.func if isinstance(cur, ast.Call) else cur.value
    return cur.id if isinstance(cur, ast.Name) else None
