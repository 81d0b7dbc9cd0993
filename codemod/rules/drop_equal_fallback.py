"""DC154 equal-fallback: under --keep proven, drop a member whose outside reads, through getattr with a fallback, compute the same without it.

## What it does
For a use DC108 finds as ``getattr(x, "X", fallback)``, follows the value the reader's own
expression makes of it, on an instance of the class both with the member (each value the
parent's code stores in it) and without it (``fallback``), and drops the use when both give the
same result. The value may flow, directly or through a local name bound once and read nowhere
else, into ``getattr(v, "Y", D)`` (repeatedly) and end in a comparison with a literal
(``==``, ``!=``, ``is``, ``is not``), or in a literal ``D`` itself:

    prefill = getattr(backend, "prefill_backend", backend)
    if getattr(prefill, "fa_impl_ver", None) == 4: ...

With the member, ``prefill`` is the string ``"fa2"``, which has no ``fa_impl_ver``: ``None == 4``
is False. Without it, ``prefill`` is the backend itself, and no instance of the class carries
``fa_impl_ver`` (none of its hierarchy defines it, answers any name, or stores by computed name,
and no code stores it on other objects: ``type_attrs.Attributes.never_has``): again False. The
proof is written into report.json (``dropped_on_proof``) and report.md, with each reader.

It holds only where:
- every store of ``X`` in the parent's code is ``self.X = <literal>`` (a ``str``, number,
  ``bytes``, ``bool`` or ``None``, whose attributes Python fixes), and no code elsewhere stores
  ``X`` on an object that may be the class;
- ``fallback`` is a literal, or the receiver itself spelt the same way (a name or a dotted name):
  both are evaluated in either version, so only the value differs;
- a ``getattr`` on the way has a literal name and a literal default; the comparison is with a
  literal. Anything else (the value used directly, passed on, called, a fallback another
  expression, a default that is not a literal) keeps the member.

## Why
Readers that probe an optional attribute with a default (``getattr(b, "prefill_backend", b)``)
keep a member the class never needed: on SGLang the string ``"fa2"`` stored for FlashInfer's
planner, which no code of the decoupled class reads.

## Known problems
Only under ``--keep proven``: the proof takes the tree as the whole program (code outside it
could give the class the second attribute), and a dotted receiver read twice is taken to give
the same object both times (a property there could answer another). The default keeps the
member. A reader that does anything but compare the final value with a literal keeps it too,
even where the result would be the same (``bool(v)``, ``isinstance``).

## Fix safety
The store is dropped; each reader computes the same value as before on every instance of the
class, as the proof in the report shows, given the assumptions above.
"""

from __future__ import annotations

import ast
import operator
import re

from ..ast_util import binding_count, dotted_name, first_param, walk
from ..index import scope_of

ID = "DC154"
NAME = "equal-fallback"

_CONSTANTS = (str, int, float, complex, bytes, bool, type(None))
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_INSTANCE = object()  # the abstract value "the instance of the class the reader was given"
_PLAIN_BASES = {"builtins.object", "object", "abc.ABC", "ABC"}


def proof(st, mod, call: ast.Call, name: str) -> str | None:
    """Why ``call``, ``getattr(x, "name", fallback)``, computes the same with the member as
    without it on an instance of the class (None when that cannot be shown)."""
    if len(call.args) != 3 or call.keywords:
        return None
    recv, _, fallback = call.args
    without = _fallback_value(recv, fallback)
    have = st.flow.may_have
    if without is None or have is None:
        return None
    ends = _ends(mod, call)
    if not ends:
        return None
    if name not in st.stored_literals:  # one search of the tree per member, however many readers
        st.stored_literals[name] = _stored_values(st, name)
    stored = st.stored_literals[name]
    if not stored:
        return None
    lacking: set[str] = set()

    def never_has(attr: str) -> bool:
        lacking.add(attr)
        return st.flow.types.never_has(attr, have)

    decided: dict[int, object] = {}
    said = []
    for steps, end in ends:
        results = set()
        for start in [*stored, without[0]]:
            value = _follow(start, steps, never_has, lambda k, on_instance: _not_instance(st, mod, k, on_instance))
            if value is _UNKNOWN:
                return None
            results.add((type(value), repr(value)))  # repr: 0.0 and -0.0 are equal, not the same
        if len(results) != 1:
            return None
        decided[id(end)] = next(iter(results))
        said.append(f"`{ast.unparse(end)}` is {decided[id(end)][1]}")
    if not all(_unreachable(mod, read, decided) for read in ends.unfollowed):
        return None
    values = " or ".join(repr(v) for v in stored)
    lines = sorted({r.lineno for r in ends.unfollowed})
    skipped = (f"; its reads at {'line' if len(lines) == 1 else 'lines'} {', '.join(map(str, lines))} run on neither side"
               if lines else "")
    kin = f" (no instance of {st.a.cls.name} has {', '.join(sorted(lacking))})" if lacking else ""
    return f"with it the value is {values}, without it {without[1]}; either way " + ", ".join(said) + kin + skipped


