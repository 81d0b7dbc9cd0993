"""decouple: inline the part of a parent class that a subclass really uses, then reparent it.

The pipeline, one module each:
discover (sources) -> index (classes) -> analyse (uses, with evidence) -> verdict ->
slice (the parent's __init__) -> rewrite (the class) -> imports -> check -> emit.

The Python API (``docs/api.md``): ``from codemod import decouple``. Its names are imported on
first use, so that ``import codemod`` (which the command line does too) stays cheap.
"""

from .version import TOOL_NAME, __version__

_API = ("decouple", "Result", "ClassVerdict", "Kept", "Dropped", "Evidence", "Patch", "PatchedFile", "Decision",
        "DecoupleError", "UsageError", "UnsafeError")
__all__ = list(_API)


def __getattr__(name: str):
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
