"""The memory a patch saves: what each construction no longer allocates, once per process or
with each instance, and the total for one process of a configuration.

Read from the source, never run. A construction's dropped work is walked call by call: a
buffer cached by a key (``get_buffer("name", factory)``), a module global or a function under
``functools.lru_cache``/``cache`` is allocated once per process, so only the first
construction in a process saves it; a tensor factory with a size that folds (literal
dimensions, a setting's declared default: ``dropped_work.allocation_bytes``) is allocated by
each instance, on the GPU, or in pinned host memory with ``pin_memory=True``; a class of the
tree is followed into its own ``__init__``; a class from outside the tree is sized only when
``KNOWN_CONSTRUCTORS`` lists it. A call counts as many times as the loops around it run
(``range(n)`` with ``n`` that folds) and not at all under a test that folds to false.

What folds: literals, the parameters a construction binds (its call's literal arguments, the
configuration's values, the signature's defaults), and ``self.X`` stored once from those. A
value stored on every branch of an ``if``/``elif``/``else`` chain is taken from the ``else``
branch (the one no condition selects), and that is listed as an assumption. What does not fold
(a size read from an object, a test of a run-time value) is listed as not sized, never
counted: the figures are lower bounds of what the source states.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field

from .ast_util import dotted_name, walk
from .dropped_work import allocation_bytes

MiB = 1 << 20

# Constructors outside the tree whose allocations are known. Each FlashInfer attention wrapper
# allocates, in its ``__init__``, an int workspace of 8 MiB on the float workspace's device and a
# pinned host buffer of the same shape (``self._int_workspace_buffer = torch.empty((8 * 1024 *
# 1024,), dtype=torch.uint8, device=self.device)`` and ``self._pin_memory_int_workspace_buffer``
# with ``pin_memory=True``: ``flashinfer/decode.py`` BatchDecodeWithPagedKVCacheWrapper.__init__,
# ``flashinfer/prefill.py`` BatchPrefillWithPagedKVCacheWrapper.__init__ and
# BatchPrefillWithRaggedKVCacheWrapper.__init__). Limits: the smaller buffers some releases add
# (the prefill wrappers' ``_kv_lens_buffer``, 128 KiB) are not counted; a FlashInfer release that
# sizes the workspace otherwise makes the figure differ (``decouple verify`` measures it); the
# GPU figure assumes the float workspace passed in lives on the GPU, as SGLang's does.
_FLASHINFER_WRAPPER = (8 * MiB, 8 * MiB, "each FlashInfer wrapper's `__init__` allocates an 8 MiB int workspace on the GPU "
                       "and an 8 MiB pinned host copy (FlashInfer is outside the tree: decouple's table of known constructors)")
KNOWN_CONSTRUCTORS = {
    f"flashinfer{mod}.{name}": _FLASHINFER_WRAPPER
    for mod in ("", ".decode", ".prefill")
    for name in ("BatchDecodeWithPagedKVCacheWrapper", "BatchPrefillWithPagedKVCacheWrapper",
                 "BatchPrefillWithRaggedKVCacheWrapper")
}
_CACHING_DECORATORS = {"lru_cache", "cache", "functools.lru_cache", "functools.cache"}
_FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn", "arange", "empty_like", "zeros_like", "ones_like", "full_like", "tensor"}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}
_DEPTH = 3  # constructors followed into constructors
_REPEATING = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Unknown:
    def __repr__(self) -> str:
        return "unknown"


UNKNOWN = _Unknown()
GIVEN = object()  # an argument passed that is not a literal: something, of unknown value


@dataclass
class Part:
    """One allocation a construction no longer makes."""

    code: str
    file: str
    line: int
    scope: str  # "process" (cached: the first construction of a process pays) or "instance"
    count: int = 1
    gpu: int | None = None  # bytes each; None: not sized
    pinned: int | None = None
    key: str | None = None  # what caches a process-wide one
    how: str = ""
    via: str = ""  # the constructor it was found in, when not the dropped code itself

    def as_dict(self) -> dict:
        out = {"code": self.code, "file": self.file, "line": self.line, "scope": self.scope, "count": self.count}
        for k in ("gpu", "pinned"):
            if getattr(self, k) is not None:
                out[f"{k}_bytes"] = getattr(self, k)
        for k in ("key", "how", "via"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        return out


@dataclass
class Saving:
    parts: list[Part] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    not_counted: list[str] = field(default_factory=list)  # calls that run a number of times that does not fold

    def total(self, first: bool, seen: set[str] | None = None) -> tuple[int, int]:
        """GPU and pinned host bytes saved by a construction: the first of the process (or, with
        ``seen``, one after the constructions that cached those keys) counts what is cached, once
        per key however many times it is asked for."""
        gpu = pinned = 0
        cached = set(seen or ())
        for p in self.parts:
            if p.scope == "process":
                if not first or p.key in cached:
                    continue
                cached.add(p.key)
                gpu, pinned = gpu + (p.gpu or 0), pinned + (p.pinned or 0)
                continue
            gpu += (p.gpu or 0) * p.count
            pinned += (p.pinned or 0) * p.count
        return gpu, pinned


class _Walker:
    def __init__(self, index):
        self.index = index

    def construction(self, cls, bindings: dict, only_lines: set[int] | None, depth: int = 0, via: str = "") -> Saving:
        """What constructing ``cls`` allocates in its ``__init__`` (only the statements starting at
        ``only_lines`` when given: the dropped ones), with ``bindings`` for its parameters."""
        out = Saving()
        init = cls.methods.get("__init__") if cls is not None else None
        if init is None or depth > _DEPTH:
            return out
        env = _Env(init, bindings, out.assumptions, cls.file)
        parents: dict = {}
        nodes = walk(init, parents)
        for call in (n for n in nodes if isinstance(n, ast.Call)):
            stmt = _statement(call, parents, init)
            if only_lines is not None and not _within(call, parents, init, only_lines):
                continue
            count = _count(call, parents, init, env)
            if count == 0:
                continue
            if count is UNKNOWN:
                out.not_counted.append(f"`{cls.file}:{call.lineno}` {dotted_name(call.func) or 'a call'}()")
                continue
            self._call(cls, call, stmt, count, env, out, depth, via)
        return out

    def _call(self, cls, call, stmt, count, env, out: Saving, depth: int, via: str) -> None:
        mod = cls.module
        name = dotted_name(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        code = mod.source(stmt).splitlines()[0].strip() if stmt is not None else name
        line = call.lineno
        if last == "get_buffer" and call.args and isinstance(call.args[0], ast.Constant):
            size = allocation_bytes(self.index, cls.file, stmt.lineno) if stmt is not None else None
            out.parts.append(Part(code, cls.file, line, "process", 1, size and size["bytes"], None,
                                  f'{last}("{call.args[0].value}")', (size or {}).get("how", ""), via))
            return
        target = self.index.resolve_callable(mod, call.func)
        if isinstance(target, ast.FunctionDef) and any(dotted_name(d.func if isinstance(d, ast.Call) else d) in _CACHING_DECORATORS
                                                       for d in target.decorator_list):
            out.parts.append(Part(code, cls.file, line, "process", 1, None, None, f"{target.name}() under lru_cache", "", via))
            return
        qual = mod.qualify(call.func)
        if qual in KNOWN_CONSTRUCTORS:
            gpu, pinned, how = KNOWN_CONSTRUCTORS[qual]
            out.parts.append(Part(f"{last}(...)", cls.file, line, "instance", count, gpu, pinned, None, how, via))
            return
        if last in _FACTORIES and name.startswith("torch."):
            size = allocation_bytes(self.index, cls.file, stmt.lineno) if stmt is not None else None
            pinned = any(k.arg == "pin_memory" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)
            host = any(k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value == "cpu" for k in call.keywords)
            if host and not pinned:
                return  # pageable host memory: not what the figures count
            b = size and size["bytes"]
            out.parts.append(Part(code, cls.file, line, "instance", count, None if pinned else b, b if pinned else None,
                                  None, (size or {}).get("how", "its size is not stated in the source"), via))
            return
        if target is not None and not isinstance(target, ast.FunctionDef) and hasattr(target, "methods"):
            inner = self.construction(target, _bind(target.methods.get("__init__"), call, env), None, depth + 1,
                                      via or f"{target.name}(...) at {cls.file.rsplit('/', 1)[-1]}:{line}")
            for p in inner.parts:
                p.count *= count
            out.parts += inner.parts
            out.assumptions += [a for a in inner.assumptions if a not in out.assumptions]
            out.not_counted += inner.not_counted


def _statement(node, parents, top):
    while node is not None and parents.get(id(node)) is not top and not (isinstance(node, ast.stmt) and _is_block_child(node, parents)):
        node = parents.get(id(node))
    return node


def _is_block_child(stmt, parents) -> bool:
    parent = parents.get(id(stmt))
    return isinstance(parent, (ast.For, ast.If, ast.While, ast.With, ast.Try, ast.FunctionDef))


def _within(node, parents, top, lines: set[int]) -> bool:
    """Whether ``node`` lies in a statement of ``top`` that starts at one of ``lines``."""
    while node is not None and node is not top:
        if isinstance(node, ast.stmt) and node.lineno in lines:
            return True
        node = parents.get(id(node))
    return False


def _count(call, parents, top, env) -> int | _Unknown:
    """How many times ``call`` runs in one run of ``top``: the product of the loops around it; 0
    under a test that folds to false (or in the branch a true one skips)."""
    n, child, node = 1, call, parents.get(id(call))
    while node is not None and node is not top:
        if isinstance(node, ast.For) and child is not node.iter:
            times = _range_count(node.iter, env)
            if times is UNKNOWN:
                return UNKNOWN
            n *= times
        elif isinstance(node, _REPEATING) and child not in node.generators:
            for g in node.generators:
                times = _range_count(g.iter, env) if not g.ifs else UNKNOWN
                if times is UNKNOWN:
                    return UNKNOWN
                n *= times
        elif isinstance(node, (ast.If, ast.IfExp)) and child is not node.test:
            test = env.truth(node.test)
            if test is UNKNOWN:
                return UNKNOWN
            in_body = child in node.body if isinstance(node, ast.If) else child is node.body
            if test != in_body:
                return 0
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return 0  # a nested function or lambda: not run by the construction itself (get_buffer's factory is sized with it)
        child, node = node, parents.get(id(node))
    return n


def _range_count(it, env):
    if isinstance(it, ast.Call) and dotted_name(it.func) == "range" and len(it.args) == 1 and not it.keywords:
        n = env.value(it.args[0])
        return max(n, 0) if isinstance(n, int) and not isinstance(n, bool) else UNKNOWN
    return UNKNOWN


def _bind(init, call: ast.Call, env: "_Env | None", given: dict | None = None) -> dict:
    """Parameter -> value for a call of a class whose ``__init__`` is ``init``: literal arguments
    (and those ``env`` folds), GIVEN for any other; ``given`` names values for parameters."""
    if init is None:
        return {}
    params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    out: dict = {}

    def val(node):
        v = env.value(node) if env is not None else _literal(node)
        return GIVEN if v is UNKNOWN else v

    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if i < len(params):
            out[params[i]] = val(arg)
    for k in call.keywords:
        if k.arg:
            out[k.arg] = val(k.value)
    for k, v in (given or {}).items():
        out[k] = v
    return out


def _literal(node):
    if isinstance(node, ast.Constant):
        return node.value
    return UNKNOWN


class _Env:
    """The values a construction's ``__init__`` folds: its parameters and the ``self.X`` it
    stores once from them."""

    def __init__(self, init, bindings: dict, assumptions: list[str], file: str):
        self.values: dict = {}
        args = init.args
        positional = args.posonlyargs + args.args
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        for a in positional[1:] + args.kwonlyargs:
            if a.arg in bindings:
                self.values[a.arg] = bindings[a.arg]
            elif a.arg in defaults:
                self.values[a.arg] = _literal(defaults[a.arg])
        self.selves: dict = {}
        self.assumptions = assumptions
        self._notes: dict[str, str] = {}  # self.X taken from an else branch: said once it is used
        sn = positional[0].arg if positional else "self"
        stored: dict[str, list] = {}
        for n in walk(init):
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == sn and n.value is not None:
                        stored.setdefault(t.attr, []).append(n)
        for attr, stores in stored.items():
            if len(stores) == 1:
                self.selves[attr] = self.value(stores[0].value)
        for chain in (n for n in init.body if isinstance(n, ast.If)):
            self._else_value(chain, sn, stored, assumptions, file)

    def _else_value(self, chain: ast.If, sn: str, stored: dict, assumptions: list[str], file: str) -> None:
        """``if a: self.n = 2 / elif b: self.n = 2 / else: self.n = 1``: the else branch's value,
        when every store of the attribute is in the chain, each a literal."""
        branches, node = [], chain
        while True:
            branches.append(node.body)
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                node = node.orelse[0]
                continue
            if not node.orelse:
                return
            branches.append(node.orelse)
            break
        last = branches[-1]
        for s in last:
            if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Attribute)
                    and isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == sn and isinstance(s.value, ast.Constant)):
                continue
            attr = s.targets[0].attr
            in_chain = [b for b in branches if any(isinstance(x, ast.Assign) and x in stored.get(attr, ()) for x in b)]
            if len(in_chain) == len(branches) == len(stored.get(attr, ())) and attr not in self.selves:
                self.selves[attr] = s.value.value
                self._notes[attr] = (f"`self.{attr}` is {s.value.value!r}, its value on the `else` branch at "
                                   f"`{file}:{s.lineno}` (what no condition of the chain selects)")

    def value(self, node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.values.get(node.id, UNKNOWN)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            note = self._notes.get(node.attr)
            if note and note not in self.assumptions:
                self.assumptions.append(note)
            return self.selves.get(node.attr, UNKNOWN)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            a, b = self.value(node.left), self.value(node.right)
            if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool):
                return _OPS[type(node.op)](a, b)
        return UNKNOWN

    def truth(self, node):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            t = self.truth(node.operand)
            return t if t is UNKNOWN else not t
        if isinstance(node, ast.BoolOp):
            vals = [self.truth(v) for v in node.values]
            want = isinstance(node.op, ast.Or)
            if want in vals:
                return want
            return UNKNOWN if UNKNOWN in vals else not want
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            v = self.value(node.left)
            if v is UNKNOWN:
                return UNKNOWN
            is_none = v is None
            return is_none if isinstance(node.ops[0], ast.Is) else not is_none
        v = self.value(node)
        return UNKNOWN if v is UNKNOWN or v is GIVEN else bool(v)


def dropped(index, a, bindings: dict | None = None) -> Saving:
    """What one construction of ``a``'s class no longer allocates: the dropped statements of the
    parent's ``__init__``, and the constructors they call, with ``bindings`` for its parameters."""
    owner = a.parent_init_owner
    if owner is None or a.dataclass_init is not None:
        return Saving()
    lines = {e.line for e in a.side_effects if e.file == owner.file}
    return _Walker(index).construction(owner, _through_super(a, bindings or {}), lines)


