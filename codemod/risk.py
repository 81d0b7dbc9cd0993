"""What a reviewer must weigh before merging: the facts behind the report's Risk section.

For each decoupled class, after the rewrite: the writes to the environment or to global
state that no longer happen, with the places in the tree that read what they wrote and when
each can run (``dropped_work.reader_kind``); the calls no longer made that can raise (DC407);
the dropped allocations whose size the source states; the parent's members the patch does not
keep that instances still have (the class or the new base defines them); the
parameters of the class's ``__init__`` that the patched code no longer reads, with the calls
that still pass them; the class attributes of the parent the class no longer has; and the
members still built only to be passed on to another class decoupled in the same run, with
what that class now does with them (a second pass over the classes decoupled together).
Everything here is found by name (the word index, then the parsed modules), so it can list
a reader that reads something else of the same name; it never decides anything.
"""

from __future__ import annotations

import ast
import re

from .ast_util import walk
from .dropped_work import allocation_bytes, reader_kind, written_bytes
from .model import ClassAnalysis, ModulePatch
from .rules import effect_raising_call
from .saving import built_in_own_code, class_saving
from .word_search import WordPattern

_LIMIT = 5  # places listed per item; the count says how many more there are
_COMMON = {"environ", "setdefault", "putenv", "register", "update", "set", "self", "envs", "os"}


def patched_trees(patches: list[ModulePatch]) -> dict[str, ast.Module]:
    """Each patched module, parsed once for every class's assessment (a patch always parses:
    the checks ran on it)."""
    out = {}
    for p in patches:
        try:
            out[p.rel] = ast.parse(p.after)
        except SyntaxError:
            continue
    return out


def assess(index, a: ClassAnalysis, trees: dict[str, ast.Module], decoupled: tuple[str, ...] = ()) -> dict:
    """``trees``: ``patched_trees`` of the run; ``decoupled``: the names of every class it
    decouples (for the second pass)."""
    after = trees.get(a.cls.file)
    return {
        "global_writes": [_with_readers(index, a, s) for s in a.side_effects if s.rule in ("DC402", "DC403")],
        "unused_parameters": _unused_parameters(index, a, after) if after is not None else [],
        "class_attributes_gone": sorted(n for n, (m, _) in a.members.items()
                                        if m.kind == "class_attribute" and n not in a.kept and n not in _still_defined(index, a)),
        "passed_on": _passed_on(a, trees, decoupled) if after is not None else [],
        "raising_calls": sorted(effect_raising_call.raising_calls(index, a.side_effects), key=lambda r: (r["file"], r["line"])),
        "estimated_bytes": _estimated_bytes(index, a),
        "memory": class_saving(index, a),
        "still_defined": _still_defined(index, a),
    }


def answer_raising(index, decoupled: list[ClassAnalysis], risks: dict) -> None:
    """Each raising call (DC407) whose raise site still runs when the class is built gets
    "still_runs_in": the class that runs it (this one, or one decoupled with it that its own code
    still builds) and where. A configuration that site rejects still fails, so the report does not
    say that it no longer does."""
    by_qual = {a.cls.qualname: a for a in decoupled}
    for a in decoupled:
        runs = [(a, f"{a.cls.file}:{a.cls.line}")] + [(o, site) for o, _, _, site in built_in_own_code(index, a, by_qual, {}, counted=False)]
        for r in risks.get(a.cls.name, {}).get("raising_calls", []):
            for other, site in runs:
                if r["at"] in _kept_places(other):
                    r["still_runs_in"] = {"class": other.cls.name, "site": site}
                    break


def _kept_places(a: ClassAnalysis) -> set[str]:
    """``file:line`` of every statement of the parent's ``__init__`` the patch keeps."""
    owner = a.parent_init_owner
    places = {f"{s.file}:{s.line}" for s in a.kept_for_effect}
    if owner is not None and a.init_slice is not None:
        places |= {f"{owner.file}:{pos[0]}" for pos in a.init_slice.kept}
    return places


