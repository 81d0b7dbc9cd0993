"""Stand-in for ``torchvision.io``."""

from .._placeholder import module_getattr

__getattr__ = module_getattr("torchvision.io")
