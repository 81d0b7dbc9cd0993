"""DC607 imports: add the imports the new code lacks, remove the ones the rewrite left unused.

## What it does
pyflakes says which names the rewritten module now lacks and which imports it no longer
uses. A missing name is imported from where the parent's module gets it (under
``if TYPE_CHECKING:`` when the parent imports it only there), or from the parent's module
when it is defined there; a name the parent's module binds by ``from x import *`` is
imported by name from the module of the tree that the star follows to. An import that became unused is removed, unless the module
re-exports it through ``__all__``, another module of the checkout imports it from here or
reads it as an attribute of this module (``pkg.mod.Name``), or the module reads its own
namespace whole (``globals()``, ``vars()``, ``dir()``).
New imports go into the module's import block in isort's order, merged into an existing
``from module import ...`` line, in black's layout.

## Why
The inlined and copied code must find the same names; leftovers would fail the checks.

## Known problems
The import of the new base adds a name to the module's namespace, which ``globals()`` sees.
A name that the class's module already binds to something else is not detected (the
inlined code would use the class module's binding). libcst's ``AddImportsVisitor`` places
new imports right after ``__future__`` imports and does not merge into an import block
that follows a string statement, as SGLang's modules have; its remover leaves ``Name)``
behind a dropped alias. So the two edits here keep the block's order and black's layout
instead.

## Fix safety
Refuses (DC510) a missing name that neither module defines. The check stage confirms no
new pyflakes finding.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from ..ast_util import child_blocks, dotted_name, resolve_relative
from ..check import findings, names_of
from ..cst_util import ModuleCode, code_of, unchanged
from ..errors import UnsafeError
from ..index import Index, ModuleInfo

ID = "DC607"
NAME = "imports"


def type_checking_names(mod: ModuleInfo) -> set[str]:
    """Names a module imports only inside ``if TYPE_CHECKING:``."""
    inside, outside = set(), set()

    def visit(stmts, guarded):
        for s in stmts:
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    (inside if guarded else outside).add((a.asname or a.name).split(".")[0])
            elif isinstance(s, ast.If):
                g = guarded or "TYPE_CHECKING" in ast.unparse(s.test)
                visit(s.body, g)
                visit(s.orelse, guarded)
            elif isinstance(s, (ast.Try, ast.With)):
                for block in child_blocks(s):
                    visit(block, guarded)

    visit(mod.tree.body, False)
    return inside - outside


def module_level_defs(mod: ModuleInfo) -> set[str]:
    out = set()
    for s in mod.tree.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, ast.Assign):
            out |= {t.id for t in s.targets if isinstance(t, ast.Name)}
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            out.add(s.target.id)
    return out


def add_missing(tree: cst.Module, text: str, before: str, filename: str, cmod: ModuleInfo,
                sources: list[ModuleInfo], render: ModuleCode | None = None) -> tuple[cst.Module, str, list[str]]:
    """Import, from where the parent's module gets them, the names the new code lacks.

    ``text`` is ``tree``'s code (generating it costs as much as a pyflakes pass); the tree and
    its code (made by ``render``, the rewrite's ``ModuleCode``) come back."""
    missing = sorted(names_of(findings(text, filename), "UndefinedName") - names_of(findings(before, filename), "UndefinedName"))
    if not missing:
        return tree, text, []
    added = []
    for name in missing:
        spec = None
        for src in sources:
            if name in src.imports:
                q = src.imports[name]
                module, _, obj = q.rpartition(".")
                guarded = name in type_checking_names(src)
                spec = (module, obj, name if obj != name else None, guarded) if module else (q, None, None, guarded)
                break
            if name in module_level_defs(src):
                spec = (src.name, name, None, False)
                break
            star = src.star_binding(name)
            if star is not None:  # ``from x import *`` there: imported by name here
                spec = (*star.rsplit(".", 1), None, False)
                break
        if spec is None:
            raise UnsafeError(f"{filename}: the inlined code uses {name!r}, which neither module defines", ID)
        module, obj, asname, guarded = spec
        added.append(f"{'from ' + module + ' import ' + obj if obj else 'import ' + module}{' as ' + asname if asname else ''}{' (under TYPE_CHECKING)' if guarded else ''}")
        tree = add_import(tree, module, obj, asname, type_checking=guarded, here=(cmod.name, cmod.is_package))
    return tree, (render or ModuleCode())(tree), added


def _import_module(stmt) -> str | None:
    """The module a top-level import line imports from; relative ones keep their dots
    (so they sort after every absolute import, as isort places them)."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        imp = stmt.body[0]
        if isinstance(imp, cst.ImportFrom):
            dots = "." * len(imp.relative)
            if imp.relative:
                return "~" + dots + (code_of(imp.module) if imp.module is not None else "")
            return code_of(imp.module)
        if isinstance(imp, cst.Import):
            return code_of(imp.names[0].name)
    return None


def add_import(tree: cst.Module, module: str, obj: str | None, asname: str | None = None, type_checking: bool = False,
               here: tuple[str, bool] | None = None) -> cst.Module:
    """Add ``from module import obj`` to the module's import block (merged into an existing
    ``from module import ...`` when there is one, relative ones included when ``here``, the
    current module's (name, is_package), is given), or under ``if TYPE_CHECKING:``."""
    if type_checking:
        return _add_type_checking(tree, [(module, obj, asname)])
    body = list(tree.body)
    if obj is not None:
        for i, stmt in enumerate(body):
            if _absolute(stmt, here) == module and isinstance(stmt.body[0], cst.ImportFrom) and not isinstance(stmt.body[0].names, cst.ImportStar):  # noqa: E501
                imp = stmt.body[0]
                names = [a for a in imp.names]
                if any(code_of(a.name) == obj and (a.asname is None) == (asname is None) for a in names):
                    return tree
                new_alias = cst.ImportAlias(cst.Name(obj), asname=cst.AsName(cst.Name(asname)) if asname else None)
                names = _insert_sorted(names, new_alias)
                body[i] = stmt.with_changes(body=[_format_from(imp, names)])
                return tree.with_changes(body=body)
    alias = f" as {asname}" if asname else ""
    line = cst.parse_statement(f"from {module} import {obj}{alias}" if obj else f"import {module}{alias}")
    idx = [i for i, s in enumerate(body) if _import_module(s) is not None and _import_module(s) != "__future__"]
    if not idx:
        fut = [i for i, s in enumerate(body) if _import_module(s) == "__future__"]
        at = fut[-1] + 1 if fut else 0
        if fut:
            line = line.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    else:
        # isort-like: before the first top-level import of the leading block that sorts after it.
        block = []
        for i in idx:
            if block and i != block[-1] + 1:
                break
            block.append(i)
        same = [i for i in block if _import_module(body[i]).split(".")[0] == module.split(".")[0]]
        if same:  # beside its own package's imports, in order
            at = next((i for i in same if _import_module(body[i]) > module), same[-1] + 1)
        else:
            at = next((i for i in block if _section_key(_import_module(body[i])) > _section_key(module)), block[-1] + 1)
        line = line.with_changes(leading_lines=[])
        if at < len(body) and at in block and at == block[0]:
            # Taking the block's first place: take its spacing too (the blank line after a docstring).
            line = line.with_changes(leading_lines=body[at].leading_lines)
            body[at] = body[at].with_changes(leading_lines=[])
    return tree.with_changes(body=body[:at] + [line] + body[at:])


def _section_key(module: str):
    """isort's sections: standard library, then third-party and first-party, then relative."""
    import sys

    if module.startswith("~"):
        return (3, module)
    top = module.split(".")[0]
    return (1 if top in sys.stdlib_module_names else 2, module)


def _isort_key(name: str):
    # isort's order_by_type: CONSTANTS, then Classes, then functions, each case-insensitively.
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, name.casefold())


