"""The rewrite stage: apply the rewrite rules to every decoupled class of a module, then fix its imports.

Works on libcst trees so that everything not rewritten keeps its comments and layout byte
for byte; statement positions come from the ``ast``-based analysis (``cst_util.Located``).
Per class, in order: DC601 inline the kept slice of the parent's ``__init__`` (with DC602
folded branches, DC603 fused loops and DC604 read-through values), DC609 redirect ``super().m()``
fallbacks to private copies, DC605 copy the kept members (DC611 leaves out the stale comments of
all that is copied), DC606 reparent; per module, DC607 imports, DC610 the target's formatting
of the changed lines and DC611 the comments to review.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from .check import findings
from .ast_util import source_segment
from .cst_util import Located, ModuleCode, comment_line, rename
from .model import ClassAnalysis, ClassPlan, ModulePatch
from .index import ModuleInfo, enclosing
from .rules import (
    rewrite_bind_names, rewrite_copy_members, rewrite_flag_comments, rewrite_format, rewrite_init_locals, rewrite_inline_init, rewrite_place_reads, rewrite_reparent,
    rewrite_super_fallback, unsafe_generic_base, unsafe_slots,
)
from .rules.verdict_already_decoupled import MARKER
from .rules.rewrite_imports import add_import, add_missing, remove_unused


@dataclass
class ClassRewrite:
    """What the rules need to rewrite one class: its analysis and both modules, parsed."""

    a: ClassAnalysis
    c: Located  # the class's module
    p: Located  # the parent's module
    pinfo: ModuleInfo
    base_refs: list[str]  # how C's module spells the bases that take P's place (none: object)
    parent_index: int  # which of C's bases is P
    aliases: dict = field(default_factory=dict)  # free name -> (alias, module, object): DC608
    literals: dict = field(default_factory=dict)  # free name -> the source of the literal it becomes: DC614
    moved: dict = field(default_factory=dict)  # id of a class statement -> parent statements placed after it: DC612
    markers: bool = True  # write the "# decouple: ..." comments (--no-markers: none)
    plan: ClassPlan = field(default_factory=ClassPlan)
    copied: rewrite_flag_comments.Copied | None = None  # takes the stale comments out of what is copied (DC611)
    index: object = None  # the run's Index: DC305 reads the new bases' slots
    # DC618 (``--hook --no-parent-edit``): C keeps P as its base; this rewrites C's class instead
    # of the steps above (it inlines P's __init__ through ``rewrite_inline_init`` itself).
    keep_parent: object = None

    def __post_init__(self):
        self.copied = rewrite_flag_comments.Copied(self.a, self.pinfo.rel, self.pinfo.lines)
        self.plan.removed_comments = self.copied.removed
        self.literals = rewrite_place_reads.literals(self.pinfo, rewrite_bind_names.moved_free(self.a))

    def names_for(self, names) -> dict[str, cst.BaseExpression]:
        """How moved code's free ``names`` are spelt in the class's module: DC608's aliases, DC614's literals."""
        out: dict[str, cst.BaseExpression] = {n: cst.Name(self.aliases[n][0]) for n in names if n in self.aliases}
        out.update({n: cst.parse_expression(self.literals[n]) for n in names if n in self.literals})
        return out

    def marker(self, text: str) -> list:
        """The leading line of a marker comment, or none under --no-markers."""
        return [comment_line(text)] if self.markers else []

    @property
    def pname(self) -> str:
        return self.a.parent.name

    def rewrite(self, cd: cst.ClassDef):
        if self.keep_parent is not None:
            return self.keep_parent(self, cd)
        body = list(cd.body.body)
        init_ast = self.a.cls.methods.get("__init__")
        inlined = rewrite_inline_init.init_block(self)
        if init_ast is not None:
            body = [rewrite_inline_init.rewrite_init(self, s, inlined) if self.c.stmt(init_ast) is s else s for s in body]
            body = rewrite_init_locals.apply(self, body)
            body = rewrite_flag_comments.strip_own(self, body)
        elif (inlined or self.a.parent_init is not None) and not self.a.generated_init:
            body = rewrite_inline_init.add_init(self, body, inlined)
        body = rewrite_super_fallback.redirect(self, body)
        body = unsafe_slots.rewrite(self, body)
        body = rewrite_copy_members.apply(self, body)
        cd = cd.with_changes(body=cd.body.with_changes(body=body))
        cd = rewrite_reparent.apply(self, cd, marked=bool(inlined))
        after = rewrite_copy_members.after_class(self)
        return cst.FlattenSentinel([cd, *after]) if after else cd


def base_references(index, a: ClassAnalysis, aliases: dict | None = None) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """How C's module spells each base that takes P's place (the new base, then the chain's other
    bases), subscripted as DC304 carries them over, and the imports they need (module, name, alias).
    ``aliases``: DC608's, for the names those subscripts read."""
    refs, imports = [], []
    carried = unsafe_generic_base.carry(index, a)
    any_name = None
    if any(n in carried.erased for e in carried.exprs.values() for n in unsafe_generic_base.names_read(e.slice)):
        any_name = rewrite_bind_names.base_alias(a.cls.module, "Any", "typing")
        imports.append(("typing", "Any", any_name if any_name != "Any" else None))
    for q in [a.base] + list(a.extra_bases):
        if q in carried.left_out:
            continue
        ref, imp = _reference(index, a, q)
        if ref is not None and q in carried.exprs:
            ref = _subscripted(a, q, ref, carried, aliases or {}, any_name)
        if ref is not None and ref not in refs:
            refs.append(ref)
        if imp:
            imports.append(imp)
    return refs, imports


