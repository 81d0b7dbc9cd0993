"""Stand-in for ``triton.runtime``."""

from .._placeholder import module_getattr
from . import autotuner, cache, driver as _driver_module, errors, jit  # noqa: F401
from .autotuner import Autotuner, Config, Heuristics, OutOfResources  # noqa: F401
from .driver import driver  # noqa: F401
from .jit import JITFunction, KernelInterface  # noqa: F401

__getattr__ = module_getattr("triton.runtime")