def _absolute(stmt, here) -> str | None:
    """The absolute module a top-level ``from ... import`` line imports from."""
    mod = _import_module(stmt)
    if mod is None or not mod.startswith("~") or here is None:
        return mod
    imp = stmt.body[0]
    target = code_of(imp.module) if imp.module is not None else None
    return resolve_relative(here[0], here[1], target, len(imp.relative))


def _insert_sorted(names, alias):
    keys = [_isort_key(code_of(a.name)) for a in names]
    if keys == sorted(keys):
        key = _isort_key(code_of(alias.name))
        pos = next((i for i, k in enumerate(keys) if k > key), len(keys))
        return names[:pos] + [alias] + names[pos:]
    return names + [alias]


def _format_from(imp: cst.ImportFrom, names) -> cst.ImportFrom:
    """Black's layout: one line when it fits in 88 columns, else one name per line."""
    names = [n.with_changes(comma=cst.MaybeSentinel.DEFAULT) for n in names]
    one = imp.with_changes(names=names, lpar=None, rpar=None)
    if len(code_of(one)) <= 88:
        return one
    commas = [n.with_changes(comma=cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True,
        last_line=cst.SimpleWhitespace("    " if i < len(names) - 1 else "")))) for i, n in enumerate(names)]
    return imp.with_changes(
        names=commas,
        lpar=cst.LeftParen(whitespace_after=cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True, last_line=cst.SimpleWhitespace("    "))),
        rpar=cst.RightParen(),
    )


