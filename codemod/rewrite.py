"""Rewrite a class: inline the kept slice of the parent, copy kept members, reparent.

Works on libcst trees so that everything not rewritten keeps its comments and
layout byte for byte. Statement positions come from the ``ast``-based analysis;
libcst statements get them by pairing the two trees block by block (``Located``).

Rules, each in a function of its own:

* ``inline_init``: C's ``super().__init__(...)`` becomes the kept statements of
  P's ``__init__`` (parameters bound to C's arguments; clashing locals renamed;
  literal arguments folded where the parameter is never reassigned). A class
  without ``__init__`` gets one with P's signature.
* ``fuse_loops``: C's ``self.L[i] = E`` over the same ``range`` as P's
  ``self.L.append(...)`` loop becomes ``self.L.append(E)``; P's loop is dropped.
* ``copy_members``: kept class attributes, methods and properties of P, with
  decorators, docstrings and comments, each under a comment naming its origin.
* ``reparent``: P in C's bases becomes B (``object``: no bases), keeping other
  bases and keywords such as ``metaclass=``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from .analyse import ClassAnalysis, MARKER
from .errors import UnsafeError
from .imports import code_of
from .index import ModuleInfo, bind_arguments, first_param, snake_case, walk
from .slice import pos

Pos = tuple[int, int]


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


@dataclass
class ClassPlan:
    """What one class rewrite did, for the report."""

    inlined: list[str] = field(default_factory=list)


class ClassRewriter:
    def __init__(self, a: ClassAnalysis, cmod: Located, pmod: Located, pinfo: ModuleInfo, base_ref: str | None, parent_index: int):
        self.a = a
        self.parent_index = parent_index  # which of C's bases is P
        self.c = cmod
        self.p = pmod
        self.pinfo = pinfo
        self.base_ref = base_ref  # how C's module spells B (None: object, no base)
        self.plan = ClassPlan()
        self.pname = a.parent.name

    # ---- the whole class -------------------------------------------------------
    def rewrite(self, cd: cst.ClassDef) -> cst.ClassDef:
        body = list(cd.body.body)
        init_ast = self.a.cls.methods.get("__init__")
        inlined = self.init_block()
        if init_ast is not None:
            body = [self.rewrite_init(s, inlined) if self._is(s, init_ast) else s for s in body]
        elif (inlined or self.a.parent_init is not None) and not self.a.generated_init:
            body = self.add_init(body, inlined)
        body = self.copy_members(body)
        cd = cd.with_changes(body=cd.body.with_changes(body=body))
        return self.reparent(cd, marked=bool(inlined))

    def _is(self, stmt: cst.BaseStatement, fn: ast.FunctionDef) -> bool:
        return self.c.stmt(fn) is stmt

    # ---- init ----------------------------------------------------------------
    def init_block(self) -> list[cst.BaseStatement]:
        """P.__init__'s kept statements, bound to C's call, ready to stand in for super().__init__()."""
        a = self.a
        pinit = a.parent_init
        sl = a.init_slice
        if pinit is None or sl is None or not sl.kept:
            return []
        folded = self._folded(pinit)
        stmts = self._filter(self.p.stmt(pinit).body.body, folded)
        if not stmts:
            return []
        mapping, prelude = self._bindings(pinit, stmts)
        stmts = [rename(s, mapping) for s in prelude + stmts]
        stmts = [self._retarget_annotations(s) for s in stmts]
        owner = a.parent_init_owner
        note = f"{MARKER} {owner.name}.__init__ ({owner.file.rsplit('/', 1)[-1]}): only what {a.cls.name} uses"
        first = stmts[0]
        stmts[0] = first.with_changes(leading_lines=[comment_line(note)] + [l for l in first.leading_lines if l.comment is not None])
        kept = sl.kept_count
        self.plan.inlined.append(f"{kept} of {sl.total} statements of `{owner.name}.__init__` (in place of `super().__init__(...)`)")
        return stmts

    def _folded(self, pinit: ast.FunctionDef) -> dict[int, bool]:
        """Line of each ``if`` whose test is constant for C -> which branch runs."""
        return dict(self.a.init_slice.folded)

    def _filter(self, stmts, folded: dict[int, bool]) -> list[cst.BaseStatement]:
        kept = self.a.init_slice.kept
        kept_simple = {p for p in kept}
        kept_lines = {p[0] for p in kept}
        out: list[cst.BaseStatement] = []
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                smalls = [self._read_through(s) for s in st.body if self._pos_of(s) in kept_simple]
                if smalls:
                    smalls[-1] = smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                    out.append(st.with_changes(body=smalls))
                continue
            line = self._line_of(st)
            if line not in kept_lines:
                continue
            if isinstance(st, cst.If) and line in folded:
                branch = st.body.body if folded[line] else _else_body(st)
                inner = self._filter(branch, folded)
                if inner:
                    comments = [l for l in st.leading_lines if l.comment is not None]
                    inner[0] = inner[0].with_changes(leading_lines=comments + list(inner[0].leading_lines))
                out.extend(inner)
                continue
            out.append(self._filter_compound(st, folded))
        return out

    def _filter_compound(self, st, folded):
        def block(b):
            inner = self._filter(b.body, folded) or [cst.SimpleStatementLine([cst.Pass()])]
            return b.with_changes(body=inner)

        if isinstance(st, cst.If):
            new = st.with_changes(body=block(st.body))
            if isinstance(st.orelse, cst.If):
                if self._line_of(st.orelse) in {p[0] for p in self.a.init_slice.kept}:
                    return new.with_changes(orelse=self._filter_compound(st.orelse, folded))
                return new.with_changes(orelse=None)
            if isinstance(st.orelse, cst.Else):
                inner = self._filter(st.orelse.body.body, folded)
                return new.with_changes(orelse=st.orelse.with_changes(body=st.orelse.body.with_changes(body=inner)) if inner else None)
            return new
        if isinstance(st, (cst.For, cst.While)):
            new = st.with_changes(body=block(st.body))
            if st.orelse is not None:
                inner = self._filter(st.orelse.body.body, folded)
                new = new.with_changes(orelse=st.orelse.with_changes(body=st.orelse.body.with_changes(body=inner)) if inner else None)
            return new
        if isinstance(st, cst.With):
            return st.with_changes(body=block(st.body))
        if isinstance(st, (cst.Try, cst.TryStar)):
            handlers = [h.with_changes(body=block(h.body)) for h in st.handlers]
            new = st.with_changes(body=block(st.body), handlers=handlers)
            if st.orelse is not None:
                inner = self._filter(st.orelse.body.body, folded)
                new = new.with_changes(orelse=st.orelse.with_changes(body=st.orelse.body.with_changes(body=inner)) if inner else None)
            if st.finalbody is not None:
                new = new.with_changes(finalbody=st.finalbody.with_changes(body=block(st.finalbody.body)))
            return new
        return st

    def _read_through(self, small):
        p = self._pos_of(small)
        if p in self.a.read_through and isinstance(small, cst.Assign):
            return small.with_changes(value=cst.parse_expression(self.a.read_through[p][1]))
        return small

    def _pos_of(self, small) -> Pos | None:
        return self.p.pos_of.get(id(small))

    def _line_of(self, st) -> int | None:
        return self.p.line_of.get(id(st))

    def _bindings(self, pinit: ast.FunctionDef, stmts) -> tuple[dict[str, cst.BaseExpression], list[cst.BaseStatement]]:
        """Bind P.__init__'s parameters (and self) to what C passes; rename clashing locals."""
        a = self.a
        sl = a.init_slice
        mapping: dict[str, cst.BaseExpression] = {}
        prelude: list[cst.BaseStatement] = []
        psn = first_param(pinit)
        cinit = a.cls.methods.get("__init__")
        csn = first_param(cinit) if cinit is not None else psn
        if psn != csn:
            mapping[psn] = cst.Name(csn)
        if cinit is None:
            return mapping, prelude
        call = a.super_init_call
        params = [p.arg for p in pinit.args.posonlyargs + pinit.args.args][1:]
        assigned = _assigned_names(pinit, sl)
        child_names = _clashing_names(cinit, a.super_init_stmt)
        # Locals of the slice that C's __init__ also uses get a distinct name.
        suffix = snake_case(self.pname)
        for name in sorted(assigned - set(params)):
            if name in child_names:
                mapping[name] = cst.Name(f"{name}_{suffix}")
        free = set(sl.free_locals) & (set(params) | {p.arg for p in pinit.args.kwonlyargs})
        if not free:
            return mapping, prelude
        binding = bind_arguments(pinit, call)
        if binding.opaque:
            raise UnsafeError(f"{a.cls.name} forwards *args/**kwargs to {self.pname}.__init__, so its parameters cannot be bound")
        bound, defaults = binding.bound, binding.defaults
        cmod_text = self.a.cls.module.text
        for name in sorted(free):
            expr = bound.get(name, defaults.get(name))
            if expr is None:
                raise UnsafeError(f"{self.pname}.__init__ parameter {name!r} is not bound by {a.cls.name}'s super().__init__ call")
            source = ast.get_source_segment(cmod_text if name in bound else self.pinfo.text, expr)
            if isinstance(expr, ast.Name) and expr.id == name:
                continue
            if name not in assigned and (isinstance(expr, ast.Constant) or isinstance(expr, ast.Name)):
                mapping[name] = cst.parse_expression(source)  # fold: the parameter is never reassigned
                continue
            local = name if name not in child_names else f"{name}_{suffix}"
            if local != name:
                mapping[name] = cst.Name(local)
            prelude.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(local))], cst.parse_expression(source))]))
        return mapping, prelude

    def _retarget_annotations(self, stmt):
        """``self.L: List[Old] = []`` whose elements a fused loop now builds as ``New``: annotate ``List[New]``."""
        for f in self.a.fusions:
            old = _callee(f.parent_loop.body[0].value.args[0])
            new = _callee(f.child_store.value)
            if not (old and new) or old == new:
                continue
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.AnnAssign):
                ann = stmt.body[0]
                tgt = ann.target
                if isinstance(tgt, cst.Attribute) and tgt.attr.value == f.attr:
                    new_ann = ann.annotation.visit(_Renamer({old: cst.Name(new)}))
                    stmt = stmt.with_changes(body=[ann.with_changes(annotation=new_ann)])
        return stmt

    def rewrite_init(self, fn: cst.FunctionDef, inlined: list[cst.BaseStatement]) -> cst.FunctionDef:
        a = self.a
        target = self.c.stmt(a.super_init_stmt) if a.super_init_stmt is not None else None
        line = self.c.lines.get(id(target)) if target is not None else None
        fusion_stores = {id(self.c.stmt(f.child_store)): f for f in a.fusions}

        def block(stmts):
            out = []
            for st in stmts:
                if st is line:
                    if inlined:
                        first = inlined[0]
                        carried = [l for l in st.leading_lines]
                        out.append(first.with_changes(leading_lines=carried + list(first.leading_lines)))
                        out.extend(inlined[1:])
                    continue
                if isinstance(st, cst.SimpleStatementLine):
                    smalls = [fusion_stores.get(id(s)) and _append_form(s) or s for s in st.body]
                    out.append(st.with_changes(body=smalls))
                    continue
                out.append(_map_blocks(st, block))
            return out

        body = block(list(fn.body.body)) or [cst.SimpleStatementLine([cst.Pass()])]
        for f in a.fusions:
            self.plan.inlined.append(
                f"`self.{f.attr}[i] = ...` at line {f.child_store.lineno} builds the list with `append`: "
                f"{self.pname}'s loop at line {f.parent_loop.lineno} built elements that were overwritten before any read"
            )
        return fn.with_changes(body=fn.body.with_changes(body=body))

    def add_init(self, body, inlined):
        pinit = self.a.parent_init
        params = self.p.stmt(pinit).params
        fn = cst.FunctionDef(
            name=cst.Name("__init__"),
            params=params,
            body=cst.IndentedBlock(inlined or [cst.SimpleStatementLine([cst.Pass()])]),
            leading_lines=[BLANK] if any(isinstance(s, (cst.FunctionDef, cst.SimpleStatementLine)) for s in body) else [],
        )
        self.plan.inlined.append(f"a new `__init__` with {self.pname}.__init__'s signature")
        if len(body) == 1 and _is_pass_or_doc(body[0]) == "pass":
            return [fn.with_changes(leading_lines=[])]
        idx = next((i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)), len(body))
        fn = fn.with_changes(leading_lines=[BLANK] if idx > 0 else [])
        rest = body[idx:]
        if rest and not any(l.comment is None for l in rest[0].leading_lines):
            rest[0] = rest[0].with_changes(leading_lines=[BLANK] + list(rest[0].leading_lines))
        return body[:idx] + [fn] + rest

    # ---- members -------------------------------------------------------------
    def copy_members(self, body):
        a = self.a
        attrs, methods = [], []
        for name in sorted(a.kept, key=lambda n: a.members[n][0].line):
            m, owner = a.members[name]
            if owner.module.rel != self.pinfo.rel:
                raise UnsafeError(f"{name} comes from {owner.name} in another module; only one parent module at a time is supported")
            origin = f"{MARKER} {owner.name}.{name}"
            if m.kind == "class_attribute":
                node = self.c_line_of_parent(m.node)
                attrs.append(node.with_changes(leading_lines=[BLANK, comment_line(origin)] + [l for l in node.leading_lines if l.comment is not None]))
                self.plan.inlined.append(f"class attribute `{name}` (its value differs from the new base's)")
            elif m.kind in ("method", "property"):
                nodes = [n for n in owner.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
                for i, n in enumerate(nodes):
                    if _mangled(n):
                        raise UnsafeError(f"{owner.name}.{name} uses a name-mangled attribute ({_mangled(n)}); copying it into {a.cls.name} would change its meaning")
                    node = self.p.stmt(n)
                    lead = [BLANK] + ([comment_line(origin)] if i == 0 else []) + [l for l in node.leading_lines if l.comment is not None]
                    methods.append(node.with_changes(leading_lines=lead))
                self.plan.inlined.append(f"{m.kind} `{name}`")
        if attrs:
            idx = 0
            while idx < len(body) and not isinstance(body[idx], (cst.FunctionDef, cst.ClassDef)):
                idx += 1
            body = body[:idx] + attrs + body[idx:]
        return body + methods

    def c_line_of_parent(self, stmt: ast.stmt):
        small = self.p.stmt(stmt)
        return self.p.lines[id(small)]

    # ---- bases ---------------------------------------------------------------
    def reparent(self, cd: cst.ClassDef, marked: bool) -> cst.ClassDef:
        idx = self.parent_index
        positional = list(cd.bases)
        keep = list(positional)
        if self.base_ref is None or any(code_of(b.value) == self.base_ref for b in positional):
            del keep[idx]
        else:
            keep[idx] = positional[idx].with_changes(value=cst.parse_expression(self.base_ref))
        if keep:
            keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT) if not cd.keywords else keep[-1]
        if not keep and not cd.keywords:
            cd = cd.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT)
        else:
            cd = cd.with_changes(bases=keep)
        if not marked:
            # Nothing was inlined into __init__: leave the trace on the class line, so a second run knows.
            cd = cd.with_changes(body=cd.body.with_changes(header=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(f"# decouple: decoupled from {self.pname}"))))
        return cd



