"""Shared helpers for the CPU stand-in of ``triton``.

Nothing here can compile or launch a kernel. The goal is only that modules
which *define* Triton kernels at import time (decorators, ``tl.constexpr``
annotations, dtype constants) import cleanly on a machine without a GPU.
Anything that would really run a kernel raises ``TritonUnavailable``.
"""

from __future__ import annotations

import functools


class TritonUnavailable(RuntimeError):
    """Raised when code tries to use Triton for real on the CPU stand-in."""


def unavailable(what: str):
    raise TritonUnavailable(
        f"{what}: triton is a CPU stand-in here (tests/sglang_cpu/stubs); "
        "no kernel can be compiled or launched"
    )


class Placeholder:
    """An inert named object: a value that may be referenced, never used.

    Returned for names that the stand-in does not spell out (for example
    ``tl.sigmoid`` or ``libdevice.tanh``). Calling it raises.
    """

    def __init__(self, qualname: str):
        self._qualname = qualname

    def __repr__(self) -> str:
        return f"<triton stand-in {self._qualname}>"

    def __call__(self, *args, **kwargs):
        unavailable(self._qualname)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(f"{self._qualname}.{name}")


def module_getattr(module_name: str):
    """Build a PEP 562 ``__getattr__`` that hands out ``Placeholder`` objects."""

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return Placeholder(f"{module_name}.{name}")

    return __getattr__


def passthrough_decorator(*dargs, **dkwargs):
    """``@deco`` and ``@deco(...)`` both return the decorated object unchanged."""
    if len(dargs) == 1 and callable(dargs[0]) and not dkwargs:
        return dargs[0]

    def wrap(fn):
        return fn

    return wrap


def copy_metadata(wrapper, fn) -> None:
    try:
        functools.update_wrapper(wrapper, fn)
    except (AttributeError, TypeError):
        pass
