"""What the dropped statements of the parent's ``__init__`` did, in the terms a reviewer weighs:
the bytes an allocation takes where the source states
its size (rule DC404), and, for a global or environment write, when each place that reads
what it wrote runs (rules DC402, DC403).

Everything here is read from the source, never run: a size is "estimated from the source"
until ``decouple verify`` measures it, a callee is the one the import names, and a reader is
found by name (``risk.py``). The calls that can raise are rule DC407's
(``rules/effect_raising_call.py``).
"""

from __future__ import annotations

import ast
import operator
import re

from .ast_util import dotted_name, walk
from .rules import effect_allocation

# Bytes per element of the dtypes a size can be told from.
_ITEMSIZE = {"uint8": 1, "int8": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "float16": 2, "half": 2,
             "bfloat16": 2, "int16": 2, "float32": 4, "float": 4, "int32": 4, "int": 4, "float64": 8,
             "double": 8, "int64": 8, "long": 8}
_FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn"}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.LShift: operator.lshift, ast.Pow: operator.pow}
_REPEATING = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Readers of a setting by name, whose second argument is its default: get_int_env_var("X", 4096).
_ENV_GETTERS = {"get", "getenv", "get_int_env_var", "get_bool_env_var", "get_float_env_var"}


def statement(index, rel: str, line: int) -> ast.stmt | None:
    """The statement of ``rel`` that starts at ``line`` (the outermost one)."""
    mod = index.module(rel)
    if mod is None:
        return None
    return next((n for n in mod.nodes if isinstance(n, ast.stmt) and n.lineno == line), None)


# ---- sizes (DC404) -----------------------------------------------------------------------

def allocation_bytes(index, rel: str, line: int) -> dict | None:
    """{"bytes", "how"} for the allocation at ``rel:line`` when its source states the size: a
    tensor factory with literal dimensions (or a setting's default) and an explicit dtype, or
    ``bytearray(n)`` / ``bytes(n)`` with ``n`` stated."""
    stmt = statement(index, rel, line)
    if stmt is None:
        return None
    # A call in a comprehension runs once per element: its size is not the statement's. (A lambda's
    # is: ``get_buffer(key, lambda: torch.empty(...))`` builds at most once.)
    repeated = {id(c) for n in walk(stmt) if isinstance(n, _REPEATING) for c in walk(n) if isinstance(c, ast.Call)}
    for call in (n for n in walk(stmt) if isinstance(n, ast.Call) and id(n) not in repeated):
        name = dotted_name(call.func) or ""
        if effect_allocation.is_buffer(name, call):
            notes: list[str] = []
            n = _value(index, call.args[0], notes)
            if n is not None:
                return {"bytes": n, "how": "; ".join(notes) or "the stated size"}
            continue
        if name.rsplit(".", 1)[-1] not in _FACTORIES or not call.args:
            continue
        dtype = next((dotted_name(k.value) for k in call.keywords if k.arg == "dtype"), None)
        size = _ITEMSIZE.get((dtype or "").rsplit(".", 1)[-1])
        if size is None:
            continue
        notes: list[str] = []
        shape = call.args[0] if len(call.args) == 1 else ast.Tuple(elts=list(call.args))
        dims = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
        values = [_value(index, d, notes) for d in dims]
        if any(v is None for v in values):
            continue
        total = size
        for v in values:
            total *= v
        return {"bytes": total, "how": "; ".join(notes) or "literal dimensions"}
    return None


def _value(index, node: ast.AST, notes: list[str]):
    """The integer ``node`` states in the source, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _value(index, node.left, notes), _value(index, node.right, notes)
        return _OPS[type(node.op)](left, right) if left is not None and right is not None else None
    if isinstance(node, ast.Call):
        name = dotted_name(node.func) or ""
        if name == "int" and len(node.args) == 1:
            return _value(index, node.args[0], notes)
        last = name.rsplit(".", 1)[-1]
        # envs.NAME.get(): the default its declaration gives (NAME = EnvInt(default)).
        if last == "get" and not node.args and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Attribute):
            return _declared_default(index, node.func.value.attr, notes)
        if last in _ENV_GETTERS and len(node.args) == 2 and isinstance(node.args[0], ast.Constant):
            default = node.args[1]
            if isinstance(default, ast.Constant) and isinstance(default.value, str) and default.value.isdigit():
                value = int(default.value)
            else:
                value = _value(index, default, notes)
            if value is not None:
                notes.append(f"the default of `{node.args[0].value}`")
            return value
    return None


def _declared_default(index, name: str, notes: list[str]):
    """The default of a setting declared as ``NAME = EnvInt(default)`` somewhere in the tree."""
    if index is None:
        return None
    rx = re.compile(rf"^\s*{re.escape(name)}\s*(?::[^=]*)?=\s*\w+\(", re.M)
    for rel in sorted(index.tree.grep(rx, words=(name,))):
        mod = index.module(rel)
        for n in mod.nodes if mod is not None else ():
            target = n.targets[0] if isinstance(n, ast.Assign) and len(n.targets) == 1 else getattr(n, "target", None)
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name) and target.id == name \
                    and isinstance(n.value, ast.Call) and n.value.args:
                value = _value(index, n.value.args[0], notes)
                if value is not None:
                    notes.append(f"the default of `{name}` (`{rel}:{n.lineno}`)")
                    return value
    return None


def written_bytes(code: str) -> int | None:
    """The integer a write such as ``envs.X.set(512 * 1024 * 1024)`` stores, when literal."""
    try:
        node = ast.parse(code.strip().rstrip("(").rstrip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Call) and len(node.args) == 1:
        return _value(None, node.args[0], [])
    return None


def size_text(n: int) -> str:
    """Bytes as a reviewer reads them: 384 MiB, 2 GiB, 64.2 MiB, 1000 bytes."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}" if n % scale == 0 else f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


# ---- when a reader of a global write runs (DC402, DC403) ----------------------------------

def reader_kind(index, place: str, name: str, cls_name: str) -> dict:
    """Where ``place`` (``file:line``) reads ``name``: {"place", "in", "runs"} where "runs" is
    "declares" (the setting's declaration, with its default), "import" (module level: when its
    module is imported), "construction" (the class's own methods: again for each later
    instance) or "call" (any other function: whenever it is called)."""
    rel, _, no = place.rpartition(":")
    line = int(no)
    mod = index.module(rel)
    out = {"place": place}
    if mod is None:
        return out | {"runs": "call"}
    fns = [n for n in mod.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
           and n.lineno <= line <= (n.end_lineno or n.lineno)]
    if not fns:
        stmt = statement(index, rel, line)
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else getattr(stmt, "target", None)
        if isinstance(target, ast.Name) and target.id == name:
            notes: list[str] = []
            default = _value(index, stmt.value.args[0], notes) if isinstance(stmt.value, ast.Call) and stmt.value.args else None
            return out | {"runs": "declares"} | ({"default_bytes": default} if default is not None else {})
        return out | {"runs": "import"}
    fn = max(fns, key=lambda n: n.lineno)
    owner = next((c for c in mod.classes.values() if fn in c.node.body), None)
    where = f"{owner.name}.{fn.name}" if owner is not None else fn.name
    return out | {"in": where, "runs": "construction" if owner is not None and owner.name == cls_name else "call"}