def _append_form(assign: cst.Assign) -> cst.Expr:
    """``self.L[i] = E`` -> ``self.L.append(E)``."""
    target = assign.targets[0].target
    return cst.Expr(cst.Call(func=cst.Attribute(value=target.value, attr=cst.Name("append")), args=[cst.Arg(assign.value)]))


def _map_blocks(st, fn):
    """Apply ``fn`` to every statement block inside a compound statement."""
    if isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler)):
        changes = {}
        body = getattr(st, "body", None)
        if isinstance(body, cst.IndentedBlock):
            changes["body"] = body.with_changes(body=fn(list(body.body)) or [cst.SimpleStatementLine([cst.Pass()])])
        orelse = getattr(st, "orelse", None)
        if orelse is not None:
            changes["orelse"] = _map_blocks(orelse, fn)
        if isinstance(st, (cst.Try, cst.TryStar)):
            changes["handlers"] = [_map_blocks(h, fn) for h in st.handlers]
            if st.finalbody is not None:
                changes["finalbody"] = _map_blocks(st.finalbody, fn)
        return st.with_changes(**changes)
    return st


def _else_body(st: cst.If):
    if isinstance(st.orelse, cst.Else):
        return list(st.orelse.body.body)
    if isinstance(st.orelse, cst.If):
        return [st.orelse.with_changes(leading_lines=[])]
    return []


