"""Stand-in for ``torchvision.transforms.v2``."""

from ..._placeholder import module_getattr
from . import functional  # noqa: F401

__getattr__ = module_getattr("torchvision.transforms.v2")