def _still_defined(index, a: ClassAnalysis) -> dict[str, str]:
    """The parent's members the patch does not keep that instances still have: the class
    defines or assigns them itself, or the new base (or its ancestors in the tree) defines
    them. Member -> the class that does."""
    out = {n: a.cls.name for n in a.members if n not in a.kept and n in a.cls.members}
    todo, seen = [a.base], set()
    while todo:
        q = todo.pop(0)
        c = index.resolve_class(q) if q not in seen else None
        seen.add(q)
        if c is None:
            continue
        for n in c.members:
            if n in a.members and n not in a.kept:
                out.setdefault(n, c.name)
        todo.extend(c.bases)
    return dict(sorted(out.items()))


def _estimated_bytes(index, a: ClassAnalysis) -> list[dict]:
    """The dropped allocations whose size the source states (DC404)."""
    out = []
    for e in a.side_effects:
        if e.rule == "DC404":
            size = allocation_bytes(index, e.file, e.line)
            if size is not None:
                out.append({"file": e.file, "line": e.line, "code": e.code, **size})
    return sorted(out, key=lambda e: (e["file"], e["line"]))


def _passed_on(a: ClassAnalysis, trees: dict[str, ast.Module], decoupled: tuple[str, ...]) -> list[dict]:
    """Kept members of the parent that the patched class reads only as arguments to another
    class decoupled in this run, and whether that class, patched, still reads the parameter.

    What it proves: the member's every read in the patched class is such an argument. What it
    does not: it reads only the patched ``__init__`` of the receiving class, so a parameter
    stored and read elsewhere counts as read (it says "read"), never as unused.
    """
    mine = _class_node(trees.get(a.cls.file), a.cls.name)
    if mine is None:
        return []
    inits = {}
    for tree in trees.values():
        for name in decoupled:
            node = _class_node(tree, name)
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None) if node else None
            if init is not None and name != a.cls.name:
                inits[name] = init
    parents: dict = {}
    nodes = walk(mine, parents)
    out = []
    for member in sorted(a.kept):
        if any(e.rule != "DC101" for e in a.kept[member]):
            continue  # also needed by kept parent code or by code elsewhere: not only passed on
        reads = [n for n in nodes if isinstance(n, ast.Attribute) and n.attr == member
                 and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and n.value.id == "self"]
        if not reads:
            continue
        targets = [_argument_of(parents, r, inits) for r in reads]
        if any(t is None for t in targets):
            continue
        for cls_name, param in sorted(set(targets)):
            out.append({"member": member, "to": cls_name, "parameter": param,
                        "use": _param_use(inits[cls_name], param), "lines": sorted({r.lineno for r in reads})})
    return out


def _class_node(tree, name: str):
    if tree is None:
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name), None)


def _argument_of(parents: dict, read: ast.AST, inits: dict) -> tuple[str, str] | None:
    """(class, parameter) when ``read`` is, or is indexed into, an argument of a call of a class in
    ``inits``; else None."""
    node = read
    while isinstance(parents.get(id(node)), ast.Subscript) and parents[id(node)].value is node:
        node = parents[id(node)]
    holder = parents.get(id(node))
    kw = None
    if isinstance(holder, ast.keyword):
        kw, holder = holder.arg, parents.get(id(holder))
    if not isinstance(holder, ast.Call) or node is holder.func:
        return None
    callee = holder.func.id if isinstance(holder.func, ast.Name) else getattr(holder.func, "attr", None)
    init = inits.get(callee)
    if init is None:
        return None
    params = [p.arg for p in init.args.posonlyargs + init.args.args][1:]
    if kw is None:
        index = holder.args.index(node) if node in holder.args else None
        if index is None or index >= len(params) or any(isinstance(x, ast.Starred) for x in holder.args[:index + 1]):
            return None
        kw = params[index]
    if kw is None or kw not in params + [p.arg for p in init.args.kwonlyargs]:
        return None
    return callee, kw


