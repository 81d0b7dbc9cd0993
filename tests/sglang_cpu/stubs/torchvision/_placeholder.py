"""Inert placeholders for the CPU stand-in of ``torchvision`` (tests only)."""

from __future__ import annotations


class TorchvisionUnavailable(RuntimeError):
    """Raised when code tries to use the stand-in for real work."""


class Placeholder:
    """A named value that may be referenced at import time; calling it raises."""

    def __init__(self, qualname: str):
        self._qualname = qualname

    def __repr__(self) -> str:
        return f"<torchvision stand-in {self._qualname}>"

    def __call__(self, *args, **kwargs):
        raise TorchvisionUnavailable(
            f"{self._qualname}: torchvision is a stand-in here (tests/sglang_cpu/stubs)"
        )

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(f"{self._qualname}.{name}")


def module_getattr(module_name: str):
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return Placeholder(f"{module_name}.{name}")

    return __getattr__
