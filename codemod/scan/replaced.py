"""``decouple scan --replaced``: objects a parent's ``__init__`` builds that the class throws
away (rule DC408 finds them), what each cost, and whether a factory hook on the parent could
remove the waste.

The cost is the first pass's estimate (``estimate``): each thrown-away construction weighs
what building it does (its class's own ``__init__``, followed one level), twice when it is
built in a loop or a comprehension, plus the allocations the statement makes, sized where the
source states the size. A class also pays what its ancestors throw away of their own parents'
objects (a grandchild's three sets of per-step backends): those findings are listed with it.

The verdict says whether a hook (P's statement moved into a method of P that C overrides) is
possible, or why not: a read of the thrown-away object before C replaces it that cannot be
shown to give the same value with C's object, a hook name already taken, or something C's
construction reads that is set only after ``super().__init__()``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from ..ast_util import first_param, walk
from ..console import counted, display_path
from ..dropped_work import allocation_bytes, size_text
from ..facts import collect
from ..index import ClassInfo
from ..rules import effect_allocation
from ..rules import effect_built_then_replaced as dc408
from ..super_init import find_super_init
from ..slice import side_effect
from .estimate import MIB, REPEATED, WEIGHTS, _chain, construction_weight
from .hook_safety import (
    construction_problem,
    list_alias,
    resolve_base,
    resolve_built,
    same_value,
)
from .sketch import Sizes, SketchIndex, def_names

HOOK_POSSIBLE, REFUSED = "hook possible", "refused"


@dataclass
class Finding:
    """One class and the objects its ``__init__`` chain builds and throws away."""

    cls: str  # module:Name
    parent: str  # module:Name, its first base
    file: str
    line: int
    statements: list[dict] = field(default_factory=list)  # one per thrown-away statement
    verdict: str = HOOK_POSSIBLE
    reason: str = ""
    # With ``find(..., keep=True)``: (statement's dict, dc408.Built, the __init__'s owner) for
    # each of the class's own statements, what the hook's run rewrites; left out of the scan's
    # results, which cross processes.
    built: list = field(default_factory=list, repr=False, compare=False)

    @property
    def saving(self) -> int:
        return sum(s["weight"] for s in self.statements)

    @property
    def score(self) -> int:
        return self.saving  # a hook copies nothing: the estimate ranks alone

    @property
    def rule(self) -> str:
        return dc408.ID

    def as_dict(self) -> dict:
        return {"kind": "built then replaced", "class": self.cls.rpartition(":")[2], "qualname": self.cls,
                "parent": self.parent, "file": self.file, "line": self.line, "score": self.score,
                "saving": self.saving, "statements": self.statements, "verdict": self.verdict,
                "reason": self.reason, "rule": self.rule}


def find(index: SketchIndex, cls: ClassInfo, parent: ClassInfo | None, _depth: int = 0, keep: bool = False) -> Finding | None:
    """What ``cls`` throws away of what the ``__init__`` chain of its first base builds."""
    init = cls.methods.get("__init__")
    if parent is None or init is None or parent is cls or _depth > 4:
        return None
    chain = _chain(index, parent)
    if chain is None:
        return None
    owner = chain[-1]
    super_stmt, call = find_super_init(index, cls, init, parent)
    if call is None or super_stmt not in init.body:
        return None
    replaced = dc408.replacements(init, super_stmt)
    out = Finding(cls.cli_name, parent.cli_name, cls.file, cls.line)
    if replaced:
        defined_in = {n: c for c in reversed(_ancestors(index, chain)) for n in c.methods if n != "__init__"}
        methods = {n: c.methods[n] for n, c in defined_in.items()}
        overrides = set(def_names(index.class_text(cls))) - {"__init__"}
        for b in dc408.built(owner.methods["__init__"], replaced, methods, overrides):
            item = _statement(index, cls, owner, chain, init, super_stmt, b, defined_in)
            if item["weight"]:  # it builds or allocates: a plain call's result is no construction to save
                out.statements.append(item)
                if keep:
                    out.built.append((item, b, owner))
    # What the ancestors between throw away of their own parents' objects, which cls pays too.
    if owner is parent and parent.bases:
        above = index.resolve_class(parent.bases[0])
        inherited = find(index, parent, above, _depth + 1) if above is not None else None
        if inherited is not None:
            for s in inherited.statements:
                out.statements.append({**s, "by": s.get("by", inherited.cls)})
    if not out.statements:
        return None
    own = [s for s in out.statements if "by" not in s]
    refused = [s for s in own if s["verdict"] == REFUSED]
    if refused and len(refused) < len(own):
        out.verdict = f"{HOOK_POSSIBLE} for {len(own) - len(refused)} of {len(own)}"
        out.reason = f"self.{refused[0]['attr']}: {refused[0]['reason']}"
    elif refused:
        out.verdict, out.reason = REFUSED, refused[0]["reason"]
    elif not own:
        out.verdict, out.reason = REFUSED, f"{_short(out.statements[0]['by'])} replaces them: its hook would remove them"
    return out


def _ancestors(index: SketchIndex, chain: list[ClassInfo]) -> list[ClassInfo]:
    """``chain`` and the first-base ancestors above it, as far as they resolve: where a
    method P's ``__init__`` calls may be defined (a second base's are not followed: a call of
    one counts as a read)."""
    out = list(chain)
    while len(out) < 16 and (nxt := resolve_base(index, out[-1])) is not None and nxt not in out:
        out.append(nxt)
    return out


def _statement(index: SketchIndex, cls: ClassInfo, owner: ClassInfo, chain: list[ClassInfo],
               init: ast.FunctionDef, super_stmt: ast.stmt, b: dc408.Built, defined_in: dict) -> dict:
    mod = owner.module
    item = {"at": f"{owner.file}:{b.stmt.lineno}", "code": mod.lines[b.stmt.lineno - 1].strip(), "attr": b.attr,
            "element": b.element, "replaced_at": f"{cls.file}:{b.replacement.stmt.lineno}",
            "hook": hook_name(b.attr, b.element), "constructions": [], "allocations": []}
    weight = WEIGHTS["statement"]
    looped = {id(c) for n in walk(b.value) if isinstance(n, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp))
              for c in walk(n) if isinstance(c, ast.Call)}
    for call in (n for n in walk(b.value) if isinstance(n, ast.Call)):
        built = resolve_built(index, mod, call.func, owner.file)
        times = REPEATED if b.element or id(call) in looped else 1
        name = ast.unparse(call.func)
        if isinstance(built, ClassInfo) and "__init__" in built.methods:
            w = times * (WEIGHTS["construction"] + construction_weight(index, built))
            item["constructions"].append({"class": built.cli_name, "weight": w, "own_init": index.costs.get(built.cli_name, {}),
                                          **({"repeated": True} if times > 1 else {})})
            weight += w
        elif name.rsplit(".", 1)[-1][:1].isupper():
            item["constructions"].append({"class": name, "weight": times * WEIGHTS["construction"],
                                          **({"repeated": True} if times > 1 else {})})
            weight += times * WEIGHTS["construction"]
    stmt = b.stmt.body[0] if b.element else b.stmt
    effect = side_effect(stmt, collect(stmt, first_param(owner.methods["__init__"])))
    if effect is not None and effect[0] == effect_allocation.ID:
        size = allocation_bytes(Sizes(index, owner.file), owner.file, stmt.lineno)
        item["allocations"].append({"at": f"{owner.file}:{stmt.lineno}", **({"bytes": size["bytes"]} if size else {})})
        weight += WEIGHTS["allocation"] + min((size or {}).get("bytes", 0) // MIB, 64)
    item["weight"] = weight if item["constructions"] or item["allocations"] else 0
    item["reads"] = []
    for s, where in b.reads:
        # A read in a method is at that method, in the file of the class that defines it.
        at = defined_in[where] if isinstance(s, ast.FunctionDef) and where in defined_in else owner
        item["reads"].append({"at": f"{at.file}:{s.lineno}", "code": at.module.lines[s.lineno - 1].strip(), "in": where,
                              "same_value": where == "__init__" and (list_alias(owner, init, super_stmt, b, s)
                                                                     or same_value(index, cls, owner, b, s))})
    item["verdict"], item["reason"] = _verdict(index, cls, owner, chain, init, super_stmt, b, item)
    return item


def hook_name(attr: str, element: bool) -> str:
    base = attr.lstrip("_")
    if element and base.endswith("s") and len(base) > 1:
        base = base[:-1]
    return f"_build_{base}"


def _verdict(index, cls, owner, chain, init, super_stmt, b, item) -> tuple[str, str]:
    name = item["hook"]
    for c in [cls, *chain]:
        if name in c.members or re.search(rf"\b{re.escape(name)}\b", index.class_text(c)):
            return REFUSED, f"the hook's name {name} is taken: {_short(c.cli_name)} names it"
    for r in item["reads"]:
        if not r["same_value"]:
            return REFUSED, (f"{_short(owner.cli_name)} reads self.{b.attr} at {r['at']} (`{r['code']}`"
                             + (f", in {r['in']}" if r["in"] != "__init__" else "")
                             + f") before {_short(cls.cli_name)} replaces it: not shown to give the same value")
    problem = construction_problem(index, cls, chain, init, super_stmt, b)
    if problem:
        return REFUSED, problem
    return HOOK_POSSIBLE, ""


def _short(q: str) -> str:
    return q.rpartition(":")[2]


def rank(found: list[Finding]) -> list[Finding]:
    return sorted(found, key=lambda f: (-f.score, f.file, f.line))


# ---- output ----------------------------------------------------------------------------

def cost_text(s: dict) -> str:
    """What one thrown-away statement cost, in a few words."""
    parts = []
    for c in s["constructions"]:
        own = c.get("own_init") or {}
        inner = [f"{own['constructions']} built"] if own.get("constructions") else []
        inner += [counted(own[k], k[:-1]) for k in ("allocations", "calls") if own.get(k)]
        if own.get("bytes"):
            inner.append(size_text(own["bytes"]))
        parts.append(_short(c["class"]) + (" per element" if c.get("repeated") else "")
                     + (f" ({', '.join(inner)})" if inner else ""))
    for a in s["allocations"]:
        parts.append("an allocation" + (f" of {size_text(a['bytes'])}" if a.get("bytes") else ""))
    return "; ".join(parts) or "a call"


def render(found: list[Finding], top: int, fmt: str, root) -> str:
    rows = found[:top] if top else found
    if fmt == "json":
        return json.dumps([f.as_dict() for f in rows], indent=2) + "\n"
    if not rows:
        return "no class replaces objects its parent's __init__ built\n"
    more = len(found) - len(rows)
    md = fmt == "markdown"
    out = ["| # | score | class | parent | thrown away | cost | reads before the replacement | verdict |",
           "|---|---|---|---|---|---|---|---|"] if md else []
    for i, f in enumerate(rows, 1):
        thrown = [f"self.{s['attr']}{'[i]' if s['element'] else ''}" + (f" (by {_short(s['by'])})" if "by" in s else "")
                  for s in f.statements]
        costs = [f"{s['at']}: {cost_text(s)}" for s in f.statements]
        reads = list(dict.fromkeys(f"{r['at']}" + (" (same value)" if r["same_value"] else "")
                                   for s in f.statements for r in s["reads"]))
        verdict = f.verdict + (f": {f.reason}" if f.reason else "")
        if md:
            cells = [str(i), str(f.score), f"`{_short(f.cls)}`", f"`{_short(f.parent)}`", ", ".join(thrown),
                     "<br>".join(costs), ", ".join(reads) or "none", verdict]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
            continue
        out.append(f"{i:>3}  {f.score:>4}  {_short(f.cls)} ({_short(f.parent)}): {', '.join(thrown)}")
        out.append(f"     {display_path(root / f.file)}:{f.line}")
        out += [f"     built at {c}" for c in costs]
        out += [f"     read before the replacement at {r}" for r in reads]
        out.append(f"     {verdict}")
    if more:
        out.append(f"({counted(more, 'more class', 'more classes')} below the cut: --top 0 lists them all)")
    return "\n".join(out) + "\n"