def _through_super(a, bindings: dict) -> dict:
    """The class's own parameters, bound, as the parent's ``__init__`` receives them through
    ``super().__init__(...)``."""
    call = a.super_init_call
    owner = a.parent_init_owner
    init = owner.methods.get("__init__") if owner is not None else None
    if call is None or init is None:
        return bindings
    child_init = a.cls.methods.get("__init__")
    env = _Env(child_init, bindings, [], a.cls.file) if child_init is not None else None
    return _bind(init, call, env)


def built_in_own_code(index, a, decoupled: dict, bindings: dict, counted: bool = True) -> list[tuple[object, int, dict, str]]:
    """The classes decoupled in the same run that the class's own ``__init__`` still builds:
    (their analysis, how many, their bindings, where). ``counted=False`` keeps also the calls
    that run a number of times that does not fold (the count is then UNKNOWN)."""
    init = a.cls.methods.get("__init__")
    if init is None:
        return []
    env = _Env(init, bindings, [], a.cls.file)
    # self.X the parent stores from the parameters the class passes it (kept, inlined by the patch)
    owner = a.parent_init_owner
    if owner is not None and "__init__" in owner.methods:
        penv = _Env(owner.methods["__init__"], _through_super(a, bindings), [], owner.file)
        for k, v in penv.selves.items():
            env.selves.setdefault(k, v)
    parents: dict = {}
    out = []
    for call in (n for n in walk(init, parents) if isinstance(n, ast.Call)):
        target = index.resolve_callable(a.cls.module, call.func)
        other = decoupled.get(getattr(target, "qualname", None))
        if other is None or other is a:
            continue
        count = _count(call, parents, init, env)
        if count == 0 or (counted and count is UNKNOWN):
            continue
        out.append((other, count, _bind(other.cls.methods.get("__init__"), call, env), f"{a.cls.file}:{call.lineno}"))
    return out


