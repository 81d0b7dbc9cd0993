"""A class index of the tree: classes, their resolved bases, and their members.

Files are parsed with the standard ``ast`` module (reading is all this stage does;
libcst is kept for the files that get rewritten), and only on demand: callers
find candidate files with a text prefilter first.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from functools import cached_property

from . import star_imports
from .ast_util import child_blocks, decorator_name, dotted_name, first_param, is_block_statement, is_static, resolve_relative, statements, walk
from .console import display_path
from .discover import Tree
from .errors import UsageError
from .subclass_search import SubclassSearch


@dataclass
class Member:
    name: str
    kind: str  # instance_attribute, method, property or class_attribute
    line: int
    node: ast.AST | None = None
    # For instance attributes: the methods that assign it, with lines.
    assigned_in: list[tuple[str, int]] = field(default_factory=list)
    # staticmethod / classmethod / property are all "method"-like for dispatch.
    decorators: tuple[str, ...] = ()


@dataclass
class ClassInfo:
    name: str
    module: "ModuleInfo"
    node: ast.ClassDef
    bases: list[str]  # qualified names where resolvable, else the dotted source text
    conditional: bool = False  # defined under if/try at module level

    @property
    def qualname(self) -> str:
        return f"{self.module.name}.{self.name}"

    @property
    def cli_name(self) -> str:
        return f"{self.module.name}:{self.name}"

    @property
    def file(self) -> str:
        return self.module.rel

    @property
    def line(self) -> int:
        return self.node.lineno

    @cached_property
    def methods(self) -> dict[str, ast.FunctionDef]:
        return {
            n.name: n
            for n in self.node.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }

    @cached_property
    def body_stores(self) -> list[tuple[ast.stmt, frozenset[str]]]:
        """Each statement of the class body, with every name it stores (``Name`` targets
        anywhere inside it, its methods' locals included)."""
        return [(s, frozenset(n.id for n in walk(s) if n.__class__ is ast.Name and n.ctx.__class__ is ast.Store))
                for s in self.node.body]

    @cached_property
    def members(self) -> dict[str, Member]:
        """Methods, properties, class attributes and instance attributes (self.X = ...)."""
        out: dict[str, Member] = {}
        for stmt in self.node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decos = tuple(decorator_name(d) for d in stmt.decorator_list)
                if stmt.name in out and out[stmt.name].kind == "property":
                    continue  # @x.setter / @x.deleter belong to the property
                kind = "property" if any(d == "property" or d.endswith(".setter") or d.endswith("cached_property") for d in decos) else "method"
                out[stmt.name] = Member(stmt.name, kind, stmt.lineno, stmt, decorators=decos)
            elif isinstance(stmt, ast.Assign):
                for tgt in stmt.targets:
                    for name in _target_names(tgt):
                        out.setdefault(name, Member(name, "class_attribute", stmt.lineno, stmt))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                out.setdefault(stmt.target.id, Member(stmt.target.id, "class_attribute", stmt.lineno, stmt))
        for mname, fn in self.methods.items():
            selfname = first_param(fn)
            if selfname is None or is_static(fn):
                continue
            for node in walk(fn):
                for tgt in _assign_targets(node):
                    for attr_node in _self_attr_targets(tgt, selfname):
                        name = attr_node.attr
                        m = out.get(name)
                        if m is None:
                            m = out[name] = Member(name, "instance_attribute", attr_node.lineno)
                        if m.kind == "instance_attribute":
                            m.assigned_in.append((mname, attr_node.lineno))
        return out

    @cached_property
    def declared_only(self) -> dict[str, ast.AnnAssign]:
        """Class-level annotations without a value (declarations, not members)."""
        return {
            s.target.id: s
            for s in self.node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is None
        }


@dataclass
class ModuleInfo:
    name: str
    rel: str
    tree: ast.Module
    text: str
    is_package: bool
    # Module name -> the names ``from it import *`` binds (None: not a module of the tree); the index's.
    star_binds: object = field(default=None, repr=False, compare=False)  # Exports.binds

    @cached_property
    def symbols(self):
        """The module's symbol table (``symtable``: Python's own scoping), or None when it
        refuses the text."""
        import symtable

        try:
            return symtable.symtable(self.text, self.rel, "exec")
        except SyntaxError:
            return None

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def lines_kept(self) -> list[str]:
        """The lines with their ends, to join back into a stretch of the text."""
        return self.text.splitlines(keepends=True)

    @cached_property
    def _walked(self) -> tuple[list[ast.AST], dict[int, ast.AST]]:
        parents: dict[int, ast.AST] = {}
        return walk(self.tree, parents), parents

    @property
    def nodes(self) -> list[ast.AST]:
        """Every node of the module, in ``ast.walk`` order (one walk, shared with ``parents``)."""
        return self._walked[0]

    @cached_property
    def _spellings(self) -> tuple[dict[str, list[ast.Attribute]], dict[str, list[ast.Name]]]:
        attributes: dict[str, list[ast.Attribute]] = {}
        names: dict[str, list[ast.Name]] = {}
        for node in self.nodes:
            if node.__class__ is ast.Attribute:
                attributes.setdefault(node.attr, []).append(node)
            elif node.__class__ is ast.Name:
                names.setdefault(node.id, []).append(node)
        return attributes, names

    @property
    def attributes(self) -> dict[str, list[ast.Attribute]]:
        """Attribute name -> every ``x.name`` node of the module (read, stored or deleted)."""
        return self._spellings[0]

    @property
    def names(self) -> dict[str, list[ast.Name]]:
        """Identifier -> every ``Name`` node of the module that spells it."""
        return self._spellings[1]

    @property
    def parents(self) -> dict[int, ast.AST]:
        """Node id -> parent node."""
        return self._walked[1]

    @cached_property
    def imports(self) -> dict[str, str]:
        """Local name -> qualified name, for every import in the module.

        Module-level imports (TYPE_CHECKING and try blocks included) win over the
        ones inside functions, which are added only where the name is free.
        """
        top: dict[str, str] = {}
        inner: dict[str, str] = {}
        module_level = set(self._module_level_import_list)
        # A class test per node, not isinstance with a tuple: a module has tens of thousands.
        for node in [n for n in statements(self.tree) if n.__class__ is ast.Import or n.__class__ is ast.ImportFrom]:
            target = top if node in module_level else inner
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        target.setdefault(alias.asname, alias.name)
                    else:
                        head = alias.name.split(".")[0]
                        target.setdefault(head, head)
            else:
                base = resolve_relative(self.name, self.is_package, node.module, node.level)
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    target.setdefault(alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name)
        for k, v in inner.items():
            top.setdefault(k, v)
        return top

    # Star imports (``codemod/star_imports.py``): the modules, in order; what one binds a name to.
    @cached_property
    def star_modules(self) -> list[str]:
        return star_imports.star_modules(self)

    def star_binding(self, name: str) -> str | None:
        return star_imports.star_binding(self, name) if self.star_modules else None

    @cached_property
    def own_names(self) -> set[str]:  # bound by def, class or assignment at the top level (in blocks too)
        return star_imports.own_names(self)

    @cached_property
    def _module_level_import_list(self) -> list:
        out = []

        def visit(stmts):
            for s in stmts:
                if isinstance(s, (ast.Import, ast.ImportFrom)):
                    out.append(s)
                elif is_block_statement(s):
                    for block in child_blocks(s):
                        visit(block)

        visit(self.tree.body)
        return out

    @cached_property
    def classes(self) -> dict[str, ClassInfo]:
        out: dict[str, ClassInfo] = {}

        def visit(stmts, conditional):
            for s in stmts:
                if isinstance(s, ast.ClassDef):
                    # A subscripted base (``Box[int]``) is the class it subscripts.
                    bases = [self.qualify(b.value if isinstance(b, ast.Subscript) else b) for b in s.bases]
                    out.setdefault(s.name, ClassInfo(s.name, self, s, bases, conditional))
                elif is_block_statement(s):
                    for block in child_blocks(s):
                        visit(block, True)

        visit(self.tree.body, False)
        return out

    @cached_property
    def functions(self) -> dict[str, ast.FunctionDef]:
        """The module's top-level functions by name (the last definition wins, as at run time)."""
        return {s.name: s for s in self.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def qualify(self, expr: ast.AST) -> str:
        """The qualified name an expression refers to, through imports and local classes."""
        dotted = dotted_name(expr)
        if dotted is None:
            return ast.unparse(expr)
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            q = self.imports[head]
        elif head in self.classes_names:
            q = f"{self.name}.{head}"
        elif self.star_modules and self.star_binding(head):
            q = self.star_binding(head)
        elif head in _BUILTIN_NAMES:
            q = f"builtins.{head}"
        else:
            q = head
        return f"{q}.{rest}" if rest else q

    @cached_property
    def classes_names(self) -> set[str]:
        return {n.name for n in statements(self.tree) if isinstance(n, ast.ClassDef)}  # a statement: no expression walked

    def source(self, node: ast.AST) -> str:
        return self.lines[node.lineno - 1].strip() if getattr(node, "lineno", None) else ""


_BUILTIN_NAMES = {"object", "Exception", "BaseException", "ValueError", "dict", "list", "tuple", "set", "int", "str", "type"}


class OverBudget(Exception):
    """Raised by ``Index.meter`` to stop work that would need one module more than it may."""


class Index:
    """Parses modules of a Tree on demand and answers class queries."""

    def __init__(self, tree: Tree):
        self.tree = tree
        self._modules: dict[str, ModuleInfo | None] = {}
        # Files asked for that do not parse: rel -> (line, the parser's message).
        self.syntax_errors: dict[str, tuple[int, str]] = {}
        # Called with each module asked for, while set: a budget on the modules some work may
        # need, which stops it by raising OverBudget (parsing is most of what a run costs).
        self.meter = None
        self._once: dict[str, object] = {}
        self.subclass_search = SubclassSearch(self)
        self.exports = star_imports.Exports(self)  # whether ``from M import *`` binds a name

    def once(self, key: str, compute):
        """``compute()``, once per run: a search of the whole tree that every class asks alike."""
        if key not in self._once:
            self._once[key] = compute()
        return self._once[key]

    def module(self, rel: str) -> ModuleInfo | None:
        if self.meter is not None:
            self.meter(rel)
        if rel not in self._modules:
            self._modules[rel] = self._parse(rel)
        return self._modules[rel]

    def _parse(self, rel: str) -> ModuleInfo | None:
        text = self.tree.text(rel)
        if text is None:
            if rel in self.tree.undecodable:  # the interpreter would refuse it as it refuses a syntax error
                self.syntax_errors[rel] = self.tree.undecodable[rel]
            return None
        try:
            tree = ast.parse(text, filename=rel)
        except (SyntaxError, ValueError) as exc:
            self.syntax_errors[rel] = (getattr(exc, "lineno", None) or 1, str(getattr(exc, "msg", exc)))
            return None
        return ModuleInfo(self.tree.module_name(rel), rel, tree, text, self.tree.is_package(rel), self.exports.binds)

    def module_by_name(self, name: str) -> ModuleInfo | None:
        rel = self.tree.modules.get(name)
        return self.module(rel) if rel else None

    def parse_error(self, rel: str) -> UsageError:
        """The error for a file the run cannot do without and cannot parse."""
        line, msg = self.syntax_errors[rel]
        if rel in self.tree.undecodable:
            return UsageError(f"cannot decode {display_path(self.tree.root / rel)}:{line}: {msg.split(': ', 1)[-1]}; "
                              "fix the file, or give it a PEP 263 coding line that names its encoding")
        return UsageError(f"cannot parse {display_path(self.tree.root / rel)}:{line}: {msg} "
                          f"(Python {sys.version_info.major}.{sys.version_info.minor}'s parser); fix the file, "
                          "or run decouple on the Python the project is written for")

    def resolve_class(self, qualname: str, _seen=None) -> ClassInfo | None:
        """A class by qualified name, following re-exports (``from .x import Y`` in a package, by
        name or by ``*``) and module aliases (``import pkg.expressions as exp`` in a package)."""
        seen = _seen or set()
        if qualname in seen or len(seen) > 32:
            return None
        seen.add(qualname)
        modname, _, clsname = qualname.rpartition(".")
        mod = self.module_by_name(modname) if modname else None
        if mod is None:  # the module part may be an alias the module above it binds
            head, _, attr = modname.rpartition(".")
            holder = self.module_by_name(head) if head else None
            target = holder.imports.get(attr) if holder is not None else None
            return self.resolve_class(f"{target}.{clsname}", seen) if target else None
        if clsname in mod.classes:
            return mod.classes[clsname]
        star = mod.imports.get(clsname) or mod.star_binding(clsname)
        return self.resolve_class(star, seen) if star is not None else None

    def resolve_callable(self, module: ModuleInfo, func: ast.AST):
        """What a call's function names, seen from ``module``: a class of the tree, a top-level
        function of the tree (through imports and re-exports), or None."""
        if isinstance(func, ast.Name) and func.id in module.functions:
            return module.functions[func.id]
        q = module.qualify(func)
        cls = self.resolve_class(q) if "." in q else None
        if cls is not None:
            return cls
        modname, _, name = q.rpartition(".")
        seen = set()
        while modname and modname not in seen:
            seen.add(modname)
            mod = self.module_by_name(modname)
            if mod is None:
                return None
            if name in mod.functions:
                return mod.functions[name]
            modname, _, name = mod.imports.get(name, "").rpartition(".")
        return None

    def subclasses(self, parent: ClassInfo) -> list[ClassInfo]:
        """Direct subclasses of a class anywhere in the tree (``subclass_search``)."""
        return self.subclass_search.direct(parent)

    def subclasses_deep(self, cls: ClassInfo) -> list[ClassInfo]:
        return self.subclass_search.deep(cls)

    def _same_class(self, qual: str, cls: ClassInfo) -> bool:
        if qual == cls.qualname:
            return True
        return self.resolve_class(qual) is cls

    def ancestors(self, cls: ClassInfo) -> list[str]:
        """Qualified names of every ancestor reachable in the tree (outside ones included by name)."""
        out: list[str] = []
        stack = list(cls.bases)
        while stack:
            q = stack.pop(0)
            if q in out:
                continue
            out.append(q)
            c = self.resolve_class(q)
            if c is not None:
                if c.qualname != q and c.qualname not in out:
                    out.append(c.qualname)
                stack.extend(c.bases)
        return out


def _assign_targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    if isinstance(node, ast.NamedExpr):
        return [node.target]
    return []


def _self_attr_targets(tgt: ast.AST, selfname: str) -> list[ast.Attribute]:
    if isinstance(tgt, ast.Attribute) and isinstance(tgt.value, ast.Name) and tgt.value.id == selfname:
        return [tgt]
    if isinstance(tgt, (ast.Tuple, ast.List)):
        return [a for e in tgt.elts for a in _self_attr_targets(e, selfname)]
    if isinstance(tgt, ast.Starred):
        return _self_attr_targets(tgt.value, selfname)
    return []


def _target_names(tgt: ast.AST) -> list[str]:
    if isinstance(tgt, ast.Name):
        return [tgt.id]
    if isinstance(tgt, (ast.Tuple, ast.List)):
        return [n for e in tgt.elts for n in _target_names(e)]
    return []


# ---- where a node sits ---------------------------------------------------------------


def enclosing(mod: ModuleInfo, node: ast.AST):
    """Yield the ancestors of a node, innermost first."""
    par = mod.parents
    cur = par.get(id(node))
    while cur is not None:
        yield cur
        cur = par.get(id(cur))


def scope_of(mod: ModuleInfo, at: ast.AST) -> ast.AST:
    """The innermost function (or lambda) around ``at``, else the module."""
    return next((n for n in enclosing(mod, at) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))), mod.tree)


def enclosing_def(mod: ModuleInfo, node: ast.AST):
    """(method, class) around a node: the function directly in a class body, and that class.

    A nested function or lambda inside a method still sees the method's ``self``.
    Outside any class, returns (innermost function or None, None).
    """
    inner = None
    prev = node
    for anc in enclosing(mod, node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner is None:
            inner = anc
        if isinstance(anc, ast.ClassDef):
            if isinstance(prev, (ast.FunctionDef, ast.AsyncFunctionDef)) and prev in anc.body:
                cls = mod.classes.get(anc.name)
                return prev, (cls if cls is not None and cls.node is anc else None)
            return inner, None
        prev = anc
    return inner, None
