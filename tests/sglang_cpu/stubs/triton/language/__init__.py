"""Stand-in for ``triton.language`` (``tl``).

Defines the names used *outside* kernel bodies: ``constexpr`` (annotations and
module-level constants), ``dtype`` and its instances (default arguments and
dtype maps), ``tensor``. Any other name (``tl.load``, ``tl.sum`` ...) is an
inert placeholder that raises when called, which only happens inside kernels.
"""

from __future__ import annotations

from .._placeholder import module_getattr, unavailable
from . import core, extra, math  # noqa: F401
from .core import (  # noqa: F401
    bfloat16,
    block_type,
    constexpr,
    dtype,
    float8e4b8,
    float8e4b15,
    float8e4nv,
    float8e5,
    float8e5b16,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    pointer_type,
    tensor,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
)


def static_assert(cond, msg=""):
    return None


def static_print(*args, **kwargs):
    return None


def make_tensor_descriptor(*args, **kwargs):
    unavailable("triton.language.make_tensor_descriptor")


__getattr__ = module_getattr("triton.language")
