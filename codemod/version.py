"""The tool's name and version, in a module of their own: every other module may import it,
and it imports nothing (the package's ``__init__`` re-exports them)."""

__version__ = "0.1.0"
TOOL_NAME = "decouple"
