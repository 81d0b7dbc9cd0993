"""Stand-in for ``triton.language.extra.cuda.libdevice``: inert placeholders."""

from ...._placeholder import module_getattr

__getattr__ = module_getattr("triton.language.extra.cuda.libdevice")
