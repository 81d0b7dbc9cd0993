"""DC313 dataclass-parent: read a ``@dataclass`` parent's generated ``__init__`` (and its ``__post_init__``) as the ``__init__`` to slice, or refuse naming the feature that does not carry over.

## What it does
A parent decorated with ``@dataclass`` or ``@dataclasses.dataclass`` alone, bare or with only
``eq=``, ``repr=`` and ``init=True`` as literals, is read as if it had the ``__init__`` the
decorator writes: ``__init__(self, <fields in order>)`` storing each field (``self.f = f``, a
literal default as the default) and then running the parent's own ``__post_init__`` body. That
function is what the slice (DC105-DC107), the verdict and DC601 weigh and inline: the class
keeps only the stores and the ``__post_init__`` statements it needs, and is reparented onto the
parent's base; the parent's ``__post_init__`` is no longer kept as a special method (DC104),
since nothing calls it on the class any more. A field's statement is reported at the line that
declares the field.

Refused (no patch), each with the dataclass feature named:

* options that change construction or the instance: ``frozen``, ``slots``, ``order``,
  ``unsafe_hash``, ``kw_only``, ``match_args``, ``weakref_slot``, ``init=False``, positional
  arguments, a non-literal option value, or other decorators beside it (DC303);
* fields it cannot write out exactly: ``field(...)`` (``default_factory`` needs a sentinel; a
  ``field(default=...)`` copied as a class attribute would be the ``Field``), a default that is
  not a literal (a dataclass evaluates it once, an inlined default at each call), ``InitVar``,
  ``KW_ONLY``; a ``ClassVar`` is not a field and is left as a class attribute;
* a ``__post_init__`` that is decorated, async, a generator, takes parameters besides ``self``,
  returns, uses ``super()``/``__class__``, or reads a name that is also a field's before a top-level
  assignment binds it (after the field parameters it would be the parameter, not a global);
* a base of the parent outside the tree (a builtin such as ``Exception`` is no dataclass), decorated, or defining ``__post_init__`` (its fields
  or hook would be part of the generated ``__init__``);
* a class without an ``__init__`` of its own, a class that is a dataclass itself, or one that
  overrides ``__post_init__`` (the generated ``__init__`` would call the override);
* what the class would lose by leaving the dataclass: the generated ``__eq__`` (and the
  ``__hash__ = None`` that comes with it) unless ``eq=False`` or the class defines ``__eq__``;
  the generated ``__repr__`` unless ``repr=False`` or the class defines ``__repr__`` (and does not
  reach the generated one by name, ``super().__repr__()``); and, anywhere
  in the tree, ``dataclasses.fields``/``asdict``/``astuple``/``replace``/``is_dataclass``,
  ``copy.replace`` or ``__replace__`` (Python 3.13 gives dataclasses one), ``__dataclass_fields__``,
  ``__dataclass_params__``, ``__match_args__``, or a positional class
  pattern (``case Child(x)``) naming the class or the parent. ``--assume-unused Child.__eq__``
  (or ``__repr__``), or ``--keep proven``, takes the user's word for the first two: the report
  lists it as an assumption.

A parent that writes its own ``__init__`` keeps it under the decorator: that ``__init__`` is
sliced as any other, and only what the class would lose is checked. A ``__eq__`` or ``__repr__``
written in the parent is not generated either: DC104 copies it.

## Why
The decorator's ``__init__`` is the construction work a dataclass parent makes its subclasses
run; reading it as source lets the tool skip the tables a ``__post_init__`` builds that the class
never reads. What the decorator adds besides ``__init__`` is behaviour the class would silently
lose once it no longer derives from the dataclass.

## Known problems
``==`` and ``repr()`` on an instance cannot be ruled out by a search (``in`` on a list, ``print``,
an f-string, a logger, ``assertEqual`` all reach them), so a default ``@dataclass`` parent is
refused unless the class defines both, the options turn them off, or the user states them
unused. The ``dataclasses`` functions are searched for anywhere in the tree, not only on
receivers that may be the class: an ``asdict`` of an unrelated dataclass refuses too. Field
order through a base that is a dataclass, ``field(default=...)`` and ``default_factory`` are
not written out yet (refused). The post-conditions (DC703) build the original instance with the
same synthetic ``__init__`` (a dataclass decorator that is not alone is not read there).

## Fix safety
Exact for what it accepts: the synthetic ``__init__`` stores the same fields in the same order
from the same arguments and then runs the same ``__post_init__`` statements on the same
instance; what is refused is not rewritten (exit 3).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from ..ast_util import decorator_name, dotted_name, first_param
from ..index import Member
from ..model import Evidence, Hazard

ID = "DC313"
NAME = "dataclass-parent"
DECORATORS = {"dataclass", "dataclasses.dataclass"}
SAFE_OPTIONS = {"eq", "repr", "init"}
# What the dataclass machinery hands a class besides __init__, by the functions that read it.
REFLECTION = ("__dataclass_fields__", "__dataclass_params__", "__match_args__", "__replace__", "is_dataclass", "asdict", "astuple")
DATACLASS_FUNCTIONS = {"fields", "asdict", "astuple", "replace", "is_dataclass"}
# Columns past any source line: where the synthetic field stores sit on their field's line.
SYNTHETIC_COL = 100_000


@dataclass
class DataclassInit:
    """The parent's generated ``__init__``, as the analysis reads it."""

    fn: ast.FunctionDef
    stores: list[ast.Assign]  # the field stores, in order (synthetic nodes)
    post_init: ast.FunctionDef | None
    fields: list[str] = field(default_factory=list)


