"""Stand-in for ``triton.language.math``: every name is an inert placeholder."""

from .._placeholder import module_getattr

__getattr__ = module_getattr("triton.language.math")
