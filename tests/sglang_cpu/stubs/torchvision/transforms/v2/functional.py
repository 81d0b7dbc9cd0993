"""Stand-in for ``torchvision.transforms.v2.functional``."""

from ..._placeholder import module_getattr
from ..functional import InterpolationMode  # noqa: F401

__getattr__ = module_getattr("torchvision.transforms.v2.functional")
