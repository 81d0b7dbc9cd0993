"""Stand-in for ``triton.runtime.errors``."""

from .autotuner import OutOfResources, PTXASError  # noqa: F401


class InterpreterError(Exception):
    pass
