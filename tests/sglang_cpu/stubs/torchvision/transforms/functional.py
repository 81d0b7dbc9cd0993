"""Stand-in for ``torchvision.transforms.functional``."""

from enum import Enum

from .._placeholder import module_getattr


class InterpolationMode(Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


__getattr__ = module_getattr("torchvision.transforms.functional")
