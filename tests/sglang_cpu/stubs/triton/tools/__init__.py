"""Stand-in for ``triton.tools``."""

from . import disasm, tensor_descriptor  # noqa: F401
