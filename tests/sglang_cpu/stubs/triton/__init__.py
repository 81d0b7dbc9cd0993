"""CPU stand-in for the ``triton`` package (tests only).

Written for the decouple project's SGLang-on-CPU tests: SGLang defines many
Triton kernels at module level, and there is no usable Triton on a CPU-only
machine. This package offers just enough names for those *definitions* to
import. Launching a kernel raises ``triton._placeholder.TritonUnavailable``.

Put the directory that holds this package first on ``sys.path``.
"""

from __future__ import annotations

from . import language  # noqa: F401  (``triton.language`` as an attribute)
from . import backends, compiler, knobs, runtime, testing, tools  # noqa: F401
from ._placeholder import TritonUnavailable, module_getattr  # noqa: F401
from .runtime.autotuner import Config, autotune, heuristics  # noqa: F401
from .runtime.jit import JITFunction, jit  # noqa: F401

__version__ = "3.4.0"
IS_CPU_STAND_IN = True

constexpr = language.constexpr


def cdiv(x, y):
    """Ceiling division, as ``triton.cdiv``."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """Smallest power of two >= n (1 for n <= 1), as ``triton.next_power_of_2``."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


class OutOfResources(Exception):
    pass


class CompilationError(Exception):
    pass


__getattr__ = module_getattr("triton")