def is_dataclass_decorator(module, d: ast.AST) -> bool:
    target = d.func if isinstance(d, ast.Call) else d
    return decorator_name(d) in DECORATORS and module.qualify(target) == "dataclasses.dataclass"


def handles(cls) -> bool:
    """Whether this rule, not DC303, judges the class's decorators: one, a dataclass decorator."""
    decos = cls.node.decorator_list
    return len(decos) == 1 and is_dataclass_decorator(cls.module, decos[0])


def check(st) -> None:
    """For a dataclass parent: record the synthetic ``__init__`` on the analysis, or a refusal."""
    a = st.a
    p = a.parent
    if not handles(p):
        return
    here = (p.file, p.node.decorator_list[0].lineno)
    why = _refusal(st)
    if why is None and "__init__" in p.methods:
        # The decorator keeps an __init__ written in the class: it is sliced as it is.
        why = _losses(st)
        if why is None:
            return
    elif why is None:
        built = synthesize(p)
        if isinstance(built, str):
            why = built
        else:
            why = _losses(st)
            if why is None:
                _adopt(a, built)
                return
    a.unsafe.append(Hazard(*here, f"{p.name} is a @dataclass: {why}", rule=ID))


def _refusal(st) -> str | None:
    a, p, index = st.a, st.a.parent, st.index
    d = p.node.decorator_list[0]
    if isinstance(d, ast.Call):
        if d.args:
            return "the decorator takes positional arguments"
        for k in d.keywords:
            if k.arg not in SAFE_OPTIONS:
                return f"option {k.arg}= changes what the decorator generates beyond __init__, __eq__ and __repr__"
            if not (isinstance(k.value, ast.Constant) and isinstance(k.value.value, bool)):
                return f"option {k.arg}= is not a literal True or False"
            if k.arg == "init" and not k.value.value:
                return "init=False: the decorator writes no __init__"
    if a.cls.node.decorator_list:
        return f"{a.cls.name} is decorated itself (@{decorator_name(a.cls.node.decorator_list[0])}): its own generated members are not in its source"
    if "__init__" not in a.cls.methods:
        return f"{a.cls.name} has no __init__ of its own: it is constructed by the generated one"
    if "__post_init__" in a.cls.members:
        return f"{a.cls.name} overrides __post_init__, which the generated __init__ calls"
    stack, seen = list(p.bases), set()
    while stack:
        q = stack.pop()
        if q in ("builtins.object", "object") or q.startswith("builtins.") or q in seen:
            continue
        seen.add(q)
        b = index.resolve_class(q)
        if b is None:
            return f"its base {q} is outside the tree: whether it adds fields or a __post_init__ is unknown"
        if b.node.decorator_list:
            return f"its base {b.name} is decorated (@{decorator_name(b.node.decorator_list[0])}): it may add fields of its own"
        if "__post_init__" in b.members or "__dataclass_fields__" in b.members:
            return f"its base {b.name} defines {'__post_init__' if '__post_init__' in b.members else '__dataclass_fields__'}"
        stack.extend(b.bases)
    return None