def _assigned_names(pinit: ast.FunctionDef, sl) -> set[str]:
    out = set()
    for node in walk(pinit):
        if isinstance(node, ast.stmt) and pos(node) in sl.kept:
            for n in walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.add(n.id)
    return out


def _clashing_names(fn: ast.FunctionDef, super_stmt: ast.stmt | None) -> set[str]:
    """Names the inlined slice must not rebind: C's parameters and the locals C binds before
    super().__init__ (C may read them later), and the globals C reads after it."""
    args = fn.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {a.arg for a in (args.vararg, args.kwarg) if a}
    bound = {n.id for n in walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | params
    before, after = set(params), set()
    for stmt in fn.body:
        target = after if (super_stmt is not None and _follows(fn, super_stmt, stmt)) else before
        for n in walk(stmt):
            if isinstance(n, ast.Name):
                target.add(n.id)
    globals_read_after = {n for n in after if n not in bound}
    return (before & bound) | globals_read_after


def _follows(fn: ast.FunctionDef, marker: ast.stmt, stmt: ast.stmt) -> bool:
    return (stmt.lineno, stmt.col_offset) > (marker.lineno, marker.col_offset)


def _callee(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Call):
        f = expr.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None


def _mangled(fn: ast.FunctionDef) -> str:
    for n in walk(fn):
        if isinstance(n, ast.Attribute) and n.attr.startswith("__") and not n.attr.endswith("__"):
            return n.attr
    return ""


def _is_pass_or_doc(st) -> str | None:
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
        s = st.body[0]
        if isinstance(s, cst.Pass):
            return "pass"
        if isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString)):
            return "doc"
    return None


