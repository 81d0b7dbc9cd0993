"""Stand-in for ``triton.compiler.compiler``: nothing can be compiled."""

from .._placeholder import unavailable
from ..runtime.cache import triton_key  # noqa: F401


class ASTSource:
    def __init__(self, fn=None, signature=None, constexprs=None, attrs=None):
        self.fn = fn
        self.signature = signature
        self.constexprs = constexprs
        self.attrs = attrs


class CompiledKernel:
    def __init__(self, *args, **kwargs):
        unavailable("triton.compiler.CompiledKernel")


def compile(*args, **kwargs):
    unavailable("triton.compile")


def make_backend(target):
    unavailable("triton.compiler.make_backend")
