"""CPU stand-in for ``torchvision`` (tests only).

SGLang's multimodal helpers import torchvision at module level, and
``transformers`` probes it with ``importlib.util.find_spec`` and then reads
``__version__``. This is a real on-disk package (so ``find_spec`` returns a
spec with a loader) whose names are inert: image ops raise if called.
"""

from . import io, transforms  # noqa: F401
from ._placeholder import module_getattr

__version__ = "0.28.0+stub"
IS_CPU_STAND_IN = True

__getattr__ = module_getattr("torchvision")