def class_saving(index, a) -> dict:
    """report.json's ``risk.memory`` of a class: one construction with its parameters' defaults,
    the first of a process and each later one."""
    s = dropped(index, a)
    first, later = s.total(True), s.total(False)
    return {"first": {"gpu_bytes": first[0], "pinned_bytes": first[1]},
            "later": {"gpu_bytes": later[0], "pinned_bytes": later[1]},
            "parts": [p.as_dict() for p in s.parts], "assumptions": s.assumptions, "not_counted": s.not_counted}


def configuration(index, name: str, constructions, analyses) -> dict | None:
    """The saving of one process that makes ``constructions`` in order: (role, file, class name,
    values of parameters the call does not state). Each construction is the first call of the
    class in that file; None when one is not in the tree or its class is not decoupled.

    A part cached by a key counts once, in the first construction that asks for it; what each
    construction adds is listed by what it no longer builds, with where (``items``)."""
    by_name = {a.cls.name: a for a in analyses}
    by_qual = {a.cls.qualname: a for a in analyses}
    seen: set[str] = set()
    rows, assumptions, not_sized = [], [], []
    for role, rel, cls_name, given in constructions:
        a = by_name.get(cls_name)
        site = _first_call(index, rel, cls_name)
        if a is None or site is None:
            return None
        _, call = site
        bindings = _bind(a.cls.methods.get("__init__"), call, None, dict(given))
        row = {"role": role, "class": cls_name, "site": f"{rel}:{call.lineno}", "given": dict(given),
               "gpu_bytes": 0, "pinned_bytes": 0, "items": []}
        for s, where in _construction_parts(index, a, bindings, by_qual):
            assumptions += [x for x in s.assumptions if x not in assumptions]
            for p in s.parts:
                if p.scope == "process":
                    if p.key in seen:
                        continue
                    seen.add(p.key)
                if p.gpu is None and p.pinned is None:
                    entry = f"`{p.file}:{p.line}` {p.code}"
                    if entry not in not_sized:
                        not_sized.append(entry)
                    continue
                n = 1 if p.scope == "process" else p.count
                label = p.key or p.code.split("(")[0]
                item = next((i for i in row["items"] if i["what"] == label and i["in"] == where), None)
                if item is None:
                    item = {"what": label, "in": where, "count": 0, "gpu_bytes": 0, "pinned_bytes": 0,
                            "scope": p.scope, "at": f"{p.file}:{p.line}", "how": p.how}
                    row["items"].append(item)
                item["count"] += n
                item["gpu_bytes"] += (p.gpu or 0) * n
                item["pinned_bytes"] += (p.pinned or 0) * n
                row["gpu_bytes"] += (p.gpu or 0) * n
                row["pinned_bytes"] += (p.pinned or 0) * n
        rows.append(row)
    return {"name": name, "constructions": rows, "gpu_bytes": sum(r["gpu_bytes"] for r in rows),
            "pinned_bytes": sum(r["pinned_bytes"] for r in rows), "assumptions": assumptions, "not_sized": not_sized}


def _construction_parts(index, a, bindings: dict, by_qual: dict) -> list[tuple[Saving, str]]:
    """The savings one construction of ``a`` adds up: its own dropped work (``in`` ""), then that
    of each class decoupled with it that its own code still builds, each times how many (``in``
    "N `Class` built at file:line")."""
    out = [(dropped(index, a, bindings), "")]
    for other, count, b, site in built_in_own_code(index, a, by_qual, bindings):
        s = dropped(index, other, b)
        for p in s.parts:
            p.count *= count
        out.append((s, f"{count} `{other.cls.name}` built at `{site}`"))
    return out


def _first_call(index, rel: str, cls_name: str):
    mod = index.module(rel)
    if mod is None:
        return None
    calls = [n for n in mod.nodes if isinstance(n, ast.Call)
             and (getattr(n.func, "id", None) == cls_name or getattr(n.func, "attr", None) == cls_name)]
    return (mod, min(calls, key=lambda n: (n.lineno, n.col_offset))) if calls else None