def _param_use(init: ast.FunctionDef, param: str) -> dict:
    """How the patched ``__init__`` reads a parameter: never, only compared with None, or otherwise."""
    parents: dict = {}
    loads = [n for n in walk(init, parents) if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load)]
    if not loads:
        return {"how": "never read"}

    def none_test(n):
        cmp = parents.get(id(n))
        return (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.ops[0], (ast.Is, ast.IsNot))
                and any(isinstance(x, ast.Constant) and x.value is None for x in [cmp.left, *cmp.comparators]))

    if all(none_test(n) for n in loads):
        return {"how": "only compared with None", "lines": sorted({n.lineno for n in loads})}
    return {"how": "read", "lines": sorted({n.lineno for n in loads})[:_LIMIT]}


def written_name(code: str) -> str | None:
    """The name a global write writes: an environment key or an upper-case setting."""
    key = re.search(r"""environ(?:\.setdefault\(|\[)\s*['"](\w+)['"]""", code)
    if key:
        return key.group(1)
    caps = [w for w in re.findall(r"[A-Za-z_]\w{3,}", code) if w.isupper() and w.lower() not in _COMMON]
    return max(caps, key=len) if caps else None


def _with_readers(index, a: ClassAnalysis, effect) -> dict:
    out = {"file": effect.file, "line": effect.line, "code": effect.code, "why": effect.why, "rule": effect.rule}
    name = written_name(effect.code)
    if name is None:
        return out
    rx = WordPattern(name)
    # The parent's own code stays as it is, for its other users: only the rest of the tree counts.
    p = a.parent_init_owner or a.parent
    p_lines = (p.node.lineno, p.node.end_lineno)
    places = []
    for rel in sorted(index.tree.files_naming(name)):
        text = index.tree.text(rel) or ""
        for no, line in enumerate(text.splitlines(), 1):
            if rx.search(line) and not line.lstrip().startswith("#") and not (rel == p.file and p_lines[0] <= no <= p_lines[1]):
                places.append(f"{rel}:{no}")
    out["name"] = name
    out["other_uses"] = places[:_LIMIT]
    out["other_uses_total"] = len(places)
    written = written_bytes(effect.code)
    if written is not None:
        out["value_bytes"] = written
    out["readers"] = [reader_kind(index, place, name, a.cls.name) for place in places]
    return out


def _unused_parameters(index, a: ClassAnalysis, tree: ast.Module) -> list[dict]:
    init = a.cls.methods.get("__init__")
    if init is None:
        return []
    new = _class_node(tree, a.cls.name)
    new_init = next((n for n in new.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None) if new else None
    if new_init is None:
        return []

    def params(fn):
        args = fn.args
        return [p.arg for p in args.posonlyargs + args.args + args.kwonlyargs][1:]

    def used(fn):
        return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}

    before_used, after_used = used(init), used(new_init)
    gone = [p for p in params(new_init) if p in before_used and p not in after_used]
    return [{"parameter": p, "passed_by": _callers(index, a, p, params(init).index(p) if p in params(init) else None)} for p in gone]


def _callers(index, a: ClassAnalysis, param: str, position: int | None) -> list[str]:
    """The calls of the class in the tree that pass ``param`` (by keyword, or far enough by position)."""
    name = a.cls.name
    rx = WordPattern(name, r"\s*\(")
    out = []
    for rel in sorted(index.tree.grep(lambda text: rx.search(text) is not None, words=(name,))):
        mod = index.module(rel)
        if mod is None:
            continue
        for n in mod.nodes:
            if not (isinstance(n, ast.Call) and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)):
                continue
            if any(k.arg == param for k in n.keywords) or (position is not None and len(n.args) > position):
                out.append(f"{rel}:{n.lineno}")
    return out[:_LIMIT]