# ---- a whole module ------------------------------------------------------------------


@dataclass
class ModulePatch:
    rel: str
    before: str
    after: str
    plans: dict[str, ClassPlan]
    imports_added: list[str] = field(default_factory=list)
    imports_removed: list[str] = field(default_factory=list)
    imports_kept: list[str] = field(default_factory=list)  # unused here now, but re-exported or imported from here elsewhere


def base_reference(index, a: ClassAnalysis) -> tuple[str | None, tuple[str, str] | None]:
    """How C's module spells the new base, and the import it needs (module, name), if any."""
    if a.base in ("builtins.object", "object"):
        return None, None
    cmod = a.cls.module
    for local, q in cmod.imports.items():
        if q == a.base:
            return local, None
    module, _, name = a.base.rpartition(".")
    if module == cmod.name:
        return name, None
    target = index.resolve_class(a.base)
    if target is not None and target.module.name != module:
        module = target.module.name
    return name, (module, name)


def rewrite_module(index, analyses: list[ClassAnalysis]) -> ModulePatch:
    """Rewrite every decoupled class of one module, then fix the module's imports."""
    from .imports import add_import, add_missing, remove_unused

    cinfo = analyses[0].cls.module
    before = cinfo.text
    here = Located.parse(before, cinfo.tree)
    parents: dict[str, Located] = {cinfo.rel: here}
    rewriters: dict[int, ClassRewriter] = {}
    needed_bases = []
    for a in analyses:
        pinfo = a.parent.module
        if pinfo.rel not in parents:
            parents[pinfo.rel] = Located.parse(pinfo.text, pinfo.tree)
        ref, imp = base_reference(index, a)
        if imp:
            needed_bases.append(imp)
        pidx = next(i for i, b in enumerate(a.cls.bases) if index._same_class(b, a.parent))
        node = here.compound.get(a.cls.node.lineno)
        if not isinstance(node, cst.ClassDef):
            node = next(n for n in here.compound.values() if isinstance(n, cst.ClassDef) and n.name.value == a.cls.name)
        rewriters[id(node)] = ClassRewriter(a, here, parents[pinfo.rel], pinfo, ref, pidx)

    class Apply(cst.CSTTransformer):
        def visit_SimpleStatementLine(self, node):
            return False  # no class inside; expressions are most of the nodes of a module

        def leave_ClassDef(self, original, updated):
            rw = rewriters.get(id(original))
            return rw.rewrite(original) if rw is not None else updated

    tree = here.module.visit(Apply())
    for module, name in needed_bases:
        tree = add_import(tree, module, name, here=(cinfo.name, cinfo.is_package))
    sources = [a.parent.module for a in analyses]
    tree, added = add_missing(tree, before, cinfo.rel, cinfo, sources)
    text, removed, kept = remove_unused(tree, before, cinfo.rel, cinfo, index)
    plans = {rw.a.cls.name: rw.plan for rw in rewriters.values()}
    return ModulePatch(cinfo.rel, before, text, plans, added, removed, kept)
