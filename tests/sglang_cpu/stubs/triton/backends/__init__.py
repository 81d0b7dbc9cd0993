"""Stand-in for ``triton.backends``: no backend is registered.

``torch.utils._triton.has_triton()`` reads ``triton.backends.backends``; an
empty mapping tells torch that no device can run Triton here.
"""

from . import compiler  # noqa: F401

backends: dict = {}
