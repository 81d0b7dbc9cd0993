"""DC404 dropped-allocation: report a dropped allocation (the work the refactor saves).

## What it does
Lists each dropped statement of the parent's ``__init__`` that allocates: calls named
like tensor factories (``empty``, ``zeros``, ``full``, ``arange``, ...), ``*alloc*`` or
``get_buffer``, the builtins ``bytearray(n)`` and ``bytes(n)`` with one argument that is not
a literal string, or a repeated sequence (``[0] * n``).

Where the source states the size (a tensor factory with literal dimensions, or a setting's
default: ``torch.empty(envs.X.get(), dtype=torch.uint8)`` with ``X = EnvInt(384 * 1024 * 1024)``
declared in the tree, or ``get_int_env_var("X", 4096)``) and an explicit dtype, the report gives
the bytes, marked "estimated from the source" until ``decouple verify`` measures the memory
(``codemod/dropped_work.py``). ``bytearray(1 << 20)`` states its size alone: 1 MiB.

## Why
This is usually the point of the change (memory no longer allocated), and the reviewer
should see each allocation that goes, and what it weighed where the source says.

## Known problems
Recognised by name, or by the shape of ``[...] * n``; a comprehension is not listed.
``bytearray(x)`` of a buffer copies it (an allocation too, of a size not stated); the name
must be the builtin's, unqualified, so a module's own ``bytearray`` function is taken for it. A size
is estimated from the setting's declared default: a value the user or other code sets at run
time, or a buffer shared between instances (``get_buffer``), makes the real saving differ.

## Fix safety
Reported only.
"""

from __future__ import annotations

import ast

ID = "DC404"
NAME = "dropped-allocation"
ALLOCATORS = {"empty", "zeros", "ones", "full", "arange", "tensor", "empty_like", "zeros_like", "ones_like", "full_like", "randn", "rand"}


BUFFERS = {"bytearray", "bytes"}


def match_call(name: str, last: str, stmt, call) -> str | None:
    if last in ALLOCATORS or "alloc" in last or last == "get_buffer" or is_buffer(name, call):
        return f"allocation: {name}()"
    return None


def is_buffer(name: str, call: ast.Call) -> bool:
    """``bytearray(n)`` or ``bytes(n)``: one positional argument that is not a literal string
    (``bytes("ab", "ascii")`` encodes, ``bytearray()`` is empty)."""
    return (name in BUFFERS and len(call.args) == 1 and not call.keywords
            and not (isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, (str, bytes))))


def match(stmt: ast.stmt, facts=None) -> str | None:
    """A repeated list or tuple (``[0] * 1_000_000``): an allocation without any call."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            seq = next((s for s in (node.left, node.right) if isinstance(s, (ast.List, ast.Tuple))), None)
            if seq is not None:
                return f"allocation: a repeated {'list' if isinstance(seq, ast.List) else 'tuple'}"
    return None