def _add_type_checking(tree: cst.Module, specs) -> cst.Module:
    lines = [
        cst.parse_statement(f"from {m} import {o}{' as ' + a if a else ''}" if o else f"import {m}")
        for m, o, a in specs
    ]

    class Adder(cst.CSTTransformer):
        done = False

        def leave_If(self, original, updated):
            if not self.done and code_of(original.test).endswith("TYPE_CHECKING"):
                self.done = True
                return updated.with_changes(body=updated.body.with_changes(body=list(updated.body.body) + lines))
            return updated

    adder = Adder()
    new = tree.visit(adder)
    if adder.done:
        return new
    new = add_import(tree, "typing", "TYPE_CHECKING")
    block = cst.If(test=cst.Name("TYPE_CHECKING"), body=cst.IndentedBlock(lines), leading_lines=[cst.EmptyLine(indent=False)])
    body = list(new.body)
    last = max((i for i, s in enumerate(body) if _import_module(s) is not None), default=-1)
    return new.with_changes(body=body[: last + 1] + [block] + body[last + 1:])


def remove_unused(tree: cst.Module, text: str, before: str, filename: str, cmod: ModuleInfo,
                  index: Index, checked: str | None = None, render: ModuleCode | None = None) -> tuple[str, list[str], list[str]]:
    """Remove the imports the rewrite left unused, unless someone else still imports them from here.

    ``text`` is ``tree``'s code. ``checked``: a text whose unused imports are ``text``'s, whose
    pyflakes findings are made already: ``text`` before ``add_missing`` added imports, which
    bind names that the text used and left undefined, so they are used, and they change no
    other import's use (a pyflakes pass saved; were that ever wrong, the check stage finds the
    unused import and refuses the patch). Returns (text, removed names, names kept on purpose
    with the pyflakes key they show up under).
    """
    flagged = findings(checked if checked is not None else text, filename)
    unused = sorted(names_of(flagged, "UnusedImport") - names_of(findings(before, filename), "UnusedImport"))
    if not unused:
        return text, [], []
    if _reads_its_namespace(before):
        return text, [], list(unused)  # globals(), vars(), dir(): every name of the module may be read
    exported = _all_names(cmod)
    drop, kept = set(), []
    for dotted in unused:
        local = dotted.split(" as ")[-1].split(".")[-1]
        if local in exported or _imported_elsewhere(index, cmod, local):
            kept.append(dotted)
            continue
        drop.add(local)
    if not drop:
        return text, [], kept

    render = render or ModuleCode()
    top = {id(s) for s in tree.body}

    class Remover(cst.CSTTransformer):
        def on_visit(self, node):
            # Only statements hold imports: expressions, most of a module's nodes, are not
            # entered (leave_ still runs on the node itself); nor is a top-level statement
            # whose code spells no import of a name to drop, which also keeps its identity
            # for ``render``.
            if id(node) in top:
                code = render.statement(node, tree)
                if "import" not in code or not any(name in code for name in drop):
                    return False
            return isinstance(node, _STATEMENT_HOLDERS)

        def on_leave(self, original, updated):
            # A statement entered because its code spells an import and a dropped name, and
            # left as it was, keeps its identity: ``render`` reuses its code.
            result = super().on_leave(original, updated)
            return unchanged(original, result) if result is updated else result

        def leave_SimpleStatementLine(self, original, updated):
            if len(updated.body) != 1 or not isinstance(updated.body[0], (cst.Import, cst.ImportFrom)):
                return updated
            imp = updated.body[0]
            if isinstance(imp.names, cst.ImportStar):
                return updated
            keep = [a for a in imp.names if _local(a) not in drop]
            if len(keep) == len(imp.names):
                return updated
            if not keep:
                return cst.RemovalSentinel.REMOVE
            if isinstance(imp, cst.ImportFrom):
                return updated.with_changes(body=[_format_from(imp, keep)])
            keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(body=[imp.with_changes(names=keep)])

    tree = tree.visit(Remover())
    out = render(tree)
    if tree.body and not tree.header and text[:1] not in ("\n", "\r") and out[:1] in ("\n", "\r"):
        # The first statement went: its successor's blank lines would open the file.
        first = tree.body[0]
        tree = tree.with_changes(body=[first.with_changes(leading_lines=[l for l in first.leading_lines if l.comment is not None])] + list(tree.body[1:]))
        out = render(tree)
    return out, sorted(drop), kept