def _subscripted(a: ClassAnalysis, q: str, ref: str, carried, aliases: dict, any_name: str | None) -> str:
    """``ref[...]`` with P's subscript of base ``q``: its names as DC608 spells them in C's module,
    P's type parameters replaced by C's arguments, or by ``Any`` (spelt ``any_name``) where C
    names P bare."""
    node = cst.parse_expression(source_segment(a.parent.module.text, carried.exprs[q]))
    mapping = {n: cst.Name(al[0]) for n, al in aliases.items()}
    mapping.update({n: cst.parse_expression(source_segment(a.cls.module.text, arg)) for n, arg in carried.subst.items()})
    mapping.update({n: cst.Name(any_name) for n in carried.erased if any_name})
    node = node.with_changes(value=cst.parse_expression(ref), slice=[rename(e, mapping) for e in node.slice])
    return cst.Module([]).code_for_node(node)


def _reference(index, a: ClassAnalysis, q: str) -> tuple[str | None, tuple[str, str, str | None] | None]:
    if q in ("builtins.object", "object") or _covered_by_other_bases(index, a, q):
        return None, None
    cmod = a.cls.module
    for local, imported in cmod.imports.items():
        if imported == q:
            return local, None
    module, _, name = q.rpartition(".")
    if module in (cmod.name, "builtins"):
        return name, None
    target = index.resolve_class(q)
    if target is not None and target.module.name != module:
        module = target.module.name
    alias = rewrite_bind_names.base_alias(cmod, name, module)
    return alias, (module, name, alias if alias != name else None)


def _covered_by_other_bases(index, a: ClassAnalysis, q: str) -> bool:
    """Whether another base of C already derives from ``q``: C then keeps ``q`` through it, and
    naming it before that base would make C's MRO inconsistent."""
    for b in a.cls.bases:
        if index._same_class(b, a.parent):
            continue
        other = index.resolve_class(b)
        if b == q or (other is not None and (other.qualname == q or q in index.ancestors(other))):
            return True
    return False


def parse_ahead(analyses: list[ClassAnalysis], parsed: dict[str, Located]) -> None:
    """Parse, into ``parsed``, the modules that rewriting these classes will read (each class's
    module and its parent's), while the core would otherwise wait for the worker process. A
    module that does not parse is left for ``rewrite_module``, which says why.

    pyflakes' findings on each class's original module are made here too: the import fixes
    and the check compare the patched text's with them (``check.findings`` keeps them)."""
    rewritten = {a.cls.module.rel for a in analyses}
    for a in analyses:
        for info in (a.cls.module, a.parent.module):
            if info.rel not in parsed:
                try:
                    parsed[info.rel] = (Located.parse(info.text, info.tree) if info.rel in rewritten
                                        else _parse_parent(info, analyses))
                except Exception:  # noqa: BLE001 - the rewrite parses it again and reports it
                    pass
    for rel, text in {a.cls.module.rel: a.cls.module.text for a in analyses}.items():
        try:
            findings(text, rel)
        except Exception:  # noqa: BLE001 - the import fixes run it again and report it
            pass


def _defs_around(info: ModuleInfo, here: Located, cls: ast.ClassDef, node: cst.ClassDef) -> set[int] | None:
    """The libcst nodes of ``cls`` and of the functions and classes around it (by ``ast``
    position); None when one of them does not pair, and the transform must enter everything."""
    out = {id(node)}
    for anc in enclosing(info, cls):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            got = here.compound.get(anc.lineno)
            if not isinstance(got, (cst.FunctionDef, cst.ClassDef)) or got.name.value != anc.name:
                return None
            out.add(id(got))
    return out


def _parse_parent(info: ModuleInfo, analyses: list[ClassAnalysis]) -> Located:
    """A parent's module, which the rewrite only copies statements out of: libcst parses the
    classes those statements come from, in it (``cst_partial``)."""
    from .cst_partial import parse_classes

    classes = {id(c.node): c.node for a in analyses for c in [*a.chain, *(owner for _, owner in a.members.values())]
               if c.module.rel == info.rel}
    return parse_classes(info.text, info.tree, sorted(classes.values(), key=lambda n: n.lineno))


