"""Stand-in for ``triton.compiler.errors``."""


class CompilationError(Exception):
    pass
