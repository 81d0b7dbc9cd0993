"""decouple: inline the part of a parent class that a subclass really uses, then reparent it.

The pipeline, one module each:
discover (sources) -> index (classes) -> analyse (uses, with evidence) -> verdict ->
slice (the parent's __init__) -> rewrite (the class) -> imports -> check -> emit.
"""

__version__ = "0.1.0"
TOOL_NAME = "decouple"