def rewrite_module(index, analyses: list[ClassAnalysis], markers: bool = True, presented: bool = True,
                   parsed: dict[str, Located] | None = None, keep_parent=None) -> ModulePatch:
    """Rewrite every decoupled class of one module, then fix the module's imports.

    A parent's module is parsed for its classes alone; should the rewrite ask for a statement
    outside them (``cst_partial.NotParsed``), it starts again on whole parses, with the nodes of
    the class's module as it was given (a caller may hold them: DC618's swaps) in maps as they were
    before the first attempt added to them."""
    from .cst_partial import NotParsed

    rel = analyses[0].cls.module.rel
    given = (parsed or {}).get(rel)
    before = given.copy() if given is not None else None
    try:
        return _rewrite_module(index, analyses, markers, presented, parsed, keep_parent, whole=False)
    except NotParsed:
        return _rewrite_module(index, analyses, markers, presented, {rel: before} if before is not None else None,
                               keep_parent, whole=True)


def _rewrite_module(index, analyses: list[ClassAnalysis], markers: bool, presented: bool,
                    parsed: dict[str, Located] | None, keep_parent, whole: bool) -> ModulePatch:
    """``rewrite_module``; ``whole``: every module parsed whole.

    ``presented``: the patch's text is shown or written, so it is formatted (DC610) and its
    comments are reviewed (DC611); a bare ``--check`` only needs to know that it is sound.
    ``parsed``: modules ``parse_ahead`` parsed already; each is taken out as it is used, so
    that no two rewrites share one. ``keep_parent``: DC618's rewrite of a class that keeps its
    parent (``ClassRewrite.keep_parent``); no base takes P's place."""
    parsed = {} if parsed is None else parsed
    cinfo = analyses[0].cls.module
    before = cinfo.text
    here = parsed.pop(cinfo.rel, None) or Located.parse(before, cinfo.tree)
    parents: dict[str, Located] = {cinfo.rel: here}
    rewriters: dict[int, ClassRewrite] = {}
    # The definitions the transform enters: the classes rewritten and the definitions around
    # them (None: all). The others, most of a module, are left unvisited, so unchanged.
    enter: set[int] | None = set()
    needed_bases = []
    for a in analyses:
        pinfo = a.parent.module
        if pinfo.rel not in parents:
            parents[pinfo.rel] = parsed.pop(pinfo.rel, None) or (
                Located.parse(pinfo.text, pinfo.tree) if whole else _parse_parent(pinfo, analyses))
        aliases = rewrite_bind_names.plan(index, a, unsafe_generic_base.carry(index, a).free)
        refs, imps = base_references(index, a, aliases) if keep_parent is None else ([], [])
        needed_bases.extend(imps)
        pidx = next(i for i, b in enumerate(a.cls.bases) if index._same_class(b, a.parent))
        node = here.compound.get(a.cls.node.lineno)
        if not isinstance(node, cst.ClassDef):
            node = next(n for n in here.compound.values() if isinstance(n, cst.ClassDef) and n.name.value == a.cls.name)
            enter = None  # positions that do not pair: every definition is entered
        if enter is not None:
            around = _defs_around(cinfo, here, a.cls.node, node)
            enter = None if around is None else enter | around
        rewriters[id(node)] = ClassRewrite(a, here, parents[pinfo.rel], pinfo, refs, pidx, aliases, markers=markers, index=index,
                                           keep_parent=keep_parent)

    class Apply(cst.CSTTransformer):
        def visit_SimpleStatementLine(self, node):
            return False  # no class inside; expressions are most of the nodes of a module

        def visit_FunctionDef(self, node):
            return enter is None or id(node) in enter

        def visit_ClassDef(self, node):
            return enter is None or id(node) in enter

        def leave_ClassDef(self, original, updated):
            rw = rewriters.get(id(original))
            return rw.rewrite(original) if rw is not None else updated

    tree = here.module.visit(Apply())
    for module, name, alias in needed_bases:
        tree = add_import(tree, module, name, asname=alias, here=(cinfo.name, cinfo.is_package))
    for rw in rewriters.values():
        for alias, module, obj in sorted(rw.aliases.values()):
            tree = add_import(tree, module, obj, asname=alias, here=(cinfo.name, cinfo.is_package))
            rw.plan.inlined.append(f"import added under an alias, so the moved code keeps its meaning: `{obj or module}` as `{alias}`")
    sources = [a.parent.module for a in analyses]
    render = ModuleCode()
    rewritten = render(tree)
    tree, text, added = add_missing(tree, rewritten, before, cinfo.rel, cinfo, sources, render)
    text, removed, kept = remove_unused(tree, text, before, cinfo.rel, cinfo, index, checked=rewritten, render=render)
    if presented:
        text = rewrite_format.apply(before, text, rewrite_format.style_of(index.tree))
        changed = {n for lo, hi in rewrite_format.changed_ranges(before, text) for n in range(lo, hi + 1)}
        for rw in rewriters.values():
            rw.plan.comments = rewrite_flag_comments.find(rw.a, text, changed, MARKER)
    plans = {rw.a.cls.name: rw.plan for rw in rewriters.values()}
    return ModulePatch(cinfo.rel, before, text, plans, added, removed, kept)
