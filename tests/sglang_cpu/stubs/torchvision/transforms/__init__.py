"""Stand-in for ``torchvision.transforms``."""

from .._placeholder import module_getattr
from . import functional, v2  # noqa: F401
from .functional import InterpolationMode  # noqa: F401


class _Transform:
    """Records its arguments; applying it raises."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __call__(self, *args, **kwargs):
        from .._placeholder import TorchvisionUnavailable

        raise TorchvisionUnavailable(f"{type(self).__name__}: torchvision stand-in")


class Compose(_Transform):
    pass


class Normalize(_Transform):
    pass


class Resize(_Transform):
    pass


class CenterCrop(_Transform):
    pass


class ToTensor(_Transform):
    pass


class Lambda(_Transform):
    pass


__getattr__ = module_getattr("torchvision.transforms")
