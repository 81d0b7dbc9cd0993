"""Stand-in for ``triton.language.extra.libdevice``: inert placeholders."""

from ..._placeholder import module_getattr

__getattr__ = module_getattr("triton.language.extra.libdevice")
