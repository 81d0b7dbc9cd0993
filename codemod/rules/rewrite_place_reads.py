"""DC614 place-reads: moved code that reads where it is written keeps what it read, or the rewrite is refused.

## What it does
Looks at the code the rewrite moves from the parent's module into the class's (the kept
statements of the parent's ``__init__``, the defaults they take, the copied methods, properties
and class attributes) for reads whose value depends on the module, class, function or frame the
code sits in:

- ``__name__`` becomes the parent module's name as a literal (``logging.getLogger(__name__)`` in
  the parent's ``__init__`` keeps naming the parent's logger), and ``__package__`` its package's;
- refused: the module's other implicit attributes (``__file__``, ``__spec__``, ``__loader__``,
  ``__cached__``, ``__doc__``, ``__builtins__``, ``__path__``, ``__annotations__``), the class
  body's ``__module__`` and ``__qualname__``, a method's ``__class__``; the namespaces
  ``globals()``, and in inlined code ``locals()``, ``vars()`` and ``dir()`` without an argument (the
  class's ``__init__`` has its own locals beside the inlined ones); ``eval`` and ``exec`` given no
  namespace; frame inspection (``sys._getframe``, ``inspect.currentframe``, ``inspect.stack``,
  ``inspect.getouterframes``, ``inspect.trace``, ``traceback.extract_stack``,
  ``traceback.format_stack``, ``traceback.print_stack``, ``traceback.walk_stack``).

A name the parent's module binds itself (``__doc__ = ...``, an import of ``globals``) is an
ordinary global, which DC608 binds. ``type(self).__name__`` and ``self.__class__`` read the
instance, which is the same before and after: they are left alone.

## Why
Each of these reads where the code is, not what it says: moved into the class's module,
``__name__`` names the class's module and the logger is another one, ``__file__`` names another
file, ``globals()`` is another namespace, ``locals()`` sees the class's locals too, a frame is the
class's function in the class's file, ``__class__`` is the class. Every check on the patched
file passes.

``__file__`` is refused rather than spelt another way: a path computed without the parent's
module (``importlib.util.find_spec(...).origin``) differs for zip imports, frozen and namespace
modules, and importing the module to ask it is the work the patch removes.

## Known problems
The literal is the module name as the tree names it (the import name from ROOT); a module run
as ``__main__`` or imported under another name had another ``__name__``. A log record's or a
warning's file, line and function (``logger.info``, ``warnings.warn``) name where the code now is,
and a ``warnings`` filter by module sees the class's module: not refused. Frame inspection
reached through a helper the moved code calls is not seen.

## Fix safety
Safe for the literals: the parent's module's ``__name__`` is that string while it is imported
under that name. Anything else is refused (DC510): no patch is written.
"""

from __future__ import annotations

import ast

from ..ast_util import walk
from ..errors import UnsafeError

ID = "DC614"
NAME = "place-reads"

# Set by the import system on every module: what the moved code read was the parent's module's.
_MODULE_ATTRS = {"__file__", "__spec__", "__loader__", "__cached__", "__doc__", "__builtins__", "__path__", "__annotations__"}
# Bound by the class body (``__module__``, ``__qualname__``) or by the compiler (``__class__``).
_CLASS_NAMES = {"__module__", "__qualname__", "__class__"}
_LITERALS = {"__name__", "__package__"}
_FRAMES = {"sys._getframe", "inspect.currentframe", "inspect.stack", "inspect.getouterframes", "inspect.trace",
           "traceback.extract_stack", "traceback.format_stack", "traceback.print_stack", "traceback.walk_stack"}
_LOCAL_NAMESPACES = {"locals", "vars", "dir"}


def literals(pmod, free: set[str]) -> dict[str, str]:
    """The names of ``free`` (read by moved code, unbound in the parent's module) that become a
    literal: name -> its source."""
    package = pmod.name if pmod.is_package else pmod.name.rpartition(".")[0]
    values = {"__name__": pmod.name, "__package__": package}
    return {n: f'"{values[n]}"' for n in sorted(free & _LITERALS)}


def check(a, inlined: list[ast.AST], copied: list[ast.AST], free: set[str], unbound) -> None:
    """Refuse (UnsafeError) a read of where the code is in what the rewrite moves. ``free``: the
    globals the moved code reads; ``unbound(name)``: whether the parent's module leaves ``name`` to
    the module's implicit attributes or the builtins (binds it nowhere itself)."""
    p = a.parent.name
    for name in sorted(free & (_MODULE_ATTRS | _CLASS_NAMES)):
        if unbound(name):
            what = "the class" if name in _CLASS_NAMES else "the module"
            raise UnsafeError(f"{p}'s code reads {name}, which is {what} it is written in: moved into {a.cls.name}, "
                              f"it would read {a.cls.name}'s", ID)
    for nodes, inline in ((inlined, True), (copied, False)):
        for node in nodes:
            for call in (n for n in walk(node) if isinstance(n, ast.Call)):
                why = _reads_place(call, inline, a.parent.module, unbound)
                if why:
                    raise UnsafeError(f"{p}'s code at {a.parent.module.rel}:{call.lineno} calls {why}; moved into "
                                      f"{a.cls.name} it would see {a.cls.name}'s instead", ID)


def _reads_place(call: ast.Call, inline: bool, pmod, unbound) -> str | None:
    f = call.func
    if isinstance(f, ast.Name) and unbound(f.id):
        if f.id == "globals":
            return "globals(), the namespace of the module it is written in"
        if inline and f.id in _LOCAL_NAMESPACES and not call.args and not call.keywords:
            return f"{f.id}(), the locals of the function it is written in"
        if f.id in ("eval", "exec") and len(call.args) < 2 and not call.keywords:
            return f"{f.id}() with no namespace, which runs in the one it is written in"
    q = pmod.qualify(f) if isinstance(f, (ast.Name, ast.Attribute)) else None
    if q in _FRAMES:
        return f"{q}(), which inspects the frame it runs in"
    return None