def synthesize(p) -> DataclassInit | str:
    """The ``__init__`` the decorator writes for ``p``, as an ``ast`` function, or why it cannot be written out."""
    post = p.methods.get("__post_init__")
    sn = "self"
    if post is not None:
        if isinstance(post, ast.AsyncFunctionDef) or post.decorator_list:
            return "its __post_init__ is async or decorated"
        args = post.args
        if len(args.posonlyargs + args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs:
            return "its __post_init__ takes parameters besides self (InitVar fields)"
        sn = first_param(post)
        for n in _own_nodes(post):
            if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
                return f"its __post_init__ {'returns' if isinstance(n, ast.Return) else 'yields or awaits'} (line {n.lineno}): its body cannot stand inside another __init__"
            if isinstance(n, ast.Name) and n.id in ("super", "__class__"):
                return f"its __post_init__ uses {n.id} (line {n.lineno})"
    params, defaults, stores, names = [ast.arg(sn)], [], [], []
    for s in p.node.body:
        if not isinstance(s, ast.AnnAssign):
            continue
        if not isinstance(s.target, ast.Name):
            return f"the annotated target at line {s.lineno} is not a name"
        ann = ast.unparse(s.annotation)
        if re.match(r"^['\"]?(typing\.)?ClassVar\b", ann):
            continue
        for word in ("InitVar", "KW_ONLY", "ClassVar"):
            if word in ann:
                return f"field {s.target.id} is annotated {ann} (line {s.lineno}): {word} is not written out"
        name = s.target.id
        if s.value is not None:
            if isinstance(s.value, ast.Call) and dotted_name(s.value.func) in ("field", "dataclasses.field"):
                what = ", ".join(k.arg or "**" for k in s.value.keywords) or "no arguments"
                return f"field {name} uses field({what}) (line {s.lineno}): not written out exactly yet"
            if not _literal(s.value):
                return f"field {name} has a default that is not a literal (line {s.lineno}): the decorator evaluates it once, an inlined default would run at each construction"
            defaults.append(s.value)
        elif defaults:
            return f"field {name} has no default after one that has (line {s.lineno})"
        params.append(ast.arg(name))
        names.append(name)
        stores.append(_store(sn, name, s.lineno, len(stores)))
    if post is not None:
        why = _field_names_free(post, names)
        if why:
            return why
    body = stores + (list(post.body) if post is not None else [])
    if not body:
        return "it has neither fields nor a __post_init__"
    start = post if post is not None else stores[0]
    fn = ast.FunctionDef(name="__init__", args=ast.arguments(posonlyargs=[], args=params, vararg=None, kwonlyargs=[], kw_defaults=[],
                                                             kwarg=None, defaults=defaults),
                         body=body, decorator_list=[], returns=None, type_comment=None, type_params=[])
    fn.lineno, fn.col_offset = start.lineno, start.col_offset
    fn.end_lineno, fn.end_col_offset = (post or stores[-1]).end_lineno, (post or stores[-1]).end_col_offset
    for a_ in params:
        a_.lineno, a_.col_offset, a_.end_lineno, a_.end_col_offset = fn.lineno, SYNTHETIC_COL, fn.lineno, SYNTHETIC_COL
    return DataclassInit(fn, stores, post, names)


def _field_names_free(post: ast.FunctionDef, fields: list[str]) -> str | None:
    """Why a name of ``__post_init__`` that is also a field's would mean something else once its body
    follows the field parameters, or None: a field's name there must be bound by a top-level
    assignment that comes before any other use of it (a global of that name would be the parameter)."""
    for f in fields:
        for i, stmt in enumerate(post.body):
            uses = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == f]
            binds = isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(n, ast.Name) and n.id == f for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                for n in ast.walk(t))
            declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and f in n.names for n in ast.walk(stmt))
            if declared:
                return f"its __post_init__ declares the field name {f} global (line {stmt.lineno})"
            if binds and stmt.value is not None and not any(isinstance(n, ast.Name) and n.id == f for n in ast.walk(stmt.value)):
                break
            if uses:
                return (f"its __post_init__ reads the name {f} (line {uses[0].lineno}), which is also a field: after the field "
                        f"parameters it would be the parameter, not what it is in __post_init__")
    return None