# The nodes whose children can be statements: the rest (expressions, names, parameters,
# decorators, a statement line's own parts) hold no import.
_STATEMENT_HOLDERS = (cst.Module, cst.BaseCompoundStatement, cst.BaseSuite, cst.Else, cst.Finally,
                      cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)


def _reads_its_namespace(text: str) -> bool:
    """Whether the module reads its own namespace as a whole, where a removed import would be missed."""
    return bool(_NAMESPACE_READ.search(text))


_NAMESPACE_READ = re.compile(r"\b(?:globals|vars|dir|locals)\(\s*\)")


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return code_of(alias.asname.name)
    return code_of(alias.name).split(".")[0]


def _all_names(mod: ModuleInfo) -> set[str]:
    for s in mod.tree.body:
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in s.targets):
            try:
                return set(ast.literal_eval(s.value))
            except ValueError:
                return set()
    return set()


def _imported_elsewhere(index: Index, cmod: ModuleInfo, name: str) -> bool:
    # "from <...>.mod import name" names the module itself, unless the module is a package
    # that its own submodules import from as "from . import name".
    spelled = None if cmod.is_package else set(index.tree.files_with_words((cmod.name.rsplit(".", 1)[-1],)))
    for rel in index.tree.files_naming(name):
        if rel == cmod.rel or spelled is not None and rel not in spelled:
            continue
        mod = index.module(rel)
        if mod is None:
            continue
        for node in mod.nodes:
            if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
                if resolve_relative(mod.name, mod.is_package, node.module, node.level) == cmod.name:
                    return True
            elif isinstance(node, ast.Attribute) and node.attr == name and dotted_name(node.value) and mod.qualify(node.value) == cmod.name:
                return True  # import pkg.mod; pkg.mod.name
    return False
