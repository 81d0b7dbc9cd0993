"""Stand-in for ``triton.language.extra``."""

from ..._placeholder import module_getattr
from . import cuda, libdevice  # noqa: F401

__getattr__ = module_getattr("triton.language.extra")