def generated_init(cls) -> ast.FunctionDef | None:
    """The ``__init__`` a lone dataclass decorator writes for ``cls`` where it can be written out
    (for the post-conditions' construction, which reads classes as Python builds them), or None."""
    if "__init__" in cls.methods or not handles(cls):
        return None
    d = cls.node.decorator_list[0]
    if isinstance(d, ast.Call) and any(k.arg == "init" and not (isinstance(k.value, ast.Constant) and k.value.value) for k in d.keywords):
        return None
    built = synthesize(cls)
    return built.fn if isinstance(built, DataclassInit) else None


def _own_nodes(fn):
    """The nodes of a function's body, not of functions or lambdas defined in it."""
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))


def _literal(e: ast.AST) -> bool:
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return isinstance(e.operand, ast.Constant) and isinstance(e.operand.value, (int, float, complex))
    if isinstance(e, ast.Tuple):
        return all(_literal(x) for x in e.elts)
    return False


def _store(sn: str, name: str, line: int, i: int) -> ast.Assign:
    """``self.name = name``, positioned on the field's line past its end (no source statement is there)."""
    node = ast.Assign(targets=[ast.Attribute(value=ast.Name(sn, ast.Load()), attr=name, ctx=ast.Store())],
                      value=ast.Name(name, ast.Load()), type_comment=None)
    for n in ast.walk(node):
        n.lineno, n.end_lineno = line, line
        n.col_offset, n.end_col_offset = SYNTHETIC_COL + 10 * i, SYNTHETIC_COL + 10 * i + 1
    return node


def store_source(sn: str, name: str) -> str:
    return f"{sn}.{name} = {name}\n"


def _losses(st) -> str | None:
    """Why the class would lose generated behaviour it may use, or None."""
    a, p = st.a, st.a.parent
    c = a.cls
    d = p.node.decorator_list[0]
    opts = {k.arg: k.value.value for k in d.keywords} if isinstance(d, ast.Call) else {}
    for member, opt, what in (("__eq__", "eq", "== on two instances compares their fields (and the instances are unhashable)"),
                              ("__repr__", "repr", "repr() and str() list the fields")):
        # Written in the parent, the decorator keeps it and DC104 copies it; in the class, it wins,
        # unless the class reaches the parent's (``super().__repr__()``).
        if not opts.get(opt, True) or member in p.members:
            continue
        if member in c.members:
            reach = next((n for n in ast.walk(c.node) if isinstance(n, ast.Attribute) and n.attr == member), None)
            if reach is None:
                continue
            return f"{c.name} reaches the generated {member} by name ({ast.unparse(reach)}, line {reach.lineno}): after the patch it would be object's"

        if st.knowledge.assumes(c.name, member):
            a.assumptions.setdefault(member, []).append(Evidence(p.file, d.lineno, f"generated {member} of @dataclass {p.name}: {what}", ID, "unknown"))
            continue
        return (f"{c.name} inherits the generated {member} ({what}); an {'==' if opt == 'eq' else 'repr()'} on a {c.name} cannot "
                f"be ruled out, and after the patch it would be object's: pass {opt}=False, define {c.name}.{member}, or "
                f"--assume-unused {c.name}.{member}")
    found = _reflection_use(st)
    if found:
        return f"{found}: the class would no longer be a dataclass"
    return None