class _Ends(list):
    """The reads the proof follows, each (steps, end); ``unfollowed``: the others, which must lie
    where a followed read's result keeps them from running."""

    unfollowed: list

_UNKNOWN = object()


def _stored_values(st, name: str) -> list | None:
    """The literal values the parent's code stores in ``self.name``, when that is all any code
    stores there on what may be an instance of the class."""
    a = st.a
    member = a.members.get(name)
    if member is None or member[0].kind != "instance_attribute":
        return None
    values = []
    for c in a.chain:
        for fn in c.methods.values():
            selfname = first_param(fn)
            for node in walk(fn):
                if isinstance(node, ast.Attribute) and node.attr == name and not isinstance(node.ctx, ast.Load):
                    assign = c.module.parents.get(id(node))
                    if not (isinstance(node.ctx, ast.Store) and isinstance(assign, ast.Assign) and assign.targets == [node]
                            and isinstance(node.value, ast.Name) and node.value.id == selfname):
                        return None
                    try:
                        value = ast.literal_eval(assign.value)
                    except ValueError:
                        return None
                    if type(value) not in _CONSTANTS:
                        return None
                    values.append(value)
    if not values or _stored_elsewhere(st, name):
        return None
    return list(dict.fromkeys(values))


def _stored_elsewhere(st, name: str) -> bool:
    """Whether code outside the parent's stores ``name`` (``x.name = ...``, ``setattr(x, "name",
    ...)``, ``del``) on an object that may be an instance of the class."""
    from ..model import Receiver

    chain = {id(c.node) for c in st.a.chain}
    for rel in st.index.tree.grep(lambda text: name in text, words=(name,)):
        mod = st.index.module(rel)
        if mod is None:
            return True
        for node in mod.nodes:
            if isinstance(node, ast.Attribute) and node.attr == name and not isinstance(node.ctx, ast.Load):
                recv = node.value
            elif (isinstance(node, ast.Call) and dotted_name(node.func) in ("setattr", "delattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant) and node.args[1].value == name):
                recv = node.args[0]
            else:
                continue
            if isinstance(node, ast.Attribute) and any(id(anc) in chain for anc in _ancestors(mod, node)):
                continue  # the parent's own stores: _stored_values read each
            if st.flow.classify(mod, recv, node)[0] != Receiver.NO:
                return True
    return False


def _ancestors(mod, node):
    cur = mod.parents.get(id(node))
    while cur is not None:
        yield cur
        cur = mod.parents.get(id(cur))


def _fallback_value(recv: ast.AST, fallback: ast.AST):
    """(abstract value, how the proof says it) of ``fallback`` on an instance of the class."""
    if isinstance(fallback, ast.Constant) and type(fallback.value) in _CONSTANTS:
        return fallback.value, repr(fallback.value)
    if dotted_name(recv) is not None and ast.dump(recv) == ast.dump(fallback):
        return _INSTANCE, f"`{ast.unparse(recv)}` itself"
    return None


def _ends(mod, call: ast.Call) -> _Ends | None:
    """Each way the reader consumes the value: (the steps, the expression that ends them). A step
    is an attribute name and its default (``getattr(v, "Y", D)``), ``isinstance``, ``not``, or a
    comparison with a literal."""
    out = _Ends()
    out.unfollowed = []
    parent = mod.parents.get(id(call))
    if isinstance(parent, ast.Assign) and parent.value is call:
        if len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
            return None
        local = parent.targets[0].id
        scope = scope_of(mod, call)
        if binding_count(scope, local) != 1:
            return None
        reads = []
        for node in walk(scope):
            if isinstance(node, ast.Name) and node.id == local and isinstance(node.ctx, ast.Load):
                reads.append(node)
            elif isinstance(node, (ast.Global, ast.Nonlocal)) and local in node.names:
                return None
            elif (node is not scope and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
                  and any(isinstance(n, ast.Name) and n.id == local for n in walk(node))):
                return None  # read in a nested scope, which may run at any time: not followed
        if not reads or any(not _after(parent, r) for r in reads):
            return None
        for r in reads:
            end = _steps(mod, r)
            if end is None:
                out.unfollowed.append(r)
            else:
                out.append(end)
        return out if out else None
    end = _steps(mod, call)
    if end is None:
        return None
    out.append(end)
    return out


def _after(assign: ast.Assign, read: ast.Name) -> bool:
    return (read.lineno, read.col_offset) > (assign.end_lineno, assign.end_col_offset)


def _unreachable(mod, read: ast.AST, decided: dict) -> bool:
    """Whether ``read`` runs only where a decided test (``decided``: id -> its (type, repr), the
    same with the member and without) says it does not: inside ``if T:`` with T false (or its
    ``else`` with T true), or after ``if T: ... return`` with T true, in the same function."""
    child = read
    for anc in _ancestors(mod, read):
        if isinstance(anc, ast.Lambda):
            return False
        if isinstance(anc, ast.If) and id(anc.test) in decided:
            truth = decided[id(anc.test)]
            if (child in anc.body and truth == (bool, "False")) or (child in anc.orelse and truth == (bool, "True")):
                return True
        for block in _blocks(anc):
            if child in block:
                for earlier in block[:block.index(child)]:
                    if (isinstance(earlier, ast.If) and decided.get(id(earlier.test)) == (bool, "True")
                            and earlier.body and isinstance(earlier.body[-1], ast.Return)
                            and not any(isinstance(a, ast.Try) or _try_star(a) for a in _ancestors(mod, earlier))):
                        return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return False
        child = anc
    return False


def _blocks(node: ast.AST) -> list[list]:
    return [b for b in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")) if isinstance(b, list)]


def _try_star(node: ast.AST) -> bool:
    return type(node).__name__ == "TryStar"


def _not_instance(st, mod, cls_expr: ast.AST, on_instance: bool) -> bool:
    """Whether ``isinstance(v, cls_expr)`` is False for every literal (``on_instance`` False) or
    every instance of the class (True): ``cls_expr`` names a class of the tree, no class of whose
    hierarchy has a metaclass other than ABC's, hooks ``isinstance``, or is registered as a virtual
    base; and it is not among the ancestors of the class or of any subclass."""
    if dotted_name(cls_expr) is None:
        return False
    k = st.index.resolve_class(mod.qualify(cls_expr))
    if k is None:
        return False
    family = [k, *st.index.subclasses_deep(k)]
    for c in [k, *(st.index.resolve_class(q) for q in st.index.ancestors(k))]:
        if c is None:
            continue  # a base outside the tree: only the harmless ones pass below
        if any(kw.arg == "metaclass" for kw in c.node.keywords) or {"__subclasshook__", "__instancecheck__"} & set(c.members):
            return False
    outside = [q for q in st.index.ancestors(k) if st.index.resolve_class(q) is None]
    if any(q not in _PLAIN_BASES for q in outside):
        return False
    names = "|".join(re.escape(c.name) for c in family)
    if st.index.tree.grep(re.compile(rf"\b(?:{names})\.register\b"), words=tuple(c.name for c in family)):
        return False
    if not on_instance:
        return True
    target = st.a.cls
    for c in [target, *st.index.subclasses_deep(target)]:
        if c is k or any(st.index._same_class(q, k) for q in st.index.ancestors(c)):
            return False
    return True

def _steps(mod, node: ast.AST) -> tuple[list, ast.AST] | None:
    """How the reader consumes ``node``'s value: (the steps, the expression that ends them)."""
    steps: list = []
    while True:
        parent = mod.parents.get(id(node))
        if (isinstance(parent, ast.Call) and dotted_name(parent.func) == "getattr" and len(parent.args) == 3
                and not parent.keywords and parent.args[0] is node and isinstance(parent.args[1], ast.Constant)
                and isinstance(parent.args[1].value, str) and _literal(parent.args[2]) is not _UNKNOWN):
            steps.append(parent.args[1].value)
            steps.append(("default", _literal(parent.args[2])))
            node = parent
            continue
        if (isinstance(parent, ast.Compare) and len(parent.ops) == 1 and type(parent.ops[0]) in _COMPARE
                and _literal(parent.left if parent.comparators[0] is node else parent.comparators[0]) is not _UNKNOWN):
            other = parent.left if parent.comparators[0] is node else parent.comparators[0]
            steps.append((type(parent.ops[0]), _literal(other), parent.left is node))
            node = parent
            break
        if (isinstance(parent, ast.Call) and dotted_name(parent.func) == "isinstance" and len(parent.args) == 2
                and not parent.keywords and parent.args[0] is node and not steps):
            steps.append(("isinstance", parent.args[1]))
            node = parent
            break
        if steps and steps[-1][0] == "default":
            return steps, node
        return None
    while isinstance(mod.parents.get(id(node)), ast.UnaryOp) and isinstance(mod.parents[id(node)].op, ast.Not):
        node = mod.parents[id(node)]
        steps.append(("not",))
    return steps, node


def _literal(node: ast.AST):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN
    return value if type(value) in _CONSTANTS else _UNKNOWN


def _follow(value, steps: list, never_has, isinstance_false):
    """The reader's result for ``value``: ``_UNKNOWN`` where it cannot be told."""
    i = 0
    while i < len(steps):
        step = steps[i]
        if isinstance(step, str):
            default = steps[i + 1][1]
            if value is _INSTANCE:
                if not never_has(step):
                    return _UNKNOWN
                value = default
            else:
                value = getattr(value, step, default)  # a literal's attributes are Python's own
                if type(value) not in _CONSTANTS:
                    return _UNKNOWN
            i += 2
            continue
        if step[0] == "not":
            if type(value) is not bool:
                return _UNKNOWN
            value = not value
            i += 1
            continue
        if step[0] == "isinstance":
            if not isinstance_false(step[1], value is _INSTANCE):
                return _UNKNOWN
            value = False
            i += 1
            continue
        op, other, left = step
        if value is _INSTANCE:
            if op in (ast.Is, ast.IsNot):
                return _COMPARE[op](object(), other)  # an instance is none of the literals
            return _UNKNOWN  # == on the instance runs its __eq__
        return _COMPARE[op](value, other) if left else _COMPARE[op](other, value)
    return value if value is not _INSTANCE else _UNKNOWN
