"""Stand-in for ``triton.tools.disasm``."""

from .._placeholder import unavailable


def extract(*args, **kwargs):
    unavailable("triton.tools.disasm.extract")
