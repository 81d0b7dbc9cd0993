"""Stand-in for ``triton.backends.compiler``.

Deliberately has no ``AttrsDescriptor``: torch picks its newest code path
when that name is absent.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class GPUTarget:
    backend: str
    arch: object
    warp_size: int


class BaseBackend:
    def __init__(self, target):
        self.target = target
