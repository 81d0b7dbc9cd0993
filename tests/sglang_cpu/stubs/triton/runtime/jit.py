"""Stand-in for ``triton.runtime.jit``: ``@triton.jit`` keeps the Python function."""

from __future__ import annotations

from .._placeholder import copy_metadata, module_getattr, unavailable


class KernelInterface:
    """Base of launchable kernels: ``kernel[grid](*args)`` raises here."""

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            unavailable(f"launching {self!r}")

        return launch

    def run(self, *args, **kwargs):
        unavailable(f"running {self!r}")


class JITFunction(KernelInterface):
    """Wraps a kernel definition; keeps ``fn`` so callers can introspect it."""

    def __init__(self, fn, **options):
        self.fn = fn
        self.options = options
        self.src = None
        copy_metadata(self, fn)
        # functools.update_wrapper sets __wrapped__; keep the plain attributes.
        self.__name__ = getattr(fn, "__name__", "kernel")

    def __call__(self, *args, **kwargs):
        unavailable(f"calling @triton.jit function {self.__name__}")

    def __repr__(self) -> str:
        return f"<JITFunction stand-in {self.__name__}>"


def jit(fn=None, **options):
    """``@triton.jit`` and ``@triton.jit(**options)``."""
    if fn is not None:
        return JITFunction(fn, **options)

    def wrap(f):
        return JITFunction(f, **options)

    return wrap


def constexpr_function(fn):
    """``@triton.constexpr_function``: a compile-time helper; stays callable."""
    return fn


__getattr__ = module_getattr("triton.runtime.jit")