def _reflection_use(st) -> str | None:
    """The first use in the tree of what only a dataclass has, as ``file:line: what``."""
    index = st.index
    names = {st.a.cls.name, st.a.parent.name}
    rx = re.compile(r"__dataclass_fields__|__dataclass_params__|__match_args__|__replace__|\bis_dataclass\b|\basdict\b|\bastuple\b"
                    r"|\bdataclasses\b|\bcopy\b|\bcase\b")
    for rel in index.tree.grep(rx, words=REFLECTION + ("dataclasses", "copy", "case")):
        mod = index.module(rel)
        if mod is None:
            continue
        for node in mod.nodes:
            what = None
            if isinstance(node, (ast.Name, ast.Attribute)):
                ident = node.id if isinstance(node, ast.Name) else node.attr
                if ident in ("__dataclass_fields__", "__dataclass_params__", "__match_args__"):
                    what = ident
                elif ident in DATACLASS_FUNCTIONS and mod.qualify(node) == f"dataclasses.{ident}":
                    what = f"dataclasses.{ident}"
                elif ident == "__replace__" or (ident == "replace" and mod.qualify(node) == "copy.replace"):
                    what = "copy.replace (a dataclass's __replace__)"
            elif hasattr(ast, "MatchClass") and isinstance(node, ast.MatchClass) and node.patterns:
                if (dotted_name(node.cls) or "").rsplit(".", 1)[-1] in names:
                    what = f"a positional class pattern {ast.unparse(node.cls)}(...) (reads __match_args__)"
            if what:
                return f"{rel}:{node.lineno} uses {what}"
    return None


def _adopt(a, built: DataclassInit) -> None:
    """Make the analysis read the generated ``__init__``: its stores define the fields as instance
    attributes assigned in ``__init__``, and what ``__post_init__`` assigns is assigned there too."""
    a.dataclass_init = built
    for name, s in zip(built.fields, built.stores):
        m, owner = a.members.get(name, (None, a.parent))
        if m is None or m.kind == "instance_attribute":
            m = Member(name, "instance_attribute", s.lineno) if m is None else replace(m, assigned_in=list(m.assigned_in))
            m.assigned_in.append(("__init__", s.lineno))
            a.members[name] = (m, owner)
    for name, (m, owner) in list(a.members.items()):
        if m.kind == "instance_attribute" and any(meth == "__post_init__" for meth, _ in m.assigned_in) and owner is a.parent:
            a.members[name] = (replace(m, assigned_in=list(m.assigned_in) + [("__init__", l) for meth, l in m.assigned_in if meth == "__post_init__"]), owner)


def init_body(ctx) -> list:
    """The libcst statements of the generated ``__init__``: the field stores (new nodes, placed
    where the analysis placed them) and then ``__post_init__``'s own."""
    import libcst as cst

    from ..ast_util import pos

    built = ctx.a.dataclass_init
    sn = first_param(built.fn)
    out = []
    for name, s in zip(built.fields, built.stores):
        line = cst.parse_statement(store_source(sn, name))
        small = line.body[0]
        ctx.p.pos_of[id(small)] = pos(s)
        ctx.p.lines[id(small)] = line
        out.append(line)
    if built.post_init is not None:
        out.extend(ctx.p.stmt(built.post_init).body.body)
    return out
