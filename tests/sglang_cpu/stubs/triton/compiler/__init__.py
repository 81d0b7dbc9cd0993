"""Stand-in for ``triton.compiler``."""

from . import compiler, errors  # noqa: F401
from .compiler import ASTSource, CompiledKernel  # noqa: F401
from .errors import CompilationError  # noqa: F401
