"""Stand-in for ``triton.language.extra.cuda``: inert placeholders."""

from ...._placeholder import Placeholder, module_getattr
from . import libdevice  # noqa: F401

globaltimer = Placeholder("triton.language.extra.cuda.globaltimer")
smid = Placeholder("triton.language.extra.cuda.smid")

__getattr__ = module_getattr("triton.language.extra.cuda")
